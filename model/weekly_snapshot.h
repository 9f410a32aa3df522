/* weekly_snapshot.h - the stored rows the weekly writeup (report/weekly.h)
 * takes, read once before it is built: the week's runs, the previous
 * week's, the GEMM gate suite's, the week's training runs, the result
 * note's runs with the details it cites, the newest run of each
 * series beside the training steps, the plausibility verdicts of
 * the project's passing runs of the week, the marked runs of the
 * measuring sessions and what the plausibility listing takes. Its caller fills one
 * (site/site_weekly_read.h) and hands it over read-only, so the writeup
 * runs no query of these as it computes. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_WEEKLY_SNAPSHOT_H
#define SOLBOOK_MODEL_WEEKLY_SNAPSHOT_H

#include <stddef.h>

#include "plaus_snap.h"
#include "plausibility.h"
#include "run_details.h"
#include "session_run.h"
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
    /* The verdicts of the passing runs of the project's kernels in week
     * and with_sessions, which the share-of-ceiling cells show: run ids
     * ascending, verdict[i] of verdict_run[i]. */
    long long *verdict_run;
    sb_plaus_verdict *verdict;
    size_t nverdicts;
    /* Every run of the measuring sessions, plausibility marked: the
     * paired headlines of the week and of the weeks before take copies. */
    sb_session_runs sessions;
    /* What the plausibility listing takes of the newest runs of week and
     * the runs of session_only. */
    sb_plaus_snap plaus;
} sb_weekly_snapshot;

void sb_weekly_snapshot_free(sb_weekly_snapshot *s);

/* The verdict of run_id; NULL when none was read. */
const sb_plaus_verdict *sb_weekly_snapshot_verdict(const sb_weekly_snapshot *s, long long run_id);

#endif
