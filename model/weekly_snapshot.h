/* weekly_snapshot.h - the stored rows the weekly writeup (report/weekly.h)
 * takes, read once before it is built: the week's runs, the previous
 * week's, the GEMM gate suite's, the week's training runs, the result
 * note's runs with the details it cites, and the newest run of each
 * series beside the training steps. Its caller fills one
 * (site/site_weekly_read.h) and hands it over read-only, so the writeup
 * runs no query of these as it computes. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_WEEKLY_SNAPSHOT_H
#define SOLBOOK_MODEL_WEEKLY_SNAPSHOT_H

#include "run_details.h"
#include "stored_result.h"
#include "training_run.h"

/* Zero-initialise; free with sb_weekly_snapshot_free. A set that the
 * writeup takes from its caller's loaded runs instead (sb_weekly_opts'
 * all) stays empty. */
typedef struct sb_weekly_snapshot {
    sb_result_set week;          /* the week's result runs, plausibility marked */
    sb_result_set before;        /* the previous week's runs, measuring sessions' included */
    sb_result_set spec;          /* the runs of the GEMM gate's suite */
    sb_result_set with_sessions; /* the week's runs, measuring sessions' included */
    sb_result_set session_only;  /* the week's runs of measuring sessions alone */
    sb_training_set training;    /* the week's training runs */
    sb_result_set note_runs;     /* the result note's runs (none when all is given) */
    sb_run_details *details;     /* what the note cites of its runs */
    sb_result_set latest;        /* the newest run of each series, plausibility marked,
                                  * where the week has training runs and all is not given */
} sb_weekly_snapshot;

void sb_weekly_snapshot_free(sb_weekly_snapshot *s);

#endif
