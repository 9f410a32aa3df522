/* plausible_render.h - the plausibility listing (report/plausible.h) as
 * the outputs show it: Markdown.
 */
#ifndef SOLBOOK_REPORT_RENDER_PLAUSIBLE_RENDER_H
#define SOLBOOK_REPORT_RENDER_PLAUSIBLE_RENDER_H

#include <stddef.h>

#include "error.h"
#include "plaus_snap.h"
#include "plausible.h"
#include "results.h"
#include "snapshot.h"
#include "strbuf.h"

/* The plausibility section over the newest run of each case (picks of
 * set): every passing run that is implausible or cache-resident with its
 * figures and reason; then every passing run of sessions (the runs of
 * measuring sessions, loaded with only_sessions; NULL: none) that is, with
 * its session; then every speedup of a provider over a headline baseline
 * above SB_SPEEDUP_LOOK (geomean.h) with both times. heading: the
 * Markdown heading level of its titles ("##", "###"). snap: what
 * sb_plaus_snap_read_verdicts read of the picks' runs and the sessions'. */
int sb_plaus_render_md(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                       const char *heading, sb_buf *out, sb_plaus_summary *sum, sb_error *err);

/* The same with the implausible runs alone listed (every count kept) and
 * no speedup section: the site's list of the runs headlines leave out. */
int sb_plaus_render_implausible_md(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                                   const char *heading, sb_buf *out, sb_plaus_summary *sum, sb_error *err);

/* The measured ceilings of cards that are set aside as not credible
 * (sb_snapshot_set_aside, model/calibration.h), each with its card,
 * calibration run, value and datasheet figure, under a heading one level
 * below heading; a line saying none is when none is. */
void sb_plaus_render_set_aside_md(const sb_snapshot *cards, const char *heading, sb_buf *out);

#endif
