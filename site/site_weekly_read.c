/* site_weekly_read.c - reading one week's rows for its writeup, all
 * before it is built. */
#include "site_weekly_read.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "geomean.h"
#include "isoweek.h"
#include "note.h"
#include "plaus_reads_db.h"
#include "plausible.h"
#include "results_query.h"
#include "rg_store_db.h"
#include "run_details_read.h"

/* 1: every run of all would be selected as a run up to end (finished
 * before it; not profiled, not a session's): the week's history is the
 * history of all. */
static int all_up_to(const sb_result_set *all, long long end)
{
    for (size_t i = 0; i < all->n + all->n_left_out; i++) {
        const sb_result *r = i < all->n ? &all->v[i] : &all->left_out[i - all->n];
        if (r->profiler || r->session_id || r->finished_epoch == LLONG_MIN || r->finished_epoch >= end)
            return 0;
    }
    return 1;
}

/* The runs of the week and around it. */
static int read_runs(sb_db *db, const sb_weekly_opts *o, const sb_plaus_reads *pr, long long start,
                     long long end, sb_weekly_snapshot *s, sb_error *err)
{
    int py, pw;
    long long pstart, pend;
    sb_isoweek_prev(o->year, o->week, &py, &pw);
    sb_isoweek_range(py, pw, &pstart, &pend);
    sb_result_filter f = {0};
    f.has_range = 1;
    f.from = start;
    f.to = end;
    if (sb_results_select(db, o->all, &f, &s->week, err) != SB_OK)
        return SB_ERR;
    /* the ops and cards of the previous week, measuring sessions
     * included, as the week's own are counted with them */
    sb_result_filter bf = f;
    bf.from = pstart;
    bf.to = start;
    bf.with_sessions = 1;
    if (sb_results_select_sessions(db, o->all, o->sessions_all, &bf, &s->before, err) != SB_OK)
        return SB_ERR;
    /* runs picked from o->all carry its marks */
    if (!o->all && sb_plaus_mark(pr, &s->week, err) != SB_OK)
        return SB_ERR;
    sb_result_filter sf = {0};
    sf.suite = sb_gate_spec_for("gemm")->suite;
    if (sb_results_select(db, o->all, &sf, &s->spec, err) != SB_OK)
        return SB_ERR;
    /* every run of the week, its measuring sessions' included: what the
     * week counts, its cards and what changed; the paired headline
     * cites them */
    sb_result_filter wf = f;
    wf.with_sessions = 1;
    if (sb_results_select_sessions(db, o->all, o->sessions_all, &wf, &s->with_sessions, err) != SB_OK ||
        sb_training_load(db, 1, start, end, &s->training, err) != SB_OK)
        return SB_ERR;
    /* the week's session runs, whose pairs the paired headline takes */
    sb_result_filter pf = f;
    pf.only_sessions = 1;
    return sb_results_load(db, &pf, &s->session_only, err);
}

/* The result note's runs (o->all where given) and the details it cites,
 * unless the note is rendered already;
 * the newest run of each series beside the training steps, as report
 * geomean reads them (series_latest), and only where the week has
 * training runs: every run read here made the weekly grow with the
 * database. */
static int read_note(sb_db *db, const sb_weekly_opts *o, const sb_plaus_reads *pr, sb_weekly_snapshot *s,
                     sb_error *err)
{
    sb_result_filter nf = sb_note_filter();
    sb_details_ask ask = {0};
    /* a note the caller rendered already (o->note) needs none of its runs */
    int rc = o->all || o->note ? SB_OK : sb_results_load(db, &nf, &s->note_runs, err);
    if (rc == SB_OK && !o->note)
        rc = sb_note_ask(o->all ? o->all : &s->note_runs, SB_WEEKLY_GATE_ARCHES, &ask, err);
    if (rc == SB_OK && !o->note)
        rc = sb_run_details_read(db, &ask, &s->details, err);
    sb_details_ask_free(&ask);
    if (rc == SB_OK && !o->all && s->training.n > 0 &&
        (sb_results_load_latest(db, NULL, &s->latest, err) != SB_OK || sb_plaus_mark(pr, &s->latest, err) != SB_OK))
        rc = SB_ERR;
    return rc;
}

static int cmp_run(const void *a, const void *b)
{
    long long x = (*(const sb_result *const *)a)->run_id, y = (*(const sb_result *const *)b)->run_id;
    return (x > y) - (x < y);
}

/* The verdicts of the passing runs of the project's kernels in the
 * week's runs, which the writeup's share-of-ceiling cells show. */
static int read_verdicts(const sb_plaus_reads *pr, const sb_sku_table *skus, sb_weekly_snapshot *s, sb_error *err)
{
    const sb_result_set *sets[] = {&s->week, &s->with_sessions};
    const sb_result **rs = malloc((s->week.n + s->with_sessions.n + 1) * sizeof *rs);
    size_t n = 0;
    if (!rs)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t j = 0; j < 2; j++)
        for (size_t i = 0; i < sets[j]->n; i++)
            if (sets[j]->v[i].passing && !strcmp(sets[j]->v[i].provider, SB_PROJECT_PROVIDER))
                rs[n++] = &sets[j]->v[i];
    qsort(rs, n, sizeof *rs, cmp_run);
    sb_plaus_ctx *pc = NULL;
    s->verdict_run = malloc((n + 1) * sizeof *s->verdict_run);
    s->verdict = malloc((n + 1) * sizeof *s->verdict);
    int rc = s->verdict_run && s->verdict ? sb_plaus_open(pr, skus, NULL, NULL, &pc, err)
                                          : sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; rc == SB_OK && i < n; i++) {
        if (s->nverdicts && s->verdict_run[s->nverdicts - 1] == rs[i]->run_id)
            continue; /* a run of both sets */
        rc = sb_plaus_check(pc, rs[i], &s->verdict[s->nverdicts], err);
        s->verdict_run[s->nverdicts++] = rs[i]->run_id;
    }
    sb_plaus_close(pc);
    free(rs);
    return rc;
}

int sb_site_weekly_read(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o, const sb_rg_list *rg_all,
                        sb_site_weekly *out, sb_error *err)
{
    return sb_site_weekly_read_asof(db, skus, o, rg_all, NULL, out, err);
}

int sb_site_weekly_read_asof(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o, const sb_rg_list *rg_all,
                             const sb_rg_asof *asof, sb_site_weekly *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    sb_plaus_reads_db(db, &out->pr);
    sb_rg_store_db(db, &out->st);
    long long start, end;
    sb_isoweek_range(o->year, o->week, &start, &end);
    int rc = read_runs(db, o, &out->pr, start, end, &out->snap, err);
    if (rc == SB_OK)
        rc = read_verdicts(&out->pr, skus, &out->snap, err);
    /* regressions: the one definition of `report regressions`
     * (regress.h) over every run up to the end of the week: the stored
     * history where it holds for them, else walked here */
    int found = 0;
    if (rc == SB_OK && rg_all && o->all && all_up_to(o->all, end)) {
        out->regressions = rg_all;
    } else if (rc == SB_OK && asof && o->all &&
               (rc = sb_rg_asof_latest(asof, end, &out->rg, &found, err)) == SB_OK && found) {
        out->regressions = &out->rg;
    } else if (rc == SB_OK) {
        sb_result_filter f = {0};
        f.has_range = 1;
        f.from = LLONG_MIN;
        f.to = end;
        if ((!o->all && sb_rg_latest(&out->st, &o->rg, end, &out->rg, &found, err) != SB_OK) ||
            (!found && (sb_results_select(db, o->all, &f, &out->upto, err) != SB_OK ||
                        sb_rg_history(&out->st, &out->upto, &o->rg, &out->rg, err) != SB_OK)))
            rc = SB_ERR;
        out->regressions = &out->rg;
    }
    if (rc == SB_OK)
        rc = read_note(db, o, &out->pr, &out->snap, err);
    if (rc != SB_OK)
        sb_site_weekly_free(out);
    return rc;
}

void sb_site_weekly_free(sb_site_weekly *w)
{
    sb_weekly_snapshot_free(&w->snap);
    sb_rg_free(&w->rg);
    sb_results_free(&w->upto);
    w->regressions = NULL;
}
