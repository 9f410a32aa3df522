/* weekly_reads_db.c - the weekly writeup's reads on a connection: each
 * function hands its arguments to the db/ function it names. */
#include "weekly_reads_db.h"

#include "plaus_reads_db.h"
#include "results_query.h"
#include "rg_store_db.h"
#include "run_details_read.h"

static int results(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    return sb_results_load(ctx, f, out, err);
}

static int results_latest(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    return sb_results_load_latest(ctx, f, out, err);
}

static int select_runs(void *ctx, const sb_result_set *all, const sb_result_filter *f, sb_result_set *out,
                       sb_error *err)
{
    return sb_results_select(ctx, all, f, out, err);
}

static int select_sessions(void *ctx, const sb_result_set *all, const sb_result_set *sessions,
                           const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    return sb_results_select_sessions(ctx, all, sessions, f, out, err);
}

static int training(void *ctx, int has_range, long long from, long long to, sb_training_set *out,
                    sb_error *err)
{
    return sb_training_load(ctx, has_range, from, to, out, err);
}

static int details(void *ctx, const sb_details_ask *ask, sb_run_details **out, sb_error *err)
{
    return sb_run_details_read(ctx, ask, out, err);
}

const sb_weekly_reads *sb_weekly_reads_db(sb_db *db, sb_weekly_reads *rd, sb_plaus_reads *pr, sb_rg_store *st)
{
    *rd = (sb_weekly_reads){
        .ctx = db,
        .plaus = sb_plaus_reads_db(db, pr),
        .rg = sb_rg_store_db(db, st),
        .results = results,
        .results_latest = results_latest,
        .select = select_runs,
        .select_sessions = select_sessions,
        .training = training,
        .details = details,
    };
    return rd;
}
