/* test_log.c - common/log.c: when stderr is the journal stream named by
 * JOURNAL_STREAM a line carries its sd-daemon priority and no timestamp;
 * otherwise (no JOURNAL_STREAM, or one naming another file) it keeps the
 * terminal format "TIME PROG LEVEL: MESSAGE". Levels above the maximum are
 * left out either way.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"

/* Runs log_init then a few lines with fd 2 on a temp file; returns the text written. journal_stream:
 * set JOURNAL_STREAM to that file's dev:ino (true) or leave it unset (false). */
static char *capture(bool journal_stream, const char *other_stream)
{
	char path[] = "/tmp/schedio-test-log-XXXXXX", env[64];
	static char text[4096];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct stat st;
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	unsetenv("JOURNAL_STREAM");
	if (journal_stream) {
		snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
		setenv("JOURNAL_STREAM", env, 1);
	} else if (other_stream) {
		setenv("JOURNAL_STREAM", other_stream, 1);
	}
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	log_init("schedio-agent", LOG_INFO);
	log_error("cannot spool report %d", 7);
	log_warn("spool\nfull");
	log_info("reporting");
	log_debug("not shown");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	unsetenv("JOURNAL_STREAM");
	n = pread(fd, text, sizeof(text) - 1, 0);
	assert_true(n >= 0);
	text[n] = '\0';
	close(fd);
	unlink(path);
	return text;
}

static void test_log_to_the_journal_carries_priority_without_timestamp(void **state)
{
	const char *text = capture(true, NULL);

	assert_string_equal(text, "<3>schedio-agent: cannot spool report 7\n"
				  "<4>schedio-agent: spool full\n" /* one entry: the line break dropped */
				  "<6>schedio-agent: reporting\n");
}

/* "2026-12-03T12:00:00.123Z schedio-agent error: ..." */
static void expect_terminal_format(const char *text)
{
	const char *line2 = strchr(text, '\n');

	assert_int_equal(text[4], '-');
	assert_int_equal(text[10], 'T');
	assert_int_equal(text[23], 'Z');
	assert_true(strncmp(text + 24, " schedio-agent error: cannot spool report 7\n", 44) == 0);
	assert_non_null(line2);
	assert_non_null(strstr(line2, " schedio-agent warn: spool\nfull\n"));
	assert_non_null(strstr(line2, " schedio-agent info: reporting\n"));
	assert_null(strstr(text, "not shown"));
	assert_null(strchr(text, '<'));
}

static void test_log_to_a_terminal_keeps_the_timestamp(void **state)
{
	expect_terminal_format(capture(false, NULL));
}

static void test_log_with_another_journal_stream_keeps_the_timestamp(void **state)
{
	/* a child of the service whose stderr went elsewhere still inherits JOURNAL_STREAM */
	expect_terminal_format(capture(false, "1:1"));
	expect_terminal_format(capture(false, "garbage"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_to_the_journal_carries_priority_without_timestamp),
		cmocka_unit_test(test_log_to_a_terminal_keeps_the_timestamp),
		cmocka_unit_test(test_log_with_another_journal_stream_keeps_the_timestamp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
