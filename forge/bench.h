/* bench.h - `solbook forge bench`: candidate and baseline timed on the same
 * card in the same process (forge/harness/forge_bench.cu), stored as
 * solbook.result.v1 runs, and judged.
 *
 * The verdict is "passed" only when verify passed on the same files, the
 * card is the spec's SKU, both providers passed the harness's correctness
 * check on every shape, and baseline median / candidate median reaches the
 * minimum speedup on every shape. RUN/bench.json records the verdict, the
 * database run ids and the medians; RUN/results/ holds the result files.
 */
#ifndef SOLBOOK_FORGE_BENCH_H
#define SOLBOOK_FORGE_BENCH_H

#include <jansson.h>

#include "error.h"

typedef struct sb_forge_bench_config {
    int warmup_iters, iters, repeats;
    int cold_l2;
    unsigned long long seed;
} sb_forge_bench_config;

/* Reads candidate/bench.json: optional keys warmup_iters (0-10000, default
 * 20), iters (1-10000, 50), repeats (1-100, 5), l2 ("cold"|"warm", cold),
 * seed (0-2^53, 1234); any other key is refused. */
int sb_forge_bench_config_load(const char *path, sb_forge_bench_config *c, sb_error *err);

typedef struct sb_forge_bench_opts {
    const char *db_path;        /* NULL: sb_default_db_path() */
    double min_speedup;         /* 0: the spec's */
    const char *raw_input;      /* judge an existing harness output instead of running
                                   the harness (re-ingest, tests) */
    int unsafe_no_sandbox;      /* run unconfined where no sandbox is available (own code only) */
} sb_forge_bench_opts;

/* *verdict: SB_FORGE_PASSED, SB_FORGE_REFUSED or SB_FORGE_NO_GPU
 * (verify.h). SB_ERR for system errors. */
int sb_forge_bench(const char *run_dir, const sb_forge_bench_opts *o, int *verdict,
                   json_t **report, sb_error *err);

/* Summary statistics of samples (array of arrays of ms) as the result
 * schema's stats object. Quantiles interpolate linearly between order
 * statistics. */
json_t *sb_forge_stats(const json_t *samples);

#endif
