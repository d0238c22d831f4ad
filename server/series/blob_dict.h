/* blob_dict.h - zstd dictionaries for the blobs of raw reports. A report's
 * series and iocost blobs are a few hundred bytes to a few KiB, too small for
 * zstd to learn much from one: its keys, their layout and its code tables
 * cost as much as its values. A dictionary trained on the server's own first
 * reports holds those once; a blob packed with one names it by id.
 *
 * The registry is the process's: dictionaries are added from the database
 * (blob_dicts) when a store opens and when one is trained, and never removed,
 * since stored blobs name them. Packing uses the kind's dictionary in use;
 * until there is one, it samples the plain blobs for training. */
#ifndef SCHEDIO_SERVER_SERIES_BLOB_DICT_H
#define SCHEDIO_SERVER_SERIES_BLOB_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/series/blob.h"

enum blob_dict_kind {
	BLOB_DICT_SERIES = 1, /* a raw report's series blob */
	BLOB_DICT_IOCOST = 2, /* a raw report's iocost blob */
	BLOB_DICT_KINDS,
};

#define BLOB_DICT_MAX 64                 /* dictionaries one process can hold */
#define BLOB_DICT_BYTES 8192             /* the size trained to */
#define BLOB_DICT_SAMPLES_DEFAULT 1000   /* blobs of a kind a dictionary is trained on */
#define BLOB_DICT_SAMPLE_MAX (64u << 10) /* a larger blob is not sampled */
#define BLOB_DICT_POOL_MAX (8u << 20)    /* a kind's samples are enough at this many bytes */

#define BLOB_DICT_GRACE_MS_DEFAULT 15000 /* a stored dictionary waits this long before it is used */

/* Sets how many blobs of each kind a dictionary is trained on (0 trains none
 * and packs without one; blobs packed with one still unpack), and how long a
 * stored dictionary waits before blobs are packed with it, so that every
 * server on the database has loaded it by then (store_dicts_tend). */
void blob_dict_configure(size_t samples, int64_t grace_ms);
/* The grace blob_dict_configure set. */
int64_t blob_dict_grace_ms(void);
/* Registers dictionary id of kind from its bytes (copied); 0 (also when it is
 * registered already with the same bytes), -EEXIST (another dictionary has
 * that id), -ENOSPC, -ENOMEM, -EINVAL (not a dictionary zstd loads). */
int blob_dict_add(uint32_t id, int kind, const void *p, size_t len);
/* Packs kind's blobs with registered dictionary id from now on and stops its sampling; 0 or -ENOENT. */
int blob_dict_use(int kind, uint32_t id);
/* The id of the dictionary kind's blobs are packed with; 0 when none. */
uint32_t blob_dict_in_use(int kind);
/* Whether kind has samples enough (the number configured, or BLOB_DICT_POOL_MAX bytes) and no
 * dictionary in use: blob_dict_train's turn. */
bool blob_dict_due(int kind);
/* Trains a dictionary from kind's samples (which it then drops: sampling starts
 * over until a dictionary is in use): *out (malloc'd) of *len bytes, its id in
 * *id. 0, -EAGAIN (not due), -ENOMEM, -EINVAL (zstd could not train on them). */
int blob_dict_train(int kind, uint8_t **out, size_t *len, uint32_t *id);
/* The id a dictionary of these bytes is registered under: never 0. */
uint32_t blob_dict_id(const void *p, size_t len);
/* Lays b out (as blob_pack), samples it for kind's training, and packs it with
 * kind's dictionary in use, or as blob_pack when there is none. 0 or -ENOMEM. */
int blob_pack_kind(struct blob *b, int kind);
/* blob_pack_kind without the sampling, and at zstd level 1 when no dictionary is in use: for bytes that are
 * not one report's blob of kind but many (report_chunk.h). */
int blob_pack_in_use(struct blob *b, int kind);
struct ZSTD_DDict_s;
/* The decompression form of registered dictionary id; NULL when it is not registered. */
const struct ZSTD_DDict_s *blob_dict_ddict(uint32_t id);
/* Forgets every dictionary and sample (tests only: blobs naming them no longer unpack). */
void blob_dict_reset(void);

#endif /* SCHEDIO_SERVER_SERIES_BLOB_DICT_H */
