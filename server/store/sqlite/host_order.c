/* host_order.c - see host_order.h. Pairs come in arrival order, which is
 * rowid order, so a stable sort by host alone gives host then rowid order; the
 * result is checked, and pairs found out of that order are sorted by both keys
 * with qsort instead. */
#include "server/store/sqlite/host_order.h"

#include <stdlib.h>
#include <string.h>

static int by_host(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Whether pairs are in host order, and by rowid within a host. */
static bool host_ordered(int64_t (*pairs)[2], size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (by_host(pairs[i - 1], pairs[i]) > 0)
			return false;
	return true;
}

bool host_order_radix(int64_t (*pairs)[2], size_t n)
{
	int64_t(*tmp)[2], (*src)[2] = pairs, (*dst)[2];
	uint64_t max = 0;
	int passes = 0;

	for (size_t i = 0; i < n; i++) {
		if (pairs[i][0] < 0)
			return false;
		if ((uint64_t)pairs[i][0] > max)
			max = (uint64_t)pairs[i][0];
	}
	for (uint64_t m = max; m; m >>= 8)
		passes++;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return false;
	dst = tmp;
	for (int p = 0; p < passes; p++) {
		size_t count[256] = { 0 }, at = 0;
		int shift = 8 * p;

		for (size_t i = 0; i < n; i++)
			count[((uint64_t)src[i][0] >> shift) & 0xff]++;
		for (int b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t b = ((uint64_t)src[i][0] >> shift) & 0xff;

			dst[count[b]][0] = src[i][0];
			dst[count[b]++][1] = src[i][1];
		}
		dst = src;
		src = src == pairs ? tmp : pairs;
	}
	if (src != pairs)
		memcpy(pairs, src, n * sizeof(*pairs));
	free(tmp);
	return true;
}

void host_order_sort(int64_t (*pairs)[2], size_t n)
{
	if (!host_order_radix(pairs, n) || !host_ordered(pairs, n))
		qsort(pairs, n, sizeof(*pairs), by_host);
}
