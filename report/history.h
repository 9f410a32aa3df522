/* history.h - one case on one SKU across commits, drawn: per provider, the
 * median of the newest passing run at each commit as a line, its p20-p80
 * as a band, commits along x in commit order (regress.h), regressions and
 * improvements of each step marked (red triangle up: slower; green
 * triangle down: faster). Used by the site's history and op pages. */
#ifndef SOLBOOK_REPORT_HISTORY_H
#define SOLBOOK_REPORT_HISTORY_H

#include <stddef.h>

#include "regress.h"
#include "results.h"
#include "strbuf.h"

/* runs: every run of one case on one SKU (any provider, any order); ord:
 * the commit order; steps: verdict rows (sb_rg_history) whose new_run may
 * be among runs (others are ignored), sorted by new_run->run_id. Writes an
 * SVG element (no XML declaration). *points gets the number of points
 * drawn (0: nothing passed at a known commit; then nothing is written). */
void sb_history_svg(const sb_result *const *runs, size_t n, const sb_rg_order *ord,
                    const sb_rg_row *const *steps, size_t nsteps, const char *title, sb_buf *out,
                    size_t *points);

/* Sorts pointers to rows by new_run->run_id, for sb_history_svg. */
void sb_history_sort_steps(const sb_rg_row **steps, size_t n);

#endif
