/* json_arena.c - see json_arena.h. The hooks are installed once for the
 * process; with no arena active on the calling thread they are malloc and
 * free. free() of an arena pointer is a no-op (the range check is against
 * the calling thread's arena, which is why arena memory must not travel to
 * another thread). When the arena is full, allocations fall back to malloc. */
#include "server/json/json_arena.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <cjson/cJSON.h>

#define ARENA_SIZE (2u << 20)

static __thread struct {
	char *base;
	size_t used;
	bool active;
	bool spilled; /* an allocation fell back to malloc since json_arena_begin */
} arena;

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
static pthread_key_t arena_key; /* frees a thread's arena when the thread exits */

static void *arena_malloc(size_t n)
{
	if (arena.active && n <= ARENA_SIZE - arena.used) {
		void *p = arena.base + arena.used;

		arena.used += (n + 15) & ~(size_t)15;
		if (arena.used > ARENA_SIZE)
			arena.used = ARENA_SIZE;
		return p;
	}
	if (arena.active)
		arena.spilled = true;
	return malloc(n);
}

static void arena_free(void *p)
{
	if (arena.base && (char *)p >= arena.base && (char *)p < arena.base + ARENA_SIZE)
		return;
	free(p);
}

static void install_hooks(void)
{
	cJSON_Hooks hooks = { .malloc_fn = arena_malloc, .free_fn = arena_free };

	cJSON_InitHooks(&hooks);
	pthread_key_create(&arena_key, free);
}

void json_arena_begin(void)
{
	pthread_once(&hooks_once, install_hooks);
	if (!arena.base) {
		arena.base = aligned_alloc(16, ARENA_SIZE);
		pthread_setspecific(arena_key, arena.base);
	}
	arena.used = 0;
	arena.spilled = false;
	arena.active = arena.base != NULL;
}

bool json_arena_end(void)
{
	bool clean = arena.active && !arena.spilled;

	arena.active = false;
	arena.used = 0;
	return clean;
}
