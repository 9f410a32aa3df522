/* note.h - the result note: at most ten lines about the GEMM spec
 * (report/gate.h) and what changed, from the database, worded by
 * data/templates/note.md.tmpl (docs/REPORTS.md).
 *
 * Per card with a spec result: cuBLAS and torch.matmul TFLOP/s at the
 * spec's shape and their share of the SKU's datasheet peak (data/skus.csv),
 * the change against the card's previous cuBLAS spec run, the spread of
 * the repeat medians with the SM clock recorded at each repeat when the
 * spread is over 1%, the Nsight Compute speed-of-light of the cuBLAS run
 * where stored; then the completion gate's verdict per arch.
 */
#ifndef SOLBOOK_REPORT_NOTE_H
#define SOLBOOK_REPORT_NOTE_H

#include <jansson.h>

#include "error.h"
#include "results_query.h"
#include "sku.h"
#include "store.h"
#include "strbuf.h"

/* Spread of the repeat medians above which the note lists the clocks. */
#define SB_NOTE_SPREAD_LIMIT 0.01

/* The note's template data (docs/REPORTS.md lists the variables), a new
 * object in *out. gate_arches: comma-separated, e.g. "a100,h100,h200".
 * all: every result run already loaded (sb_results_select), or NULL to
 * read them from db. */
int sb_note_data(sb_db *db, const sb_result_set *all, const sb_sku_table *skus,
                 const char *gate_arches, json_t **out, sb_error *err);

/* Renders data/templates/note.md.tmpl into out. */
int sb_note_render(sb_db *db, const sb_result_set *all, const sb_sku_table *skus,
                   const char *gate_arches, sb_buf *out, sb_error *err);

#endif
