/* sched_slots.c - naming the sched_ext histograms (see sched_slots.h).
 *
 * The watcher (sched_ext_watch.c) sees a change a little after it happened:
 * at once on a kernel uevent, up to a poll period late without one. The
 * rules make that lag harmless in the usual sequences:
 * - a scheduler appears while the current slot has no name: the slot takes
 *   its name. Nothing ran in the sched_ext class while none was loaded, so
 *   every sample in the slot is the new scheduler's, including those from
 *   before the poll noticed it;
 * - the scheduler goes away: move to a fresh, unnamed slot. Every sample of
 *   the old one came before the poll that saw it gone, so it stays in its
 *   slot, and the fresh slot waits for the next scheduler's name;
 * - another scheduler replaces the current one unseen (no uevent for the
 *   old one's removal, only a poll): move to a fresh slot named after it;
 *   the new scheduler's samples before that count under the old one (the
 *   only inexact case; with uevents the removal is seen first).
 * Slots are reused round-robin, so more than RUNQLAT_EXT_SLOTS - 1 changes
 * within one report interval merge the oldest slot into the newest.
 */
#include "agent/runqlat/sched_slots.h"

#include <stdio.h>
#include <string.h>

static void name_slot(struct sched_slots *s, unsigned i, const char *ops)
{
	snprintf(s->name[i], sizeof(s->name[i]), "%s", ops);
}

void sched_slots_init(struct sched_slots *s, const char *ops)
{
	memset(s, 0, sizeof(*s));
	name_slot(s, 0, ops);
}

unsigned sched_slots_observe(struct sched_slots *s, const char *ops)
{
	const char *cur = s->name[s->cur];

	if (*ops && !*cur) {
		name_slot(s, s->cur, ops);
	} else if (strncmp(ops, cur, SCHED_SLOTS_NAME_MAX - 1) != 0) {
		/* gone ("" now) or replaced by another: a fresh slot */
		s->cur = (s->cur + 1) % RUNQLAT_EXT_SLOTS;
		name_slot(s, s->cur, ops);
	}
	return s->cur;
}

const char *sched_slots_name(const struct sched_slots *s, unsigned i)
{
	return i < RUNQLAT_EXT_SLOTS ? s->name[i] : "";
}
