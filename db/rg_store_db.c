/* rg_store_db.c - the regression walk's store on a connection: each
 * function hands its arguments to the db/ function of the same name. */
#include "rg_store_db.h"

#include "commits.h"
#include "results_query.h"
#include "rg_steps.h"
#include "run_devices.h"

static int ordinals(void *ctx, const char *const *shas, size_t n, long long *ordinal, sb_error *err)
{
    return sb_commits_ordinals(ctx, shas, n, ordinal, err);
}

static int devices_ids(void *ctx, const long long *ids, size_t n, sb_run_devices *out, sb_error *err)
{
    return sb_run_devices_load_ids(ctx, ids, n, out, err);
}

static int results(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    return sb_results_load(ctx, f, out, err);
}

static int results_ids(void *ctx, const sb_result_filter *f, const long long *ids, size_t n,
                       sb_result_set *out, sb_error *err)
{
    return sb_results_load_ids(ctx, f, ids, n, out, err);
}

static int state_now(void *ctx, sb_rg_state *now, sb_error *err)
{
    return sb_rg_state_now(ctx, now, err);
}

static int state_read(void *ctx, sb_rg_state *st, int *found, sb_error *err)
{
    return sb_rg_state_read(ctx, st, found, err);
}

static int runs_after(void *ctx, long long after, long long *n, long long *sessions, sb_error *err)
{
    return sb_rg_runs_after(ctx, after, n, sessions, err);
}

static int groups_read(void *ctx, sb_rg_group_rec **out, size_t *n, sb_error *err)
{
    return sb_rg_groups_read(ctx, out, n, err);
}

static int steps_open(void *ctx, void **rd, sb_error *err)
{
    sb_rg_steps_reader *r = NULL;
    int rc = sb_rg_steps_reader_open(ctx, &r, err);
    *rd = r;
    return rc;
}

static int steps_read_last(void *rd, long long grp, sb_rg_step_fn each, void *each_ctx, sb_error *err)
{
    return sb_rg_steps_read_last(rd, grp, each, each_ctx, err);
}

static void steps_close(void *rd)
{
    sb_rg_steps_reader_close(rd);
}

static int group_run_ids(void *ctx, const char *case_key, const char *provider, const char *sku,
                         long long **ids, size_t *n, size_t *cap, sb_error *err)
{
    return sb_rg_group_run_ids(ctx, case_key, provider, sku, ids, n, cap, err);
}

static int commit_run_ids(void *ctx, const char *sha, long long **ids, size_t *n, size_t *cap,
                          sb_error *err)
{
    return sb_rg_commit_run_ids(ctx, sha, ids, n, cap, err);
}

static int commits_read(void *ctx, sb_rg_commit_rec **out, size_t *n, sb_error *err)
{
    return sb_rg_commits_read(ctx, out, n, err);
}

const sb_rg_store *sb_rg_store_db(sb_db *db, sb_rg_store *st)
{
    *st = (sb_rg_store){
        .ctx = db,
        .name = sb_db_path(db),
        .ordinals = ordinals,
        .devices_ids = devices_ids,
        .results = results,
        .results_ids = results_ids,
        .state_now = state_now,
        .state_read = state_read,
        .runs_after = runs_after,
        .groups_read = groups_read,
        .steps_open = steps_open,
        .steps_read_last = steps_read_last,
        .steps_close = steps_close,
        .group_run_ids = group_run_ids,
        .commit_run_ids = commit_run_ids,
        .commits_read = commits_read,
    };
    return st;
}
