/* bench.h - `solbook forge bench`: candidate and baseline timed on the same
 * card in the same process (data/forge/harness/forge_bench.cu), stored as
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

#include "bench_config.h"
#include "error.h"
#include "sku.h"

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

/* The solbook.result.v1 document (model/result_doc.h) of one provider on
 * one case of the harness output raw: spec the task's spec, cas the case,
 * pr the provider's entry (check, samples, error), prov the provenance
 * (copied), sku the card's (NULL: unknown). The run fails with a reason
 * (into reason) when the check failed, the harness gave an error or no
 * samples. NULL when out of memory or the samples are not numbers. */
json_t *sb_forge_result(const json_t *spec, const json_t *raw, const json_t *cas, const json_t *pr,
                        const char *provider, const char *session, const json_t *prov,
                        const sb_sku *sku, const char *notes, char *reason, size_t rsize);

#endif
