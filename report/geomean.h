/* geomean.h - speedup tables: for each op x mode x dtype x SKU, the
 * geometric mean over shapes of baseline median / provider median, from the
 * newest run of every case (docs/REPORTS.md, docs/CLAIMS.md).
 *
 * A case enters the mean only when the newest runs of both the provider and
 * the baseline on that SKU pass (status passed and correctness passed).
 * Every other case is counted, never dropped silently: failed (provider's
 * newest run failed), skipped, no baseline (baseline missing, failed or
 * skipped), not run (the baseline has it, the provider does not). stale
 * counts compared cases whose run is not at the provider's newest commit.
 * implausible counts cases left out because a side's run is faster than
 * its card's ceilings allow (r->implausible, report/plausible.h).
 */
#ifndef SOLBOOK_REPORT_GEOMEAN_H
#define SOLBOOK_REPORT_GEOMEAN_H

#include <stddef.h>

#include "results.h"
#include "strbuf.h"

struct sb_session_headlines; /* report/sessions.h */

/* A speedup above this many times is flagged for a second look with both
 * times shown (kernel-level speedups of that size against well-tuned
 * baselines are rarely what they seem). */
#define SB_SPEEDUP_LOOK 10.0

#define SB_EVIDENCE_OP "op-level microbenchmark"
#define SB_EVIDENCE_E2E "end-to-end training step"

/* The baselines of every headline, in order: the unmodified Hugging Face /
 * PyTorch eager code, torch.compile of it, and Liger-Kernel's own ops
 * (where an op has runs of them). Ended by NULL. */
extern const char *const sb_headline_baselines[];
/* The position of provider p in sb_headline_baselines; the count of them
 * for any other provider. */
int sb_headline_baseline_rank(const char *p);

/* The project's own kernels: the subject of the cross-arch tables and the
 * default provider of `report table`. */
#define SB_PROJECT_PROVIDER "fused"

/* The project's own CUDA stand-in for the Hugging Face code: a diagnostic
 * provider that no headline uses unless asked for by name. */
#define SB_DIAGNOSTIC_PROVIDER "reference"

/* Where both sides of some compared cases recorded GPU kernel time
 * (metrics.kernel_median_ms) a row uses kernel time over those cases alone
 * and counts the others as call_only; otherwise call time. */
typedef enum { SB_TIME_CALL = 0, SB_TIME_KERNEL = 1 } sb_time_kind;
const char *sb_time_kind_name(sb_time_kind k); /* "call" | "kernel" */
/* A GPU as the tables name it: its UUID's first group ("GPU-b8e7e832");
 * "" for NULL. */
void sb_gpu_short(const char *uuid, char *buf, size_t size);

typedef struct sb_geo_row {
    const char *op, *mode, *dtype, *sku, *arch, *provider, *baseline; /* point into the set */
    int baseline_rank;             /* position in sb_headline_baselines; larger for others */
    sb_time_kind time;             /* which time the ratios use */
    size_t shapes;                 /* cases compared */
    double geomean, min, max;      /* NAN when shapes == 0 */
    size_t failed, skipped, no_baseline, not_run, stale;
    size_t unchecked;              /* compared cases with an imported side whose correctness was not re-checked */
    size_t call_only;              /* kernel rows: cases both passed where one side has call time only, left out */
    size_t implausible;            /* cases both passed where a side is above its card's ceilings
                                    * (report/plausible.h), left out */
    size_t paired;                 /* cases a session pairs (sb_geo_compute_unpaired), left out:
                                    * their figure is the paired headline */
} sb_geo_row;

typedef struct sb_geo_table {
    sb_geo_row *rows;  /* ordered by op, mode, dtype, arch, SKU, provider */
    size_t n;
    const char **skus; /* SKUs with rows, ordered by arch then id */
    const char **sku_arch;
    size_t nskus;
    size_t left_out;   /* the set's runs left out for their time (SB_LEFT_OUT_TIME) */
} sb_geo_table;

/* baseline NULL: the headline baselines (sb_headline_baselines) that have
 * a passing case in an op x mode x dtype, each against every provider that
 * is not an earlier headline baseline; a group where none has a passing
 * case falls back to its provider with the most passing cases (ties:
 * alphabetical), never to SB_DIAGNOSTIC_PROVIDER. baseline given: that
 * provider for every op group, even where it has no passing case (its
 * rows then count the cases as "no baseline"). */
int sb_geo_compute(const sb_result_set *set, const sb_pick *picks, size_t npicks,
                   const char *baseline, sb_geo_table *out, sb_error *err);
/* sb_geo_compute for the cases no session pairs: a case that a headline
 * of paired (report/sessions.h) covers for the row's provider, baseline
 * and SKU is left out and counted in the row's `paired` (paired NULL:
 * none is). Its rows are the unpaired comparison, which a report shows
 * only in its own section, never as the headline (docs/CLAIMS.md). */
int sb_geo_compute_unpaired(const sb_result_set *set, const sb_pick *picks, size_t npicks, const char *baseline,
                            const struct sb_session_headlines *paired, sb_geo_table *out, sb_error *err);
void sb_geo_free(sb_geo_table *t);

/* 1 when the row's baseline is a headline baseline (sb_headline_baselines):
 * a provider pair that sessions measure. Other baselines (cuBLASLt,
 * cudaMemcpy, `reference`: what solbench runs beside its own kernels)
 * are a provider against the harness's own baseline, not a session pair. */
int sb_geo_row_session_kind(const sb_geo_row *g);

/* The speed-up of provider run p over baseline run b of one case:
 * b / p in kernel time when both recorded it and kernel is asked for,
 * in call time otherwise. NAN when a time is missing or not positive. */
double sb_speedup(const sb_result *p, const sb_result *b, sb_time_kind time);
/* 1 when both runs recorded a positive kernel time. */
int sb_both_kernel(const sb_result *p, const sb_result *b);

/* The tables as the outputs show them (Markdown, CSV, JSON):
 * report/render/geomean_render.h. */

#endif
