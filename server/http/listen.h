/* listen.h - parsing ADDR:PORT and opening the listening socket ourselves,
 * so "port in use" or "bad address" is reported precisely before the HTTP
 * daemon starts.
 */
#ifndef SCHEDIO_SERVER_HTTP_LISTEN_H
#define SCHEDIO_SERVER_HTTP_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

/* Opens a listening TCP socket on spec (ADDR:PORT or [ADDR6]:PORT); returns the fd
 * or -1 with the reason in err. *port gets the bound port, *loopback whether
 * the address is a loopback one. */
int listen_open(const char *spec, unsigned short *port, bool *loopback, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_HTTP_LISTEN_H */
