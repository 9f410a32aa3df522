/* geomean_render.h - the speedup tables (report/geomean.h) as the
 * outputs show them: Markdown, CSV and JSON of a geo table, the paired
 * headlines (report/sessions.h), `solbook report geomean`'s document,
 * and the evidence labels the templates name.
 */
#ifndef SOLBOOK_REPORT_RENDER_GEOMEAN_RENDER_H
#define SOLBOOK_REPORT_RENDER_GEOMEAN_RENDER_H

#include <jansson.h>

#include "error.h"
#include "geomean.h"
#include "strbuf.h"

struct sb_session_headlines; /* report/sessions.h */

/* Sets both labels in template data d, as evidence_op and evidence_e2e,
 * for the reports that speak of op-level and end-to-end runs together. */
void sb_evidence_labels_set(json_t *d);

/* Renderers. Figures: speedups with 3 decimals ("1.234"). */
void sb_geo_render_md(const sb_geo_table *t, sb_buf *out);       /* per-SKU table + cross-arch table */
/* "N run(s) left out: ..." and a blank line, when t->left_out > 0. */
void sb_geo_left_out_note(const sb_geo_table *t, sb_buf *out);
/* The sentence every table using the diagnostic provider as its baseline
 * carries; appended by the renderers when a row has it as baseline. */
void sb_geo_diagnostic_note(sb_buf *out);
void sb_geo_render_md_cross(const sb_geo_table *t, sb_buf *out); /* cross-arch table only */
void sb_geo_render_csv(const sb_geo_table *t, sb_buf *out);
int sb_geo_render_json(const sb_geo_table *t, sb_buf *out, sb_error *err);

/* The paired headlines: one row per provider, baseline, op x mode x dtype,
 * SKU and session, naming the session (short id) and GPU, with the
 * interval, the worst shape and the wins and losses; then a cross-arch
 * table of the same figures (of one provider's headlines, or every
 * provider's where provider is NULL). */
void sb_geo_render_paired_md(const struct sb_session_headlines *h, sb_buf *out);
void sb_geo_render_paired_md_cross(const struct sb_session_headlines *h, const char *provider, sb_buf *out);

/* `solbook report geomean`: the paired headlines first; then the rows
 * against the harness's own baselines, labelled as such; then the rest of
 * t under "Not paired: runs from different sessions or cards". t is
 * computed by sb_geo_compute_unpaired with h. JSON: "paired" holds the
 * headlines (each with its session, GPU, timing method, check and
 * per-shape speedups), "rows" t's rows, each with its "method". */
void sb_geo_render_report_md(const struct sb_session_headlines *h, const sb_geo_table *t, sb_buf *out);
void sb_geo_render_report_csv(const struct sb_session_headlines *h, const sb_geo_table *t, sb_buf *out);
int sb_geo_render_report_json(const struct sb_session_headlines *h, const sb_geo_table *t, sb_buf *out, sb_error *err);

#endif
