/* listen.c - see listen.h. Only numeric addresses are accepted: a server
 * that silently binds whatever a name resolves to is a surprise in a fleet.
 */
#include "server/http/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int listen_open(const char *spec, unsigned short *port, bool *loopback, char *err, size_t errlen)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sslen;
	char host[64];
	const char *colon, *h = spec;
	size_t hlen;
	char *end;
	long p;
	int fd = -1, one = 1;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':')
			goto bad;
		h = spec + 1;
		hlen = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			goto bad;
		hlen = (size_t)(colon - spec);
	}
	if (hlen == 0 || hlen >= sizeof(host))
		goto bad;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || *end || colon[1] == '\0' || p < 0 || p > 65535)
		goto bad;
	if (strcmp(host, "localhost") == 0)
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)p);
		sslen = sizeof(*sin);
		*loopback = (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)p);
		sslen = sizeof(*sin6);
		*loopback = IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr);
	} else {
		goto bad;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sslen) < 0 || listen(fd, 1024) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == 0)
		*port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						      : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
bad:
	snprintf(err, errlen, "bad listen address '%s' (want ADDR:PORT or [ADDR6]:PORT, numeric)", spec);
	return -1;
}
