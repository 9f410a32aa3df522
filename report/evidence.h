/* evidence.h - out/EVIDENCE.md: the project's targets checked against the
 * stored runs, computed from the database (data/templates/evidence.md.tmpl,
 * docs/REPORTS.md `report evidence`).
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
#include "sku.h"
#include "store.h"
#include "strbuf.h"

/* Thresholds of the targets the page checks. */
#define SB_EVIDENCE_CUBLAS_OVER_TORCH 0.95
#define SB_EVIDENCE_COPY_OVER_MEMCPY 0.95
#define SB_EVIDENCE_FLCE_MEMORY 0.25

int sb_evidence_render(sb_db *db, const sb_sku_table *skus, sb_buf *out, sb_error *err);

#endif
