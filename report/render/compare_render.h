/* compare_render.h - `solbook compare`'s renderings of a compared set
 * (report/compare.h): Markdown, a summary then the slower, faster,
 * inconclusive and same cases in tables, and the JSON of the op-level
 * reports (report_json.h).
 */
#ifndef SOLBOOK_REPORT_RENDER_COMPARE_RENDER_H
#define SOLBOOK_REPORT_RENDER_COMPARE_RENDER_H

#include "compare.h"
#include "error.h"
#include "strbuf.h"

void sb_cmp_render_md(const sb_cmp_result *r, const sb_cmp_side *a, const sb_cmp_side *b,
                      const sb_cmp_opts *o, sb_buf *out);
int sb_cmp_render_json(const sb_cmp_result *r, const sb_cmp_side *a, const sb_cmp_side *b,
                       const sb_cmp_opts *o, sb_buf *out, sb_error *err);

#endif
