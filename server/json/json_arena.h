/* json_arena.h - a per-thread bump allocator for cJSON while a report is
 * parsed. A realistic report is thousands of small JSON nodes; taking them
 * from an arena that is dropped whole after the parse replaces thousands of
 * malloc/free pairs per report (the largest cost of ingest otherwise).
 * Memory taken while the arena is active must be freed before
 * json_arena_end, on the same thread; everything else is plain malloc. */
#ifndef SCHEDIO_SERVER_JSON_JSON_ARENA_H
#define SCHEDIO_SERVER_JSON_JSON_ARENA_H

#include <stdbool.h>

/* Routes this thread's cJSON allocations to its arena until json_arena_end. */
void json_arena_begin(void);
/* Stops using the arena and recycles it. Returns true if every allocation since
 * json_arena_begin came from the arena (trees built meanwhile may then be
 * dropped without cJSON_Delete); false if some came from malloc and must be freed. */
bool json_arena_end(void);

#endif /* SCHEDIO_SERVER_JSON_JSON_ARENA_H */
