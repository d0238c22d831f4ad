/* conditional.c - the conditional GET of the dashboard's static files. The
 * entity-tag is made of the file's size and mtime, so a rebuilt file gets a
 * new one; only IMF-fixdate is read from If-Modified-Since (what browsers
 * echo back of our Last-Modified). Whatever cannot be parsed is treated as
 * "does not match": the answer is then the whole file, which is never wrong.
 */
#include "server/http/conditional.h"

#include <stdio.h>
#include <string.h>

static const char DAYS[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char MONTHS[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

void conditional_etag(char out[CONDITIONAL_ETAG_MAX], uint64_t size, int64_t mtime_ns)
{
	snprintf(out, CONDITIONAL_ETAG_MAX, "\"%llx-%llx\"", (unsigned long long)size, (unsigned long long)mtime_ns);
}

void conditional_http_date(char out[CONDITIONAL_DATE_MAX], time_t t)
{
	struct tm tm;

	out[0] = '\0';
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
		return;
	snprintf(out, CONDITIONAL_DATE_MAX, "%s, %02d %s %04d %02d:%02d:%02d GMT", DAYS[tm.tm_wday], tm.tm_mday,
		 MONTHS[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* n decimal digits at s; -1 if one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

bool conditional_parse_http_date(const char *s, time_t *t)
{
	/* "Sun, 06 Nov 1994 08:49:37 GMT": every field at a fixed offset */
	struct tm tm = { 0 };
	int day = -1, mon = -1;
	time_t v;

	if (strlen(s) != 29 || memcmp(s + 3, ", ", 2) || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[19] != ':' ||
	    s[22] != ':' || strcmp(s + 25, " GMT"))
		return false;
	for (int i = 0; i < 7; i++)
		if (memcmp(s, DAYS[i], 3) == 0)
			day = i;
	for (int i = 0; i < 12; i++)
		if (memcmp(s + 8, MONTHS[i], 3) == 0)
			mon = i;
	tm.tm_mday = digits(s + 5, 2);
	tm.tm_year = digits(s + 12, 4) - 1900;
	tm.tm_hour = digits(s + 17, 2);
	tm.tm_min = digits(s + 20, 2);
	tm.tm_sec = digits(s + 23, 2);
	tm.tm_mon = mon;
	if (day < 0 || mon < 0 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_year < -1900 || tm.tm_hour > 23 ||
	    tm.tm_hour < 0 || tm.tm_min > 59 || tm.tm_min < 0 || tm.tm_sec > 59 || tm.tm_sec < 0)
		return false;
	v = timegm(&tm);
	/* timegm normalises 31 Feb into March: such a date is not one (nor is a
	 * leap second, refused above: no file of ours was modified in one) */
	if (tm.tm_mon != mon || tm.tm_wday != day)
		return false;
	*t = v;
	return true;
}

/* Whether the If-None-Match list holds etag (weak comparison: W/ is ignored) or "*". */
static bool etag_listed(const char *list, const char *etag)
{
	size_t want = strlen(etag) - 2; /* etag without its quotes */
	const char *s = list;

	for (;;) {
		const char *open, *close;

		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		if (!*s)
			return false;
		if (*s == '*')
			return true;
		if (s[0] == 'W' && s[1] == '/')
			s += 2;
		if (*s != '"')
			return false; /* not an entity-tag: the list cannot be read on */
		open = s + 1;
		close = strchr(open, '"');
		if (!close)
			return false;
		if ((size_t)(close - open) == want && memcmp(open, etag + 1, want) == 0)
			return true;
		s = close + 1;
	}
}

bool conditional_not_modified(const char *if_none_match, const char *if_modified_since, const char *etag, time_t mtime)
{
	time_t since;

	if (if_none_match)
		return strlen(etag) >= 2 && etag_listed(if_none_match, etag);
	if (if_modified_since && conditional_parse_http_date(if_modified_since, &since))
		return mtime <= since;
	return false;
}
