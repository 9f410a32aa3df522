/* standing_render.h - the generated tables of KERNELS.md (report/
 * standing.h's figures) as Markdown, and a document with its blocks
 * rewritten from them.
 */
#ifndef SOLBOOK_REPORT_RENDER_STANDING_RENDER_H
#define SOLBOOK_REPORT_RENDER_STANDING_RENDER_H

#include <stddef.h>

#include "error.h"
#include "standing.h"
#include "strbuf.h"

/* Appends block name's Markdown (without its marker lines). An unknown
 * name is an error naming the known ones. */
int sb_standing_render(sb_standing *s, const char *name, sb_buf *out, sb_error *err);

/* The document at path with its blocks rewritten from s, into out (the
 * caller writes it back, through a temporary file and rename, so that a
 * refused document is left as it was). */
int sb_standing_rewrite_doc(sb_standing *s, const char *path, sb_buf *out, size_t *blocks, sb_error *err);

/* Every block between its marker lines, in sb_standing_blocks order. */
int sb_standing_render_all(sb_standing *s, sb_buf *out, sb_error *err);

#endif
