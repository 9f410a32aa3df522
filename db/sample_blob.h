/* sample_blob.h - a run's samples as stored in run_samples: every value of
 * every repeat, in order, as little-endian IEEE 754 binary64 (8 bytes a
 * value, exact), and the repeat lengths as a JSON array of integers.
 *
 * One row a run rather than one a sample: a 250-sample result is one B-tree
 * insert instead of 250, and readers get the values with one memcpy-like
 * pass. In SQL the count is length(value_ms) / 8; from Python,
 * struct.unpack('<%dd' % n, blob) or numpy.frombuffer(blob, '<f8') gives
 * the values (array('d', blob) too, on a little-endian host). */
#ifndef SB_SAMPLE_BLOB_H
#define SB_SAMPLE_BLOB_H

#include <stddef.h>
#include <sqlite3.h>

#include "strbuf.h"

/* Bytes of the blob of n values. */
#define SB_SAMPLE_BLOB_BYTES(n) ((n) * 8u)

/* Writes n values into out (SB_SAMPLE_BLOB_BYTES(n) bytes). */
void sb_sample_blob_encode(const double *v, size_t n, unsigned char *out);

/* Reads the values of a blob of `bytes` bytes into out (bytes / 8 values).
 * Returns -1, writing nothing, when bytes is not a multiple of 8. */
int sb_sample_blob_decode(const void *blob, size_t bytes, double *out);

/* The values of column col of st's current row (a run_samples.value_ms)
 * into *buf, grown as needed (*cap values; NULL and 0 at first, kept by
 * the caller for the next row); *n the count. NULL when done, else why
 * not (out of memory, or a blob that is not whole 8-byte values). */
const char *sb_sample_blob_column(sqlite3_stmt *st, int col, double **buf, size_t *cap,
                                  size_t *n);

/* Writes the JSON array of n repeat lengths ("[50,50,50]") into out, of
 * out_size bytes; returns its length, or -1 when it does not fit. */
int sb_sample_blob_rep_lengths(const size_t *len, size_t n, char *out, size_t out_size);

/* ---- the samples cut out of a result's canonical JSON ----
 *
 * A result's samples are stored once, in run_samples: runs.raw_json holds
 * the canonical JSON with the member "samples" of its "timing" object cut
 * out, and runs.samples_at the byte offset of the cut (NULL: raw_json is
 * whole). The member comes back through the canonical writer
 * (core/canonical_json.h) that wrote it, so the joined text is the stored
 * document byte for byte: its SHA-256 is runs.content_sha256. Only
 * samples written as reals are cut; whole numbers would come back as reals. */

/* Appends the samples as canonical JSON ([[v,...],...], one array a
 * repeat) from run_samples' rep_lengths and value_ms (bytes long).
 * Returns 0, or -1 when the two do not agree or out of memory. */
int sb_samples_json(const char *rep_lengths, const void *blob, size_t bytes, sb_buf *out);

/* Appends the whole canonical JSON of a run stored as raw_json (len
 * bytes) with its samples cut at byte at (at < 0: raw_json is whole).
 * Returns 0, or -1 (the samples do not fit the cut, out of memory). */
int sb_raw_json_join(const char *raw_json, size_t len, long long at, const char *rep_lengths,
                     const void *blob, size_t bytes, sb_buf *out);

/* sb_raw_json_join of the current row of st, whose columns col to col + 3
 * are runs.raw_json, runs.samples_at, run_samples.rep_lengths and
 * run_samples.value_ms (the last two NULL where there is no row):
 * SB_RAW_JSON_COLUMNS names them for a query over runs r LEFT JOIN
 * run_samples s. */
#define SB_RAW_JSON_COLUMNS "r.raw_json, r.samples_at, s.rep_lengths, s.value_ms"
int sb_raw_json_column(sqlite3_stmt *st, int col, sb_buf *out);

/* The offset at which sb_raw_json_join puts the samples member back into
 * cut (cut_len bytes) to give whole (whole_len bytes), where cut is whole
 * less that one member ("samples":[...] and the comma beside it); -1 when
 * no offset does. */
long long sb_raw_json_cut_at(const char *whole, size_t whole_len, const char *cut, size_t cut_len);

/* Registers, on conn, the two aggregates migration 007 uses to fold the
 * old one-row-a-sample table into run_samples: sb_pack_samples(rep, idx,
 * value_ms) gives the blob and sb_rep_lengths(rep, idx) the JSON array,
 * both in (rep, idx) order whatever order SQLite feeds the rows in. They
 * are direct-only: no view, trigger or schema object can call them. */
int sb_sample_blob_register(sqlite3 *conn);

/* Registers, on conn, the two functions migration 012 uses to store the
 * samples of stored results once: sb_samples_cut_at(raw_json,
 * rep_lengths, value_ms) is the offset sb_raw_json_join takes (NULL when
 * raw_json keeps its samples: not a result, samples not all reals, or
 * not those of run_samples) and sb_samples_cut_text(...) raw_json without
 * them (raw_json itself where the offset is NULL). Direct-only. */
int sb_samples_cut_register(sqlite3 *conn);

#endif
