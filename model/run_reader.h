/* run_reader.h - what a report reads of single runs while it computes,
 * one run at a time: the stored samples of a run, the kernel times of a
 * measuring session's run, the stored document of a run. A report that
 * needs them for a few of the runs it holds (compare's pairs, a packet's
 * cited runs) takes a reader from its caller instead of the database;
 * db/run_reader_db.h fills one from a connection. Reading each run when
 * it is reached keeps one run's samples in memory at a time, where
 * reading every pair's first would hold them all. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_RUN_READER_H
#define SOLBOOK_MODEL_RUN_READER_H

#include <stddef.h>

#include "error.h"
#include "strbuf.h"

typedef struct sb_run_reader {
    void *ctx; /* the reader's own, passed to each function */
    /* Every sample of run_id, in (rep, idx) order, malloc'd into *v. */
    int (*samples)(void *ctx, long long run_id, double **v, size_t *n, sb_error *err);
    /* timing.kernel.samples of run_id as stored (JSON text, one array a
     * round; model/paired.h reads it), malloc'd into *json; NULL when the
     * run recorded none. */
    int (*kernel_samples)(void *ctx, long long run_id, char **json, sb_error *err);
    /* The stored document of run_id (runs.raw_json with its samples),
     * byte for byte, appended to out. */
    int (*raw_json)(void *ctx, long long run_id, sb_buf *out, sb_error *err);
} sb_run_reader;

#endif
