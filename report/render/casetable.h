/* casetable.h - the per-shape speedup table of `solbook report table`:
 * one table per mode x dtype of an op on one SKU, a row per case both the
 * provider and the baseline passed (its shape and parameters visible so
 * rows are told apart), the geomean at the foot, and the cases that could
 * not be compared counted under it (docs/REPORTS.md).
 */
#ifndef SOLBOOK_REPORT_CASETABLE_H
#define SOLBOOK_REPORT_CASETABLE_H

#include <stddef.h>

#include "results.h"
#include "strbuf.h"

/* The case's shape and parameters as one label: the shape key, then the
 * parameters of params_json as name=value (none for "{}"). */
void sb_case_label(const sb_result *r, sb_buf *out);
/* The same of a shape key and a params JSON text (NULL: none), as a
 * session run holds them. */
void sb_case_label_of(const char *shape_key, const char *params_json, sb_buf *out);

/* Renders the tables of provider against baseline for op on sku from the
 * newest run of each case (picks). Returns the number of cases compared. */
size_t sb_case_table_render(const sb_pick *picks, size_t n, const char *op, const char *sku,
                            const char *provider, const char *baseline, sb_buf *out);

#endif
