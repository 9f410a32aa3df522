/* run_pages.h - every stored run with what its row on a run page shows
 * (the site's runs/G.html): the runs row, its config, provenance, metrics,
 * correctness, training step, samples, Nsight Compute values and measured
 * ceilings, read in one pass over a range of ids: one statement per table,
 * each ordered by run id and merged like sorted lists, so a range costs
 * one scan of each table however many runs it holds. Also the blocks of
 * ids the pages group runs into and their digests. */
#ifndef SOLBOOK_DB_RUN_PAGES_H
#define SOLBOOK_DB_RUN_PAGES_H

#include <stddef.h>

#include "error.h"
#include "store.h"

/* One Nsight Compute value (profiler_metrics). unit NULL where NULL;
 * value NAN where NULL. */
typedef struct sb_run_page_ncu {
    long long kernel_index;
    const char *kernel_name, *metric, *unit, *source_path;
    double value;
} sb_run_page_ncu;

/* One measured ceiling of a calibration run (ceilings). */
typedef struct sb_run_page_ceiling {
    const char *name, *unit;
    double value;
} sb_run_page_ceiling;

/* A run. Text is NULL where the column is NULL or the run has no row in
 * that table (has_* say which tables have one); numbers are NAN where
 * NULL. Everything stays valid until the next sb_run_pages_next. */
typedef struct sb_run_page_row {
    long long id;
    const char *schema, *status, *notes;
    const char *raw_json;     /* the stored document whole (runs.raw_json with its samples
                               * joined back: sample_blob.h), raw_len bytes */
    size_t raw_len;
    int has_config;
    const char *op, *mode, *dtype, *shape_key, *params_json, *provider, *suite, *case_key,
        *profiler;
    int has_provenance;
    const char *git_sha, *sku, *gpu_name, *finished_at;
    int has_metrics;
    double median_ms, p20_ms, p80_ms, tflops, gbps;
    long long sample_count;   /* -1 where NULL */
    int correct;              /* correctness.passed: 1, 0, or -1 (none or NULL) */
    int has_training;
    const char *model_name;
    double median_step_ms;
    double *samples;          /* in (rep, idx) order; the caller may reorder them */
    size_t nsamples;
    const sb_run_page_ncu *ncu; /* by kernel_index, then metric */
    size_t nncu;
    const sb_run_page_ceiling *ceilings; /* by name */
    size_t nceilings;
} sb_run_page_row;

typedef struct sb_run_pages sb_run_pages;

/* The runs with lo <= id < hi, in id order. */
int sb_run_pages_open(sb_db *db, long long lo, long long hi, sb_run_pages **out,
                      sb_error *err);
/* The next run in *row, or *row = NULL after the last. */
int sb_run_pages_next(sb_run_pages *p, const sb_run_page_row **row, sb_error *err);
void sb_run_pages_close(sb_run_pages *p); /* accepts NULL */

/* The runs grouped by id / per_block: block, count, lowest and highest id,
 * in block order (malloc'd array in *out, *n of them). */
typedef struct sb_run_block {
    long long block, runs, first, last;
} sb_run_block;
int sb_run_blocks(sb_db *db, long long per_block, sb_run_block **out, size_t *n,
                  sb_error *err);

/* The SHA-256 (64 hex digits) of what each block's runs are stored as:
 * every run's id and content_sha256 (its stored document, which the
 * other tables of a run are made from at ingest) and its Nsight Compute
 * values (profiler_metrics, which an ncu import adds to a run already
 * stored), for the blocks of sb_run_blocks(db, per_block) in v (n of
 * them, in block order), into digest[i] (n entries of 65 bytes). A block
 * whose digest is unchanged holds the same runs as they were. */
int sb_run_block_digests(sb_db *db, long long per_block, const sb_run_block *v, size_t n,
                         char (*digest)[65], sb_error *err);

#endif
