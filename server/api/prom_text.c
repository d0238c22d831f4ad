/* prom_text.c - see prom_text.h. */
#include "server/api/prom_text.h"

#include <stdarg.h>
#include <stdio.h>

void prom_printf(const struct prom_out *o, const char *fmt, ...)
{
	char buf[2048]; /* a line: a name, a few label values of at most a few hundred bytes, a number */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		o->out(o->arg, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void prom_escape(char *out, size_t outlen, const char *s)
{
	size_t o = 0;

	for (; *s && o + 3 < outlen; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			out[o++] = '\\';
			out[o++] = *s == '\n' ? 'n' : *s;
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
}
