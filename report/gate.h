/* gate.h - the completion gate behind `solbook validate-results`: every
 * required arch has exactly one stored result of the GEMM spec that passes
 * and is fully evidenced.
 *
 * The GEMM spec (docs/REPORTS.md): suite gemm-spec, op gemm, mode fwd,
 * dtype fp16, shape M=N=K=4096, provider cublas, protocol 10 warm-up
 * launches then 5 repeats of 50 timed launches. A result counts for arch A
 * when provenance.arch is A, its SKU is in data/skus.csv with arch A, status
 * is passed, correctness passed, and every speed-of-light metric of the
 * ncu profile (SB_NCU_SOL_METRICS, ingest/ncu_csv.h) has a value.
 */
#ifndef SOLBOOK_REPORT_GATE_H
#define SOLBOOK_REPORT_GATE_H


#include "error.h"
#include "result_filter.h"
#include "run_details.h"
#include "sku.h"
#include "stored_result.h"
#include "strbuf.h"

typedef struct sb_gate_spec {
    const char *suite, *op, *mode, *dtype, *shape_key, *provider;
    long long warmup_iters, iters, repeats;
} sb_gate_spec;

/* The spec of an op ("gemm"); NULL when the gate defines none for it. */
const sb_gate_spec *sb_gate_spec_for(const char *op);

typedef enum { SB_GATE_OK, SB_GATE_MISSING, SB_GATE_AMBIGUOUS } sb_gate_state;

typedef struct sb_gate_verdict {
    char arch[32];
    sb_gate_state state;
    long long run_id;      /* the complete result when ok, else -1 */
    char sku[64];          /* its SKU when ok */
    size_t candidates;     /* stored results of the spec for the arch */
    size_t complete;       /* of which complete */
} sb_gate_verdict;

/* Adds to ask what the gate reads of the runs beyond their rows: the
 * speed-of-light metrics (SB_NCU_SOL_METRICS) of each candidate of each
 * arch of the comma-separated list. all: the result runs loaded by
 * sb_results_load (db/results_query.h) for a filter that keeps at least
 * every run of the spec's suite, op and provider. */
int sb_gate_ask(const sb_result_set *all, const sb_gate_spec *spec, const char *arch_list,
                sb_details_ask *ask, sb_error *err);

/* The verdict of each arch of the comma-separated list, in list order,
 * malloc'd into *out (n entries). all: as for sb_gate_ask; det: what
 * db/run_details_read.h read for the ask sb_gate_ask filled. */
int sb_gate_verdicts(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                     const sb_gate_spec *spec, const char *arch_list, sb_gate_verdict **out,
                     size_t *n, sb_error *err);

/* Checks each arch of the comma-separated list (e.g. "a100,h100,h200").
 * Appends a human report to out (one block per arch: ok with the run id, or
 * every problem found) and sets *ok to 1 only when every arch passes.
 * all, det: as for sb_gate_verdicts. */
int sb_gate_check(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                  const sb_gate_spec *spec, const char *arch_list, int *ok, sb_buf *out,
                  sb_error *err);

#endif
