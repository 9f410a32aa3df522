/* regress_render.h - the regression list (report/regress.h) as the
 * outputs show it: the definition of its count, commit ranges, Markdown
 * and JSON.
 */
#ifndef SOLBOOK_REPORT_RENDER_REGRESS_RENDER_H
#define SOLBOOK_REPORT_RENDER_REGRESS_RENDER_H

#include "error.h"
#include "regress.h"
#include "strbuf.h"

/* One paragraph (no newline at its end) stating the count of
 * sb_rg_count_regressions and what it counts, the same in every output. */
void sb_rg_definition(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out);

/* The commit range of row r: "OLD..NEW" (12 hex digits each), a Markdown
 * link to o->repo_url/compare/OLD...NEW where set. */
void sb_rg_range_md(const sb_rg_row *r, const sb_rg_opts *o, sb_buf *out);

/* Markdown: the definition, the regressions of the project's kernels,
 * their improvements, environment/noise drift, protocol and environment
 * changes, then the other verdicts. latest_only: only the steps to each
 * series' newest commit (without --history). */
void sb_rg_render_md(const sb_rg_list *l, const sb_rg_opts *o, int latest_only, sb_buf *out);
int sb_rg_render_json(const sb_rg_list *l, const sb_rg_opts *o, int latest_only, sb_buf *out,
                      sb_error *err);

#endif
