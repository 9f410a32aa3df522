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
#include "plausible.h"
#include "results_query.h"
#include "run_devices.h"
#include "site_rg.h"
#include "rg_stored_db.h"
#include "run_details_read.h"
#include "site_plaus.h"

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

/* ---- what the weeks of one site share (sb_site_weeks) ---- */

/* A set's runs by the time they finished: indexes into v and left_out. */
typedef struct time_index {
    size_t *v, *left_out;
} time_index;

struct sb_site_weeks {
    const sb_result_set *all, *sessions_all;
    time_index all_ix, sessions_ix;
    sb_result_set spec; /* the GEMM gate suite's runs, picked once */
};

typedef struct timed {
    long long t;
    size_t i;
} timed;

static int cmp_timed(const void *x, const void *y)
{
    const timed *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

/* Indexes of v[0..n) sorted by finished_epoch into *out. */
static int index_runs(const sb_result *v, size_t n, size_t **out)
{
    timed *t = malloc((n ? n : 1) * sizeof *t);
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!t || !*out) {
        free(t);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        t[i] = (timed){v[i].finished_epoch, i};
    if (n)
        qsort(t, n, sizeof *t, cmp_timed);
    for (size_t i = 0; i < n; i++)
        (*out)[i] = t[i].i;
    free(t);
    return 0;
}

/* The runs of v[0..n) (ix: by time) that finished in [from, to), in v's
 * order, as copies into *out (*nout of them). */
static int window_runs(const sb_result *v, size_t n, const size_t *ix, long long from, long long to,
                       sb_result **out, size_t *nout)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[ix[mid]].finished_epoch < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < n && v[ix[end]].finished_epoch < to)
        end++;
    size_t m = end - lo;
    size_t *pos = malloc((m ? m : 1) * sizeof *pos);
    *out = malloc((m ? m : 1) * sizeof **out);
    if (!pos || !*out) {
        free(pos);
        free(*out);
        *out = NULL;
        return -1;
    }
    memcpy(pos, ix + lo, m * sizeof *pos);
    qsort(pos, m, sizeof *pos, cmp_size);
    for (size_t i = 0; i < m; i++)
        (*out)[i] = v[pos[i]];
    free(pos);
    *nout = m;
    return 0;
}

/* The runs of set (ix: by time) that finished in [from, to), as a set
 * borrowing set's text. */
static int window(const sb_result_set *set, const time_index *ix, long long from, long long to,
                  sb_result_set *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->borrowed = 1;
    if (window_runs(set->v, set->n, ix->v, from, to, &out->v, &out->n) != 0 ||
        window_runs(set->left_out, set->n_left_out, ix->left_out, from, to, &out->left_out, &out->n_left_out) != 0) {
        sb_results_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    return SB_OK;
}

int sb_site_weeks_new(const sb_result_set *all, const sb_result_set *sessions_all, sb_site_weeks **out,
                      sb_error *err)
{
    sb_site_weeks *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return sb_error_set(err, NULL, NULL, "out of memory");
    w->all = all;
    w->sessions_all = sessions_all;
    sb_result_filter sf = {0};
    sf.suite = sb_gate_spec_for("gemm")->suite;
    if (index_runs(all->v, all->n, &w->all_ix.v) != 0 ||
        index_runs(all->left_out, all->n_left_out, &w->all_ix.left_out) != 0 ||
        index_runs(sessions_all->v, sessions_all->n, &w->sessions_ix.v) != 0 ||
        index_runs(sessions_all->left_out, sessions_all->n_left_out, &w->sessions_ix.left_out) != 0) {
        sb_site_weeks_free(w);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    if (sb_results_pick(all, &sf, &w->spec, err) != SB_OK) {
        sb_site_weeks_free(w);
        return SB_ERR;
    }
    *out = w;
    return SB_OK;
}

void sb_site_weeks_free(sb_site_weeks *w)
{
    if (!w)
        return;
    free(w->all_ix.v);
    free(w->all_ix.left_out);
    free(w->sessions_ix.v);
    free(w->sessions_ix.left_out);
    sb_results_free(&w->spec);
    free(w);
}

/* A copy of set's arrays, borrowing its text. */
static int copy_set(const sb_result_set *set, sb_result_set *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->borrowed = 1;
    out->v = malloc((set->n ? set->n : 1) * sizeof *out->v);
    out->left_out = malloc((set->n_left_out ? set->n_left_out : 1) * sizeof *out->left_out);
    if (!out->v || !out->left_out) {
        sb_results_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    memcpy(out->v, set->v, set->n * sizeof *out->v);
    memcpy(out->left_out, set->left_out, set->n_left_out * sizeof *out->left_out);
    out->n = set->n;
    out->n_left_out = set->n_left_out;
    return SB_OK;
}

static int read_week_runs(sb_db *db, const sb_weekly_opts *w, const sb_weekly_opts *o, const sb_site_weeks *sh,
                          long long start, long long end, long long pstart, sb_weekly_snapshot *s,
                          sb_error *err);

/* The runs of the week and around it: picked from o->all (and
 * o->sessions_all) where given, from the runs that finished in the
 * previous week and this one where sh indexes them. */
static int read_runs(sb_db *db, const sb_weekly_opts *o, const sb_site_weeks *sh, long long start, long long end,
                     sb_weekly_snapshot *s, sb_error *err)
{
    int py, pw;
    long long pstart, pend;
    sb_isoweek_prev(o->year, o->week, &py, &pw);
    sb_isoweek_range(py, pw, &pstart, &pend);
    sb_result_set wall = {0}, wsess = {0};
    sb_weekly_opts wo = *o;
    int rc = SB_OK;
    if (sh && o->all == sh->all && o->sessions_all == sh->sessions_all) {
        rc = window(sh->all, &sh->all_ix, pstart, end, &wall, err);
        if (rc == SB_OK)
            rc = window(sh->sessions_all, &sh->sessions_ix, pstart, end, &wsess, err);
        wo.all = &wall;
        wo.sessions_all = &wsess;
    }
    if (rc == SB_OK)
        rc = read_week_runs(db, &wo, o, sh, start, end, pstart, s, err);
    sb_results_free(&wall);
    sb_results_free(&wsess);
    return rc;
}

/* read_runs from the runs of w (the week's window, or every run), the
 * GEMM gate's runs from o's. */
static int read_week_runs(sb_db *db, const sb_weekly_opts *w, const sb_weekly_opts *o, const sb_site_weeks *sh,
                          long long start, long long end, long long pstart, sb_weekly_snapshot *s,
                          sb_error *err)
{
    sb_result_filter f = {0};
    f.has_range = 1;
    f.from = start;
    f.to = end;
    if (sb_results_select(db, w->all, &f, &s->week, err) != SB_OK)
        return SB_ERR;
    /* the ops and cards of the previous week, measuring sessions
     * included, as the week's own are counted with them */
    sb_result_filter bf = f;
    bf.from = pstart;
    bf.to = start;
    bf.with_sessions = 1;
    if (sb_results_select_sessions(db, w->all, w->sessions_all, &bf, &s->before, err) != SB_OK)
        return SB_ERR;
    /* runs picked from o->all carry its marks */
    if (!o->all && sb_site_plaus_mark(db, &s->week, err) != SB_OK)
        return SB_ERR;
    sb_result_filter sf = {0};
    sf.suite = sb_gate_spec_for("gemm")->suite;
    if (sh && o->all == sh->all ? copy_set(&sh->spec, &s->spec, err) != SB_OK
                                : sb_results_select(db, o->all, &sf, &s->spec, err) != SB_OK)
        return SB_ERR;
    /* every run of the week, its measuring sessions' included: what the
     * week counts, its cards and what changed; the paired headline
     * cites them */
    sb_result_filter wf = f;
    wf.with_sessions = 1;
    if (sb_results_select_sessions(db, w->all, w->sessions_all, &wf, &s->with_sessions, err) != SB_OK ||
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
static int read_note(sb_db *db, const sb_weekly_opts *o, sb_weekly_snapshot *s, sb_error *err)
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
        (sb_results_load_latest(db, NULL, &s->latest, err) != SB_OK || sb_site_plaus_mark(db, &s->latest, err) != SB_OK))
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
static int read_verdicts(sb_db *db, const sb_sku_table *skus, sb_weekly_snapshot *s, sb_error *err)
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
    sb_plaus_snap snap = {0};
    s->verdict_run = malloc((n + 1) * sizeof *s->verdict_run);
    s->verdict = malloc((n + 1) * sizeof *s->verdict);
    int rc = s->verdict_run && s->verdict ? sb_site_plaus_snap_runs(db, rs, n, &snap, err)
                                          : sb_error_set(err, NULL, NULL, "out of memory");
    if (rc == SB_OK)
        rc = sb_plaus_open(&snap, skus, NULL, NULL, &pc, err);
    for (size_t i = 0; rc == SB_OK && i < n; i++) {
        if (s->nverdicts && s->verdict_run[s->nverdicts - 1] == rs[i]->run_id)
            continue; /* a run of both sets */
        rc = sb_plaus_check(pc, rs[i], &s->verdict[s->nverdicts], err);
        s->verdict_run[s->nverdicts++] = rs[i]->run_id;
    }
    sb_plaus_close(pc);
    sb_plaus_snap_free(&snap);
    free(rs);
    return rc;
}

/* What the writeup takes of the plausibility check besides the verdicts:
 * every session run, marked, and the listing's snapshot of the newest
 * runs of the week (the writeup's picks) and the week's session runs. */
static int read_plaus(sb_db *db, sb_weekly_snapshot *s, sb_error *err)
{
    sb_pick *picks = NULL;
    size_t np = 0;
    int rc = sb_site_plaus_session_runs(db, NULL, 0, NULL, &s->sessions, err);
    if (rc == SB_OK)
        rc = sb_picks_latest(&s->week, &picks, &np, err);
    if (rc == SB_OK)
        rc = sb_site_plaus_snap_listing(db, picks, np, &s->session_only, &s->plaus, err);
    free(picks);
    return rc;
}

/* The A/A noise the week's walk and its check of steps take: o's (the
 * site's), else measured once from the week's snapshot of every session
 * run of the database. */
static int week_aa(const sb_weekly_opts *o, sb_site_weekly *out, const sb_rg_aa **aa, sb_error *err)
{
    if (!o->aa && !out->own_aa && sb_rg_aa_new(&out->snap.sessions, &o->rg, &out->own_aa, err) != SB_OK)
        return SB_ERR;
    *aa = o->aa ? o->aa : out->own_aa;
    return SB_OK;
}

/* The week's regressions from the stored history (sb_rg_latest) where
 * it serves the week's end; *found 0 where it does not. */
static int read_latest(sb_db *db, sb_site_weekly *out, const sb_weekly_opts *o, long long end, int *found,
                       sb_error *err)
{
    sb_rg_stored stored;
    int rc = sb_rg_stored_read(db, 1, &stored, err);
    if (rc == SB_OK)
        rc = sb_site_rg_latest(db, &stored, &o->rg, end, &out->rg, found, err);
    sb_rg_stored_free(&stored);
    return rc;
}

/* What the check of the steps the writeup names takes: their runs' cards
 * and samples, and the A/A noise (week_aa); nothing where it names none. */
static int read_steps(sb_db *db, const sb_weekly_opts *o, sb_site_weekly *out, sb_error *err)
{
    long long *ids = NULL;
    size_t n = 0;
    int rc = sb_weekly_step_runs(out->regressions, &ids, &n, err);
    if (rc == SB_OK && n)
        rc = sb_run_devices_load_ids(db, ids, n, &out->steps.devices, err);
    if (rc == SB_OK && n)
        rc = sb_run_samples_load_ids(db, ids, n, &out->steps.samples, err);
    if (rc == SB_OK && n)
        rc = week_aa(o, out, &out->steps.aa, err);
    free(ids);
    return rc;
}

int sb_site_weekly_read(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o, const sb_rg_list *rg_all,
                        sb_site_weekly *out, sb_error *err)
{
    return sb_site_weekly_read_shared(db, skus, o, rg_all, NULL, NULL, out, err);
}

int sb_site_weekly_read_shared(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o, const sb_rg_list *rg_all,
                               const sb_site_weeks *sh, const sb_rg_asof *asof, sb_site_weekly *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    long long start, end;
    sb_isoweek_range(o->year, o->week, &start, &end);
    int rc = read_runs(db, o, sh, start, end, &out->snap, err);
    if (rc == SB_OK)
        rc = read_verdicts(db, skus, &out->snap, err);
    if (rc == SB_OK)
        rc = read_plaus(db, &out->snap, err);
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
        const sb_rg_aa *aa = NULL;
        if ((!o->all && read_latest(db, out, o, end, &found, err) != SB_OK) ||
            (!found && (sb_results_select(db, o->all, &f, &out->upto, err) != SB_OK ||
                        week_aa(o, out, &aa, err) != SB_OK ||
                        sb_site_rg_history(db, &out->upto, NULL, &o->rg, aa, &out->rg, err) != SB_OK)))
            rc = SB_ERR;
        out->regressions = &out->rg;
    }
    if (rc == SB_OK)
        rc = read_note(db, o, &out->snap, err);
    if (rc == SB_OK)
        rc = read_steps(db, o, out, err);
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
    sb_run_devices_free(&w->steps.devices);
    sb_run_samples_free(&w->steps.samples);
    sb_rg_aa_free(w->own_aa);
    w->own_aa = NULL;
    w->steps.aa = NULL;
}
