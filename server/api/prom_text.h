/* prom_text.h - what every writer of /metrics' Prometheus text format shares:
 * where the text goes, one formatted line, and label values escaped.
 */
#ifndef SCHEDIO_SERVER_API_PROM_TEXT_H
#define SCHEDIO_SERVER_API_PROM_TEXT_H

#include <stddef.h>

/* Where exposition text goes: out(arg, text, len) for each piece. */
struct prom_out {
	void (*out)(void *arg, const char *text, size_t len);
	void *arg;
};

/* Formats one piece of text (at most 2047 bytes: longer is cut) and hands it to o. */
__attribute__((format(printf, 2, 3))) void prom_printf(const struct prom_out *o, const char *fmt, ...);

/* Writes s into out[outlen] as a label value: \, " and newline escaped, cut to fit. */
void prom_escape(char *out, size_t outlen, const char *s);

#endif /* SCHEDIO_SERVER_API_PROM_TEXT_H */
