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

/* Registers, on conn, the two aggregates migration 007 uses to fold the
 * old one-row-a-sample table into run_samples: sb_pack_samples(rep, idx,
 * value_ms) gives the blob and sb_rep_lengths(rep, idx) the JSON array,
 * both in (rep, idx) order whatever order SQLite feeds the rows in. They
 * are direct-only: no view, trigger or schema object can call them. */
int sb_sample_blob_register(sqlite3 *conn);

#endif
