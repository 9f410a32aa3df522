/* weekly_reads.h - what the weekly writeup (report/weekly.h) reads of
 * the stored runs: result runs by filter, the newest of each series,
 * runs picked from sets already loaded, training runs, the details of
 * the runs its note cites, with the plausibility check's reads and the
 * regression walk's store. The writeup reads each when it reaches it
 * (its week's runs, then the runs up to its end), so it takes a reader,
 * a struct of functions db/weekly_reads_db.h fills from a connection,
 * instead of the database. Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_WEEKLY_READS_H
#define SOLBOOK_MODEL_WEEKLY_READS_H

#include "error.h"
#include "plaus_reads.h"
#include "result_filter.h"
#include "rg_store.h"
#include "run_details.h"
#include "stored_result.h"
#include "training_run.h"

/* The reads; each function takes ctx first. db/weekly_reads_db.h says
 * which function of db/ gives each. */
typedef struct sb_weekly_reads {
    void *ctx;
    const sb_plaus_reads *plaus; /* the plausibility check's reads */
    const sb_rg_store *rg;       /* the regression walk's store */
    /* The result runs matching f (NULL: every one). */
    int (*results)(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err);
    /* The newest run of each (case, provider, SKU) among them. */
    int (*results_latest)(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err);
    /* The runs matching f, picked from all where it is given, else read;
     * the same with the runs of measuring sessions. */
    int (*select)(void *ctx, const sb_result_set *all, const sb_result_filter *f, sb_result_set *out,
                  sb_error *err);
    int (*select_sessions)(void *ctx, const sb_result_set *all, const sb_result_set *sessions,
                           const sb_result_filter *f, sb_result_set *out, sb_error *err);
    /* Training runs, in [from, to] when has_range. */
    int (*training)(void *ctx, int has_range, long long from, long long to, sb_training_set *out,
                    sb_error *err);
    /* What ask names, read once. */
    int (*details)(void *ctx, const sb_details_ask *ask, sb_run_details **out, sb_error *err);
} sb_weekly_reads;

#endif
