/* run_store.h - writing runs: one run with its provenance, config, samples,
 * metrics, correctness, training row or ceilings; an Nsight Compute
 * profile's rows; finding a stored run by the digest of its content.
 *
 * Every statement is prepared once, when the store is opened on a
 * connection, and reused for every run, so storing thousands of files
 * costs no SQL compilation. The caller owns the transaction (sb_db_begin /
 * sb_db_commit in store.h); a run is written all or nothing inside it
 * without a savepoint (which would copy every page the run touches), and
 * sb_run_store_savepoint and its pair make other units of work so.
 *
 * Values that may be SQL NULL: text is a NULL pointer, a real is NAN (JSON
 * has no NaN, so no stored number is lost), an integer is an sb_opt_int
 * whose set is 0. Strings are only read during the call.
 */
#ifndef SOLBOOK_DB_RUN_STORE_H
#define SOLBOOK_DB_RUN_STORE_H

#include <stddef.h>

#include "error.h"
#include "store.h"

typedef struct sb_run_store sb_run_store;

typedef struct sb_opt_int {
    int set;            /* 0: NULL */
    long long value;
} sb_opt_int;

/* runs: one a stored document. */
typedef struct sb_run_row {
    const char *content_sha256;   /* 64 hex digits of raw_json's SHA-256 */
    const char *schema, *run_uuid, *status, *reason;
    const char *source_path, *source_format, *ingested_at, *notes;
    const char *raw_json;         /* canonical JSON, raw_json_len bytes */
    size_t raw_json_len;
    /* where the samples were cut out of raw_json (sample_blob.h); unset:
     * raw_json is whole */
    sb_opt_int samples_at;
} sb_run_row;

typedef struct sb_provenance_row {
    const char *git_sha;
    sb_opt_int git_dirty;
    const char *tool_name, *tool_version, *hostname, *os, *cpu;
    const char *driver_version, *cuda_runtime_version, *cublas_version;
    const char *device_kind;
    sb_opt_int device_index;
    const char *gpu_name, *arch, *sku, *compute_capability;
    sb_opt_int sm_count, memory_bytes;
    const char *pci_device_id, *board_part_number;
    sb_opt_int sm_clock_mhz, mem_clock_mhz;
    double power_limit_w;
    sb_opt_int ecc, mig;
    const char *started_at, *finished_at, *packages_json;
    const char *scheduler, *scheduler_job_id;
    sb_opt_int scheduler_array_task_id;
    const char *git_branch;
} sb_provenance_row;

typedef struct sb_config_row {
    const char *suite, *op, *mode, *provider, *backend, *dtype;
    const char *shape_key, *shape_json, *params_json, *case_key;
    const char *timer;
    sb_opt_int warmup_iters;
    double warmup_ms;
    sb_opt_int iters, repeats;
    const char *l2;
    sb_opt_int input_sets, graph;
    const char *profiler;
} sb_config_row;

typedef struct sb_metrics_row {
    sb_opt_int sample_count;
    int quantiles_only;
    double min_ms, p20_ms, median_ms, p80_ms, max_ms, mean_ms, stdev_ms, rel_noise, repeat_spread;
    double flops, bytes, tflops, gbps;
    const char *bound;
    double pct_datasheet_peak;
    const char *datasheet_peak_name;
    double pct_measured_ceiling;
    const char *measured_ceiling_name;
    sb_opt_int peak_device_bytes;
    double kernel_median_ms, kernel_p20_ms, kernel_p80_ms;
    sb_opt_int kernel_sample_count;
    const char *kernel_method;
} sb_metrics_row;

typedef struct sb_correctness_row {
    const char *reference;
    sb_opt_int checked_elements;
    double max_abs_err, max_rel_err, rel_l2_err, atol, rtol;
    sb_opt_int unwritten, finite, passed;
    const char *output_checksum;
    sb_opt_int bitwise_repeatable, batch_invariant;
} sb_correctness_row;

typedef struct sb_training_row {
    const char *model_name;
    sb_opt_int seq_len, micro_batch_size;
    const char *dtype;
    sb_opt_int world_size;
    const char *strategy, *patch_name, *patch_kernels_json;
    double tokens_per_s, median_step_ms;
    sb_opt_int peak_device_bytes;
} sb_training_row;

typedef struct sb_ceiling_row {
    const char *name, *unit;
    double value;
} sb_ceiling_row;

/* One run and everything hanging off it. NULL rows are not written. */
typedef struct sb_run_record {
    sb_run_row run;
    sb_provenance_row provenance;
    const sb_config_row *config;
    const sb_metrics_row *metrics;
    const sb_correctness_row *correctness;
    const sb_training_row *training;
    const sb_ceiling_row *ceilings;
    size_t n_ceilings;
    /* samples: n_reps repeats of rep_len[r] values each, flattened in
     * order; stored as one run_samples row (db/sample_blob.h). */
    const double *samples;
    const size_t *rep_len;
    size_t n_reps;
} sb_run_record;

/* One metric of one kernel launch of an Nsight Compute profile. */
typedef struct sb_profiler_metric_row {
    long long kernel_index;
    const char *kernel_name, *metric, *unit;   /* unit NULL: none */
    double value;
} sb_profiler_metric_row;

/* One kernel of a tracing profiler's per-kernel summary (Nsight Systems'
 * cuda_gpu_kern_sum), times in ms; has_X 0: the report left X out. */
typedef struct sb_kernel_summary_row {
    const char *kernel_name;
    long long instances;
    double total_ms, time_pct, avg_ms, med_ms, min_ms, max_ms, stddev_ms;
    int has_time_pct, has_avg, has_med, has_min, has_max, has_stddev;
} sb_kernel_summary_row;

/* Prepares the statements on db's connection (opened SB_DB_WRITE). The
 * store is used on the thread that owns db and closed before db. */
int sb_run_store_open(sb_db *db, sb_run_store **out, sb_error *err);
void sb_run_store_close(sb_run_store *rs);   /* accepts NULL */

/* *run_id: the run whose content_sha256 is sha256, or 0 when none is. */
int sb_run_store_find(sb_run_store *rs, const char *sha256, long long *run_id, sb_error *err);

/* Writes rec's rows inside the open transaction (none open: an error);
 * *run_id gets the new run's id. All or nothing: when a row cannot be
 * written, the rows of the run written before it are deleted again, and
 * if even that fails the transaction is rolled back (the error says so).
 * Errors name rec->run.source_path and the table. */
int sb_run_store_insert(sb_run_store *rs, const sb_run_record *rec, long long *run_id,
                        sb_error *err);

/* Replaces the profiler metrics of run_id by rows (source_path is stored
 * beside each and names errors), then marks the run as timed under
 * Nsight Compute when the profile has a launch for each of its samples.
 * Fails, writing nothing, when no run run_id is stored. */
int sb_run_store_put_profile(sb_run_store *rs, long long run_id, const char *source_path,
                             const sb_profiler_metric_row *rows, size_t n_rows, sb_error *err);

/* The same in steps, for a profile stored as it is read (ingest.h):
 * _begin fails when no run run_id is stored and deletes the run's
 * metrics, _row writes one, _end marks the run as put_profile does. A
 * failure part-way leaves what was written: the caller's savepoint or
 * transaction takes it back. */
int sb_run_store_profile_begin(sb_run_store *rs, long long run_id, const char *source_path, sb_error *err);
int sb_run_store_profile_row(sb_run_store *rs, long long run_id, const char *source_path,
                             const sb_profiler_metric_row *row, sb_error *err);
int sb_run_store_profile_end(sb_run_store *rs, long long run_id, const char *source_path, sb_error *err);

/* Replaces run_id's kernel summary with rows (kernel_summaries, kernel_index
 * = the row's place), tool naming the profiler ("nsys"), inside the open
 * transaction. Fails, writing nothing, when no run run_id is stored. */
int sb_run_store_put_kernel_summary(sb_run_store *rs, long long run_id, const char *tool,
                                    const char *source_path, const sb_kernel_summary_row *rows,
                                    size_t n_rows, sb_error *err);
/* The same in steps, as the profile's: _begin checks the run and deletes
 * its summary, _row writes the row of kernel_index index. */
int sb_run_store_kernel_summary_begin(sb_run_store *rs, long long run_id, const char *source_path,
                                      sb_error *err);
int sb_run_store_kernel_summary_row(sb_run_store *rs, long long run_id, const char *tool, const char *source_path,
                                    size_t index, const sb_kernel_summary_row *row, sb_error *err);

/* The largest run id stored (0 when none): the runs stored after it are
 * the ones a later call stores. */
int sb_run_store_last_id(sb_run_store *rs, long long *id, sb_error *err);

/* Calls fn with each distinct pair of provenance.started_at and
 * finished_at of the runs of id at most max_id stored from source_format
 * whose source.file is file (a pair a version of the file imported). */
int sb_run_store_import_times(sb_run_store *rs, const char *source_format, const char *file, long long max_id,
                              int (*fn)(void *ctx, const char *started_at, const char *finished_at), void *ctx,
                              sb_error *err);

/* 1 while a transaction is open on the connection (a failed insert or an
 * I/O error can end one early). */
int sb_run_store_in_transaction(sb_run_store *rs);

/* SAVEPOINT, RELEASE, and ROLLBACK TO + RELEASE of the innermost savepoint
 * opened here; savepoints nest. */
int sb_run_store_savepoint(sb_run_store *rs, sb_error *err);
int sb_run_store_release(sb_run_store *rs, sb_error *err);
void sb_run_store_rollback_savepoint(sb_run_store *rs);

#endif
