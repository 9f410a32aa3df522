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

/* The archs of the completion gate the page's note checks. */
#define SB_EVIDENCE_GATE_ARCHES "a100,h100,h200"

/* Adds to ask what the page reads of the runs beyond their rows: the
 * note's (report/note.h, sb_note_ask), and the relative noise and repeat
 * clocks of each passing GEMM spec and settle run. set: every result run
 * (sb_results_load with no filter) with its plausibility marks
 * (report/plausible.h, sb_plaus_mark). */
int sb_evidence_ask(const sb_result_set *set, sb_details_ask *ask, sb_error *err);

/* The page from set (as for sb_evidence_ask), paired (the checked
 * headlines of every session, report/claims.h), snap (the cards'
 * calibrations) and det (what db/run_details_read.h read for the ask
 * sb_evidence_ask filled). */
int sb_evidence_render(const sb_result_set *set, const sb_session_headlines *paired,
                       const sb_snapshot *snap, const sb_run_details *det,
                       const sb_sku_table *skus, sb_buf *out, sb_error *err);

#endif
