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
	bool oom; /* sticky: set when a write could not grow the buffer */
};

/* A read cursor over encoded bytes; bad is sticky once a read runs past the end. */
struct blob_reader {
	const uint8_t *p, *end;
	bool bad;
};

/* Appends an unsigned varint. */
void blob_put_u64(struct blob *b, uint64_t v);
/* Appends a signed varint (zigzag). */
void blob_put_i64(struct blob *b, int64_t v);
/* Appends a length-prefixed string (len bytes). */
void blob_put_str(struct blob *b, const char *s, size_t len);
/* Frees the buffer and resets it to empty. */
void blob_free(struct blob *b);

/* Packing: an encoded blob of at least BLOB_PACK_MIN bytes is stored zlib
 * compressed behind the marker BLOB_PACKED and its plain length, when that
 * is smaller; readers unpack before decoding. Encodings start with a version
 * varint below BLOB_PACKED, so the first byte tells the two apart. */
#define BLOB_PACKED 0x7f
#define BLOB_PACK_MIN 512
#define BLOB_UNPACK_MAX (64u << 20)

/* Replaces b's bytes by their packed form when that is smaller; returns 0 or -ENOMEM. */
int blob_pack(struct blob *b);
/* The plain bytes of a stored blob: *out points into p, or into *scratch
 * (malloc'd, free it) for a packed one. Returns 0 or -EINVAL for a bad pack. */
int blob_unpack(const void *p, size_t len, const uint8_t **out, size_t *outlen, uint8_t **scratch);

/* Starts reading len bytes at p. */
void blob_reader_init(struct blob_reader *r, const void *p, size_t len);
/* Reads an unsigned varint; 0 and r->bad on truncated or overlong input. */
uint64_t blob_get_u64(struct blob_reader *r);
/* Reads a signed (zigzag) varint. */
int64_t blob_get_i64(struct blob_reader *r);
/* Reads a length-prefixed string, pointing into the input (not NUL-terminated). */
const char *blob_get_str(struct blob_reader *r, size_t *len);

#endif /* SCHEDIO_SERVER_SERIES_BLOB_H */
