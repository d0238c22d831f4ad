/* blob.c - see blob.h. Readers never trust the bytes: every read is bounds
 * checked and failure is sticky, so a corrupt row decodes to "bad" instead of
 * reading past its end. */
#include "server/series/blob.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_format: frames without the magic number */
#include <zstd.h>

#include "server/series/blob_dict.h"

bool blob_reserve(struct blob *b, size_t more)
{
	size_t cap;
	uint8_t *np;

	if (b->oom)
		return false;
	if (b->len + more <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

void blob_put_i64(struct blob *b, int64_t v)
{
	blob_put_u64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void blob_put_str(struct blob *b, const char *s, size_t len)
{
	blob_put_u64(b, len);
	if (!blob_reserve(b, len))
		return;
	if (len)
		memcpy(b->p + b->len, s, len);
	b->len += len;
}

void blob_free(struct blob *b)
{
	if (b->aux) {
		free(b->aux->p);
		free(b->aux);
	}
	free(b->p);
	memset(b, 0, sizeof(*b));
}

struct blob *blob_aux(struct blob *b)
{
	if (!b->aux) {
		b->aux = calloc(1, sizeof(*b->aux));
		if (!b->aux)
			b->oom = true;
	}
	return b->aux;
}

void blob_join(struct blob *b)
{
	struct blob *aux = b->aux;
	size_t first = b->len;

	if (!aux)
		return;
	b->aux = NULL;
	if (aux->oom || first > UINT32_MAX)
		b->oom = true;
	if (!b->oom && blob_reserve(b, aux->len + 4)) {
		if (aux->len)
			memcpy(b->p + b->len, aux->p, aux->len);
		b->len += aux->len;
		for (int i = 0; i < 4; i++)
			b->p[b->len++] = (uint8_t)(first >> (8 * i));
		b->split = first;
	}
	free(aux->p);
	free(aux);
}

bool blob_split(const uint8_t *p, size_t len, size_t *first, size_t *second)
{
	uint32_t f = 0;

	if (len < 4)
		return false;
	for (int i = 0; i < 4; i++)
		f |= (uint32_t)p[len - 4 + i] << (8 * i);
	if (f > len - 4)
		return false;
	*first = f;
	*second = len - 4 - f;
	return true;
}

void blob_reader_init(struct blob_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->end = r->p + len;
	r->bad = p == NULL && len > 0;
}

uint64_t blob_get_u64(struct blob_reader *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64 && !r->bad; shift += 7) {
		uint8_t c;

		if (r->p >= r->end)
			break;
		c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

int64_t blob_get_i64(struct blob_reader *r)
{
	uint64_t u = blob_get_u64(r);

	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

const char *blob_get_str(struct blob_reader *r, size_t *len)
{
	uint64_t n = blob_get_u64(r);
	const char *s;

	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		*len = 0;
		return "";
	}
	s = (const char *)r->p;
	r->p += n;
	*len = (size_t)n;
	return s;
}

/* Each thread keeps one zstd compression and one decompression context, and
 * one zlib inflate stream for rows packed before issue 18, and reuses them
 * per blob: setting one up costs more than packing a few KiB. Freed when the
 * thread exits. */
struct packers {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	z_stream inf;
	bool inf_ok;
};

static pthread_once_t pkey_once = PTHREAD_ONCE_INIT;
static pthread_key_t pkey;

static void packers_free(void *p)
{
	struct packers *z = p;

	ZSTD_freeCCtx(z->cctx);
	ZSTD_freeDCtx(z->dctx);
	if (z->inf_ok)
		inflateEnd(&z->inf);
	free(z);
}

static void pkey_make(void)
{
	pthread_key_create(&pkey, packers_free);
}

static struct packers *packers(void)
{
	struct packers *z;

	pthread_once(&pkey_once, pkey_make);
	z = pthread_getspecific(pkey);
	if (!z) {
		z = calloc(1, sizeof(*z));
		if (z)
			pthread_setspecific(pkey, z);
	}
	return z;
}

/* The frame carries nothing the row already has: no magic (the marker says
 * zstd), no content size (the plain length precedes it), no checksum (a
 * corrupt frame fails to decode or decodes to a wrong length; the decoders
 * check every byte they read either way). The level is set per blob (see
 * blob_pack). */
static ZSTD_CCtx *packer_cctx(struct packers *z)
{
	if (z->cctx) {
		ZSTD_CCtx_reset(z->cctx, ZSTD_reset_session_only);
		return z->cctx;
	}
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx)
		return NULL;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_format, ZSTD_f_zstd1_magicless)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_contentSizeFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_dictIDFlag, 0))) {
		ZSTD_freeCCtx(z->cctx);
		z->cctx = NULL;
	}
	return z->cctx;
}

static ZSTD_DCtx *packer_dctx(struct packers *z)
{
	if (z->dctx) {
		ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
		return z->dctx;
	}
	z->dctx = ZSTD_createDCtx();
	if (z->dctx && ZSTD_isError(ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_format, ZSTD_f_zstd1_magicless))) {
		ZSTD_freeDCtx(z->dctx);
		z->dctx = NULL;
	}
	return z->dctx;
}

/* Compresses b into dst, with cdict when not NULL; a joined blob's first
 * section ends a zstd block, so the second gets its own literal statistics.
 * Returns the size or a zstd error. */
static size_t compress_sections(ZSTD_CCtx *cctx, const ZSTD_CDict *cdict, int level, uint8_t *dst, size_t cap,
				const struct blob *b)
{
	ZSTD_outBuffer out = { dst, cap, 0 };
	ZSTD_inBuffer in = { b->p, b->split, 0 };
	size_t rc;

	/* A blob split in sections is one whose second section holds small counts
	 * that only entropy coding shrinks (level 1 Huffman-codes literals); the
	 * rest (keys repeated from row to row) shrink by matches alone, which
	 * level -1 finds as well at a third of the CPU. A dictionary brings its
	 * own level (1) and code tables. A caller's level wins. */
	if (!level)
		level = b->split ? 1 : -1;
	rc = cdict ? ZSTD_CCtx_refCDict(cctx, cdict) : ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	if (ZSTD_isError(rc))
		return rc;
	/* the size known up front sizes the match tables to the blob, not to the level's default window */
	rc = ZSTD_CCtx_setPledgedSrcSize(cctx, b->len);
	if (!ZSTD_isError(rc) && b->split) {
		rc = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_flush);
		if (!ZSTD_isError(rc) && (rc != 0 || in.pos != in.size))
			rc = (size_t)-1;
	}
	if (!ZSTD_isError(rc)) {
		in.size = b->len;
		rc = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end);
		if (!ZSTD_isError(rc) && rc != 0)
			rc = (size_t)-1;
	}
	if (cdict)
		ZSTD_CCtx_refCDict(cctx, NULL); /* the context packs without it next */
	return ZSTD_isError(rc) ? rc : out.pos;
}

void blob_layout(struct blob *b)
{
	if (b->finish) {
		void (*finish)(struct blob *) = b->finish;

		b->finish = NULL;
		finish(b);
	}
	blob_join(b);
}

int blob_pack_at(struct blob *b, const struct ZSTD_CDict_s *cdict, uint32_t dict_id, int level)
{
	struct blob packed = { 0 };
	struct packers *z;
	ZSTD_CCtx *cctx;
	size_t bound, n;

	blob_layout(b);
	if (b->oom)
		return -ENOMEM;
	if (b->len < BLOB_PACK_MIN || b->len > BLOB_UNPACK_MAX || b->p[0] == BLOB_PACKED ||
	    b->p[0] == BLOB_PACKED_ZSTD || b->p[0] == BLOB_PACKED_ZSTD_DICT)
		return 0;
	z = packers();
	cctx = z ? packer_cctx(z) : NULL;
	if (!cctx)
		return -ENOMEM;
	bound = ZSTD_compressBound(b->len) + 32; /* + a second block's header */
	if (cdict) {
		blob_put_u64(&packed, BLOB_PACKED_ZSTD_DICT);
		if (blob_reserve(&packed, 4))
			for (int i = 0; i < 4; i++)
				packed.p[packed.len++] = (uint8_t)(dict_id >> (8 * i));
	} else {
		blob_put_u64(&packed, BLOB_PACKED_ZSTD);
	}
	blob_put_u64(&packed, b->len);
	if (!blob_reserve(&packed, bound)) {
		blob_free(&packed);
		return -ENOMEM;
	}
	n = compress_sections(cctx, cdict, level, packed.p + packed.len, bound, b);
	if (ZSTD_isError(n) || packed.len + n >= b->len) {
		blob_free(&packed);
		return 0;
	}
	packed.len += n;
	blob_free(b);
	*b = packed;
	return 0;
}

int blob_pack_with(struct blob *b, const struct ZSTD_CDict_s *cdict, uint32_t dict_id)
{
	return blob_pack_at(b, cdict, dict_id, 0);
}

int blob_pack(struct blob *b)
{
	return blob_pack_with(b, NULL, 0);
}

static int unpack_zstd(struct packers *z, const ZSTD_DDict *ddict, const uint8_t *p, size_t len, uint8_t *out,
		       size_t plain)
{
	ZSTD_DCtx *dctx = packer_dctx(z);
	size_t n;

	if (!dctx)
		return -ENOMEM;
	if (ddict && ZSTD_isError(ZSTD_DCtx_refDDict(dctx, ddict)))
		return -ENOMEM;
	n = ZSTD_decompressDCtx(dctx, out, plain, p, len);
	if (ddict)
		ZSTD_DCtx_refDDict(dctx, NULL);
	return ZSTD_isError(n) || n != plain ? -EINVAL : 0;
}

static int unpack_zlib(struct packers *z, const uint8_t *p, size_t len, uint8_t *out, size_t plain)
{
	if (!z->inf_ok) {
		if (inflateInit(&z->inf) != Z_OK)
			return -ENOMEM;
		z->inf_ok = true;
	} else if (inflateReset(&z->inf) != Z_OK) {
		return -ENOMEM;
	}
	z->inf.next_in = (Bytef *)p;
	z->inf.avail_in = (uInt)len;
	z->inf.next_out = out;
	z->inf.avail_out = (uInt)plain;
	return inflate(&z->inf, Z_FINISH) != Z_STREAM_END || z->inf.total_out != plain ? -EINVAL : 0;
}

int blob_unpack_reuse(const void *p, size_t len, const uint8_t **out, size_t *outlen, uint8_t **buf, size_t *cap)
{
	const ZSTD_DDict *ddict = NULL;
	struct blob_reader r;
	struct packers *z;
	uint8_t marker;
	uint64_t plain;

	marker = len ? ((const uint8_t *)p)[0] : 0;
	if (marker != BLOB_PACKED && marker != BLOB_PACKED_ZSTD && marker != BLOB_PACKED_ZSTD_DICT) {
		*out = p;
		*outlen = len;
		return 0;
	}
	blob_reader_init(&r, p, len);
	blob_get_u64(&r);
	if (marker == BLOB_PACKED_ZSTD_DICT) {
		uint32_t id = 0;

		if (r.end - r.p < 4)
			return -EINVAL;
		for (int i = 0; i < 4; i++)
			id |= (uint32_t)*r.p++ << (8 * i);
		ddict = blob_dict_ddict(id);
		if (!ddict)
			return -EINVAL; /* a dictionary this process does not have: the blob cannot be read */
	}
	plain = blob_get_u64(&r);
	if (r.bad || plain == 0 || plain > BLOB_UNPACK_MAX)
		return -EINVAL;
	z = packers();
	if (!z)
		return -ENOMEM;
	if (plain > *cap) {
		uint8_t *grown = realloc(*buf, plain);

		if (!grown)
			return -ENOMEM;
		*buf = grown;
		*cap = plain;
	}
	*out = *buf;
	*outlen = plain;
	if (marker == BLOB_PACKED)
		return unpack_zlib(z, r.p, (size_t)(r.end - r.p), *buf, plain);
	return unpack_zstd(z, ddict, r.p, (size_t)(r.end - r.p), *buf, plain);
}

int blob_unpack(const void *p, size_t len, const uint8_t **out, size_t *outlen, uint8_t **scratch)
{
	size_t cap = 0;
	int rc;

	*scratch = NULL;
	rc = blob_unpack_reuse(p, len, out, outlen, scratch, &cap);
	if (rc) {
		free(*scratch);
		*scratch = NULL;
	}
	return rc;
}
