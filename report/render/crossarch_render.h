/* crossarch_render.h - a cross-arch table (report/crossarch.h) as the
 * outputs show it: Markdown.
 */
#ifndef SOLBOOK_REPORT_RENDER_CROSSARCH_RENDER_H
#define SOLBOOK_REPORT_RENDER_CROSSARCH_RENDER_H

#include <stddef.h>

#include "crossarch.h"
#include "strbuf.h"

/* The table in Markdown: a caption line, the rows (at most max_rows, those
 * with the most model bytes, and says so; SIZE_MAX for all) and the geomean
 * row.
 * Returns the number of lines written. */
size_t sb_xa_render_md(const sb_xa_table *t, size_t max_rows, sb_buf *out);

#endif
