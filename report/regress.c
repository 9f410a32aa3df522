/* regress.c - regressions between commits and weeks (regress.h). */
#include "regress.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "commits.h"
#include "encode.h"
#include "report_json.h"
#include "stats.h"

const char *sb_rg_verdict_name(sb_rg_verdict v)
{
    switch (v) {
    case SB_RG_REGRESSION: return "regression";
    case SB_RG_NOW_FAILING: return "now failing";
    case SB_RG_IMPROVEMENT: return "improvement";
    case SB_RG_NO_CHANGE: return "no change";
    case SB_RG_INSUFFICIENT: return "insufficient samples";
    case SB_RG_NO_SAMPLES: return "no samples";
    case SB_RG_SINGLE_COMMIT: return "single commit";
    }
    return "unknown";
}

void sb_rg_free(sb_rg_list *l)
{
    free(l->v);
    free(l->cp);
    memset(l, 0, sizeof *l);
}

static int push(sb_rg_list *l, size_t *cap, const sb_rg_row *r)
{
    if (l->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        sb_rg_row *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        *cap = nc;
    }
    l->v[l->n++] = *r;
    return 0;
}

/* What a walk over many comparisons keeps between them: the exact null
 * distribution of the last sample sizes, the prepared samples query, and
 * the samples of the last run loaded (the new run of one step is the old
 * run of the next). */
typedef struct walk_ctx {
    sb_mw_cache mw;
    sb_samples_query *samples;
    long long last_id;
    double *last;
    size_t nlast;
} walk_ctx;

static void walk_free(walk_ctx *w)
{
    sb_mw_cache_free(&w->mw);
    sb_samples_query_close(w->samples);
    free(w->last);
    memset(w, 0, sizeof *w);
}

/* Every sample of run_id in (rep, idx) order into a new array. */
static int load_samples(sqlite3 *db, walk_ctx *w, long long run_id, double **v, size_t *n,
                        sb_error *err)
{
    if (!w)
        return sb_samples_load(db, run_id, v, n, err);
    *v = NULL;
    *n = 0;
    if (w->last && w->last_id == run_id) {
        if (!(*v = malloc((w->nlast ? w->nlast : 1) * sizeof **v)))
            return sb_error_set(err, NULL, NULL, "out of memory");
        memcpy(*v, w->last, w->nlast * sizeof **v);
        *n = w->nlast;
        return SB_OK;
    }
    if (!w->samples && sb_samples_query_open(db, &w->samples, err) != SB_OK)
        return SB_ERR;
    return sb_samples_query_load(w->samples, run_id, v, n, err);
}

/* Keeps a copy of run_id's samples for the next step. */
static void remember(walk_ctx *w, long long run_id, const double *v, size_t n)
{
    if (!w)
        return;
    double *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return;
    memcpy(c, v, n * sizeof *c);
    free(w->last);
    w->last = c;
    w->nlast = n;
    w->last_id = run_id;
}

static int compare_cached(sqlite3 *db, const sb_result *old_run, const sb_result *new_run,
                          const sb_rg_opts *o, walk_ctx *w, sb_rg_row *row, sb_error *err);

int sb_rg_compare(sqlite3 *db, const sb_result *old_run, const sb_result *new_run,
                  const sb_rg_opts *o, sb_rg_row *row, sb_error *err)
{
    return compare_cached(db, old_run, new_run, o, NULL, row, err);
}

static int compare_cached(sqlite3 *db, const sb_result *old_run, const sb_result *new_run,
                          const sb_rg_opts *o, walk_ctx *w, sb_rg_row *row, sb_error *err)
{
    memset(row, 0, sizeof *row);
    row->old_run = old_run;
    row->new_run = new_run;
    row->p = NAN;
    row->p_adjusted = NAN;
    row->rel_change = NAN;
    if (old_run->median_ms > 0 && new_run->median_ms >= 0)
        row->rel_change = (new_run->median_ms - old_run->median_ms) / old_run->median_ms;
    if (old_run->quantiles_only || new_run->quantiles_only) {
        row->verdict = SB_RG_NO_SAMPLES;
        return SB_OK;
    }
    double *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    if (load_samples(db, w, old_run->run_id, &a, &na, err) != SB_OK)
        return SB_ERR;
    if (load_samples(db, w, new_run->run_id, &b, &nb, err) != SB_OK) {
        free(a);
        return SB_ERR;
    }
    remember(w, new_run->run_id, b, nb);
    row->n_old = na;
    row->n_new = nb;
    if (na == 0 || nb == 0) {
        row->verdict = SB_RG_NO_SAMPLES;
        free(a);
        free(b);
        return SB_OK;
    }
    /* Medians of the samples themselves, so test and effect agree. */
    double mo = sb_median(a, na), mn = sb_median(b, nb);
    if (mo > 0)
        row->rel_change = (mn - mo) / mo;
    sb_mw_result mw;
    int rc = sb_mann_whitney_cached(a, na, b, nb, w ? &w->mw : NULL, &mw);
    free(a);
    free(b);
    if (rc != 0)
        return sb_error_set(err, NULL, NULL, "out of memory in the Mann-Whitney test");
    row->p = mw.p;
    row->p_adjusted = mw.p;
    if (mw.min_p >= o->alpha) {
        row->verdict = SB_RG_INSUFFICIENT;
        return SB_OK;
    }
    if (mw.p < o->alpha && row->rel_change >= o->min_effect)
        row->verdict = SB_RG_REGRESSION;
    else if (mw.p < o->alpha && row->rel_change <= -o->min_effect)
        row->verdict = SB_RG_IMPROVEMENT;
    else
        row->verdict = SB_RG_NO_CHANGE;
    return SB_OK;
}

static int newer(const sb_result *a, const sb_result *b)
{
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch > b->finished_epoch;
    return a->run_id > b->run_id;
}

/* Runs whose commit is not known (imports, trees measured without .git)
 * cannot take part in a commit-to-commit comparison. */
static int has_commit(const sb_result *r)
{
    return strcmp(r->git_sha, "unknown") != 0;
}

/* ---- commit order ---- */

typedef struct commit_pos {
    const char *sha;
    long long first;   /* earliest finished_epoch of its runs */
    size_t rank;
    long long git;     /* ordinal in the commits table, -1: not there */
} commit_pos;

static int cmp_sha(const void *a, const void *b)
{
    return strcmp(((const commit_pos *)a)->sha, ((const commit_pos *)b)->sha);
}

static int cmp_first(const void *a, const void *b)
{
    const commit_pos *x = *(const commit_pos *const *)a, *y = *(const commit_pos *const *)b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return strcmp(x->sha, y->sha);
}

int sb_rg_order_build(const sb_result_set *set, sb_rg_order *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    commit_pos *v = malloc((set->n ? set->n : 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        if (has_commit(&set->v[i]))
            v[n++] = (commit_pos){set->v[i].git_sha, set->v[i].finished_epoch, 0, -1};
    qsort(v, n, sizeof *v, cmp_sha);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && strcmp(v[m - 1].sha, v[i].sha) == 0) {
            if (v[i].first != LLONG_MIN && (v[m - 1].first == LLONG_MIN || v[i].first < v[m - 1].first))
                v[m - 1].first = v[i].first;
        } else {
            v[m++] = v[i];
        }
    }
    commit_pos **by_time = malloc((m ? m : 1) * sizeof *by_time);
    if (!by_time) {
        free(v);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < m; i++)
        by_time[i] = &v[i];
    qsort(by_time, m, sizeof *by_time, cmp_first);
    for (size_t i = 0; i < m; i++)
        by_time[i]->rank = i;
    free(by_time);
    out->v = v;
    out->n = m;
    return SB_OK;
}

void sb_rg_order_free(sb_rg_order *o)
{
    free(o->v);
    o->v = NULL;
    o->n = 0;
}

static const commit_pos *order_find(const sb_rg_order *o, const char *sha)
{
    commit_pos key = {sha, 0, 0, -1};
    return o->n ? bsearch(&key, o->v, o->n, sizeof key, cmp_sha) : NULL;
}

long sb_rg_order_rank(const sb_rg_order *o, const char *sha)
{
    const commit_pos *c = order_find(o, sha);
    return c ? (long)c->rank : -1;
}

/* The git ordinals of the order's commits, from the commits table. */
static int order_read_git(sqlite3 *db, sb_rg_order *o, sb_error *err)
{
    commit_pos *v = o->v;
    const char **shas = malloc((o->n ? o->n : 1) * sizeof *shas);
    long long *ord = malloc((o->n ? o->n : 1) * sizeof *ord);
    int rc = SB_OK;
    if (!shas || !ord) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    } else {
        for (size_t i = 0; i < o->n; i++)
            shas[i] = v[i].sha;
        rc = sb_commits_ordinals(db, shas, o->n, ord, err);
        for (size_t i = 0; rc == SB_OK && i < o->n; i++)
            v[i].git = ord[i];
    }
    free(shas);
    free(ord);
    return rc;
}

/* The newest (passing) run of runs i..j at commit rank r, or NULL; rank_of[k
 * - i] is run k's commit rank. */
static const sb_result *newest_at(const sb_result_set *set, const long *rank_of, size_t i,
                                  size_t j, long r, int passing)
{
    const sb_result *best = NULL;
    for (size_t k = i; k <= j; k++) {
        const sb_result *x = &set->v[k];
        if ((!passing || x->passing) && rank_of[k - i] == r && (!best || newer(x, best)))
            best = x;
    }
    return best;
}

static size_t group_end(const sb_result_set *set, size_t i)
{
    size_t j = i;
    while (j + 1 < set->n && strcmp(set->v[j + 1].case_key, set->v[i].case_key) == 0 &&
           strcmp(set->v[j + 1].provider, set->v[i].provider) == 0 &&
           strcmp(set->v[j + 1].sku, set->v[i].sku) == 0)
        j++;
    return j;
}

/* The change points of one series: the newest passing run's median at
 * each of its nr commits rk[] (in commit order), through the E-Divisive
 * search; those moving the level by at least min_effect go to out->cp. */
static int series_changepoints(const sb_result_set *set, const long *rank_of, size_t i, size_t j,
                               const long *rk, size_t nr, const sb_rg_opts *o, sb_rg_list *out,
                               sb_error *err)
{
    double *x = malloc(nr * sizeof *x);
    const sb_result **run = malloc(nr * sizeof *run);
    if (!x || !run) {
        free(x);
        free(run);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    size_t n = 0;
    for (size_t s = 0; s < nr; s++) {
        const sb_result *r = newest_at(set, rank_of, i, j, rk[s], 1);
        if (r && r->median_ms > 0 && isfinite(r->median_ms)) {
            x[n] = r->median_ms;
            run[n++] = r;
        }
    }
    sb_cp_options co = sb_cp_defaults();
    co.alpha = o->alpha;
    co.permutations = 199;
    co.min_segment = 3;
    co.seed = 1;
    sb_changepoint *cp = NULL;
    size_t ncp = 0;
    int rc = SB_OK;
    if (o->alpha > 0 && o->alpha < 1)
        rc = sb_changepoints(x, n, &co, &cp, &ncp, err);
    for (size_t k = 0; rc == SB_OK && k < ncp; k++) {
        if (!(fabs(cp[k].shift) >= o->min_effect))
            continue;
        sb_rg_changepoint *nv = realloc(out->cp, (out->ncp + 1) * sizeof *nv);
        if (!nv) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        out->cp = nv;
        size_t lo = k ? cp[k - 1].index : 0, hi = k + 1 < ncp ? cp[k + 1].index : n;
        out->cp[out->ncp++] = (sb_rg_changepoint){run[cp[k].index - 1], run[cp[k].index],
                                                  cp[k].index - lo, hi - cp[k].index,
                                                  cp[k].before, cp[k].after, cp[k].shift, cp[k].p};
    }
    free(cp);
    free(x);
    free(run);
    return rc;
}

/* Rows of one (case, provider, SKU), runs i..j: the newest commit against
 * the one before it (every_step 0), or each commit against the one before
 * it (every_step 1). */
static int group_rows(sqlite3 *db, const sb_result_set *set, const sb_rg_order *ord, size_t i,
                      size_t j, int every_step, const sb_rg_opts *o, walk_ctx *cache,
                      sb_rg_list *out, size_t *cap, sb_error *err)
{
    /* the commits of this group, in commit order */
    long ranks[256];
    size_t nr = 0;
    long *rk = ranks;
    size_t rcap = sizeof ranks / sizeof *ranks;
    long *rank_of = malloc((j - i + 1) * sizeof *rank_of);
    if (!rank_of)
        return sb_error_set(err, NULL, NULL, "out of memory");
    /* git order where the commits table knows every commit of the series */
    int git = 1, any = 0;
    for (size_t k = i; k <= j; k++) {
        const commit_pos *c = order_find(ord, set->v[k].git_sha);
        rank_of[k - i] = c ? (long)c->rank : -1;
        if (c) {
            any = 1;
            git &= c->git >= 0;
        }
    }
    if (any && git)
        for (size_t k = i; k <= j; k++)
            if (rank_of[k - i] >= 0)
                rank_of[k - i] = (long)order_find(ord, set->v[k].git_sha)->git;
    if (any)
        (git ? &out->series_git : &out->series_measured)[0]++;
    for (size_t k = i; k <= j; k++) {
        long r = rank_of[k - i];
        if (r < 0)
            continue;
        size_t at = 0;
        while (at < nr && rk[at] < r)
            at++;
        if (at < nr && rk[at] == r)
            continue;
        if (nr == rcap) {
            size_t c2 = rcap * 2;
            long *n2 = rk == ranks ? malloc(c2 * sizeof *n2) : realloc(rk, c2 * sizeof *n2);
            if (!n2) {
                if (rk != ranks)
                    free(rk);
                free(rank_of);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            if (rk == ranks)
                memcpy(n2, ranks, sizeof ranks);
            rk = n2;
            rcap = c2;
        }
        memmove(rk + at + 1, rk + at, (nr - at) * sizeof *rk);
        rk[at] = r;
        nr++;
    }
    int rc = SB_OK;
    if (nr == 0)
        goto out;
    /* the steps: (commit of a passing run before, commit after) */
    size_t from = every_step ? 1 : nr - 1;
    if (nr == 1) {
        sb_rg_row row;
        memset(&row, 0, sizeof row);
        row.p = NAN;
        row.p_adjusted = NAN;
        row.rel_change = NAN;
        const sb_result *np = newest_at(set, rank_of, i, j, rk[0], 1);
        row.new_run = np ? np : newest_at(set, rank_of, i, j, rk[0], 0);
        row.verdict = SB_RG_SINGLE_COMMIT;
        row.latest = 1;
        if (push(out, cap, &row) != 0)
            rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto out;
    }
    for (size_t s = from; s < nr; s++) {
        const sb_result *new_pass = newest_at(set, rank_of, i, j, rk[s], 1);
        const sb_result *prev_pass = NULL;
        for (size_t b = s; b-- > 0 && !prev_pass;)
            prev_pass = newest_at(set, rank_of, i, j, rk[b], 1);
        if (every_step && (!prev_pass || !new_pass) && !(prev_pass && !new_pass))
            continue; /* nothing passed before: not a step of the history */
        sb_rg_row row;
        memset(&row, 0, sizeof row);
        row.p = NAN;
        row.p_adjusted = NAN;
        row.rel_change = NAN;
        row.new_run = new_pass ? new_pass : newest_at(set, rank_of, i, j, rk[s], 0);
        row.old_run = prev_pass;
        if (!prev_pass) {
            row.verdict = SB_RG_SINGLE_COMMIT;
        } else if (!new_pass) {
            row.verdict = SB_RG_NOW_FAILING;
        } else if (compare_cached(db, prev_pass, new_pass, o, cache, &row, err) != SB_OK) {
            rc = SB_ERR;
            goto out;
        }
        row.latest = s == nr - 1;
        if (push(out, cap, &row) != 0) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            goto out;
        }
    }
    if (every_step && series_changepoints(set, rank_of, i, j, rk, nr, o, out, err) != SB_OK)
        rc = SB_ERR;
out:
    if (rk != ranks)
        free(rk);
    free(rank_of);
    return rc;
}

typedef struct step_member {
    const char *old_sha, *new_sha;
    size_t row;
} step_member;

static int cmp_step(const void *a, const void *b)
{
    const step_member *x = a, *y = b;
    int c = strcmp(x->old_sha, y->old_sha);
    if (!c)
        c = strcmp(x->new_sha, y->new_sha);
    if (!c)
        c = (x->row > y->row) - (x->row < y->row);
    return c;
}

/* Benjamini-Hochberg over the tested cases of each commit step (the same
 * old and new commit), and the verdicts again on the adjusted p. */
static int adjust_steps(sb_rg_list *l, const sb_rg_opts *o, sb_error *err)
{
    step_member *m = malloc((l->n ? l->n : 1) * sizeof *m);
    double *p = malloc((l->n ? l->n : 1) * sizeof *p);
    double *adj = malloc((l->n ? l->n : 1) * sizeof *adj);
    int rc = SB_OK;
    if (!m || !p || !adj) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    size_t nm = 0;
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        if ((r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_IMPROVEMENT ||
             r->verdict == SB_RG_NO_CHANGE) &&
            r->old_run && !isnan(r->p))
            m[nm++] = (step_member){r->old_run->git_sha, r->new_run->git_sha, i};
    }
    qsort(m, nm, sizeof *m, cmp_step);
    for (size_t a = 0; a < nm;) {
        size_t b = a;
        while (b < nm && strcmp(m[b].old_sha, m[a].old_sha) == 0 &&
               strcmp(m[b].new_sha, m[a].new_sha) == 0)
            b++;
        for (size_t k = a; k < b; k++)
            p[k - a] = l->v[m[k].row].p;
        if (sb_benjamini_hochberg(p, b - a, o->alpha, adj, NULL) != 0) {
            rc = sb_error_set(err, NULL, NULL, "Benjamini-Hochberg: a p-value out of range");
            goto done;
        }
        for (size_t k = a; k < b; k++) {
            sb_rg_row *r = &l->v[m[k].row];
            r->p_adjusted = adj[k - a];
            if (r->p_adjusted < o->alpha && r->rel_change >= o->min_effect)
                r->verdict = SB_RG_REGRESSION;
            else if (r->p_adjusted < o->alpha && r->rel_change <= -o->min_effect)
                r->verdict = SB_RG_IMPROVEMENT;
            else
                r->verdict = SB_RG_NO_CHANGE;
        }
        a = b;
    }
done:
    free(m);
    free(p);
    free(adj);
    return rc;
}

static int walk_groups(sqlite3 *db, const sb_result_set *set, int every_step, const sb_rg_opts *o,
                       sb_rg_list *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    sb_rg_order ord;
    if (sb_rg_order_build(set, &ord, err) != SB_OK)
        return SB_ERR;
    int rc = order_read_git(db, &ord, err);
    walk_ctx cache;
    memset(&cache, 0, sizeof cache);
    for (size_t i = 0; i < set->n && rc == SB_OK;) {
        size_t j = group_end(set, i);
        rc = group_rows(db, set, &ord, i, j, every_step, o, &cache, out, &cap, err);
        i = j + 1;
    }
    walk_free(&cache);
    sb_rg_order_free(&ord);
    if (rc == SB_OK)
        rc = adjust_steps(out, o, err);
    out->searched_cp = every_step;
    if (rc != SB_OK)
        sb_rg_free(out);
    return rc;
}

int sb_rg_commits(sqlite3 *db, const sb_result_set *set, const sb_rg_opts *o, sb_rg_list *out,
                  sb_error *err)
{
    return walk_groups(db, set, 0, o, out, err);
}

int sb_rg_history(sqlite3 *db, const sb_result_set *set, const sb_rg_opts *o, sb_rg_list *out,
                  sb_error *err)
{
    return walk_groups(db, set, 1, o, out, err);
}

int sb_rg_windows(sqlite3 *db, const sb_result_set *set, long long prev_from, long long from,
                  long long to, const sb_rg_opts *o, sb_rg_list *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t i = 0; i < set->n;) {
        size_t j = i;
        while (j + 1 < set->n && strcmp(set->v[j + 1].case_key, set->v[i].case_key) == 0 &&
               strcmp(set->v[j + 1].provider, set->v[i].provider) == 0 &&
               strcmp(set->v[j + 1].sku, set->v[i].sku) == 0)
            j++;
        const sb_result *cur = NULL, *prev = NULL;
        for (size_t k = i; k <= j; k++) {
            const sb_result *r = &set->v[k];
            if (!r->passing || r->finished_epoch == LLONG_MIN)
                continue;
            if (r->finished_epoch >= from && r->finished_epoch < to && (!cur || newer(r, cur)))
                cur = r;
            if (r->finished_epoch >= prev_from && r->finished_epoch < from &&
                (!prev || newer(r, prev)))
                prev = r;
        }
        if (cur && prev) {
            sb_rg_row row;
            if (sb_rg_compare(db, prev, cur, o, &row, err) != SB_OK) {
                sb_rg_free(out);
                return SB_ERR;
            }
            row.latest = 1;
            if (push(out, &cap, &row) != 0) {
                sb_rg_free(out);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
        }
        i = j + 1;
    }
    return SB_OK;
}

size_t sb_rg_count_regressions(const sb_rg_list *l)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].latest &&
            (l->v[i].verdict == SB_RG_REGRESSION || l->v[i].verdict == SB_RG_NOW_FAILING))
            c++;
    return c;
}

static void short_sha(const char *sha, char out[13])
{
    snprintf(out, 13, "%.12s", sha);
}

static void fmt_ms(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.4f", v);
}

static void md_section(const sb_rg_list *l, sb_buf *out, int (*want)(sb_rg_verdict),
                       const char *heading)
{
    size_t count = 0;
    for (size_t i = 0; i < l->n; i++)
        if (want(l->v[i].verdict))
            count++;
    sb_buf_printf(out, "### %s (%zu)\n\n", heading, count);
    if (!count) {
        sb_buf_puts(out, "None.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | shape | provider | SKU | verdict | old median ms | new "
                     "median ms | change | p | samples old/new | old commit (run) | new commit (run) |\n");
    sb_buf_puts(out, "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: "
                     "| --- | --- |\n");
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        if (!want(r->verdict))
            continue;
        const sb_result *n = r->new_run;
        const char *cells[] = {n->op, n->mode, n->dtype, n->shape_key, n->provider, n->sku,
                               sb_rg_verdict_name(r->verdict)};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 7; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        char om[32], nm[32], ch[32], p[64], os[13], ns[13];
        fmt_ms(r->old_run ? r->old_run->median_ms : NAN, om, sizeof om);
        fmt_ms(n->median_ms, nm, sizeof nm);
        if (isnan(r->rel_change))
            snprintf(ch, sizeof ch, "-");
        else
            snprintf(ch, sizeof ch, "%+.1f%%", r->rel_change * 100.0);
        if (isnan(r->p))
            snprintf(p, sizeof p, "-");
        else if (!isnan(r->p_adjusted) && r->p_adjusted != r->p)
            snprintf(p, sizeof p, "%.2g (adjusted %.2g)", r->p, r->p_adjusted);
        else
            snprintf(p, sizeof p, "%.2g", r->p);
        short_sha(r->old_run ? r->old_run->git_sha : "-", os);
        short_sha(n->git_sha, ns);
        sb_buf_printf(out, " %s | %s | %s | %s | %zu/%zu | ", om, nm, ch, p, r->n_old, r->n_new);
        if (r->old_run)
            sb_buf_printf(out, "%s (run %lld) | ", os, r->old_run->run_id);
        else
            sb_buf_puts(out, "- | ");
        sb_buf_printf(out, "%s (run %lld) |\n", ns, n->run_id);
    }
    sb_buf_puts(out, "\n");
}

static int want_regression(sb_rg_verdict v)
{
    return v == SB_RG_REGRESSION || v == SB_RG_NOW_FAILING;
}
static int want_improvement(sb_rg_verdict v)
{
    return v == SB_RG_IMPROVEMENT;
}
static int want_untested(sb_rg_verdict v)
{
    return v == SB_RG_INSUFFICIENT || v == SB_RG_NO_SAMPLES || v == SB_RG_SINGLE_COMMIT;
}

static void md_changepoints(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out)
{
    sb_buf_printf(out, "### Change points (%zu)\n\n", l->ncp);
    sb_buf_printf(out,
                  "E-Divisive means over each series' per-commit medians (newest passing run "
                  "of each commit), permutation test at alpha %.4g with 199 permutations, at "
                  "least 3 commits a segment; shifts of at least %.1f%%. The change lies "
                  "between the two commits.\n\n",
                  o->alpha, o->min_effect * 100.0);
    if (!l->ncp) {
        sb_buf_puts(out, "None.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | shape | provider | SKU | median ms before | median ms "
                     "after | shift | p | commits before/after | last commit before (run) | "
                     "first commit after (run) |\n");
    sb_buf_puts(out, "| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | "
                     "--- | --- |\n");
    for (size_t i = 0; i < l->ncp; i++) {
        const sb_rg_changepoint *c = &l->cp[i];
        const sb_result *n = c->first_after;
        const char *cells[] = {n->op, n->mode, n->dtype, n->shape_key, n->provider, n->sku};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 6; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        char bs[13], as[13];
        short_sha(c->last_before->git_sha, bs);
        short_sha(n->git_sha, as);
        sb_buf_printf(out, " %.4f | %.4f | %+.1f%% | %.2g | %zu/%zu | %s (run %lld) | %s (run %lld) |\n",
                      c->before, c->after, c->shift * 100.0, c->p, c->commits_before,
                      c->commits_after, bs, c->last_before->run_id, as, n->run_id);
    }
    sb_buf_puts(out, "\n");
}

void sb_rg_render_md(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out)
{
    size_t same = 0, cases = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].verdict == SB_RG_NO_CHANGE)
            same++;
        const sb_result *a = l->v[i].new_run, *b = i ? l->v[i - 1].new_run : NULL;
        if (!b || strcmp(a->case_key, b->case_key) || strcmp(a->provider, b->provider) ||
            strcmp(a->sku, b->sku))
            cases++;
    }
    sb_buf_printf(out,
                  "Evidence level: " "op-level microbenchmark" ". Two-sided Mann-Whitney U on the "
                  "stored samples, alpha %.4g, minimum effect %.1f%% on the median. %zu "
                  "case(s) compared",
                  o->alpha, o->min_effect * 100.0, cases);
    if (cases != l->n)
        sb_buf_printf(out, " over %zu steps between commits", l->n);
    sb_buf_printf(out, "; %zu with no significant change.\n\n", same);
    if (l->series_git || l->series_measured) {
        sb_buf_puts(out, "Commit order: ");
        if (l->series_git)
            sb_buf_printf(out, "git ancestry (solbook commits import) for %zu series", l->series_git);
        if (l->series_git && l->series_measured)
            sb_buf_puts(out, "; ");
        if (l->series_measured)
            sb_buf_printf(out,
                          "first measured for %zu series, whose commits the commits table "
                          "does not all know",
                          l->series_measured);
        sb_buf_puts(out, ". Where a commit step holds several cases, p is adjusted by "
                         "Benjamini-Hochberg over them (false discovery rate alpha).\n\n");
    }
    md_section(l, out, want_regression, "Regressions");
    md_section(l, out, want_improvement, "Improvements");
    md_section(l, out, want_untested, "Not tested");
    if (l->searched_cp)
        md_changepoints(l, o, out);
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

int sb_rg_render_json(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out, sb_error *err)
{
    json_t *rows = NULL;
    json_t *root = sb_report_json_new("op-level microbenchmark", "cases", &rows);
    if (!root)
        return sb_error_set(err, NULL, NULL, "out of memory");
    json_object_set_new(root, "alpha", json_real(o->alpha));
    json_object_set_new(root, "min_effect", json_real(o->min_effect));
    json_object_set_new(root, "regressions",
                        json_integer((json_int_t)sb_rg_count_regressions(l)));
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        const sb_result *n = r->new_run;
        json_t *j = json_object();
        json_object_set_new(j, "case_key", json_string(n->case_key));
        json_object_set_new(j, "op", json_string(n->op));
        json_object_set_new(j, "mode", json_string(n->mode));
        json_object_set_new(j, "dtype", json_string(n->dtype));
        json_object_set_new(j, "shape", json_string(n->shape_key));
        json_object_set_new(j, "provider", json_string(n->provider));
        json_object_set_new(j, "sku", json_string(n->sku));
        json_object_set_new(j, "verdict", json_string(sb_rg_verdict_name(r->verdict)));
        json_object_set_new(j, "new_commit", json_string(n->git_sha));
        json_object_set_new(j, "new_run", json_integer(n->run_id));
        json_object_set_new(j, "new_median_ms", num_or_null(n->median_ms));
        json_object_set_new(j, "old_commit",
                            r->old_run ? json_string(r->old_run->git_sha) : json_null());
        json_object_set_new(j, "old_run",
                            r->old_run ? json_integer(r->old_run->run_id) : json_null());
        json_object_set_new(j, "old_median_ms",
                            num_or_null(r->old_run ? r->old_run->median_ms : NAN));
        json_object_set_new(j, "p", num_or_null(r->p));
        json_object_set_new(j, "p_adjusted", num_or_null(r->p_adjusted));
        json_object_set_new(j, "rel_change", num_or_null(r->rel_change));
        json_object_set_new(j, "samples_old", json_integer((json_int_t)r->n_old));
        json_object_set_new(j, "samples_new", json_integer((json_int_t)r->n_new));
        json_object_set_new(j, "latest", json_boolean(r->latest));
        json_array_append_new(rows, j);
    }
    if (l->series_git || l->series_measured) {
        json_t *ord = json_object();
        json_object_set_new(ord, "git", json_integer((json_int_t)l->series_git));
        json_object_set_new(ord, "first_measured", json_integer((json_int_t)l->series_measured));
        json_object_set_new(root, "commit_order", ord);
    }
    if (l->searched_cp) {
        json_t *cps = json_array();
        for (size_t i = 0; i < l->ncp; i++) {
            const sb_rg_changepoint *c = &l->cp[i];
            const sb_result *n = c->first_after;
            json_t *j = json_object();
            json_object_set_new(j, "case_key", json_string(n->case_key));
            json_object_set_new(j, "provider", json_string(n->provider));
            json_object_set_new(j, "sku", json_string(n->sku));
            json_object_set_new(j, "last_commit_before", json_string(c->last_before->git_sha));
            json_object_set_new(j, "last_run_before", json_integer(c->last_before->run_id));
            json_object_set_new(j, "first_commit_after", json_string(n->git_sha));
            json_object_set_new(j, "first_run_after", json_integer(n->run_id));
            json_object_set_new(j, "commits_before", json_integer((json_int_t)c->commits_before));
            json_object_set_new(j, "commits_after", json_integer((json_int_t)c->commits_after));
            json_object_set_new(j, "median_ms_before", num_or_null(c->before));
            json_object_set_new(j, "median_ms_after", num_or_null(c->after));
            json_object_set_new(j, "shift", num_or_null(c->shift));
            json_object_set_new(j, "p", num_or_null(c->p));
            json_array_append_new(cps, j);
        }
        json_object_set_new(root, "change_points", cps);
    }
    return sb_report_json_finish(root, out, err);
}
