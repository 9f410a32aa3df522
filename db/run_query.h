/* run_query.h - queries about stored runs one at a time: the stored
 * document, a metric, the Nsight Compute values of a run, how many runs a
 * card architecture has. Reports, packets and the CLI call these with the
 * connection they opened (store.h). */
#ifndef SOLBOOK_DB_RUN_QUERY_H
#define SOLBOOK_DB_RUN_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"
#include "strbuf.h"

/* Appends the run's canonical JSON (runs.raw_json) to out; an error naming
 * the run when it has none. */
int sb_run_raw_json(sb_db *db, long long run_id, sb_buf *out, sb_error *err);

/* The canonical JSON of runs ids[0..n) into a new array *docs, docs[i]
 * of ids[i] (sb_run_raw_json each); free with sb_run_docs_free. */
int sb_run_docs_read(sb_db *db, const int64_t *ids, size_t n, sb_buf **docs, sb_error *err);
void sb_run_docs_free(sb_buf *docs, size_t n);

/* metrics.COLUMN of a run (column is a name from the code, never from
 * input); NAN when the run has no such value. */
double sb_run_metric(sb_db *db, long long run_id, const char *column);

/* Calls fn for each non-NULL value of each named profiler metric of the
 * run: metric by metric in the order given (index into metrics), launches
 * in kernel_index order. unit may be NULL. */
typedef void (*sb_profiler_value_fn)(void *ctx, size_t metric, double value, const char *unit);
int sb_run_profiler_values(sb_db *db, long long run_id, const char *const *metrics,
                           size_t nmetrics, sb_profiler_value_fn fn, void *ctx, sb_error *err);

/* How many stored runs (any kind) were made on cards of arch. */
int sb_runs_on_arch(sb_db *db, const char *arch, long long *n, sb_error *err);

#endif
