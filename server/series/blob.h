/* blob.h - growable byte buffers with LEB128 varints: the building block of
 * the compact histogram and iocost encodings stored in the database. */
#ifndef SCHEDIO_SERVER_SERIES_BLOB_H
#define SCHEDIO_SERVER_SERIES_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct blob {
	uint8_t *p;
	size_t len, cap;
	bool oom;         /* sticky: set when a write could not grow the buffer */
	struct blob *aux; /* a second section written beside the first (blob_aux), until blob_join */
	size_t split;     /* after blob_join: where the second section starts (0: one section) */
	/* Set by an encoder whose blob is complete as written but packs better laid
	 * out otherwise: blob_pack calls it first (once) to rewrite b. */
	void (*finish)(struct blob *b);
};

/* A read cursor over encoded bytes; bad is sticky once a read runs past the end. */
struct blob_reader {
	const uint8_t *p, *end;
	bool bad;
};

/* Makes room for more bytes past b->len; false (and b->oom) when out of memory. */
bool blob_reserve(struct blob *b, size_t more);

/* Appends an unsigned varint. Inline: encoding a report is a thousand of them. */
static inline void blob_put_u64(struct blob *b, uint64_t v)
{
	uint8_t *o;

	if (b->len + 10 > b->cap && !blob_reserve(b, 10))
		return;
	o = b->p + b->len;
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	b->len = (size_t)(o - b->p);
}
/* Appends a signed varint (zigzag). */
void blob_put_i64(struct blob *b, int64_t v);
/* Appends a length-prefixed string (len bytes). */
void blob_put_str(struct blob *b, const char *s, size_t len);
/* Frees the buffer (and its second section) and resets it to empty. */
void blob_free(struct blob *b);
/* The second section of b, started empty on first use; NULL (and b->oom) when out of memory.
 * Encoders keep bytes of one kind (say, histogram counts) apart from the rest this way, so
 * blob_pack codes each section with its own statistics. */
struct blob *blob_aux(struct blob *b);
/* Appends the second section and a trailer of 4 bytes (little endian) holding where it starts:
 * first || second || u32(first's length). Does nothing when b has no second section. */
void blob_join(struct blob *b);
/* The two sections of a joined plain blob (after its version varint has been checked):
 * [p, p + *first) and [p + *first, p + *first + *second); false when the trailer is bad. */
bool blob_split(const uint8_t *p, size_t len, size_t *first, size_t *second);

/* Packing: an encoded blob of at least BLOB_PACK_MIN bytes is stored zstd
 * compressed behind the marker BLOB_PACKED_ZSTD and its plain length, when
 * that is smaller; readers unpack before decoding. Rows written before issue
 * 18 may be zlib compressed behind BLOB_PACKED, and still unpack. A blob
 * packed with a dictionary is marked BLOB_PACKED_ZSTD_DICT (blob_dict.h). Encodings
 * start with a version varint below both markers, so the first byte tells
 * them apart. */
#define BLOB_PACKED 0x7f
#define BLOB_PACKED_ZSTD 0x7e
#define BLOB_PACKED_ZSTD_DICT 0x7d /* then the dictionary id (4 bytes, little endian), the plain length, the frame */
#define BLOB_PACK_MIN 32
#define BLOB_UNPACK_MAX (64u << 20)

/* Lets b's encoder lay it out for packing (b->finish), then joins its sections (blob_join). */
void blob_layout(struct blob *b);
/* Lays b out (blob_layout), then replaces b's bytes by their packed form when that is smaller (a
 * packed blob stays as it is); returns 0 or -ENOMEM. */
int blob_pack(struct blob *b);
struct ZSTD_CDict_s;
/* blob_pack with zstd dictionary cdict (registered as dict_id; see blob_dict.h), or without one when NULL. */
int blob_pack_with(struct blob *b, const struct ZSTD_CDict_s *cdict, uint32_t dict_id);
/* blob_pack_with at zstd level level without a dictionary (0: the level b's layout calls for). */
int blob_pack_at(struct blob *b, const struct ZSTD_CDict_s *cdict, uint32_t dict_id, int level);
/* The plain bytes of a stored blob: *out points into p, or into *scratch
 * (malloc'd, free it) for a packed one. Returns 0 or -EINVAL for a bad pack. */
int blob_unpack(const void *p, size_t len, const uint8_t **out, size_t *outlen, uint8_t **scratch);
/* Like blob_unpack, but a packed blob goes into *buf (malloc'd, *cap bytes), grown when too small and
 * kept for the next call (free it); *out points into p or *buf. */
int blob_unpack_reuse(const void *p, size_t len, const uint8_t **out, size_t *outlen, uint8_t **buf, size_t *cap);

/* Starts reading len bytes at p. */
void blob_reader_init(struct blob_reader *r, const void *p, size_t len);
/* Reads an unsigned varint; 0 and r->bad on truncated or overlong input. */
uint64_t blob_get_u64(struct blob_reader *r);
/* Reads a signed (zigzag) varint. */
int64_t blob_get_i64(struct blob_reader *r);
/* Reads a length-prefixed string, pointing into the input (not NUL-terminated). */
const char *blob_get_str(struct blob_reader *r, size_t *len);

#endif /* SCHEDIO_SERVER_SERIES_BLOB_H */
