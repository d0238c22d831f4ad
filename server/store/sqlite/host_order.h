/* host_order.h - the SQLite writer's (host id, rowid) pairs of a frozen
 * staging table put in host order, then rowid order, in time linear in their
 * number: a table holds a period's reports (300,000 a minute at 5,000 a
 * second), which a comparison sort kept the writer on for tens of ms. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_HOST_ORDER_H
#define SCHEDIO_SERVER_STORE_SQLITE_HOST_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sorts pairs by host id, then rowid: by radix when rowids ascend within each host, else by qsort. */
void host_order_sort(int64_t (*pairs)[2], size_t n);
/* Stable sort of pairs by host id alone, a byte a pass; false (pairs unchanged) with a negative id or no memory. */
bool host_order_radix(int64_t (*pairs)[2], size_t n);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_HOST_ORDER_H */
