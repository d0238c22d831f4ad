/* log.c - one line per message, written with a single fprintf so lines from
 * different threads do not interleave.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static const char *log_prog = "schedio";
static enum log_level log_max = LOG_INFO;

void log_init(const char *prog, enum log_level max)
{
	log_prog = prog;
	log_max = max;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *names[] = { "error", "warn", "info", "debug" };
	char msg[1024], stamp[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	if (lvl > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ldZ %s %s: %s\n", stamp, ts.tv_nsec / 1000000, log_prog, names[lvl], msg);
}
