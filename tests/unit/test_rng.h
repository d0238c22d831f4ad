/* test_rng.h - a small deterministic generator (xorshift64) for unit tests
 * that need varied data, the same in every run. */
#ifndef SCHEDIO_TESTS_UNIT_TEST_RNG_H
#define SCHEDIO_TESTS_UNIT_TEST_RNG_H

#include <stdint.h>

/* The next number below n (n > 0) from *state (never 0). */
static inline unsigned test_rng_below(uint64_t *state, unsigned n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (unsigned)(*state % n);
}

#endif /* SCHEDIO_TESTS_UNIT_TEST_RNG_H */
