/* evidence.h - out/EVIDENCE.md: the project's targets checked against the
 * stored runs (data/templates/evidence.md.tmpl, docs/REPORTS.md `report
 * evidence`), computed from what the caller read of the database: the
 * runs, the paired headlines, the snapshot and the runs' details.
 *
 * Per card: the GEMM spec of every provider with the clocks of each
 * repeat, cuBLAS against torch.matmul, the repeat spread and the measured
 * copy against cudaMemcpy (the targets of the GEMM spec), the settle
 * trials and the sweep of the project's GEMM against cuBLAS; then the
 * project's kernels per op x mode x dtype against the headline baselines
 * with their share of the copy ceiling, FLCE's peak memory against the
 * Hugging Face code, and the runs that failed correctness.
 */
#ifndef SOLBOOK_REPORT_EVIDENCE_H
#define SOLBOOK_REPORT_EVIDENCE_H

#include "error.h"
#include "gate.h"
#include "geomean.h"
#include "run_details.h"
#include "sessions.h"
#include "sku.h"
#include "snapshot.h"
#include "stored_result.h"
#include "strbuf.h"

/* Thresholds of the targets the page checks. */
#define SB_EVIDENCE_CUBLAS_OVER_TORCH 0.95
#define SB_EVIDENCE_COPY_OVER_MEMCPY 0.95
#define SB_EVIDENCE_FLCE_MEMORY 0.25

/* The project's GEMM and the library it is held against in the sweep,
 * and the suite of the spec's settle trials. */
#define SB_EVIDENCE_SWEEP_SUITE "gemm-sweep"
#define SB_EVIDENCE_SWEEP_OURS "solbook-mma"
#define SB_EVIDENCE_SWEEP_LIBRARY "cublas"
#define SB_EVIDENCE_SETTLE_SUITE "gemm-spec-settle"

/* The archs of the completion gate the page's note checks. */
#define SB_EVIDENCE_GATE_ARCHES "a100,h100,h200"

/* Adds to ask what the page reads of the runs beyond their rows: the
 * note's (report/note.h, sb_note_ask), and the relative noise and repeat
 * clocks of each passing GEMM spec and settle run. set: every result run
 * (sb_results_load with no filter) with its plausibility marks
 * (report/plausible.h, sb_plaus_mark). */
int sb_evidence_ask(const sb_result_set *set, sb_details_ask *ask, sb_error *err);

/* At most this many headline baselines (sb_headline_baselines) a group's
 * row holds. */
#define SB_EVIDENCE_MAX_BASES 8

/* A passing GEMM spec run, the newest of its provider on the card. */
typedef struct sb_evidence_spec_run {
    const sb_result *run;
    const char *clocks, *why; /* the SM clock after each repeat, the throttle reasons; "" when none */
    double rel_noise;         /* NAN when the run stored none */
    double of_peak;           /* its TFLOP/s over the datasheet's; NAN without one */
} sb_evidence_spec_run;

/* A settle trial: the spec's case again with another settle length. */
typedef struct sb_evidence_settle {
    const sb_result *run;
    const char *last_mhz;     /* the SM clock after its last repeat; "?" when none */
} sb_evidence_settle;

/* A case of the sweep: the project's GEMM against the library's. */
typedef struct sb_evidence_sweep {
    const sb_result *run, *library;
    double ratio;             /* TFLOP/s over the library's */
} sb_evidence_sweep;

/* The project's kernels of one op x mode x dtype on the card. */
typedef struct sb_evidence_group {
    const char *op, *mode, *dtype;
    size_t cases;             /* passing newest runs */
    double copy_min, copy_median, copy_max; /* share of the copy ceiling; NAN when none */
    /* per headline baseline: the headline of the session that pairs the
     * most of the group's cases (the newest on a tie) and its lowest
     * case; NULL when none */
    const sb_session_headline *paired[SB_EVIDENCE_MAX_BASES];
    double lowest[SB_EVIDENCE_MAX_BASES];
    /* per headline baseline: the unpaired row (sb_geo_compute_unpaired)
     * with compared cases; NULL when none */
    const sb_geo_row *unpaired[SB_EVIDENCE_MAX_BASES];
} sb_evidence_group;

/* FLCE's peak device memory against the first headline baseline's. */
typedef struct sb_evidence_flce {
    const sb_result *run, *base;
    double share;             /* run's peak over base's */
} sb_evidence_flce;

/* What the page shows of one card. Arrays are the page's own. */
typedef struct sb_evidence_card {
    const char *sku, *display;
    const sb_gate_spec *spec;               /* the GEMM spec (report/gate.h) */
    sb_evidence_spec_run *spec_runs;        /* in the order stored */
    size_t nspec_runs;
    const sb_result *library, *torch;       /* the spec's provider and torch.matmul among them; NULL: none */
    const sb_ceiling *ceilings;             /* the card's measured ceilings (sb_snapshot_ceilings) */
    size_t nceilings;
    long long calibration, d2d_calibration; /* the runs of bw.copy and bw.memcpy_d2d; -1 none */
    size_t set_aside, copy_set_aside;       /* the card's measured ceilings set aside (model/calibration.h); of them bw.copy */
    double copy_gbps, d2d_gbps;             /* bw.copy, bw.memcpy_d2d; NAN when not measured */
    sb_evidence_settle *settle;             /* every passing run, in order */
    size_t nsettle, steady;                 /* steady: spread under SB_NOTE_SPREAD_LIMIT */
    sb_evidence_sweep *sweep;               /* in the order of the picks */
    size_t nsweep;
    sb_evidence_group *groups;              /* the newest runs' groups, then the headlines' */
    size_t ngroups;
    sb_evidence_flce *flce;
    size_t nflce;
    const sb_result **failed;               /* newest runs that failed, not skipped */
    size_t nfailed;
} sb_evidence_card;

/* The figures of the page. */
typedef struct sb_evidence_page {
    sb_evidence_card *cards;                /* by arch, then SKU */
    size_t ncards;
    sb_pick *picks;                         /* the newest run of each case */
    size_t npicks;
    sb_geo_table geo;                       /* their unpaired rows */
} sb_evidence_page;

/* The page's figures from set (as for sb_evidence_ask), paired (the
 * checked headlines of every session, report/claims.h), snap (the
 * cards' calibrations) and det (what db/run_details_read.h read for the
 * ask sb_evidence_ask filled). The Markdown is
 * report/render/evidence_render.h's. */
int sb_evidence_compute(const sb_result_set *set, const sb_session_headlines *paired, const sb_snapshot *snap,
                        const sb_run_details *det, const sb_sku_table *skus, sb_evidence_page *out,
                        sb_error *err);
void sb_evidence_page_free(sb_evidence_page *p);

#endif
