/* blob.h - growable byte buffers with LEB128 varints: the building block of
 * the compact histogram and iocost encodings stored in the database. */
#ifndef SCHEDIO_SERVER_BLOB_H
#define SCHEDIO_SERVER_BLOB_H

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

/* Starts reading len bytes at p. */
void blob_reader_init(struct blob_reader *r, const void *p, size_t len);
/* Reads an unsigned varint; 0 and r->bad on truncated or overlong input. */
uint64_t blob_get_u64(struct blob_reader *r);
/* Reads a signed (zigzag) varint. */
int64_t blob_get_i64(struct blob_reader *r);
/* Reads a length-prefixed string, pointing into the input (not NUL-terminated). */
const char *blob_get_str(struct blob_reader *r, size_t *len);

#endif /* SCHEDIO_SERVER_BLOB_H */
