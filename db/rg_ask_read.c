/* rg_ask_read.c - an update's ask answered on a connection
 * (rg_ask_read.h). */
#include "rg_ask_read.h"

#include <stdlib.h>
#include <string.h>

#include "commits.h"
#include "results_query.h"
#include "rg_steps.h"
#include "run_devices.h"

static int read_runs(sb_db *db, const sb_rg_ask *ask, sb_rg_answer *out, sb_error *err)
{
    sb_result_filter f = {0};
    if (ask->all)
        return sb_results_load(db, &f, &out->runs, err);
    if (ask->after >= 0) {
        f.after_run = ask->after;
        return sb_results_load(db, &f, &out->runs, err);
    }
    return sb_results_load_ids(db, &f, ask->ids, ask->nids, &out->runs, err);
}

static int read_run_ids(sb_db *db, const sb_rg_ask *ask, sb_rg_answer *out, sb_error *err)
{
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < ask->nshas; i++)
        rc = sb_rg_commit_run_ids(db, ask->shas[i], &out->ids, &out->nids, &out->cap_ids, err);
    for (size_t i = 0; rc == SB_OK && i < ask->ngroups; i++) {
        const sb_result *g = ask->group_of[i];
        rc = sb_rg_group_run_ids(db, g->case_key, g->provider, g->sku, &out->ids, &out->nids, &out->cap_ids, err);
    }
    return rc;
}

static int read_git(sb_db *db, const sb_rg_ask *ask, sb_rg_answer *out, sb_error *err)
{
    if (sb_commit_ordinals_name(&out->git, ask->shas, ask->nshas, err) != SB_OK)
        return SB_ERR;
    return sb_commits_ordinals(db, (const char *const *)out->git.sha, out->git.n, out->git.ordinal, err);
}

typedef struct last_step {
    sb_rg_step_rec *s;
    int *found;
} last_step;

static int keep_last(void *ctx, const sb_rg_step_rec *s, sb_error *err)
{
    (void)err;
    last_step *l = ctx;
    *l->found = 1;
    *l->s = *s;
    l->s->changed = ""; /* valid during the read only; not kept */
    return SB_OK;
}

static int read_last_steps(sb_db *db, const sb_rg_ask *ask, sb_rg_answer *out, sb_error *err)
{
    size_t n = ask->nids;
    out->last = calloc(n ? n : 1, sizeof *out->last);
    out->found = calloc(n ? n : 1, sizeof *out->found);
    if (!out->last || !out->found)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_rg_steps_reader *rd = NULL;
    int rc = sb_rg_steps_reader_open(db, &rd, err);
    for (size_t i = 0; rc == SB_OK && i < n; i++) {
        last_step l = {&out->last[i], &out->found[i]};
        rc = sb_rg_steps_read_last(rd, ask->ids[i], keep_last, &l, err);
    }
    sb_rg_steps_reader_close(rd);
    return rc;
}

int sb_rg_answer_read(sb_db *db, const sb_rg_ask *ask, sb_rg_answer *out, sb_error *err)
{
    int rc;
    switch (ask->kind) {
    case SB_RG_ASK_RUNS:
        rc = read_runs(db, ask, out, err);
        break;
    case SB_RG_ASK_RUN_IDS:
        rc = read_run_ids(db, ask, out, err);
        break;
    case SB_RG_ASK_GIT:
        rc = read_git(db, ask, out, err);
        break;
    case SB_RG_ASK_LAST_STEPS:
        rc = read_last_steps(db, ask, out, err);
        break;
    case SB_RG_ASK_CARDS:
        rc = sb_run_devices_load_ids(db, ask->ids, ask->nids, &out->cards, err);
        break;
    case SB_RG_ASK_SAMPLES:
        rc = sb_run_samples_load_ids(db, ask->ids, ask->nids, &out->samples, err);
        break;
    default:
        rc = SB_OK;
        break;
    }
    if (rc != SB_OK)
        sb_rg_answer_free(out);
    return rc;
}
