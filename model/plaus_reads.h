/* plaus_reads.h - what the plausibility check (report/plausible.h) reads
 * of the stored runs: the calibrations of a SKU, the cards of runs, the
 * stored verdicts and what they were judged with, result runs and runs
 * of measuring sessions. The check reads them as it goes (a SKU's
 * calibrations at its first run, a stored verdict where one holds), so
 * it takes a reader, a struct of functions db/plaus_reads_db.h fills
 * from a connection, instead of the database. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_PLAUS_READS_H
#define SOLBOOK_MODEL_PLAUS_READS_H

#include <stddef.h>

#include "calibration.h"
#include "error.h"
#include "plaus_snap.h"
#include "plausibility.h"
#include "result_filter.h"
#include "run_cards.h"
#include "session_run.h"
#include "stored_result.h"

/* The reads; each function takes ctx first. db/plaus_reads_db.h says
 * which query of db/ gives each. */
typedef struct sb_plaus_reads {
    void *ctx;
    /* Every calibration run of sku with its ceilings, newest first. */
    int (*calibrations)(void *ctx, const char *sku, sb_calibration **out, size_t *n, sb_error *err);
    /* The GPU UUIDs of the runs ids[0..n), or of every result run where
     * ids is NULL. */
    int (*devices)(void *ctx, const long long *ids, size_t n, sb_run_devices *out, sb_error *err);
    /* The SHA-256 of the calibration runs stored now whose id is at most
     * upto, and the greatest of their ids. */
    int (*calibrations_digest)(void *ctx, long long upto, char hex[65], long long *last, sb_error *err);
    /* The stored basis; *found 0 when verdicts were never stored. */
    int (*basis)(void *ctx, sb_verdict_basis *b, int *found, sb_error *err);
    /* The states of the runs ids[0..n) (ascending) that have a stored verdict. */
    int (*states_ids)(void *ctx, const long long *ids, size_t n, sb_verdict_states *out, sb_error *err);
    /* A reader of whole stored verdicts, one run at a time: opened
     * once (*out), read (found 0: none stored), closed (accepts NULL). */
    int (*verdicts_open)(void *ctx, void **out, sb_error *err);
    int (*verdict)(void *reader, long long run_id, sb_plaus_verdict *v, int *found, sb_error *err);
    void (*verdicts_close)(void *reader);
    /* The result runs matching f, as db/results_query.h loads them. */
    int (*results)(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err);
    /* The runs of measuring sessions ids[0..n) (every one where n is 0). */
    int (*session_runs)(void *ctx, const char *const *ids, size_t n, sb_session_runs *out, sb_error *err);
} sb_plaus_reads;

#endif
