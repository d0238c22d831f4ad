/* compare_select.h - the selector of one arm of a comparison (GET
 * /api/v1/compare?a=SEL&b=SEL): terms joined by commas, all of which must
 * hold, each one of
 *   sched=NAME        samples run by that scheduler group: a sched_ext ops
 *                     name, or eevdf / fair (both mean the kernel's own
 *                     classes, whatever the kernel's version calls them)
 *   label.KEY=VALUE   hosts that carried that label in the arm's window
 *   host=ID           one host (its machine id)
 *   kernel=PREFIX     reports from a kernel release starting with PREFIX
 * Parsing is pure (no allocation, no store), so it is unit tested and fuzzed
 * on its own; every malformed selector gets a message naming the bad term.
 */
#ifndef SCHEDIO_SERVER_COMPARE_COMPARE_SELECT_H
#define SCHEDIO_SERVER_COMPARE_COMPARE_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/labels.h"

#define COMPARE_SELECT_MAX_LEN 4096  /* bytes of a whole selector */
#define COMPARE_SELECT_MAX_LABELS 32 /* as many as a host may carry */
#define COMPARE_SELECT_MAX_NAME 256  /* scheduler and kernel, as reports limit them */
#define COMPARE_SELECT_MAX_HOST 128  /* host ids, as reports limit them */
#define COMPARE_SELECT_MAX_LABEL_KEY LABEL_KEY_MAX
#define COMPARE_SELECT_MAX_LABEL_VALUE LABEL_VALUE_MAX

struct compare_select_label {
	char key[COMPARE_SELECT_MAX_LABEL_KEY + 1];
	char value[COMPARE_SELECT_MAX_LABEL_VALUE + 1];
};

/* A parsed selector; an empty string is a term not given. */
struct compare_select {
	char sched[COMPARE_SELECT_MAX_NAME + 1];
	char host[COMPARE_SELECT_MAX_HOST + 1];
	char kernel[COMPARE_SELECT_MAX_NAME + 1];
	struct compare_select_label labels[COMPARE_SELECT_MAX_LABELS];
	size_t nlabels;
};

/* Parses text into *sel; 0, or -1 with why (naming the bad term) in err[errlen]. */
int compare_select_parse(const char *text, struct compare_select *sel, char *err, size_t errlen);
/* Writes sel's canonical text (sched, host, kernel, labels by key); returns the length it needed. */
size_t compare_select_format(const struct compare_select *sel, char *out, size_t cap);
/* True if sel's sched term takes samples of scheduler group group (true without a sched term). */
bool compare_select_sched_matches(const struct compare_select *sel, const char *group);
/* True if sel's kernel term takes a report from kernel release kernel (NULL: unknown). */
bool compare_select_kernel_matches(const struct compare_select *sel, const char *kernel);
/* True if sel's host term takes the host of machine id id. */
bool compare_select_host_matches(const struct compare_select *sel, const char *id);

#endif /* SCHEDIO_SERVER_COMPARE_COMPARE_SELECT_H */
