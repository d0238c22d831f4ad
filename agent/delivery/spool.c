/* spool.c - the agent's on-disk queue of reports not yet acknowledged.
 *
 * A report is appended and fsync'd before it is sent, and removed only after
 * the server's 2xx, so a crash or an outage never loses one. Files are named
 * by seq, zero-padded, so replay order is the directory order. Each file is
 * a fixed header (magic, seq, drop count carried, payload length, CRC-32)
 * and the payload; a file is written under a temporary name and renamed, so
 * a crash leaves either the whole report or a temp file that the next open
 * removes. A file that is short or fails its CRC anyway (disk trouble, a
 * hand edit) is removed and counted as lost, never sent.
 *
 * Drops are never silent: every report carries how many reports were dropped
 * to make room for it (plus what those had carried), so the count survives
 * even when the report carrying it is dropped in turn. A new report is
 * written before the old ones are unlinked: a crash between the two
 * overstates the drop count for a moment rather than losing it.
 */
#include "agent/delivery/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/fsutil.h"
#include "common/log.h"

#define SPOOL_MAGIC "SCHSPL1\n"
#define SPOOL_SUFFIX ".rep"
#define SPOOL_NAME_LEN 24 /* 20 digits + ".rep" */
#define SPOOL_MAX_PAYLOAD (256u << 20)

struct spool_header {
	char magic[8];
	uint64_t seq;
	uint64_t carried;
	uint32_t len;
	uint32_t crc;
};

struct spool_entry {
	uint64_t seq;
	uint64_t size;    /* file size, header included */
	uint64_t carried; /* drops this report reports */
};

struct spool {
	int dirfd;
	char dir[4096];
	uint64_t max_bytes;
	uint64_t bytes;
	uint64_t lost; /* dropped or corrupt reports no surviving report carries yet */
	uint64_t last_seq;
	struct spool_entry *v; /* sorted by seq, oldest first */
	size_t n, cap;
};

static void entry_name(char *buf, size_t cap, uint64_t seq)
{
	snprintf(buf, cap, "%020" PRIu64 SPOOL_SUFFIX, seq);
}

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* short file */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads and checks one spool file; with payload, returns the payload malloc'd. -EBADMSG when corrupt. */
static int load_file(struct spool *sp, const char *name, struct spool_header *h, void **payload)
{
	struct stat st;
	void *buf = NULL;
	int fd, err;

	fd = openat(sp->dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_full(fd, h, sizeof(*h));
	if (err == -EIO)
		err = -EBADMSG;
	if (err)
		goto out;
	if (memcmp(h->magic, SPOOL_MAGIC, 8) != 0 || h->len > SPOOL_MAX_PAYLOAD || fstat(fd, &st) < 0 ||
	    (uint64_t)st.st_size != sizeof(*h) + h->len) {
		err = -EBADMSG;
		goto out;
	}
	buf = malloc((size_t)h->len + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	((char *)buf)[h->len] = '\0'; /* callers may treat a text payload as a string */
	err = read_full(fd, buf, h->len);
	if (err == -EIO)
		err = -EBADMSG;
	if (!err && (uint32_t)crc32(0, buf, h->len) != h->crc)
		err = -EBADMSG;
	if (!err && payload) {
		*payload = buf;
		buf = NULL;
	}
out:
	free(buf);
	close(fd);
	return err;
}

static int index_insert(struct spool *sp, const struct spool_entry *e)
{
	size_t i = sp->n;

	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 64;
		struct spool_entry *nv = realloc(sp->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sp->v = nv;
		sp->cap = cap;
	}
	/* seq only grows, so this is an append; the loop keeps order if it ever does not. */
	while (i > 0 && sp->v[i - 1].seq > e->seq)
		i--;
	if (i > 0 && sp->v[i - 1].seq == e->seq) { /* rewritten in place */
		sp->bytes -= sp->v[i - 1].size;
		sp->v[i - 1] = *e;
		sp->bytes += e->size;
		return 0;
	}
	memmove(&sp->v[i + 1], &sp->v[i], (sp->n - i) * sizeof(*sp->v));
	sp->v[i] = *e;
	sp->n++;
	sp->bytes += e->size;
	if (e->seq > sp->last_seq)
		sp->last_seq = e->seq;
	return 0;
}

static void index_remove_first(struct spool *sp)
{
	sp->bytes -= sp->v[0].size;
	memmove(&sp->v[0], &sp->v[1], (sp->n - 1) * sizeof(*sp->v));
	sp->n--;
}

static void remove_file(struct spool *sp, uint64_t seq)
{
	char name[SPOOL_NAME_LEN + 1];

	entry_name(name, sizeof(name), seq);
	if (unlinkat(sp->dirfd, name, 0) < 0 && errno != ENOENT)
		log_warn("cannot remove %s/%s: %s", sp->dir, name, strerror(errno));
}

static int is_entry_name(const char *name, uint64_t *seq)
{
	if (strlen(name) != SPOOL_NAME_LEN || strcmp(name + 20, SPOOL_SUFFIX) != 0)
		return 0;
	for (int i = 0; i < 20; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	*seq = strtoull(name, NULL, 10);
	return 1;
}

static int scan(struct spool *sp)
{
	struct dirent **names = NULL;
	int n, err = 0;

	n = scandirat(sp->dirfd, ".", &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct spool_header h;
		uint64_t seq;
		int lerr;

		if (strstr(name, ".tmp")) { /* a write a crash interrupted: never renamed, never acknowledged */
			unlinkat(sp->dirfd, name, 0);
			continue;
		}
		if (err || !is_entry_name(name, &seq))
			continue;
		lerr = load_file(sp, name, &h, NULL);
		if (lerr == -EBADMSG || (!lerr && h.seq != seq)) {
			log_warn("spool: %s/%s is truncated or corrupt; removed and counted as dropped", sp->dir, name);
			unlinkat(sp->dirfd, name, 0);
			sp->lost++;
			if (seq > sp->last_seq)
				sp->last_seq = seq;
			continue;
		}
		if (lerr) {
			err = lerr;
			continue;
		}
		err = index_insert(
		    sp, &(struct spool_entry){ .seq = seq, .size = sizeof(h) + h.len, .carried = h.carried });
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

int spool_open(struct spool **out, const char *dir, uint64_t max_bytes, char *err, size_t errlen)
{
	struct spool *sp = calloc(1, sizeof(*sp));
	int rc;

	*out = NULL;
	if (!sp)
		return -ENOMEM;
	sp->dirfd = -1;
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	sp->max_bytes = max_bytes;
	rc = fs_mkdir_p(dir);
	if (rc < 0) {
		snprintf(err, errlen, "cannot create spool folder %s: %s", dir, strerror(-rc));
		goto fail;
	}
	sp->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->dirfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open spool folder %s: %s", dir, strerror(-rc));
		goto fail;
	}
	rc = scan(sp);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read spool folder %s: %s", dir, strerror(-rc));
		goto fail;
	}
	*out = sp;
	return 0;
fail:
	spool_close(sp);
	return rc;
}

void spool_close(struct spool *sp)
{
	if (!sp)
		return;
	if (sp->dirfd >= 0)
		close(sp->dirfd);
	free(sp->v);
	free(sp);
}

void spool_set_max_bytes(struct spool *sp, uint64_t max_bytes)
{
	sp->max_bytes = max_bytes;
}

/* How many of the oldest entries must go for len more payload bytes to fit. */
static size_t drops_needed(const struct spool *sp, size_t len, uint64_t *carried)
{
	uint64_t bytes = sp->bytes + sizeof(struct spool_header) + len, total = sp->lost;
	size_t k = 0;

	/* The new report itself always stays, even alone above the cap: it is the newest data. */
	while (k < sp->n && bytes > sp->max_bytes) {
		bytes -= sp->v[k].size;
		total += 1 + sp->v[k].carried;
		k++;
	}
	if (carried)
		*carried = total;
	return k;
}

uint64_t spool_drop_count(const struct spool *sp, size_t len)
{
	uint64_t carried;

	drops_needed(sp, len, &carried);
	return carried;
}

int spool_append(struct spool *sp, uint64_t seq, uint64_t carried, const void *buf, size_t len)
{
	struct spool_header h = { .seq = seq, .carried = carried, .len = (uint32_t)len };
	char name[SPOOL_NAME_LEN + 1], tmp[SPOOL_NAME_LEN + 8];
	uint64_t actual;
	size_t drop;
	int fd, err;

	if (len > SPOOL_MAX_PAYLOAD)
		return -EFBIG;
	memcpy(h.magic, SPOOL_MAGIC, 8);
	h.crc = (uint32_t)crc32(0, buf, (uInt)len);
	entry_name(name, sizeof(name), seq);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	drop = drops_needed(sp, len, &actual);

	fd = openat(sp->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_full(fd, &h, sizeof(h));
	if (!err)
		err = write_full(fd, buf, len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && renameat(sp->dirfd, tmp, sp->dirfd, name) < 0)
		err = -errno;
	if (!err && fsync(sp->dirfd) < 0)
		err = -errno;
	if (err) {
		unlinkat(sp->dirfd, tmp, 0);
		return err;
	}
	for (size_t i = 0; i < drop; i++) {
		remove_file(sp, sp->v[0].seq);
		index_remove_first(sp);
	}
	/* What the caller put in the report is now carried; anything beyond it waits for the next. */
	sp->lost = actual > carried ? actual - carried : 0;
	return index_insert(sp, &(struct spool_entry){ .seq = seq, .size = sizeof(h) + len, .carried = carried });
}

int spool_peek(struct spool *sp, uint64_t *seq, void **buf, size_t *len)
{
	while (sp->n > 0) {
		char name[SPOOL_NAME_LEN + 1];
		struct spool_header h;
		int err;

		entry_name(name, sizeof(name), sp->v[0].seq);
		err = load_file(sp, name, &h, buf);
		if (err == -EBADMSG || err == -ENOENT) {
			log_warn("spool: %s/%s is truncated, corrupt or gone; removed and counted as dropped", sp->dir,
				 name);
			remove_file(sp, sp->v[0].seq);
			sp->lost += 1 + sp->v[0].carried;
			index_remove_first(sp);
			continue;
		}
		if (err)
			return err;
		*seq = sp->v[0].seq;
		*len = h.len;
		return 0;
	}
	return -ENOENT;
}

int spool_ack(struct spool *sp, uint64_t seq)
{
	char name[SPOOL_NAME_LEN + 1];

	if (sp->n == 0 || sp->v[0].seq != seq)
		return -ENOENT;
	entry_name(name, sizeof(name), seq);
	if (unlinkat(sp->dirfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	index_remove_first(sp);
	return 0;
}

size_t spool_count(const struct spool *sp)
{
	return sp->n;
}

uint64_t spool_bytes(const struct spool *sp)
{
	return sp->bytes;
}

uint64_t spool_last_seq(const struct spool *sp)
{
	return sp->last_seq;
}
