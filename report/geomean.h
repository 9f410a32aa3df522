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
 */
#ifndef SOLBOOK_REPORT_GEOMEAN_H
#define SOLBOOK_REPORT_GEOMEAN_H

#include <stddef.h>

#include "results.h"
#include "strbuf.h"

#define SB_EVIDENCE_OP "op-level microbenchmark"
#define SB_EVIDENCE_E2E "end-to-end training step"

typedef struct sb_geo_row {
    const char *op, *mode, *dtype, *sku, *arch, *provider, *baseline; /* point into the set */
    size_t shapes;                 /* cases compared */
    double geomean, min, max;      /* NAN when shapes == 0 */
    size_t failed, skipped, no_baseline, not_run, stale;
    size_t unchecked;              /* compared cases with an imported side whose correctness was not re-checked */
} sb_geo_row;

typedef struct sb_geo_table {
    sb_geo_row *rows;  /* ordered by op, mode, dtype, arch, SKU, provider */
    size_t n;
    const char **skus; /* SKUs with rows, ordered by arch then id */
    const char **sku_arch;
    size_t nskus;
} sb_geo_table;

/* Default baseline of an op x mode x dtype: "reference" when it has a
 * passing case there, otherwise the provider with the most passing cases
 * (ties: alphabetical). baseline (NULL for the default) applies to all. */
int sb_geo_compute(const sb_result_set *set, const sb_pick *picks, size_t npicks,
                   const char *baseline, sb_geo_table *out, sb_error *err);
void sb_geo_free(sb_geo_table *t);

/* Renderers. Figures: speedups with 3 decimals ("1.234"). */
void sb_geo_render_md(const sb_geo_table *t, sb_buf *out);       /* per-SKU table + cross-arch table */
void sb_geo_render_md_cross(const sb_geo_table *t, sb_buf *out); /* cross-arch table only */
void sb_geo_render_csv(const sb_geo_table *t, sb_buf *out);
int sb_geo_render_json(const sb_geo_table *t, sb_buf *out, sb_error *err);

#endif
