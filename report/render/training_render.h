/* training_render.h - the end-to-end training section (report/training.h)
 * as Markdown, through data/templates/training.md.tmpl, with its bar plot
 * of tokens/s.
 */
#ifndef SOLBOOK_REPORT_RENDER_TRAINING_RENDER_H
#define SOLBOOK_REPORT_RENDER_TRAINING_RENDER_H

#include "error.h"
#include "strbuf.h"
#include "training.h"

/* Appends the Markdown section to out; draws the plot into o->plot where
 * it is set and there are pairs. */
int sb_training_render_md(const sb_training_opts *o, sb_buf *out, sb_training_summary *sum,
                          sb_error *err);
/* The same with only the sessions' paired rows and the not paired table:
 * no op-level rows (they are not paired within measuring sessions) and no
 * run list. */
int sb_training_render_pairs_md(const sb_training_opts *o, sb_buf *out,
                                sb_training_summary *sum, sb_error *err);

#endif
