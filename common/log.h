/* log.h - leveled log lines on stderr, prefixed with time and program name,
 * or, when stderr is the systemd journal, with the line's priority instead. */
#ifndef SCHEDIO_COMMON_LOG_H
#define SCHEDIO_COMMON_LOG_H

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Sets the program name and the most verbose level printed, and checks whether stderr is the journal. */
void log_init(const char *prog, enum log_level max);
/* Prints one line at the given level if it is enabled. */
__attribute__((format(printf, 2, 3))) void log_msg(enum log_level lvl, const char *fmt, ...);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* SCHEDIO_COMMON_LOG_H */
