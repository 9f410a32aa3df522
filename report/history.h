/* history.h - the order the site's history and op charts look up the
 * regression and improvement steps of a case in (site/site_chart.c draws
 * the charts). */
#ifndef SOLBOOK_REPORT_HISTORY_H
#define SOLBOOK_REPORT_HISTORY_H

#include <stddef.h>

#include "regress.h"

/* Sorts pointers to verdict rows (sb_rg_walk_open) by new_run->run_id. */
void sb_history_sort_steps(const sb_rg_row **steps, size_t n);

#endif
