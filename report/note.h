/* note.h - the result note: at most ten lines about the GEMM spec
 * (report/gate.h) and what changed, from the stored runs, worded by
 * data/templates/note.md.tmpl (docs/REPORTS.md).
 *
 * Per card with a spec result: cuBLAS and torch.matmul TFLOP/s at the
 * spec's shape and their share of the SKU's datasheet peak (data/skus.csv),
 * the change against the card's previous cuBLAS spec run, the spread of
 * the repeat medians with the SM clock recorded at each repeat when the
 * spread is over 1%, the Nsight Compute speed-of-light of the cuBLAS run
 * where stored; then the completion gate's verdict per arch. The caller
 * reads the runs and their details (db/results_query.h,
 * db/run_details_read.h); nothing here reads the database.
 */
#ifndef SOLBOOK_REPORT_NOTE_H
#define SOLBOOK_REPORT_NOTE_H

#include <jansson.h>

#include "error.h"
#include "result_filter.h"
#include "run_details.h"
#include "sku.h"
#include "stored_result.h"
#include "strbuf.h"

/* Spread of the repeat medians above which the note lists the clocks. */
#define SB_NOTE_SPREAD_LIMIT 0.01

/* The filter of the runs the note reads: every run of the GEMM spec's
 * suite and op. */
sb_result_filter sb_note_filter(void);

/* Adds to ask what the note reads of the runs beyond their rows: the
 * gate's (sb_gate_ask), the speed-of-light metrics and repeat clocks of
 * each card's newest cuBLAS spec run, and the runs on each arch of
 * gate_arches (comma-separated, e.g. "a100,h100,h200"). all: the result
 * runs loaded by sb_results_load (db/results_query.h) for a filter that
 * keeps at least every run sb_note_filter keeps. */
int sb_note_ask(const sb_result_set *all, const char *gate_arches, sb_details_ask *ask,
                sb_error *err);

/* The note's template data (docs/REPORTS.md lists the variables), a new
 * object in *out. all, gate_arches: as for sb_note_ask; det: what
 * db/run_details_read.h read for the ask sb_note_ask filled. */
int sb_note_data(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                 const char *gate_arches, json_t **out, sb_error *err);

/* Renders data/templates/note.md.tmpl into out. */
int sb_note_render(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                   const char *gate_arches, sb_buf *out, sb_error *err);

#endif
