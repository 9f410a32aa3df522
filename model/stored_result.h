/* stored_result.h - a stored result run as the reports read it: its
 * status and verdict, config, provenance and metrics, one row of the
 * database made into a value (db/results_query.h loads them; report/ and
 * site/ read them). Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_STORED_RESULT_H
#define SOLBOOK_MODEL_STORED_RESULT_H

#include <stddef.h>

typedef struct sb_result {
    long long run_id;
    char *status;        /* passed | failed | skipped */
    int correct;         /* correctness.passed: 1, 0, or -1 unknown/absent */
    int unchecked;       /* imported: correctness not re-checked (reference 'imported') */
    int passing;         /* status == passed && (correct == 1 || unchecked) */
    char *reason, *source_path, *source_format, *run_uuid;
    /* configs */
    char *suite, *op, *mode, *provider, *backend, *dtype, *shape_key, *shape_json,
        *params_json, *case_key, *timer, *l2;
    char *run_params_json;   /* config.run_params (seed, workspace...), NULL when absent */
    long long warmup_iters, iters, repeats, input_sets; /* -1 when NULL */
    double warmup_ms;                                   /* NAN when NULL */
    double settle_ms;   /* protocol.settle_ms (from the stored document); NAN when absent */
    int launch_hold;    /* protocol.launch_hold is blocking-kernel (solbench --hold) */
    int graph;                                          /* -1 when NULL */
    char *profiler;     /* configs.profiler: timed under ncu/nsys; NULL: a plain timing */
    /* provenance */
    char *git_branch;   /* provenance.git_branch; NULL when not recorded */
    char *git_sha, *tool_name, *tool_version, *driver, *cuda, *cublas, *gpu_name, *arch, *sku,
        *hostname, *finished_at;
    long long finished_epoch; /* LLONG_MIN when finished_at is absent or unparseable */
    /* metrics (NAN when NULL) */
    double median_ms, p20_ms, p80_ms, flops, bytes, tflops, gbps;
    long long sample_count;   /* -1 when NULL */
    int quantiles_only;
    /* GPU kernel time next to the call time above (NAN / NULL when the run
     * recorded none); kernel_method: held-launch | profiler-kernel-sum */
    double kernel_median_ms;
    char *kernel_method;
    /* timing.kernel.hold_timeouts: rounds whose held launch was let go
     * (the op waited on the host inside it); -1 when not recorded */
    int hold_timeouts;
    double repeat_spread;     /* metrics.repeat_spread, NAN when NULL */
    long long peak_device_bytes; /* -1 when NULL */
    char *packages_json;      /* provenance.packages_json: {"name": "version"}, "{}" when none */
    /* 1: a passing run above its card's ceilings (report/plausible.h,
     * sb_plaus_mark); 0 as loaded here. Headlines leave it out and count it. */
    int implausible;
    char *session_id;         /* the measuring session of the run (run_sessions); NULL: none */
    int session_copy;         /* its A/A copy in the session (0, 1); 0 without a session */
} sb_result;

/* The text of a set's runs in one pool: each distinct value of the
 * columns that repeat (op, SKU, commit, GPU, ...) once, the others
 * (source path, finish time, ...) side by side, freed whole. A million
 * runs hold about 40 strings each, mostly the same few values: a malloc
 * per string cost more than a kilobyte a run. */
typedef struct sb_text_pool sb_text_pool;

sb_text_pool *sb_text_pool_new(void); /* NULL: out of memory */
/* A NUL-terminated copy of the len bytes at s in the pool; with shared,
 * the copy already there for the same bytes, if any. NULL: out of
 * memory. Valid until sb_text_pool_free. */
char *sb_text_pool_add(sb_text_pool *p, const char *s, size_t len, int shared);
void sb_text_pool_free(sb_text_pool *p); /* accepts NULL */

typedef struct sb_result_set {
    sb_result *v;
    size_t n;
    int borrowed;   /* 1: the text belongs to the set it was selected from */
    sb_text_pool *text; /* not NULL: the runs' text lies in this pool (never
                         * sb_result_free one of them), freed with the set */
    /* Passed runs left out of v because their time (median_ms) is not a
     * positive finite normal number (0 ms, or a subnormal like 5e-324):
     * every rate, ratio and log scale built on it would be inf or nan.
     * A kernel time of that kind is read as not recorded (NAN). */
    sb_result *left_out;
    size_t n_left_out;
} sb_result_set;

/* The line outputs print when a set left runs out (n > 0). */
#define SB_LEFT_OUT_TIME "run(s) left out: time not a positive finite number"

/* Frees the text of one run (one not in a pool) and sets it to NULL. */
void sb_result_free(sb_result *r);

/* Frees a set's runs (unless borrowed) and arrays; leaves it empty. */
void sb_results_free(sb_result_set *s);

#endif
