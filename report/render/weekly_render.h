/* weekly_render.h - the weekly writeup: DIR/YYYY-Www.md (GitHub Flavored
 * Markdown), its SVG plots, and DIR/YYYY-Www.html rendered from the
 * Markdown with cmark-gfm (table, strikethrough, autolink, tagfilter).
 * DIR/YYYY-Www-appendix.md holds the full tables and commands.
 * Wording: data/templates/weekly.md.tmpl, weekly-appendix.md.tmpl and
 * weekly.html.tmpl.
 * Runs belong to the ISO week of provenance.finished_at (UTC).
 * The week's files are built in memory (core/file_set.h); the CLI and
 * site/ publish them into DIR, merged with the other weeks' files.
 */
#ifndef SOLBOOK_REPORT_RENDER_WEEKLY_RENDER_H
#define SOLBOOK_REPORT_RENDER_WEEKLY_RENDER_H

#include "error.h"
#include "file_set.h"
#include "sku.h"
#include "strbuf.h"
#include "weekly.h"
#include "weekly_snapshot.h"

/* Builds the week's files into *out (free with sb_file_set_free) from
 * the rows ws its caller read once (site/site_weekly_read.h fills one),
 * the runs of measuring sessions with their plausibility marks and the
 * plausibility listing's snapshot among them, and from steps, what the
 * check of the steps it names takes of o->regressions. */
int sb_weekly_build(const sb_weekly_snapshot *ws, const sb_weekly_steps *steps,
                    const sb_sku_table *skus, const sb_weekly_opts *o, sb_weekly_summary *sum, sb_file_set *out,
                    sb_error *err);

/* The writeups' note (the gate and the cards, report/note.h) over all
 * (NULL: the snapshot's note runs), appended to out. */
int sb_weekly_note(const sb_weekly_snapshot *ws, const sb_result_set *all, const sb_sku_table *skus, sb_buf *out,
                   sb_error *err);

#endif
