/* run_details_read.h - fills a report's run details (model/run_details.h)
 * from the database: what its ask names, read once, so report/ takes it
 * from its caller instead of querying.
 */
#ifndef SOLBOOK_DB_RUN_DETAILS_READ_H
#define SOLBOOK_DB_RUN_DETAILS_READ_H

#include "error.h"
#include "run_details.h"
#include "store.h"

/* Reads what ask names into a new sb_run_details: each run's non-NULL
 * values of each metric in launch order (sb_run_profiler_values), its
 * metrics columns (sb_run_metric), its repeat clocks when ask->clocks (sb_repeat_clocks), and the number of
 * runs on each arch (sb_runs_on_arch). Free with sb_run_details_free. */
int sb_run_details_read(sb_db *db, const sb_details_ask *ask, sb_run_details **out, sb_error *err);

#endif
