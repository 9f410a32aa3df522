/* run_record.h - one stored run whole, as `solbook show` prints it: the
 * runs row, the columns of its rows in the other tables, its ceilings,
 * a summary of its samples and its Nsight Compute rows; and finding a run
 * by id, run_uuid or content sha256 prefix. Errors name the database
 * (sb_db_fail). Text handed to a callback is valid during the call. */
#ifndef SOLBOOK_DB_RUN_RECORD_H
#define SOLBOOK_DB_RUN_RECORD_H

#include <stddef.h>

#include "error.h"
#include "store.h"

/* Ids of the runs whose id is id (when has_id), whose run_uuid is key, or
 * whose content_sha256 starts with key (8+ characters); key may be NULL.
 * At most cap ids, in id order, into ids; *n is how many. */
int sb_run_ids_matching(sb_db *db, int has_id, long long id, const char *key, long long *ids,
                        size_t cap, size_t *n, sb_error *err);

/* The runs row of a run, with its sample count. Text is NULL where NULL. */
typedef struct sb_run_record {
    const char *schema, *status, *reason, *run_uuid, *content_sha256, *source_path,
        *source_format, *ingested_at, *notes, *raw_json;
    long long stored_samples;
} sb_run_record;

/* Callbacks return SB_OK to go on; anything else stops the query, which
 * returns SB_ERR with err as the callback left it. */
typedef int (*sb_run_record_fn)(void *ctx, const sb_run_record *r, sb_error *err);
int sb_run_record_get(sb_db *db, long long run_id, sb_run_record_fn fn, void *ctx,
                      sb_error *err);

/* A stored value; text also for blobs. */
typedef enum { SB_VALUE_NULL, SB_VALUE_INTEGER, SB_VALUE_FLOAT, SB_VALUE_TEXT } sb_value_type;
typedef struct sb_column_value {
    const char *name;
    sb_value_type type;
    long long i;
    double d;
    const char *s;
} sb_column_value;

/* Calls fn with every column of each row of table (a table name from the
 * code: provenance, configs, metrics, correctness, training) whose run_id
 * is the run's, run_id itself included. */
typedef int (*sb_run_row_columns_fn)(void *ctx, const sb_column_value *cols, size_t ncols,
                                     sb_error *err);
int sb_run_table_rows(sb_db *db, const char *table, long long run_id, sb_run_row_columns_fn fn,
                      void *ctx, sb_error *err);

/* The run's measured ceilings by name. */
typedef int (*sb_run_ceiling_fn)(void *ctx, const char *name, double value, const char *unit,
                                 sb_error *err);
int sb_run_ceilings(sb_db *db, long long run_id, sb_run_ceiling_fn fn, void *ctx, sb_error *err);

typedef struct sb_samples_summary {
    long long count, repeats;
    double min_ms, max_ms;   /* meaningful when count > 0 */
} sb_samples_summary;
int sb_run_samples_summary(sb_db *db, long long run_id, sb_samples_summary *out, sb_error *err);

/* The run's samples (ms) and the SM clock each ran at (MHz, timing.
 * sample_sm_clock_mhz of its document), repeat after repeat, n of each;
 * n 0 and both NULL when the run stored no clocks. Free both. */
typedef struct sb_sample_clocks {
    size_t n;
    double *ms, *mhz;
} sb_sample_clocks;
int sb_run_sample_clocks(sb_db *db, long long run_id, sb_sample_clocks *out, sb_error *err);

/* The run's Nsight Compute rows by kernel_index, then metric. */
typedef struct sb_profiler_row {
    long long kernel_index;
    const char *kernel_name, *metric, *unit, *source_path;   /* unit may be NULL */
    double value;
} sb_profiler_row;
typedef int (*sb_profiler_row_fn)(void *ctx, const sb_profiler_row *r, sb_error *err);
int sb_run_profiler_rows(sb_db *db, long long run_id, sb_profiler_row_fn fn, void *ctx,
                         sb_error *err);

#endif
