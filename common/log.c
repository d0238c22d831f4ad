/* log.c - one line per message, written with a single fprintf so lines from
 * different threads do not interleave.
 *
 * Under systemd stderr is a stream into the journal, which would store every
 * line at the unit's default priority (info) with its own timestamp. So when
 * stderr is that stream (JOURNAL_STREAM names its device and inode, as
 * sd_journal_stream_fd(3) describes) a line carries the sd-daemon(3) priority
 * prefix ("<3>" error ... "<7>" debug) and no timestamp of its own. A child
 * whose stderr was redirected inherits JOURNAL_STREAM but fails the
 * comparison, so it keeps the terminal format.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *log_prog = "schedio";
static enum log_level log_max = LOG_INFO;
/* -1 until known: programs that never call log_init (the CLI) decide at their first line */
static int log_journal = -1;

/* True when fd 2 is the stream JOURNAL_STREAM ("DEVICE:INODE") names. */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char *end;

	if (!env || !*env)
		return false;
	dev = strtoull(env, &end, 10);
	if (*end != ':')
		return false;
	ino = strtoull(end + 1, &end, 10);
	if (*end != '\0' || fstat(STDERR_FILENO, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(const char *prog, enum log_level max)
{
	log_prog = prog;
	log_max = max;
	__atomic_store_n(&log_journal, stderr_is_journal(), __ATOMIC_RELAXED);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *names[] = { "error", "warn", "info", "debug" };
	static const char *priorities[] = { "<3>", "<4>", "<6>", "<7>" };
	char msg[1024], stamp[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int journal;

	if (lvl > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	journal = __atomic_load_n(&log_journal, __ATOMIC_RELAXED);
	if (journal < 0) {
		/* threads racing here compute the same answer */
		journal = stderr_is_journal();
		__atomic_store_n(&log_journal, journal, __ATOMIC_RELAXED);
	}
	if (journal) {
		/* The priority says the level, the journal adds the time. The journal reads a line
		 * break as a new entry at the default priority: one message stays one entry. */
		for (char *p = msg; (p = strchr(p, '\n'));)
			*p = ' ';
		fprintf(stderr, "%s%s: %s\n", priorities[lvl], log_prog, msg);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ldZ %s %s: %s\n", stamp, ts.tv_nsec / 1000000, log_prog, names[lvl], msg);
}
