/* regress.c - regressions between commits and weeks (regress.h). */
#include "regress.h"

#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "geomean.h"
#include "sessions.h"
#include "sha256.h"
#include "stats.h"

/* strcmp, with a shortcut for the texts a result set shares between its
 * runs (SHA, provider, SKU, op...: one copy each), which the sorts below
 * compare equal most of the time. */
static int text_cmp(const char *a, const char *b)
{
    return a == b ? 0 : strcmp(a, b);
}

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

const char *sb_rg_cause_name(sb_rg_cause c)
{
    switch (c) {
    case SB_RG_CODE: return "code";
    case SB_RG_DRIFT: return "environment/noise drift";
    case SB_RG_ENVIRONMENT: return "environment change";
    case SB_RG_PROTOCOL: return "protocol change";
    }
    return "unknown";
}

const char *sb_rg_confirm_name(sb_rg_confirm c)
{
    switch (c) {
    case SB_RG_UNCONFIRMED: return "unconfirmed";
    case SB_RG_CONFIRMED: return "confirmed";
    case SB_RG_REFUTED: return "refuted";
    }
    return "unknown";
}

const char *sb_rg_threshold_from_name(sb_rg_threshold_from f)
{
    switch (f) {
    case SB_RG_FROM_MIN_EFFECT: return "min-effect";
    case SB_RG_FROM_CASE_AA: return "case A/A";
    case SB_RG_FROM_SKU_AA: return "SKU cross-card A/A";
    case SB_RG_FROM_HISTORY_AA: return "drift class A/A";
    }
    return "unknown";
}

int sb_rg_own_provider(const char *provider)
{
    return strcmp(provider, SB_PROJECT_PROVIDER) == 0 || strncmp(provider, "solbook-", 8) == 0;
}

void sb_rg_free(sb_rg_list *l)
{
    free(l->v);
    free(l->cp);
    free(l->noise);
    sb_text_pool_free(l->text);
    if (l->runs)
        sb_results_free(l->runs);
    free(l->runs);
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
 * distribution of the last sample sizes. */
typedef struct walk_ctx {
    sb_mw_cache mw;
} walk_ctx;

static void walk_free(walk_ctx *w)
{
    sb_mw_cache_free(&w->mw);
    memset(w, 0, sizeof *w);
}

/* Every sample of run_id in (rep, idx) order, from given, into a new array. */
static int load_samples(const sb_run_samples *given, long long run_id, double **v, size_t *n, sb_error *err)
{
    const double *g;
    *v = NULL;
    if (!given || !sb_run_samples_of(given, run_id, &g, n))
        return sb_error_set(err, NULL, NULL, "the samples of run %lld were not read", run_id);
    if (!(*v = malloc((*n ? *n : 1) * sizeof **v)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (*n)
        memcpy(*v, g, *n * sizeof **v);
    return SB_OK;
}

/* ---- what walks share (sb_rg_memo) ---------------------------------- */

/* A step's figures as compare_samples computes them from the samples,
 * before any threshold judges them. */
typedef struct memo_step {
    long long old_id, new_id;
    size_t n_old, n_new;
    double rel_change, p, min_p;
} memo_step;

struct sb_rg_memo {
    double alpha, min_effect; /* the rule of the walk that filled it */
    int loaded;               /* a walk took it: alpha and min_effect are set */
    int frozen;
    memo_step *v; /* sorted by (old_id, new_id) once frozen */
    size_t n, cap;
    int failed;   /* out of memory while filling: some steps are missing */
};

int sb_rg_memo_new(sb_rg_memo **out, sb_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
}

static int cmp_memo_step(const void *a, const void *b)
{
    const memo_step *x = a, *y = b;
    if (x->old_id != y->old_id)
        return (x->old_id > y->old_id) - (x->old_id < y->old_id);
    return (x->new_id > y->new_id) - (x->new_id < y->new_id);
}

void sb_rg_memo_freeze(sb_rg_memo *m)
{
    if (!m || m->frozen)
        return;
    if (m->n)
        qsort(m->v, m->n, sizeof *m->v, cmp_memo_step);
    m->frozen = 1;
}

/* The memo o's walks read and fill: NULL where o has none or it was
 * filled by another rule. */
static sb_rg_memo *memo_of(const sb_rg_opts *o)
{
    sb_rg_memo *m = o->memo;
    if (!m || (m->loaded && (m->alpha != o->alpha || m->min_effect != o->min_effect)))
        return NULL;
    return m;
}

static const memo_step *memo_find(const sb_rg_memo *m, long long old_id, long long new_id)
{
    if (!m || !m->frozen || !m->n)
        return NULL;
    memo_step k = {.old_id = old_id, .new_id = new_id};
    return bsearch(&k, m->v, m->n, sizeof *m->v, cmp_memo_step);
}

/* Keeps a step's figures while the memo fills; a memo that cannot grow
 * goes without (a later walk tests the step again). */
static void memo_add(sb_rg_memo *m, const memo_step *st)
{
    if (!m || m->frozen || m->failed)
        return;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4096;
        memo_step *nv = realloc(m->v, cap * sizeof *nv);
        if (!nv) {
            m->failed = 1;
            return;
        }
        m->v = nv;
        m->cap = cap;
    }
    m->v[m->n++] = *st;
}

static void row_init(sb_rg_row *row)
{
    memset(row, 0, sizeof *row);
    row->p = NAN;
    row->p_adjusted = NAN;
    row->rel_change = NAN;
    row->same_card = -1;
    row->range_commits = -1;
    row->confirm_change = NAN;
    row->confirm_old_run = -1;
    row->confirm_new_run = -1;
    row->changed = "";
}

/* The figures of the step from old_run to new_run into row (row_init'ed),
 * keeping what the caller set beside them (cause, card, range), as far
 * as they come without the runs' samples: 1 where they take the samples
 * (compare_samples then), 0 where row is complete. */
static int compare_start(const sb_result *old_run, const sb_result *new_run, const sb_rg_opts *o, double threshold,
                         sb_rg_row *row)
{
    row->old_run = old_run;
    row->new_run = new_run;
    row->threshold = threshold;
    row->p = NAN;
    row->p_adjusted = NAN;
    row->rel_change = NAN;
    if (old_run->median_ms > 0 && new_run->median_ms >= 0)
        row->rel_change = (new_run->median_ms - old_run->median_ms) / old_run->median_ms;
    if (old_run->quantiles_only || new_run->quantiles_only) {
        row->verdict = SB_RG_NO_SAMPLES;
        return 0;
    }
    const memo_step *ms = memo_find(memo_of(o), old_run->run_id, new_run->run_id);
    if (!ms)
        return 1;
    row->n_old = ms->n_old;
    row->n_new = ms->n_new;
    if (ms->n_old == 0 || ms->n_new == 0) {
        row->verdict = SB_RG_NO_SAMPLES;
        return 0;
    }
    row->rel_change = ms->rel_change;
    row->p = ms->p;
    row->p_adjusted = ms->p;
    row->verdict = ms->min_p >= o->alpha ? SB_RG_INSUFFICIENT
                                         : sb_rg_judge(ms->p, row->rel_change, o->alpha, threshold);
    return 0;
}

/* The rest of the figures of row, which compare_start left for the
 * samples of its runs (given), tested at row->threshold. */
static int compare_samples(const sb_run_samples *given, const sb_rg_opts *o, walk_ctx *w, sb_rg_row *row,
                           sb_error *err)
{
    const sb_result *old_run = row->old_run, *new_run = row->new_run;
    double threshold = row->threshold;
    sb_rg_memo *m = memo_of(o);
    memo_step rec = {old_run->run_id, new_run->run_id, 0, 0, NAN, NAN, NAN};
    double *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    if (load_samples(given, old_run->run_id, &a, &na, err) != SB_OK)
        return SB_ERR;
    if (load_samples(given, new_run->run_id, &b, &nb, err) != SB_OK) {
        free(a);
        return SB_ERR;
    }
    row->n_old = na;
    row->n_new = nb;
    rec.n_old = na;
    rec.n_new = nb;
    if (na == 0 || nb == 0) {
        row->verdict = SB_RG_NO_SAMPLES;
        memo_add(m, &rec);
        free(a);
        free(b);
        return SB_OK;
    }
    /* Medians of the samples themselves, so test and effect agree;
     * sorted once here, the test merges them */
    sb_sort_ascending(a, na);
    sb_sort_ascending(b, nb);
    double mo = sb_quantile_linear(a, na, 0.5), mn = sb_quantile_linear(b, nb, 0.5);
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
    rec.rel_change = row->rel_change;
    rec.p = mw.p;
    rec.min_p = mw.min_p;
    memo_add(m, &rec);
    if (mw.min_p >= o->alpha) {
        row->verdict = SB_RG_INSUFFICIENT;
        return SB_OK;
    }
    row->verdict = sb_rg_judge(mw.p, row->rel_change, o->alpha, threshold);
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
    return text_cmp(((const commit_pos *)a)->sha, ((const commit_pos *)b)->sha);
}

static int cmp_first(const void *a, const void *b)
{
    const commit_pos *x = *(const commit_pos *const *)a, *y = *(const commit_pos *const *)b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return text_cmp(x->sha, y->sha);
}

/* Sorts v[0..n) (malloc'd; taken over) by SHA, keeps one entry of each
 * commit with the earliest known time, and ranks them by that time into
 * out. */
static int order_finish(commit_pos *v, size_t n, sb_rg_order *out, sb_error *err)
{
    qsort(v, n, sizeof *v, cmp_sha);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && text_cmp(v[m - 1].sha, v[i].sha) == 0) {
            if (v[i].first != LLONG_MIN && (v[m - 1].first == LLONG_MIN || v[i].first < v[m - 1].first))
                v[m - 1].first = v[i].first;
        } else {
            v[m++] = v[i];
        }
    }
    /* v held an entry per run where update_order gives it */
    commit_pos *sv = realloc(v, (m ? m : 1) * sizeof *v);
    if (sv)
        v = sv;
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

/* Where v[i] (of n) keeps sha in tab (tcap slots, a power of two; each
 * 1 + an index into v, 0: free), or the free slot to put it in. */
static size_t sha_slot(const size_t *tab, size_t tcap, const commit_pos *v, const char *sha)
{
    size_t h = (size_t)(((uintptr_t)sha >> 3) * 0x9e3779b97f4a7c15ull) & (tcap - 1);
    while (tab[h] && v[tab[h] - 1].sha != sha)
        h = (h + 1) & (tcap - 1);
    return h;
}

/* The runs' commits, folded by the address of their text first: a set
 * holds its text in a pool that keeps each SHA once, so a million runs
 * give a few hundred addresses, and order_finish sorts those (folding
 * equal text at other addresses) instead of an entry per run. The
 * earliest time of a commit is the same either way. */
int sb_rg_order_build(const sb_result_set *set, sb_rg_order *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 64, tcap = 128, n = 0;
    commit_pos *v = malloc(cap * sizeof *v);
    size_t *tab = calloc(tcap, sizeof *tab);
    if (!v || !tab) {
        free(v);
        free(tab);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < set->n; i++) {
        const sb_result *r = &set->v[i];
        if (!has_commit(r))
            continue;
        size_t h = sha_slot(tab, tcap, v, r->git_sha);
        if (tab[h]) {
            commit_pos *c = &v[tab[h] - 1];
            if (r->finished_epoch != LLONG_MIN && (c->first == LLONG_MIN || r->finished_epoch < c->first))
                c->first = r->finished_epoch;
            continue;
        }
        if (n == cap || 2 * (n + 1) > tcap) {
            size_t nc = n == cap ? cap * 2 : cap, nt = 2 * (n + 1) > tcap ? tcap * 2 : tcap;
            commit_pos *nv = nc != cap ? realloc(v, nc * sizeof *nv) : v;
            size_t *ntab = nt != tcap ? calloc(nt, sizeof *ntab) : tab;
            if (!nv || !ntab) {
                free(nv ? nv : v);
                if (ntab != tab)
                    free(ntab);
                free(tab);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            v = nv;
            cap = nc;
            if (ntab != tab) {
                free(tab);
                tab = ntab;
                tcap = nt;
                for (size_t k = 0; k < n; k++)
                    tab[sha_slot(tab, tcap, v, v[k].sha)] = k + 1;
            }
            h = sha_slot(tab, tcap, v, r->git_sha);
        }
        v[n] = (commit_pos){r->git_sha, r->finished_epoch, 0, -1};
        tab[h] = ++n;
    }
    free(tab);
    return order_finish(v, n, out, err);
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

/* The git ordinals of the order's commits from git (NULL: none known). */
static void order_take_git(sb_rg_order *o, const sb_commit_ordinals *git)
{
    commit_pos *v = o->v;
    for (size_t i = 0; i < o->n; i++)
        v[i].git = git ? sb_commit_ordinal(git, v[i].sha) : -1;
}

static size_t group_end(const sb_result_set *set, size_t i)
{
    size_t j = i;
    while (j + 1 < set->n && text_cmp(set->v[j + 1].case_key, set->v[i].case_key) == 0 &&
           text_cmp(set->v[j + 1].provider, set->v[i].provider) == 0 &&
           text_cmp(set->v[j + 1].sku, set->v[i].sku) == 0)
        j++;
    return j;
}

/* ---- series: one protocol and one environment ---- */

static int same_text(const char *a, const char *b)
{
    return (!a || !b) ? a == b : text_cmp(a, b) == 0;
}

static int same_num(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void diff_text(sb_buf *b, const char *name, const char *x, const char *y)
{
    if (same_text(x, y))
        return;
    sb_buf_printf(b, "%s%s %s -> %s", b->len ? "; " : "", name, x ? x : "-", y ? y : "-");
}

static void diff_int(sb_buf *b, const char *name, long long x, long long y)
{
    if (x != y)
        sb_buf_printf(b, "%s%s %lld -> %lld", b->len ? "; " : "", name, x, y);
}

static void diff_num(sb_buf *b, const char *name, double x, double y)
{
    if (!same_num(x, y))
        sb_buf_printf(b, "%s%s %g -> %g", b->len ? "; " : "", name, x, y);
}

/* What differs in the protocol of a and b, appended to out ("" when
 * nothing). */
static void protocol_diff(const sb_result *a, const sb_result *b, sb_buf *out)
{
    diff_text(out, "tool", a->tool_name, b->tool_name);
    diff_text(out, "timer", a->timer, b->timer);
    diff_text(out, "L2", a->l2, b->l2);
    diff_int(out, "warm-up", a->warmup_iters, b->warmup_iters);
    diff_num(out, "warm-up ms", a->warmup_ms, b->warmup_ms);
    diff_int(out, "iters", a->iters, b->iters);
    diff_int(out, "repeats", a->repeats, b->repeats);
    diff_int(out, "input sets", a->input_sets, b->input_sets);
    diff_int(out, "graph", a->graph, b->graph);
    diff_num(out, "settle ms", a->settle_ms, b->settle_ms);
    diff_int(out, "held launch", a->launch_hold, b->launch_hold);
}

static void environment_diff(const sb_result *a, const sb_result *b, sb_buf *out)
{
    diff_text(out, "driver", a->driver, b->driver);
    diff_text(out, "CUDA", a->cuda, b->cuda);
    diff_text(out, "cuBLAS", a->cublas, b->cublas);
    diff_text(out, "packages", a->packages_json, b->packages_json);
}

static int same_protocol(const sb_result *a, const sb_result *b)
{
    return same_text(a->tool_name, b->tool_name) && same_text(a->timer, b->timer) &&
           same_text(a->l2, b->l2) && a->warmup_iters == b->warmup_iters &&
           same_num(a->warmup_ms, b->warmup_ms) && a->iters == b->iters &&
           a->repeats == b->repeats && a->input_sets == b->input_sets && a->graph == b->graph &&
           same_num(a->settle_ms, b->settle_ms) && a->launch_hold == b->launch_hold;
}

static int same_environment(const sb_result *a, const sb_result *b)
{
    return same_text(a->driver, b->driver) && same_text(a->cuda, b->cuda) &&
           same_text(a->cublas, b->cublas) && same_text(a->packages_json, b->packages_json);
}

int sb_rg_same_series(const sb_result *a, const sb_result *b)
{
    return same_protocol(a, b) && same_environment(a, b);
}

/* One run of a group as the walk sees it. */
typedef struct run_ref {
    const sb_result *r;
    long rank;       /* commit order */
    long long git;   /* git ordinal of its commit, -1 unknown */
    size_t series;
    const char *uuid;
} run_ref;

/* The newest run of series s (s_other: of any series but s) at commit
 * rank among refs; passing: passing runs only. Where uuid is set, the
 * newest on that card when there is one. */
static const run_ref *pick(const run_ref *refs, size_t n, size_t s, int s_other, long rank,
                           int passing, const char *uuid)
{
    /* refs are in rank order (group_rows): the runs of one commit lie
     * together, found by bisection instead of a pass over the group for
     * each of its commits */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (refs[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    const run_ref *best = NULL, *best_card = NULL;
    for (size_t k = lo; k < n && refs[k].rank == rank; k++) {
        const run_ref *x = &refs[k];
        if ((s_other ? x->series == s : x->series != s) || (passing && !x->r->passing))
            continue;
        if (!best || newer(x->r, best->r))
            best = x;
        if (uuid && x->uuid && strcmp(uuid, x->uuid) == 0 && (!best_card || newer(x->r, best_card->r)))
            best_card = x;
    }
    return best_card ? best_card : best;
}

/* The A/A change (sb_aa_change) of one case, provider and SKU on one
 * relation of cards, among the comparisons whose held launches held
 * (let_go 0) or those where a run's hold was let go (1); key is
 * "case_key\x1fprovider\x1fsku\x1finput_sets" (buffers of its own each
 * turn are a protocol of their own, with noise of its own). Before aa_cases_fold, one entry per
 * comparison with its |ratio - 1| in change. */
typedef struct aa_case {
    char *key;
    int same_card;
    int let_go;
    double change;
} aa_case;

/* The cross-card threshold of each SKU and hold with A/A data, and the
 * A/A change of each case measured (sessions.h); cases sorted by key. */
struct sb_rg_aa {
    sb_rg_noise *v;
    size_t n;
    aa_case *cases;
    size_t ncases;
};
typedef struct sb_rg_aa aa_noise;

static void aa_noise_free(aa_noise *a)
{
    for (size_t i = 0; i < a->ncases; i++)
        free(a->cases[i].key);
    free(a->cases);
    free(a->v);
    memset(a, 0, sizeof *a);
}

static int cmp_aa_case(const void *x, const void *y)
{
    const aa_case *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (!c)
        c = (a->same_card > b->same_card) - (a->same_card < b->same_card);
    return c ? c : (a->let_go > b->let_go) - (a->let_go < b->let_go);
}

/* cmp_aa_case, then the change: a case's changes ascending. */
static int cmp_aa_case_change(const void *x, const void *y)
{
    const aa_case *a = x, *b = y;
    int c = cmp_aa_case(a, b);
    return c ? c : (a->change > b->change) - (a->change < b->change);
}

static char *case_key_of(const char *case_key, const char *provider, const char *sku, long long input_sets)
{
    size_t n = strlen(case_key) + strlen(provider) + strlen(sku) + 24;
    char *k = malloc(n);
    if (k)
        snprintf(k, n, "%s\x1f%s\x1f%s\x1f%lld", case_key, provider, sku, input_sets);
    return k;
}

/* 1: a run of the comparison let its held launch go in a round
 * (hold_timeouts > 0): the op waited on the host inside the held launch,
 * so its kernel time holds that wait and is noisier than a held one. */
static int let_go_run(int hold_timeouts)
{
    return hold_timeouts > 0;
}

/* Adds the comparisons of nr to out->cases, one entry each (aa_cases_fold
 * makes one of each case, relation and hold). */
static int aa_cases_add(aa_noise *out, const sb_noise_report *nr, sb_error *err)
{
    for (size_t i = 0; i < nr->ncmp; i++) {
        const sb_noise_cmp *c = &nr->cmp[i];
        aa_case *nv = realloc(out->cases, (out->ncases + 1) * sizeof *nv);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        out->cases = nv;
        char *key = case_key_of(c->a->case_key, c->a->provider, c->a->sku, c->a->input_sets);
        if (!key)
            return sb_error_set(err, NULL, NULL, "out of memory");
        nv[out->ncases++] = (aa_case){key, sb_noise_same_card(c->kind), c->let_go, c->change};
    }
    return SB_OK;
}

/* Sorts the cases and keeps one entry for each, whose change is
 * sb_aa_change of its comparisons' (the rule `solbook noise` judges its
 * held-out comparisons by). */
static int aa_cases_fold(aa_noise *a, sb_error *err)
{
    if (!a->ncases)
        return SB_OK;
    qsort(a->cases, a->ncases, sizeof *a->cases, cmp_aa_case_change);
    double *changes = malloc(a->ncases * sizeof *changes);
    if (!changes)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < a->ncases;) {
        size_t j = i;
        for (; j < a->ncases && cmp_aa_case(&a->cases[i], &a->cases[j]) == 0; j++)
            changes[j - i] = a->cases[j].change;
        aa_case one = a->cases[i];
        one.change = sb_aa_change(changes, j - i);
        for (size_t k = i + 1; k < j; k++)
            free(a->cases[k].key);
        a->cases[m++] = one;
        i = j;
    }
    a->ncases = m;
    free(changes);
    return SB_OK;
}

/* The A/A change of run r's case, provider and SKU on one card
 * (same_card 1) or across two, among the comparisons whose hold was let
 * go (let_go 1) or held (0); -1 when none was measured. */
static double aa_case_change(const aa_noise *a, const sb_result *r, int same_card, int let_go)
{
    char *key = case_key_of(r->case_key, r->provider, r->sku, r->input_sets);
    if (!key)
        return -1.0;
    aa_case want = {key, same_card, let_go, 0.0};
    const aa_case *hit = a->ncases ? bsearch(&want, a->cases, a->ncases, sizeof want, cmp_aa_case) : NULL;
    free(key);
    return hit ? hit->change : -1.0;
}

/* 1: r times kernels the way the A/A sessions do, by held launch, so
 * their noise is the noise of its series. */
static int held_launch(const sb_result *r)
{
    return r->launch_hold || (r->kernel_method && strcmp(r->kernel_method, "held-launch") == 0);
}

/* The cross-card threshold of sku from the comparisons of nr across two
 * of its cards whose hold was let go (let_go 1) or held (0): 1.5 times
 * their A/A change (sb_noise_sku_change), where there are at least
 * SB_RG_AA_MIN_COMPARISONS. */
static int aa_sku_add(aa_noise *out, const sb_noise_report *nr, const char *sku, int let_go, sb_error *err)
{
    double change;
    size_t n;
    if (sb_noise_sku_change(nr, sku, let_go, &change, &n, err) != SB_OK)
        return SB_ERR;
    if (n < SB_RG_AA_MIN_COMPARISONS)
        return SB_OK;
    sb_rg_noise *nv = realloc(out->v, (out->n + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    out->v = nv;
    sb_rg_noise *e = &out->v[out->n++];
    snprintf(e->sku, sizeof e->sku, "%s", sku);
    e->let_go = let_go;
    e->threshold = sb_aa_threshold(change, 0.0);
    e->comparisons = n;
    return SB_OK;
}

static int cmp_session_sku(const void *a, const void *b)
{
    return strcmp(((const sb_session_run *)a)->sku, ((const sb_session_run *)b)->sku);
}

/* Measures the A/A runs of the sessions SKU by SKU. */
static int aa_noise_build(const sb_session_runs *runs, const sb_rg_opts *o, aa_noise *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    /* sorted by SKU, the order within a SKU kept (sessions, cases, copies) */
    sb_session_run *sorted = malloc((runs->n ? runs->n : 1) * sizeof *sorted);
    int rc = SB_OK;
    if (!sorted) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (runs->n) /* memcpy from NULL is undefined even for no bytes */
        memcpy(sorted, runs->v, runs->n * sizeof *sorted);
    /* a stable sort by SKU (insertion: a session's runs share a SKU, so
     * they come nearly sorted) */
    for (size_t i = 1; i < runs->n; i++) {
        sb_session_run x = sorted[i];
        size_t k = i;
        while (k > 0 && cmp_session_sku(&sorted[k - 1], &x) > 0) {
            sorted[k] = sorted[k - 1];
            k--;
        }
        sorted[k] = x;
    }
    sb_noise_opts no = {0.95, 0.02, o->alpha, o->min_effect};
    for (size_t a = 0; a < runs->n && rc == SB_OK;) {
        size_t b = a;
        while (b < runs->n && strcmp(sorted[b].sku, sorted[a].sku) == 0)
            b++;
        sb_session_runs sub = {sorted + a, b - a};
        sb_noise_report nr = {0};
        rc = sb_noise_measure(&sub, &no, &nr, err);
        if (rc == SB_OK)
            rc = aa_cases_add(out, &nr, err);
        for (int let_go = 0; let_go <= 1 && rc == SB_OK; let_go++)
            rc = aa_sku_add(out, &nr, sorted[a].sku, let_go, err);
        sb_noise_report_free(&nr);
        a = b;
    }
done:
    free(sorted);
    if (rc == SB_OK)
        rc = aa_cases_fold(out, err);
    if (rc != SB_OK)
        aa_noise_free(out);
    return rc;
}

int sb_rg_aa_new(const sb_session_runs *runs, const sb_rg_opts *o, sb_rg_aa **out, sb_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (aa_noise_build(runs, o, *out, err) != SB_OK) {
        free(*out);
        *out = NULL;
        return SB_ERR;
    }
    return SB_OK;
}

void sb_rg_aa_free(sb_rg_aa *a)
{
    if (!a)
        return;
    aa_noise_free(a);
    free(a);
}

void sb_rg_memo_free(sb_rg_memo *m)
{
    if (!m)
        return;
    free(m->v);
    free(m);
}

/* The cross-card noise of sku for steps whose hold was let go (let_go
 * 1) or held: the measured entry, else the default. */
static sb_rg_noise sku_noise(const sb_rg_aa *aa, const char *sku, int let_go)
{
    sb_rg_noise e = {{0}, let_go, SB_RG_CROSS_CARD_DEFAULT, 0};
    snprintf(e.sku, sizeof e.sku, "%s", sku);
    for (size_t i = 0; aa && i < aa->n; i++)
        if (strcmp(aa->v[i].sku, sku) == 0 && aa->v[i].let_go == let_go)
            e = aa->v[i];
    return e;
}

/* 1: a run of the step let its held launch go in a round. */
static int step_let_go(const sb_result *old_run, const sb_result *new_run)
{
    return let_go_run(old_run->hold_timeouts) || let_go_run(new_run->hold_timeouts);
}

double sb_rg_threshold(const sb_rg_aa *aa, const sb_result *old_run, const sb_result *new_run, int same_card,
                       double min_effect, sb_rg_threshold_from *from)
{
    /* a step whose runs held takes the A/A noise of held launches only; one
     * where either run's hold was let go, that of let-go comparisons */
    int let_go = step_let_go(old_run, new_run);
    double most = aa && held_launch(old_run) && held_launch(new_run)
                      ? aa_case_change(aa, new_run, same_card == 1, let_go)
                      : -1.0;
    if (most >= 0.0) {
        *from = SB_RG_FROM_CASE_AA;
        return sb_aa_threshold(most, min_effect);
    }
    if (same_card == 1) {
        *from = SB_RG_FROM_MIN_EFFECT;
        return min_effect;
    }
    *from = SB_RG_FROM_SKU_AA;
    return fmax(min_effect, sku_noise(aa, new_run->sku, let_go).threshold);
}

/* Records the cross-card noise of sku and hold in the list's noise table
 * the first time. */
static int note_sku_noise(const sb_rg_aa *aa, const char *sku, int let_go, sb_rg_list *l, sb_error *err)
{
    for (size_t i = 0; i < l->nnoise; i++)
        if (strcmp(l->noise[i].sku, sku) == 0 && l->noise[i].let_go == let_go)
            return SB_OK;
    sb_rg_noise *nv = realloc(l->noise, (l->nnoise + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    l->noise = nv;
    l->noise[l->nnoise++] = sku_noise(aa, sku, let_go);
    return SB_OK;
}

int sb_rg_step_again(const sb_rg_aa *aa, const sb_run_devices *dev, const sb_run_samples *samples,
                     const sb_result *old_run, const sb_result *new_run, const sb_rg_opts *o, sb_rg_row *row,
                     sb_error *err)
{
    row_init(row);
    row->cause = SB_RG_CODE;
    const char *a = sb_run_device(dev, old_run->run_id), *b = sb_run_device(dev, new_run->run_id);
    if (a && b)
        row->same_card = strcmp(a, b) == 0;
    double threshold = sb_rg_threshold(aa, old_run, new_run, row->same_card, o->min_effect, &row->threshold_from);
    return compare_start(old_run, new_run, o, threshold, row) ? compare_samples(samples, o, NULL, row, err) : SB_OK;
}

/* A pair of runs whose samples a step or a confirmation takes: row is
 * the index of the step in the walk's rows; bo and bn, for a
 * confirmation, its pair (NULL for a step, whose row names its runs). */
typedef struct pending {
    size_t row;
    const sb_result *bo, *bn;
} pending;

typedef struct walk {
    const sb_rg_opts *o;
    walk_ctx cache;
    const sb_run_devices *dev;
    const aa_noise *aa;
    sb_rg_list *out;
    size_t cap;
    int git_order; /* -1: git order where the commits table knows every commit of a
                    * group; 1 or 0: git or first-measured order, as stored */
    pending *pend; /* the steps and confirmations that wait for samples */
    size_t npend, pcap;
    long long *ids; /* the runs they name, ascending, each once */
    size_t nids;
} walk;

/* A walk by o's rule into out, reading cards from dev and A/A noise from
 * aa (NULL: none). */
static void walk_init(walk *w, const sb_rg_opts *o, const sb_run_devices *dev, const aa_noise *aa, sb_rg_list *out)
{
    memset(w, 0, sizeof *w);
    w->o = o;
    w->dev = dev;
    w->aa = aa;
    w->out = out;
    w->git_order = -1;
}

static void walk_release(walk *w)
{
    walk_free(&w->cache);
    free(w->pend);
    free(w->ids);
    w->pend = NULL;
    w->ids = NULL;
    w->npend = w->pcap = w->nids = 0;
}

static int pend(walk *w, size_t row, const sb_result *bo, const sb_result *bn, sb_error *err)
{
    if (w->npend == w->pcap) {
        size_t nc = w->pcap ? 2 * w->pcap : 256;
        pending *nv = realloc(w->pend, nc * sizeof *nv);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        w->pend = nv;
        w->pcap = nc;
    }
    w->pend[w->npend++] = (pending){row, bo, bn};
    return SB_OK;
}

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The runs the pending steps and confirmations name into w->ids. */
static int pending_ids(walk *w, sb_error *err)
{
    long long *v = realloc(w->ids, (2 * w->npend + 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    w->ids = v;
    size_t n = 0;
    for (size_t i = 0; i < w->npend; i++) {
        const pending *p = &w->pend[i];
        const sb_rg_row *r = &w->out->v[p->row];
        v[n++] = (p->bo ? p->bo : r->old_run)->run_id;
        v[n++] = (p->bn ? p->bn : r->new_run)->run_id;
    }
    qsort(v, n, sizeof *v, cmp_id);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || v[m - 1] != v[i])
            v[m++] = v[i];
    w->nids = m;
    return SB_OK;
}

static void confirm_apply(sb_rg_row *r, const sb_result *bo, const sb_result *bn, const sb_rg_row *pair);

/* The figures of the pending steps and confirmations from their runs'
 * samples, in the order they were met. */
static int pending_figures(walk *w, const sb_run_samples *given, sb_error *err)
{
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < w->npend; i++) {
        const pending *p = &w->pend[i];
        sb_rg_row *r = &w->out->v[p->row];
        if (!p->bo) {
            rc = compare_samples(given, w->o, &w->cache, r, err);
            continue;
        }
        sb_rg_row pair;
        row_init(&pair);
        compare_start(p->bo, p->bn, w->o, w->o->min_effect, &pair);
        rc = compare_samples(given, w->o, &w->cache, &pair, err);
        if (rc == SB_OK)
            confirm_apply(r, p->bo, p->bn, &pair);
    }
    w->npend = 0;
    w->nids = 0;
    return rc;
}

/* Compares old and new (new may be a failing run: now failing) into a row
 * of the given cause and pushes it. */
static int step_row(walk *w, const run_ref *old, const run_ref *new_ref, int passing,
                    sb_rg_cause cause, int latest, sb_error *err)
{
    sb_rg_row row;
    row_init(&row);
    row.cause = cause;
    row.latest = latest;
    row.old_run = old->r;
    row.new_run = new_ref->r;
    if (old->uuid && new_ref->uuid)
        row.same_card = strcmp(old->uuid, new_ref->uuid) == 0;
    if (old->git >= 0 && new_ref->git >= 0)
        row.range_commits = (long)(new_ref->git - old->git);
    if (cause == SB_RG_PROTOCOL || cause == SB_RG_ENVIRONMENT) {
        sb_buf d = SB_BUF_INIT;
        protocol_diff(old->r, new_ref->r, &d);
        environment_diff(old->r, new_ref->r, &d);
        /* each row held its own 192 bytes for this, though few steps
         * change protocol or environment: the text is in the list's pool */
        if (sb_buf_failed(&d)) {
            sb_buf_free(&d);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        if (d.len) {
            if (!w->out->text)
                w->out->text = sb_text_pool_new();
            size_t len = d.len < SB_RG_CHANGED_MAX ? d.len : SB_RG_CHANGED_MAX;
            row.changed = w->out->text ? sb_text_pool_add(w->out->text, sb_buf_str(&d), len, 1) : NULL;
            if (!row.changed) {
                sb_buf_free(&d);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
        }
        sb_buf_free(&d);
    }
    double threshold =
        sb_rg_threshold(w->aa, old->r, new_ref->r, row.same_card, w->o->min_effect, &row.threshold_from);
    if (row.threshold_from == SB_RG_FROM_SKU_AA &&
        note_sku_noise(w->aa, new_ref->r->sku, step_let_go(old->r, new_ref->r), w->out, err) != SB_OK)
        return SB_ERR;
    row.threshold = threshold;
    int wait = 0;
    if (!passing)
        row.verdict = SB_RG_NOW_FAILING;
    else
        wait = compare_start(old->r, new_ref->r, w->o, threshold, &row);
    if (push(w->out, &w->cap, &row) != 0)
        return sb_error_set(err, NULL, NULL, "out of memory");
    return wait ? pend(w, w->out->n - 1, NULL, NULL, err) : SB_OK;
}

/* The change points of series s: the newest passing run's median at each
 * of its nr commits rk[] (in commit order), through the E-Divisive
 * search; those moving the level by at least min_effect go to out->cp. */
static int series_changepoints(const run_ref *refs, size_t n, size_t s, const long *rk, size_t nr,
                               const sb_rg_opts *o, sb_rg_list *out, sb_error *err)
{
    double *x = malloc((nr ? nr : 1) * sizeof *x);
    const sb_result **run = malloc((nr ? nr : 1) * sizeof *run);
    if (!x || !run) {
        free(x);
        free(run);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    size_t m = 0;
    for (size_t k = 0; k < nr; k++) {
        const run_ref *r = pick(refs, n, s, 0, rk[k], 1, NULL);
        if (r && r->r->median_ms > 0 && isfinite(r->r->median_ms)) {
            x[m] = r->r->median_ms;
            run[m++] = r->r;
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
        rc = sb_changepoints(x, m, &co, &cp, &ncp, err);
    for (size_t k = 0; rc == SB_OK && k < ncp; k++) {
        if (!(fabs(cp[k].shift) >= o->min_effect))
            continue;
        sb_rg_changepoint *nv = realloc(out->cp, (out->ncp + 1) * sizeof *nv);
        if (!nv) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        out->cp = nv;
        size_t lo = k ? cp[k - 1].index : 0, hi = k + 1 < ncp ? cp[k + 1].index : m;
        out->cp[out->ncp++] = (sb_rg_changepoint){run[cp[k].index - 1], run[cp[k].index],
                                                  cp[k].index - lo, hi - cp[k].index,
                                                  cp[k].before, cp[k].after, cp[k].shift, cp[k].p};
    }
    free(cp);
    free(x);
    free(run);
    return rc;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The rows of series s of a group (refs[0..n)); newest: the group's
 * newest commit rank. */
static int series_rows(walk *w, const run_ref *refs, size_t n, size_t s, long newest,
                       sb_error *err)
{
    long *rk = malloc((n ? n : 1) * sizeof *rk);
    if (!rk)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t nr = 0;
    for (size_t k = 0; k < n; k++)
        if (refs[k].series == s)
            rk[nr++] = refs[k].rank;
    qsort(rk, nr, sizeof *rk, cmp_long);
    size_t m = 0;
    for (size_t k = 0; k < nr; k++)
        if (!m || rk[m - 1] != rk[k])
            rk[m++] = rk[k];
    nr = m;
    const sb_result *first = refs[0].r;
    int own = sb_rg_own_provider(first->provider);
    size_t before = w->out->n;
    int rc = SB_OK;
    /* the step into the series from the newest commit before it with a
     * passing run of another series */
    long prev = -1;
    for (size_t k = 0; k < n; k++)
        if (refs[k].series != s && refs[k].r->passing && refs[k].rank < rk[0] &&
            refs[k].rank > prev)
            prev = refs[k].rank;
    if (prev >= 0) {
        const run_ref *nw = pick(refs, n, s, 0, rk[0], 1, NULL);
        int passing = nw != NULL;
        if (!nw)
            nw = pick(refs, n, s, 0, rk[0], 0, NULL);
        const run_ref *old = pick(refs, n, s, 1, prev, 1, nw->uuid);
        sb_rg_cause cause = same_protocol(old->r, nw->r) ? SB_RG_ENVIRONMENT : SB_RG_PROTOCOL;
        rc = step_row(w, old, nw, passing, cause, rk[0] == newest, err);
    }
    for (size_t k = 1; rc == SB_OK && k < nr; k++) {
        const run_ref *nw = pick(refs, n, s, 0, rk[k], 1, NULL);
        int passing = nw != NULL;
        if (!nw)
            nw = pick(refs, n, s, 0, rk[k], 0, NULL);
        const run_ref *old = NULL;
        for (size_t b = k; b-- > 0 && !old;)
            old = pick(refs, n, s, 0, rk[b], 1, nw->uuid);
        if (!old)
            continue; /* nothing passed before: not a step of the history */
        rc = step_row(w, old, nw, passing, own ? SB_RG_CODE : SB_RG_DRIFT, rk[k] == newest, err);
    }
    if (rc == SB_OK && w->out->n == before) {
        sb_rg_row row;
        row_init(&row);
        const run_ref *nw = pick(refs, n, s, 0, rk[nr - 1], 1, NULL);
        row.new_run = (nw ? nw : pick(refs, n, s, 0, rk[nr - 1], 0, NULL))->r;
        row.verdict = SB_RG_SINGLE_COMMIT;
        row.cause = own ? SB_RG_CODE : SB_RG_DRIFT;
        row.latest = rk[nr - 1] == newest;
        if (push(w->out, &w->cap, &row) != 0)
            rc = sb_error_set(err, NULL, NULL, "out of memory");
    }
    if (rc == SB_OK && w->o->change_points)
        rc = series_changepoints(refs, n, s, rk, nr, w->o, w->out, err);
    free(rk);
    return rc;
}

static int cmp_ref_rank(const void *a, const void *b)
{
    long x = ((const run_ref *)a)->rank, y = ((const run_ref *)b)->rank;
    return (x > y) - (x < y);
}

/* Rows of one (case, provider, SKU), its runs runs[0..nruns) in the
 * order of a result set. */
static int group_rows_of(walk *w, const sb_result *const *runs, size_t nruns, const sb_rg_order *ord,
                         sb_error *err)
{
    run_ref *refs = malloc((nruns ? nruns : 1) * sizeof *refs);
    const sb_result **reps = malloc((nruns ? nruns : 1) * sizeof *reps);
    if (!refs || !reps) {
        free(refs);
        free(reps);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    /* git order where the commits table knows every commit of the group */
    int git = 1, any = 0;
    size_t n = 0, nseries = 0;
    for (size_t k = 0; k < nruns; k++) {
        const sb_result *r = runs[k];
        const commit_pos *c = order_find(ord, r->git_sha);
        if (!c || strcmp(r->suite, SB_RG_CONFIRM_SUITE) == 0)
            continue;
        any = 1;
        git &= c->git >= 0;
        size_t s = 0;
        while (s < nseries && !(same_protocol(reps[s], r) && same_environment(reps[s], r)))
            s++;
        if (s == nseries)
            reps[nseries++] = r;
        refs[n++] = (run_ref){r, (long)c->rank, c->git, s, sb_run_device(w->dev, r->run_id)};
    }
    if (w->git_order >= 0)
        git = w->git_order;
    if (any)
        (git ? &w->out->series_git : &w->out->series_measured)[0] += nseries;
    long newest = -1;
    for (size_t k = 0; k < n; k++) {
        if (git)
            refs[k].rank = (long)refs[k].git;
        if (refs[k].rank > newest)
            newest = refs[k].rank;
    }
    /* what pick finds does not depend on the order of refs */
    qsort(refs, n, sizeof *refs, cmp_ref_rank);
    int rc = SB_OK;
    for (size_t s = 0; s < nseries && rc == SB_OK; s++)
        rc = series_rows(w, refs, n, s, newest, err);
    free(refs);
    free(reps);
    return rc;
}

/* Rows of one (case, provider, SKU), runs i..j of set. */
static int group_rows(walk *w, const sb_result_set *set, const sb_rg_order *ord, size_t i,
                      size_t j, sb_error *err)
{
    const sb_result **runs = malloc((j - i + 1) * sizeof *runs);
    if (!runs)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t k = i; k <= j; k++)
        runs[k - i] = &set->v[k];
    int rc = group_rows_of(w, runs, j - i + 1, ord, err);
    free(runs);
    return rc;
}

typedef struct step_member {
    long long old_commit, new_commit;
    size_t row;
} step_member;

static int cmp_step(const void *a, const void *b)
{
    const step_member *x = a, *y = b;
    int c = (x->old_commit > y->old_commit) - (x->old_commit < y->old_commit);
    if (!c)
        c = (x->new_commit > y->new_commit) - (x->new_commit < y->new_commit);
    if (!c)
        c = (x->row > y->row) - (x->row < y->row);
    return c;
}

/* What the passes over every step (drift_noise, adjust_steps) read of a
 * row besides its figures, as numbers, so that they run alike over the
 * rows of a walk and over stored steps whose runs are not loaded: the
 * row's runs, its commits (equal numbers, the same commit; 0 for no old
 * run) and the noise class of a drift step (0 for other steps). */
typedef struct step_key {
    long long old_id, new_id; /* run ids; old_id -1 without an old run */
    long long old_commit, new_commit;
    long long drift_class;
    long long noise; /* stored steps: the cross-card threshold the walk noted (0: none) */
} step_key;

/* What the passes read and change of a step: its figures alone, so that
 * they run over every stored step without holding each as a whole row. */
typedef struct step_fig {
    double p, p_adjusted, rel_change, threshold;
    unsigned char verdict, cause, threshold_from;
} step_fig;

static step_fig fig_of(const sb_rg_row *r)
{
    return (step_fig){r->p, r->p_adjusted, r->rel_change, r->threshold, (unsigned char)r->verdict,
                      (unsigned char)r->cause, (unsigned char)r->threshold_from};
}

/* What the passes change of a row. */
static void fig_apply(const step_fig *f, sb_rg_row *r)
{
    r->p_adjusted = f->p_adjusted;
    r->verdict = (sb_rg_verdict)f->verdict;
    r->threshold = f->threshold;
    r->threshold_from = (sb_rg_threshold_from)f->threshold_from;
}

static int tested_key(const step_fig *r, const step_key *k)
{
    return sb_rg_family_member(r->verdict, k->old_commit, r->p) && !isnan(r->rel_change);
}

/* The noise class of a drift step: one provider, SKU, op and mode, one
 * relation of cards and one way of timing (tool, timer, held launch). */
static int cmp_drift_class(const sb_rg_row *a, const sb_rg_row *b)
{
    const sb_result *x = a->new_run, *y = b->new_run;
    int c = text_cmp(x->provider, y->provider);
    if (!c)
        c = text_cmp(x->sku, y->sku);
    if (!c)
        c = text_cmp(x->op, y->op);
    if (!c)
        c = text_cmp(x->mode, y->mode);
    if (!c)
        c = (a->same_card > b->same_card) - (a->same_card < b->same_card);
    if (!c)
        c = text_cmp(x->tool_name ? x->tool_name : "", y->tool_name ? y->tool_name : "");
    if (!c)
        c = text_cmp(x->timer ? x->timer : "", y->timer ? y->timer : "");
    if (!c)
        c = (x->launch_hold > y->launch_hold) - (x->launch_hold < y->launch_hold);
    return c;
}

typedef struct drift_ref {
    const sb_rg_row *r;
    size_t i; /* index in the list */
} drift_ref;

static int cmp_drift_row(const void *x, const void *y)
{
    const drift_ref *a = x, *b = y;
    int c = cmp_drift_class(a->r, b->r);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The keys of the rows of a walk: commits numbered by their place in
 * ord, the drift steps' noise classes numbered from 1 in the order of
 * cmp_drift_class. */
static int walk_keys(const sb_rg_list *l, const sb_rg_order *ord, step_key **out, sb_error *err);

/* The steps of a provider the project does not change, under one
 * environment, are A/A comparisons of their way of timing: the commits
 * measured do not touch that code. Each tested drift step is judged
 * against the others of its noise class (held out: never against
 * itself): where there are at least SB_RG_DRIFT_MIN_CLASS others, its
 * threshold is at least 1.5 times the largest |change| among them. The
 * largest, not the 95th percentile that A/A sessions take: history steps
 * span days, cards and warm-ups that no session controls, and their
 * tail is heavier (on the main job's history the percentile flags 2.3%
 * of third-party steps, the largest 1.1%; drift_real.py holds 2%). */
typedef struct drift_fig {
    double change; /* |rel_change| */
    long long cls; /* step_key.drift_class */
    size_t i;      /* index in the steps */
} drift_fig;

static int cmp_drift_fig(const void *x, const void *y)
{
    const drift_fig *a = x, *b = y;
    int c = (a->cls > b->cls) - (a->cls < b->cls);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int drift_noise(step_fig *f, size_t nf, const step_key *keys, const sb_rg_opts *o, sb_error *err)
{
    drift_fig *v = malloc((nf ? nf : 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < nf; i++)
        if (f[i].cause == SB_RG_DRIFT && tested_key(&f[i], &keys[i]))
            v[n++] = (drift_fig){fabs(f[i].rel_change), keys[i].drift_class, i};
    qsort(v, n, sizeof *v, cmp_drift_fig);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && v[a].cls == v[b].cls)
            b++;
        /* the two largest changes of the class: the largest of the others
         * is the first, except for the step that is the first */
        size_t top = a, second = b;
        for (size_t k = a + 1; k < b; k++)
            if (v[k].change > v[top].change)
                top = k;
        for (size_t k = a; k < b; k++)
            if (k != top && (second == b || v[k].change > v[second].change))
                second = k;
        if (b - a > SB_RG_DRIFT_MIN_CLASS) {
            for (size_t k = a; k < b; k++) {
                step_fig *r = &f[v[k].i];
                double most = v[k == top ? second : top].change;
                double t = sb_aa_threshold(most, o->min_effect);
                if (t > r->threshold) { /* adjust_steps judges the step again */
                    r->threshold = t;
                    r->threshold_from = SB_RG_FROM_HISTORY_AA;
                }
            }
        }
        a = b;
    }
    free(v);
    return SB_OK;
}

/* Benjamini-Hochberg over the tested cases of each commit step (the same
 * old and new commit), and the verdicts again on the adjusted p. */
static int adjust_steps(step_fig *f, size_t nf, const step_key *keys, const sb_rg_opts *o, sb_error *err)
{
    step_member *m = malloc((nf ? nf : 1) * sizeof *m);
    double *p = malloc((nf ? nf : 1) * sizeof *p);
    double *adj = malloc((nf ? nf : 1) * sizeof *adj);
    int rc = SB_OK;
    if (!m || !p || !adj) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    size_t nm = 0;
    for (size_t i = 0; i < nf; i++) {
        const step_fig *r = &f[i];
        if (sb_rg_family_member(r->verdict, keys[i].old_commit, r->p))
            m[nm++] = (step_member){keys[i].old_commit, keys[i].new_commit, i};
    }
    qsort(m, nm, sizeof *m, cmp_step);
    for (size_t a = 0; a < nm;) {
        size_t b = a;
        while (b < nm && m[b].old_commit == m[a].old_commit && m[b].new_commit == m[a].new_commit)
            b++;
        for (size_t k = a; k < b; k++)
            p[k - a] = f[m[k].row].p;
        if (sb_benjamini_hochberg(p, b - a, o->alpha, adj, NULL) != 0) {
            rc = sb_error_set(err, NULL, NULL, "Benjamini-Hochberg: a p-value out of range");
            goto done;
        }
        for (size_t k = a; k < b; k++) {
            step_fig *r = &f[m[k].row];
            r->p_adjusted = adj[k - a];
            r->verdict = (unsigned char)sb_rg_judge(r->p_adjusted, r->rel_change, o->alpha, r->threshold);
        }
        a = b;
    }
done:
    free(m);
    free(p);
    free(adj);
    return rc;
}

/* Confirms or refutes each regression of the project's code with the
 * newest pair of SB_RG_CONFIRM_SUITE runs of set of its case, provider
 * and SKU at its two commits on one card; the pairs whose figures take
 * their samples wait in w's pending list. */
static int confirm_rows(walk *w, const sb_result_set *set, sb_error *err)
{
    const sb_result **cf = malloc((set->n ? set->n : 1) * sizeof *cf);
    if (!cf)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t ncf = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].passing && strcmp(set->v[i].suite, SB_RG_CONFIRM_SUITE) == 0)
            cf[ncf++] = &set->v[i];
    int rc = SB_OK;
    for (size_t i = 0; i < w->out->n && ncf && rc == SB_OK; i++) {
        sb_rg_row *r = &w->out->v[i];
        if (r->verdict != SB_RG_REGRESSION || r->cause != SB_RG_CODE)
            continue;
        const sb_result *bo = NULL, *bn = NULL;
        for (size_t a = 0; a < ncf; a++) {
            const sb_result *x = cf[a];
            if (strcmp(x->git_sha, r->new_run->git_sha) || strcmp(x->case_key, r->new_run->case_key) ||
                strcmp(x->provider, r->new_run->provider) || strcmp(x->sku, r->new_run->sku))
                continue;
            const char *ux = sb_run_device(w->dev, x->run_id);
            for (size_t b = 0; ux && b < ncf; b++) {
                const sb_result *y = cf[b];
                const char *uy = sb_run_device(w->dev, y->run_id);
                if (!uy || strcmp(ux, uy) || strcmp(y->git_sha, r->old_run->git_sha) ||
                    strcmp(y->case_key, x->case_key) || strcmp(y->provider, x->provider) ||
                    strcmp(y->sku, x->sku) || !same_protocol(x, y))
                    continue;
                if (!bn || newer(x, bn) || (x == bn && newer(y, bo))) {
                    bn = x;
                    bo = y;
                }
            }
        }
        if (!bn)
            continue;
        sb_rg_row pair;
        row_init(&pair);
        if (compare_start(bo, bn, w->o, w->o->min_effect, &pair))
            rc = pend(w, i, bo, bn, err);
        else
            confirm_apply(r, bo, bn, &pair);
    }
    free(cf);
    return rc;
}

/* What the paired runs bo and bn (their step pair) say of regression r. */
static void confirm_apply(sb_rg_row *r, const sb_result *bo, const sb_result *bn, const sb_rg_row *pair)
{
    r->confirm_old_run = bo->run_id;
    r->confirm_new_run = bn->run_id;
    r->confirm_change = pair->rel_change;
    if (pair->verdict == SB_RG_REGRESSION)
        r->confirm = SB_RG_CONFIRMED;
    else if (pair->verdict == SB_RG_NO_CHANGE || pair->verdict == SB_RG_IMPROVEMENT)
        r->confirm = SB_RG_REFUTED;
}

static int walk_keys(const sb_rg_list *l, const sb_rg_order *ord, step_key **out, sb_error *err)
{
    step_key *k = malloc((l->n ? l->n : 1) * sizeof *k);
    drift_ref *d = malloc((l->n ? l->n : 1) * sizeof *d);
    if (!k || !d) {
        free(k);
        free(d);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    const commit_pos *base = ord->v;
    size_t nd = 0;
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        const commit_pos *cn = order_find(ord, r->new_run->git_sha);
        const commit_pos *co = r->old_run ? order_find(ord, r->old_run->git_sha) : NULL;
        k[i] = (step_key){r->old_run ? r->old_run->run_id : -1, r->new_run->run_id,
                          co ? (long long)(co - base) + 1 : 0, cn ? (long long)(cn - base) + 1 : 0, 0, 0};
        if (r->old_run && !co)
            k[i].old_commit = -1; /* never: rows compare runs of known commits */
        if (r->cause == SB_RG_DRIFT)
            d[nd++] = (drift_ref){r, i};
    }
    /* the drift rows alone go into the sort, which takes a buffer as
     * large as what it sorts */
    drift_ref *dn = realloc(d, (nd ? nd : 1) * sizeof *dn);
    d = dn ? dn : d;
    qsort(d, nd, sizeof *d, cmp_drift_row);
    long long cls = 0;
    for (size_t a = 0; a < nd; a++) {
        if (!a || cmp_drift_class(d[a - 1].r, d[a].r) != 0)
            cls++;
        k[d[a].i].drift_class = cls;
    }
    free(d);
    *out = k;
    return SB_OK;
}

/* drift_noise and adjust_steps over the rows of l. */
static int settle_rows(sb_rg_list *l, const step_key *keys, const sb_rg_opts *o, sb_error *err)
{
    step_fig *f = malloc((l->n ? l->n : 1) * sizeof *f);
    if (!f)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < l->n; i++)
        f[i] = fig_of(&l->v[i]);
    int rc = drift_noise(f, l->n, keys, o, err);
    if (rc == SB_OK)
        rc = adjust_steps(f, l->n, keys, o, err);
    for (size_t i = 0; rc == SB_OK && i < l->n; i++)
        fig_apply(&f[i], &l->v[i]);
    free(f);
    return rc;
}

/* A walk over the history of a set (sb_rg_walk_open), or over the
 * confirmations of a list of steps (sb_rg_confirm_open), in the phases
 * sb_rg_walk_next goes through. */
typedef enum walk_phase {
    PHASE_GROUPS,  /* walking groups; next_group: the first of the next */
    PHASE_CONFIRM, /* the steps are settled; the confirmations are next */
    PHASE_DONE,
} walk_phase;

struct sb_rg_walk {
    walk w;
    walk_phase phase;
    int waiting;                /* w's pending figures wait for the samples of w.ids */
    const sb_result_set *set;   /* the runs walked; for a confirmation walk, the paired runs */
    sb_rg_order ord;
    size_t next_group;
    const sb_commit_ordinals *git;
};

/* The order of w's set, with the git ordinals of its commits. */
static int walk_order(sb_rg_walk *w, sb_error *err)
{
    if (sb_rg_order_build(w->set, &w->ord, err) != SB_OK)
        return SB_ERR;
    order_take_git(&w->ord, w->git);
    return SB_OK;
}

int sb_rg_walk_open(const sb_result_set *set, const sb_rg_inputs *in, const sb_rg_opts *o, const sb_rg_aa *aa,
                    sb_rg_list *out, sb_rg_walk **wp, sb_error *err)
{
    memset(out, 0, sizeof *out);
    *wp = NULL;
    sb_rg_walk *w = calloc(1, sizeof *w);
    if (!w)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_rg_memo *m = memo_of(o);
    if (m && !m->loaded) { /* the first walk given the memo sets its rule */
        m->alpha = o->alpha;
        m->min_effect = o->min_effect;
        m->loaded = 1;
    }
    walk_init(&w->w, o, in->dev, aa, out);
    w->set = set;
    w->git = in->git;
    w->phase = PHASE_GROUPS;
    out->searched_cp = o->change_points != 0;
    if (walk_order(w, err) != SB_OK) {
        sb_rg_walk_free(w);
        return SB_ERR;
    }
    *wp = w;
    return SB_OK;
}

int sb_rg_confirm_open(sb_rg_list *l, const sb_result_set *paired, const sb_run_devices *dev, const sb_rg_opts *o,
                       sb_rg_walk **wp, sb_error *err)
{
    *wp = NULL;
    sb_rg_walk *w = calloc(1, sizeof *w);
    if (!w)
        return sb_error_set(err, NULL, NULL, "out of memory");
    walk_init(&w->w, o, dev, NULL, l);
    w->set = paired;
    w->phase = PHASE_CONFIRM;
    *wp = w;
    return SB_OK;
}

/* The steps of w's next groups, until their pending steps name
 * SB_RG_SAMPLES_BATCH runs or the groups end. */
static int walk_groups(sb_rg_walk *w, sb_error *err)
{
    const sb_result_set *set = w->set;
    int rc = SB_OK;
    while (rc == SB_OK && w->next_group < set->n && 2 * w->w.npend < SB_RG_SAMPLES_BATCH) {
        size_t i = w->next_group, j = group_end(set, i);
        rc = group_rows(&w->w, set, &w->ord, i, j, err);
        w->next_group = j + 1;
    }
    return rc;
}

/* The drift noise and the Benjamini-Hochberg families over every step of w. */
static int walk_settle(sb_rg_walk *w, sb_error *err)
{
    step_key *keys = NULL;
    int rc = walk_keys(w->w.out, &w->ord, &keys, err);
    if (rc == SB_OK)
        rc = settle_rows(w->w.out, keys, w->w.o, err);
    free(keys);
    return rc;
}

int sb_rg_walk_next(sb_rg_walk *w, const sb_run_samples *samples, const long long **ids, size_t *n,
                    sb_error *err)
{
    *ids = NULL;
    *n = 0;
    if (w->waiting) {
        w->waiting = 0;
        if (pending_figures(&w->w, samples, err) != SB_OK)
            return SB_ERR;
    }
    while (w->phase != PHASE_DONE) {
        int rc = SB_OK;
        if (w->phase == PHASE_GROUPS) {
            rc = walk_groups(w, err);
            if (rc == SB_OK && !w->w.npend && w->next_group >= w->set->n) {
                rc = walk_settle(w, err);
                w->phase = PHASE_CONFIRM;
            }
        } else {
            rc = confirm_rows(&w->w, w->set, err);
            w->phase = PHASE_DONE;
        }
        if (rc != SB_OK)
            return SB_ERR;
        if (w->w.npend) {
            if (pending_ids(&w->w, err) != SB_OK)
                return SB_ERR;
            w->waiting = 1;
            *ids = w->w.ids;
            *n = w->w.nids;
            return SB_OK;
        }
    }
    return SB_OK;
}

void sb_rg_walk_free(sb_rg_walk *w)
{
    if (!w)
        return;
    walk_release(&w->w);
    sb_rg_order_free(&w->ord);
    free(w);
}

/* ---- the stored history (db/rg_steps.h) ---- */

/* The SHA-256 of the settings and constants the stored steps depend on.
 * A change to the walk's rule raises SB_RG_RULE_VERSION. */
static int rule_sha(const sb_rg_opts *o, char hex[65], sb_error *err)
{
    sb_buf b = SB_BUF_INIT;
    sb_buf_printf(&b, "regression steps %d\nalpha %a\nmin_effect %a\ncross-card default %a\n"
                      "A/A comparisons %d\ndrift class %d\n",
                  SB_RG_RULE_VERSION, o->alpha, o->min_effect, SB_RG_CROSS_CARD_DEFAULT,
                  SB_RG_AA_MIN_COMPARISONS, SB_RG_DRIFT_MIN_CLASS);
    int rc = sb_buf_failed(&b) ? sb_error_set(err, NULL, NULL, "out of memory")
                               : sb_sha256_hex(sb_buf_str(&b), b.len, hex, err);
    sb_buf_free(&b);
    return rc;
}

/* *fresh 1: the stored steps (then; found 0: none) were computed from
 * the database as it is now (now, whose rule_sha256 is set to o's rule
 * here) with o's rule. */
static int basis_holds(const sb_rg_opts *o, const sb_rg_state *then, int found, sb_rg_state *now, int *fresh,
                       sb_error *err)
{
    *fresh = 0;
    if (rule_sha(o, now->rule_sha256, err) != SB_OK)
        return SB_ERR;
    *fresh = found && strcmp(then->rule_sha256, now->rule_sha256) == 0 && then->runs == now->runs &&
             then->last_run == now->last_run && then->changes == now->changes && then->schema == now->schema;
    return SB_OK;
}

int sb_rg_fresh(const sb_rg_stored *stored, const sb_rg_opts *o, int *fresh, sb_error *err)
{
    sb_rg_state now = stored->now;
    return basis_holds(o, &stored->then, stored->found, &now, fresh, err);
}

/* The noise class of a drift step as one text: each field with its
 * length before it, so that no text can stand for another. */
static void class_text(const sb_rg_row *r, sb_buf *out)
{
    const sb_result *x = r->new_run;
    const char *f[] = {x->provider, x->sku, x->op, x->mode, x->tool_name ? x->tool_name : "",
                       x->timer ? x->timer : ""};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        sb_buf_printf(out, "%zu:%s;", strlen(f[i]), f[i]);
    sb_buf_printf(out, "%d;%d", r->same_card, x->launch_hold);
}

/* What storing the walk's rows builds besides the walk: the record of
 * the writes (its commits, the order's, and the classes and thresholds
 * met so far), and where each threshold of the list went in it. */
typedef struct store_ctx {
    const sb_rg_order *ord;
    sb_rg_writes *w;
    size_t class_cap, group_cap, step_cap, wnoise_cap;
    long long *noise_id;   /* by index in the list's noise table: 1 + its index in w->noise, 0 not yet */
    size_t noise_cap;
} store_ctx;

static void store_ctx_free(store_ctx *c)
{
    free(c->noise_id);
}

static int grow(void **v, size_t *cap, size_t need, size_t size, sb_error *err)
{
    if (need <= *cap)
        return SB_OK;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    *v = nv;
    *cap = nc;
    return SB_OK;
}

static int class_id(store_ctx *c, const char *key, long long *id, sb_error *err)
{
    sb_rg_writes *w = c->w;
    for (size_t i = 0; i < w->nclasses; i++)
        if (strcmp(w->classes[i], key) == 0) {
            *id = (long long)i + 1;
            return SB_OK;
        }
    if (grow((void **)&w->classes, &c->class_cap, w->nclasses + 1, sizeof *w->classes, err) != SB_OK)
        return SB_ERR;
    if (!(w->classes[w->nclasses] = strdup(key)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    *id = (long long)++w->nclasses;
    return SB_OK;
}

/* The cross-card threshold row r took (0: none), as 1 + its index in
 * the writes' thresholds. */
static int noise_id(store_ctx *c, const sb_rg_list *l, const sb_rg_row *r, long long *id, sb_error *err)
{
    *id = 0;
    if (r->threshold_from != SB_RG_FROM_SKU_AA)
        return SB_OK;
    int let_go = step_let_go(r->old_run, r->new_run);
    size_t k = 0;
    while (k < l->nnoise && !(strcmp(l->noise[k].sku, r->new_run->sku) == 0 && l->noise[k].let_go == let_go))
        k++;
    if (k == l->nnoise)
        return sb_error_set(err, NULL, NULL, "a cross-card step without its threshold");
    if (l->nnoise > c->noise_cap) {
        long long *nv = realloc(c->noise_id, l->nnoise * sizeof *nv);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        memset(nv + c->noise_cap, 0, (l->nnoise - c->noise_cap) * sizeof *nv);
        c->noise_id = nv;
        c->noise_cap = l->nnoise;
    }
    if (!c->noise_id[k]) {
        sb_rg_writes *w = c->w;
        if (grow((void **)&w->noise, &c->wnoise_cap, w->nnoise + 1, sizeof *w->noise, err) != SB_OK)
            return SB_ERR;
        sb_rg_noise_rec e = {0, {0}, let_go, l->noise[k].threshold, (long long)l->noise[k].comparisons};
        snprintf(e.sku, sizeof e.sku, "%s", l->noise[k].sku);
        w->noise[w->nnoise++] = e;
        c->noise_id[k] = (long long)w->nnoise;
    }
    *id = c->noise_id[k];
    return SB_OK;
}

static long long commit_id(const store_ctx *c, const char *sha)
{
    const commit_pos *p = order_find(c->ord, sha);
    return p ? (long long)(p - (const commit_pos *)c->ord->v) + 1 : 0;
}

/* The records of the rows l->v[from..] added to the writes' steps. */
static int step_recs(store_ctx *c, const sb_rg_list *l, size_t from, size_t to, sb_error *err)
{
    sb_rg_writes *w = c->w;
    size_t n = to - from;
    if (grow((void **)&w->steps, &c->step_cap, w->nsteps + n, sizeof *w->steps, err) != SB_OK)
        return SB_ERR;
    sb_buf key = SB_BUF_INIT;
    int rc = SB_OK;
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        const sb_rg_row *r = &l->v[from + i];
        long long cls = 0, nz = 0;
        if (r->cause == SB_RG_DRIFT) {
            sb_buf_reset(&key);
            class_text(r, &key);
            rc = sb_buf_failed(&key) ? sb_error_set(err, NULL, NULL, "out of memory")
                                     : class_id(c, sb_buf_str(&key), &cls, err);
        }
        if (rc == SB_OK)
            rc = noise_id(c, l, r, &nz, err);
        const char *changed = "";
        if (rc == SB_OK && r->changed && *r->changed && !(changed = strdup(r->changed)))
            rc = sb_error_set(err, NULL, NULL, "out of memory");
        if (rc != SB_OK)
            break;
        w->steps[w->nsteps++] = (sb_rg_step_rec){r->old_run ? r->old_run->run_id : -1, r->new_run->run_id,
                                                 r->old_run ? commit_id(c, r->old_run->git_sha) : 0,
                                                 commit_id(c, r->new_run->git_sha), cls, nz, (int)r->verdict,
                                                 (int)r->cause, r->latest, r->same_card, (int)r->threshold_from,
                                                 (long long)r->n_old, (long long)r->n_new, r->range_commits, r->p,
                                                 r->rel_change, r->threshold, changed, 0, 0, NAN};
    }
    sb_buf_free(&key);
    return rc;
}

/* The rows of one (case, provider, SKU) in the walk's batch. */
typedef struct batch_group {
    size_t from, to;      /* its rows l->v[from..to) */
    const sb_result *first;
    long long grp;        /* 0: in place of its stored steps; else the stored group it goes on */
    long long series_git, series_measured;
} batch_group;

/* The rows of g as one group of the writes: in place of its stored steps
 * with its series counts (grp 0), or after the stored steps of group grp. */
static int store_group(store_ctx *c, const sb_rg_list *l, const batch_group *g0, sb_error *err)
{
    sb_rg_writes *w = c->w;
    size_t at = w->nsteps;
    const sb_result *first = g0->first;
    if (step_recs(c, l, g0->from, g0->to, err) != SB_OK ||
        grow((void **)&w->groups, &c->group_cap, w->ngroups + 1, sizeof *w->groups, err) != SB_OK)
        return SB_ERR;
    sb_rg_write_group *g = &w->groups[w->ngroups];
    *g = (sb_rg_write_group){NULL,        NULL, NULL, g0->grp, g0->series_git, g0->series_measured,
                             at,          w->nsteps - at};
    if (!(g->case_key = strdup(first->case_key)) || !(g->provider = strdup(first->provider)) ||
        !(g->sku = strdup(first->sku))) {
        free(g->case_key);
        free(g->provider);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    w->ngroups++;
    return SB_OK;
}

/* The commit order of an update: the stored commits cs[0..ncs) with the
 * times of the runs of set (new runs; with ncs 0, every run); *changed 1
 * when a stored commit's earliest time moves (every series is walked
 * again then). The order points into cs and set; its git ordinals come
 * after (order_take_git). */
static int update_order(const sb_rg_commit_rec *cs, size_t ncs, const sb_result_set *set, sb_rg_order *ord,
                        int *changed, sb_error *err)
{
    memset(ord, 0, sizeof *ord);
    *changed = 0;
    commit_pos *v = malloc((ncs + set->n + 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < ncs; i++)
        v[n++] = (commit_pos){cs[i].sha, cs[i].first_epoch, 0, -1};
    for (size_t i = 0; i < set->n; i++)
        if (has_commit(&set->v[i]))
            v[n++] = (commit_pos){set->v[i].git_sha, set->v[i].finished_epoch, 0, -1};
    if (order_finish(v, n, ord, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < ncs && !*changed; i++) {
        const commit_pos *p = order_find(ord, cs[i].sha);
        *changed = !p || p->first != cs[i].first_epoch;
    }
    return SB_OK;
}

static int cmp_group_of(const sb_result *a, const sb_result *b)
{
    int c = strcmp(a->case_key, b->case_key);
    if (!c)
        c = strcmp(a->provider, b->provider);
    return c ? c : strcmp(a->sku, b->sku);
}

/* A group whose new runs all come at commits after every stored one,
 * in the one series of its stored steps: its history is the stored
 * steps, no longer latest, and the steps a walk gives over the runs of
 * the commit its last step starts the next one from (base) and the new
 * runs. */
typedef struct tail_group {
    long long grp;
    int git;                 /* the group's stored order: 1 git, 0 first measured */
    long long base_commit;   /* rg_commits id */
    const char *base_sha;    /* NULL until found */
    const sb_result **runs;  /* the base commit's runs of the group, then the new ones */
    size_t n;
    size_t fresh_at, nfresh; /* its new runs in tail_plan.fresh */
} tail_group;

typedef struct tail_plan {
    tail_group *v;
    size_t n;
    const sb_result **fresh; /* the new runs a walk takes, by group */
    sb_result_set base;      /* the runs of the base commits */
    size_t runs;             /* runs walked */
} tail_plan;

static void tail_plan_free(tail_plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].runs);
    free(p->v);
    free(p->fresh);
    sb_results_free(&p->base);
    memset(p, 0, sizeof *p);
}

/* An update of the stored steps (sb_rg_update_open): what it read, the
 * walk over the series it walks, where the walk is, and the writes of
 * the batch it gave last. */
/* Where an update is: what it asked its caller to read last (UP_WALK:
 * walking, asking only samples). */
typedef enum upd_step {
    UP_FRESH_RUNS, /* the runs stored since the basis */
    UP_FRESH_GIT,  /* the git ordinals of the stored commits and those runs' */
    UP_LAST,       /* the last stored steps of the groups that may go on from them */
    UP_BASE_IDS,   /* the run ids of the commits those steps end at */
    UP_BASE_RUNS,  /* those runs */
    UP_WHOLE_IDS,  /* the run ids of the groups walked whole */
    UP_WHOLE_RUNS, /* those runs */
    UP_ALL_RUNS,   /* every run */
    UP_ALL_GIT,    /* the git ordinals of their commits */
    UP_CARDS,      /* the cards of the runs walked */
    UP_WALK,
    UP_DONE,
} upd_step;

struct sb_rg_update {
    const sb_rg_opts *o;
    const aa_noise *aa;
    upd_step step;
    sb_rg_ask ask;                 /* the read asked last */
    sb_rg_state then, now;
    long long added, sessions;     /* the basis' runs_after figures */
    int full;
    sb_result_set set, fresh_runs; /* the groups walked whole; the runs stored since */
    sb_rg_commit_rec *cs;          /* the stored commits */
    size_t ncs;
    sb_rg_group_rec *groups;       /* the stored groups, sorted by (case, provider, SKU) */
    size_t ngroups;
    sb_rg_order ord;
    tail_plan plan;
    const sb_result **whole;       /* a run of each group walked whole */
    size_t nwhole;
    const sb_rg_group_rec **cand;  /* the groups that may go on from their last step, */
    long long *cand_grp;           /* their ids, */
    size_t *cand_at;               /* and where their new runs start in plan.fresh */
    size_t ncand, nfresh;
    const char **shas;             /* the commits of an ask */
    long long *ids;                /* the run ids of an ask */
    size_t nids;
    sb_run_devices dev;
    sb_rg_list out; /* one batch's rows at a time: only the thresholds stay */
    walk w;
    store_ctx c;
    sb_rg_writes wr;
    batch_group *bg;       /* the groups of the batch in out */
    size_t nbg, bgcap;
    int opened;            /* 1: the walk is set up (walk_open) */
    int waiting;           /* the batch's figures wait for the samples of w.ids */
    size_t next_set, next_tail; /* the next group of set (its first run), the next tail */
};

/* Sets up the walk over u's whole groups and tails (their cards in
 * u->dev): the commits of the order, which the writes hold from the
 * first batch on. */
static int walk_open(sb_rg_update *u, sb_error *err)
{
    walk_init(&u->w, u->o, &u->dev, u->aa, &u->out);
    memset(&u->c, 0, sizeof u->c);
    u->c.ord = &u->ord;
    u->c.w = &u->wr;
    u->opened = 1;
    sb_rg_writes *wr = &u->wr;
    if (!(wr->commits = calloc(u->ord.n ? u->ord.n : 1, sizeof *wr->commits)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < u->ord.n; i++) {
        const commit_pos *p = &((const commit_pos *)u->ord.v)[i];
        if (!(wr->commits[i].sha = strdup(p->sha)))
            return sb_error_set(err, NULL, NULL, "out of memory");
        wr->commits[i].first_epoch = p->first;
        wr->ncommits = i + 1;
    }
    return SB_OK;
}

/* Empties the writes' groups and steps (the batch given last), keeping
 * the names. */
static void writes_reset(sb_rg_writes *w)
{
    for (size_t i = 0; i < w->ngroups; i++) {
        free(w->groups[i].case_key);
        free(w->groups[i].provider);
        free(w->groups[i].sku);
    }
    for (size_t i = 0; i < w->nsteps; i++)
        if (*w->steps[i].changed)
            free((char *)w->steps[i].changed);
    w->ngroups = 0;
    w->nsteps = 0;
}

/* Notes the rows of u's walk from from on as one group of the batch. */
static int batch_add(sb_rg_update *u, size_t from, const sb_result *first, long long grp, long long series_git,
                     long long series_measured, sb_error *err)
{
    if (grow((void **)&u->bg, &u->bgcap, u->nbg + 1, sizeof *u->bg, err) != SB_OK)
        return SB_ERR;
    u->bg[u->nbg++] = (batch_group){from, u->out.n, first, grp, series_git, series_measured};
    return SB_OK;
}

/* The next groups of u's walk into its rows: at least one, then more
 * until most_steps steps, SB_RG_SAMPLES_BATCH runs whose samples the
 * steps wait for, or the end. */
static int walk_next(sb_rg_update *u, size_t most_steps, sb_error *err)
{
    writes_reset(&u->wr);
    u->nbg = 0;
    u->out.n = 0;
    sb_text_pool_free(u->out.text);
    u->out.text = NULL;
    int rc = SB_OK;
    const sb_result_set *set = &u->set;
#define BATCH_OPEN (!u->nbg || (u->out.n < most_steps && 2 * u->w.npend < SB_RG_SAMPLES_BATCH))
    while (rc == SB_OK && u->next_set < set->n && BATCH_OPEN) {
        size_t i = u->next_set, j = group_end(set, i), from = u->out.n;
        size_t git = u->out.series_git, measured = u->out.series_measured;
        rc = group_rows(&u->w, set, &u->ord, i, j, err);
        if (rc == SB_OK)
            rc = batch_add(u, from, &set->v[i], 0, (long long)(u->out.series_git - git),
                           (long long)(u->out.series_measured - measured), err);
        u->next_set = j + 1;
    }
    while (rc == SB_OK && u->next_tail < u->plan.n && BATCH_OPEN) {
        const tail_group *t = &u->plan.v[u->next_tail++];
        size_t from = u->out.n;
        u->w.git_order = t->git;
        rc = group_rows_of(&u->w, t->runs, t->n, &u->ord, err);
        if (rc == SB_OK)
            rc = batch_add(u, from, t->runs[0], t->grp, 0, 0, err);
    }
#undef BATCH_OPEN
    return rc;
}

/* The groups of the walked batch into u's writes. */
static int store_batch(sb_rg_update *u, sb_error *err)
{
    for (size_t i = 0; i < u->nbg; i++)
        if (store_group(&u->c, &u->out, &u->bg[i], err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

static int cmp_group_rec(const void *x, const void *y);

static int cmp_run_group(const void *x, const void *y)
{
    const sb_result *a = *(const sb_result *const *)x, *b = *(const sb_result *const *)y;
    int c = cmp_group_of(a, b);
    return c ? c : (a > b) - (a < b); /* the order of their set within a group */
}

static int cmp_commit_id(const void *x, const void *y)
{
    long long a = (*(const sb_rg_commit_rec *const *)x)->id, b = (*(const sb_rg_commit_rec *const *)y)->id;
    return (a > b) - (a < b);
}

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Whether t's base runs (base[0..n), in its group) are one series with
 * its new runs, with a passing run to start the first new step from. */
static int tail_holds(const tail_plan *p, const tail_group *t, const sb_result *const *base, size_t n)
{
    const sb_result *rep = p->fresh[t->fresh_at];
    int passing = 0;
    for (size_t k = 0; k < n; k++) {
        if (strcmp(base[k]->suite, SB_RG_CONFIRM_SUITE) == 0)
            continue;
        if (!sb_rg_same_series(base[k], rep))
            return 0;
        passing |= base[k]->passing;
    }
    for (size_t k = 1; k < t->nfresh; k++)
        if (!sb_rg_same_series(p->fresh[t->fresh_at + k], rep))
            return 0;
    return passing;
}

/* ---- the update's steps: each takes the answer to what it asked ---- */

/* Asks kind of u's caller, to be taken by step next. */
static void ask(sb_rg_update *u, upd_step next, sb_rg_ask_kind kind)
{
    u->step = next;
    u->ask = (sb_rg_ask){.kind = kind, .after = -1};
}

/* Asks kind of the runs (or groups) u->ids names. */
static void ask_ids(sb_rg_update *u, upd_step next, sb_rg_ask_kind kind)
{
    ask(u, next, kind);
    u->ask.ids = u->ids;
    u->ask.nids = u->nids;
}

/* The shas of u's order into u->shas, for an ask of their git ordinals. */
static int ask_git(sb_rg_update *u, upd_step next, sb_error *err)
{
    free(u->shas);
    if (!(u->shas = malloc((u->ord.n ? u->ord.n : 1) * sizeof *u->shas)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    const commit_pos *v = u->ord.v;
    for (size_t i = 0; i < u->ord.n; i++)
        u->shas[i] = v[i].sha;
    ask(u, next, SB_RG_ASK_GIT);
    u->ask.shas = u->shas;
    u->ask.nshas = u->ord.n;
    return SB_OK;
}

/* Gives up going on from the stored steps: every run is asked for. */
static void ask_all(sb_rg_update *u)
{
    u->full = 1;
    sb_rg_order_free(&u->ord);
    sb_results_free(&u->set);
    tail_plan_free(&u->plan);
    ask(u, UP_ALL_RUNS, SB_RG_ASK_RUNS);
    u->ask.all = 1;
}

/* The runs of the groups walked whole, by their ids first. */
static void ask_whole(sb_rg_update *u)
{
    ask(u, UP_WHOLE_IDS, SB_RG_ASK_RUN_IDS);
    u->ask.group_of = u->whole;
    u->ask.ngroups = u->nwhole;
}

/* The cards of every run the walk takes. */
static int ask_cards(sb_rg_update *u, sb_error *err)
{
    size_t nid = u->set.n;
    for (size_t i = 0; i < u->plan.n; i++)
        nid += u->plan.v[i].n;
    free(u->ids);
    if (!(u->ids = malloc((nid ? nid : 1) * sizeof *u->ids)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    u->nids = 0;
    for (size_t i = 0; i < u->set.n; i++)
        u->ids[u->nids++] = u->set.v[i].run_id;
    for (size_t i = 0; i < u->plan.n; i++)
        for (size_t k = 0; k < u->plan.v[i].n; k++)
            u->ids[u->nids++] = u->plan.v[i].runs[k]->run_id;
    ask_ids(u, UP_CARDS, SB_RG_ASK_CARDS);
    return SB_OK;
}

/* The runs stored since the basis: their commit order with the stored
 * commits, then (unless a stored commit's first time moved) its git
 * ordinals. */
static int took_fresh_runs(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    u->fresh_runs = a->runs;
    memset(&a->runs, 0, sizeof a->runs);
    int moved = 0;
    if (update_order(u->cs, u->ncs, &u->fresh_runs, &u->ord, &moved, err) != SB_OK)
        return SB_ERR;
    if (moved) {
        ask_all(u);
        return SB_OK;
    }
    return ask_git(u, UP_FRESH_GIT, err);
}

/* With the order's git ordinals: the new runs a walk takes (known
 * commits, not paired confirmations) by group, and of their groups
 * those that may go on from their last stored step (one series stored),
 * whose last steps are asked for. */
static int took_fresh_git(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    order_take_git(&u->ord, &a->git);
    const sb_result_set *fresh = &u->fresh_runs;
    tail_plan *p = &u->plan;
    p->fresh = malloc((fresh->n ? fresh->n : 1) * sizeof *p->fresh);
    p->v = malloc((fresh->n ? fresh->n : 1) * sizeof *p->v);
    u->whole = malloc((fresh->n ? fresh->n : 1) * sizeof *u->whole);
    u->cand = malloc((fresh->n ? fresh->n : 1) * sizeof *u->cand);
    u->cand_grp = malloc((fresh->n ? fresh->n : 1) * sizeof *u->cand_grp);
    u->cand_at = malloc((fresh->n + 1) * sizeof *u->cand_at);
    if (!p->fresh || !p->v || !u->whole || !u->cand || !u->cand_grp || !u->cand_at)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t nf = 0;
    for (size_t i = 0; i < fresh->n; i++)
        if (order_find(&u->ord, fresh->v[i].git_sha) && strcmp(fresh->v[i].suite, SB_RG_CONFIRM_SUITE) != 0)
            p->fresh[nf++] = &fresh->v[i];
    qsort(p->fresh, nf, sizeof *p->fresh, cmp_run_group);
    u->nfresh = nf;
    if (u->ngroups)
        qsort(u->groups, u->ngroups, sizeof *u->groups, cmp_group_rec);
    for (size_t a0 = 0; a0 < nf;) {
        size_t b = a0 + 1;
        while (b < nf && cmp_group_of(p->fresh[a0], p->fresh[b]) == 0)
            b++;
        const sb_result *r = p->fresh[a0];
        sb_rg_group_rec key = {0, (char *)r->case_key, (char *)r->provider, (char *)r->sku, 0, 0, 0};
        const sb_rg_group_rec *gr =
            u->ngroups ? bsearch(&key, u->groups, u->ngroups, sizeof *u->groups, cmp_group_rec) : NULL;
        u->cand[u->ncand] = gr && gr->series_git + gr->series_measured == 1 ? gr : NULL;
        u->cand_grp[u->ncand] = gr ? gr->grp : 0;
        u->cand_at[u->ncand++] = a0;
        a0 = b;
    }
    u->cand_at[u->ncand] = nf;
    /* the last steps of the candidates alone */
    free(u->ids);
    if (!(u->ids = malloc((u->ncand ? u->ncand : 1) * sizeof *u->ids)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    u->nids = 0;
    for (size_t i = 0; i < u->ncand; i++)
        if (u->cand[i])
            u->ids[u->nids++] = u->cand_grp[i];
    ask_ids(u, UP_LAST, SB_RG_ASK_LAST_STEPS);
    return SB_OK;
}

/* With the candidates' last steps: the groups whose new runs all come
 * after every stored commit go on from their last step (tails), the
 * others are walked whole; the commits the tails start from are asked
 * for. */
static int took_last(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    tail_plan *p = &u->plan;
    long max_rank = -1;
    long long max_git = -1;
    for (size_t i = 0; i < u->ncs; i++) {
        const commit_pos *c = order_find(&u->ord, u->cs[i].sha);
        if (c && (long)c->rank > max_rank)
            max_rank = (long)c->rank;
        if (c && c->git > max_git)
            max_git = c->git;
    }
    size_t k = 0; /* the next answer */
    for (size_t i = 0; i < u->ncand; i++) {
        const sb_rg_group_rec *gr = u->cand[i];
        size_t a0 = u->cand_at[i], b = u->cand_at[i + 1];
        int tail = gr != NULL;
        const sb_rg_step_rec *last = NULL;
        if (tail) {
            if (a->found[k])
                last = &a->last[k];
            k++;
        }
        tail = tail && last && last->old_run >= 0 && last->verdict != SB_RG_SINGLE_COMMIT;
        for (size_t j = a0; tail && j < b; j++) {
            const commit_pos *c = order_find(&u->ord, p->fresh[j]->git_sha);
            tail = gr->series_git ? c->git >= 0 && c->git > max_git : (long)c->rank > max_rank;
        }
        if (tail)
            p->v[p->n++] = (tail_group){gr->grp, gr->series_git != 0,
                                        last->verdict == SB_RG_NOW_FAILING ? last->old_commit : last->new_commit,
                                        NULL, NULL, 0, a0, b - a0};
        else
            u->whole[u->nwhole++] = p->fresh[a0];
    }
    if (!p->n) {
        ask_whole(u);
        return SB_OK;
    }
    /* the commits the tails start from, each once */
    const sb_rg_commit_rec **by_id = malloc((u->ncs ? u->ncs : 1) * sizeof *by_id);
    free(u->shas);
    if (!by_id || !(u->shas = malloc(p->n * sizeof *u->shas))) {
        free(by_id);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < u->ncs; i++)
        by_id[i] = &u->cs[i];
    qsort(by_id, u->ncs, sizeof *by_id, cmp_commit_id);
    int rc = SB_OK;
    for (size_t i = 0; i < p->n && rc == SB_OK; i++) {
        sb_rg_commit_rec key = {p->v[i].base_commit, NULL, 0};
        const sb_rg_commit_rec *kp = &key;
        const sb_rg_commit_rec **c = u->ncs ? bsearch(&kp, by_id, u->ncs, sizeof *by_id, cmp_commit_id) : NULL;
        if (!c)
            rc = sb_error_set(err, NULL, NULL, "a stored regression step names no stored commit");
        else
            u->shas[i] = p->v[i].base_sha = (*c)->sha;
    }
    free(by_id);
    if (rc != SB_OK)
        return rc;
    qsort(u->shas, p->n, sizeof *u->shas, cmp_str_ptr);
    size_t nshas = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!nshas || strcmp(u->shas[nshas - 1], u->shas[i]) != 0)
            u->shas[nshas++] = u->shas[i];
    ask(u, UP_BASE_IDS, SB_RG_ASK_RUN_IDS);
    u->ask.shas = u->shas;
    u->ask.nshas = nshas;
    return SB_OK;
}

/* Takes the run ids a answers with over into u->ids. */
static void take_ids(sb_rg_update *u, sb_rg_answer *a)
{
    free(u->ids);
    u->ids = a->ids;
    u->nids = a->nids;
    a->ids = NULL;
    a->nids = a->cap_ids = 0;
}

static int took_base_ids(sb_rg_update *u, sb_rg_answer *a)
{
    take_ids(u, a);
    ask_ids(u, UP_BASE_RUNS, SB_RG_ASK_RUNS);
    return SB_OK;
}

/* With the runs of the tails' base commits: each tail's runs, the base
 * commit's of its group and then its new ones; a tail whose runs do not
 * make one series with a passing base run is walked whole instead. */
static int took_base_runs(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    tail_plan *p = &u->plan;
    p->base = a->runs;
    memset(&a->runs, 0, sizeof a->runs);
    const sb_result **base = malloc((p->base.n ? p->base.n : 1) * sizeof *base);
    if (!base)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < p->base.n; i++)
        base[i] = &p->base.v[i];
    qsort(base, p->base.n, sizeof *base, cmp_run_group);
    size_t kept = 0;
    int rc = SB_OK;
    for (size_t i = 0; i < p->n && rc == SB_OK; i++) {
        tail_group t = p->v[i];
        const sb_result *rep = p->fresh[t.fresh_at];
        size_t lo = 0, hi = p->base.n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_group_of(base[mid], rep) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!(t.runs = malloc((p->base.n - lo + t.nfresh) * sizeof *t.runs))) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        for (size_t k = lo; k < p->base.n && cmp_group_of(base[k], rep) == 0; k++)
            if (strcmp(base[k]->git_sha, t.base_sha) == 0)
                t.runs[t.n++] = base[k];
        if (!tail_holds(p, &t, t.runs, t.n)) {
            free(t.runs);
            u->whole[u->nwhole++] = rep;
            continue;
        }
        for (size_t k = 0; k < t.nfresh; k++)
            t.runs[t.n++] = p->fresh[t.fresh_at + k];
        p->runs += t.n;
        p->v[kept++] = t;
    }
    p->n = kept;
    free(base);
    if (rc == SB_OK)
        ask_whole(u);
    return rc;
}

/* With the run ids of the groups walked whole: where they hold most
 * runs, every run is read in one pass instead of by id. */
static int took_whole_ids(sb_rg_update *u, sb_rg_answer *a)
{
    take_ids(u, a);
    if (u->nids > (size_t)(u->now.runs / 2)) {
        ask_all(u);
        return SB_OK;
    }
    ask_ids(u, UP_WHOLE_RUNS, SB_RG_ASK_RUNS);
    return SB_OK;
}

/* The newest finish time of the runs of s and those without one, added
 * to st's. */
static void fold_times(sb_rg_state *st, const sb_result_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].finished_epoch == LLONG_MIN)
            st->undated++;
        else if (s->v[i].finished_epoch > st->newest_epoch)
            st->newest_epoch = s->v[i].finished_epoch;
    }
}

/* The runs of the groups walked whole; the newest time of the runs
 * stored since the basis joins the basis'. */
static int took_whole_runs(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    u->set = a->runs;
    memset(&a->runs, 0, sizeof a->runs);
    u->now.newest_epoch = u->then.newest_epoch;
    u->now.undated = u->then.undated;
    fold_times(&u->now, &u->fresh_runs);
    return ask_cards(u, err);
}

/* Every run, walked whole: the order of their commits, whose git
 * ordinals are asked for. */
static int took_all_runs(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    u->set = a->runs;
    memset(&a->runs, 0, sizeof a->runs);
    int moved;
    if (update_order(NULL, 0, &u->set, &u->ord, &moved, err) != SB_OK)
        return SB_ERR;
    u->now.newest_epoch = LLONG_MIN;
    u->now.undated = 0;
    fold_times(&u->now, &u->set);
    return ask_git(u, UP_ALL_GIT, err);
}

/* With the cards of the runs walked: the walk starts. */
static int took_cards(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    u->dev = a->cards;
    memset(&a->cards, 0, sizeof a->cards);
    if (walk_open(u, err) != SB_OK)
        return SB_ERR;
    u->wr.clear = u->full;
    u->wr.state = u->now;
    ask(u, UP_WALK, SB_RG_ASK_NONE);
    return SB_OK;
}

/* Takes the answer a to what u asked last, and asks the next read. */
static int take_answer(sb_rg_update *u, sb_rg_answer *a, sb_error *err)
{
    switch (u->step) {
    case UP_FRESH_RUNS:
        return took_fresh_runs(u, a, err);
    case UP_FRESH_GIT:
        return took_fresh_git(u, a, err);
    case UP_LAST:
        return took_last(u, a, err);
    case UP_BASE_IDS:
        return took_base_ids(u, a);
    case UP_BASE_RUNS:
        return took_base_runs(u, a, err);
    case UP_WHOLE_IDS:
        return took_whole_ids(u, a);
    case UP_WHOLE_RUNS:
        return took_whole_runs(u, a, err);
    case UP_ALL_RUNS:
        return took_all_runs(u, a, err);
    case UP_ALL_GIT:
        order_take_git(&u->ord, &a->git);
        return ask_cards(u, err);
    case UP_CARDS:
        return took_cards(u, a, err);
    default:
        return SB_OK;
    }
}

int sb_rg_update_open(const sb_rg_opts *o, const sb_rg_aa *aa, sb_rg_update_basis *b, sb_rg_update **out,
                      sb_error *err)
{
    *out = NULL;
    sb_rg_update *u = calloc(1, sizeof *u);
    if (!u)
        return sb_error_set(err, NULL, NULL, "out of memory");
    u->o = o;
    u->aa = aa;
    u->then = b->then;
    u->now = b->now;
    u->cs = b->commits;
    u->ncs = b->ncommits;
    u->groups = b->groups;
    u->ngroups = b->ngroups;
    b->commits = NULL;
    b->groups = NULL;
    b->ncommits = b->ngroups = 0;
    int fresh;
    if (basis_holds(o, &u->then, b->found, &u->now, &fresh, err) != SB_OK) {
        sb_rg_update_free(u);
        return SB_ERR;
    }
    if (fresh) {
        u->step = UP_DONE;
    } else if (!b->found || strcmp(u->then.rule_sha256, u->now.rule_sha256) != 0 ||
               u->then.changes != u->now.changes || u->then.schema != u->now.schema ||
               /* runs of measuring sessions move the A/A thresholds of every series */
               u->now.runs - u->then.runs != b->added || b->sessions > 0) {
        ask_all(u);
    } else {
        ask(u, UP_FRESH_RUNS, SB_RG_ASK_RUNS);
        u->ask.after = u->then.last_run;
    }
    *out = u;
    return SB_OK;
}

void sb_rg_update_info_get(const sb_rg_update *u, sb_rg_update_info *info)
{
    memset(info, 0, sizeof *info);
    if (u->step < UP_WALK)
        return;
    info->stored = u->opened;
    info->full = u->full;
    info->runs_walked = u->set.n + u->plan.runs;
}

int sb_rg_update_next(sb_rg_update *u, size_t most_steps, sb_rg_answer *a, const sb_rg_ask **asked,
                      const sb_rg_writes **batch, sb_error *err)
{
    *batch = NULL;
    *asked = NULL;
    if (u->step < UP_WALK) {
        if (a && take_answer(u, a, err) != SB_OK)
            return SB_ERR;
        if (u->step < UP_WALK) {
            *asked = &u->ask;
            return SB_OK;
        }
    }
    if (u->step != UP_WALK)
        return SB_OK;
    if (u->waiting) {
        u->waiting = 0;
        if (pending_figures(&u->w, a ? &a->samples : NULL, err) != SB_OK || store_batch(u, err) != SB_OK)
            return SB_ERR;
        *batch = &u->wr;
        return SB_OK;
    }
    if (u->next_set >= u->set.n && u->next_tail >= u->plan.n) {
        u->step = UP_DONE;
        return SB_OK;
    }
    if (walk_next(u, most_steps, err) != SB_OK)
        return SB_ERR;
    if (u->w.npend) {
        if (pending_ids(&u->w, err) != SB_OK)
            return SB_ERR;
        u->waiting = 1;
        ask(u, UP_WALK, SB_RG_ASK_SAMPLES);
        u->ask.ids = u->w.ids;
        u->ask.nids = u->w.nids;
        *asked = &u->ask;
        return SB_OK;
    }
    if (store_batch(u, err) != SB_OK)
        return SB_ERR;
    *batch = &u->wr;
    return SB_OK;
}

void sb_rg_update_free(sb_rg_update *u)
{
    if (!u)
        return;
    if (u->opened) {
        store_ctx_free(&u->c);
        walk_release(&u->w);
    }
    free(u->bg);
    sb_run_devices_free(&u->dev);
    sb_rg_free(&u->out);
    sb_rg_writes_free(&u->wr);
    tail_plan_free(&u->plan);
    sb_rg_order_free(&u->ord);
    sb_rg_commits_free(u->cs, u->ncs);
    sb_rg_groups_free(u->groups, u->ngroups);
    free(u->whole);
    free(u->cand);
    free(u->cand_grp);
    free(u->cand_at);
    free(u->shas);
    free(u->ids);
    sb_results_free(&u->set);
    sb_results_free(&u->fresh_runs);
    free(u);
}

/* What reading the stored steps builds: the latest steps as rows (their
 * runs not yet loaded), with their runs' ids, and the classes' figures. */
typedef struct stored_read {
    const sb_rg_opts *o;
    sb_rg_list *out;           /* the latest rows */
    size_t cap;                /* of out->v and ids */
    long long *ids;            /* each latest row's old run (-1: none) and new run */
    const sb_rg_class_figs *figs; /* by class id (the stored record's) */
    size_t nfigs;
} stored_read;

static void stored_read_free(stored_read *sr)
{
    free(sr->ids);
    sr->ids = NULL;
}

static int cmp_class_figs(const void *a, const void *b)
{
    long long x = ((const sb_rg_class_figs *)a)->cls, y = ((const sb_rg_class_figs *)b)->cls;
    return (x > y) - (x < y);
}

/* One latest step as a row, settled: the threshold of its class, the
 * adjusted p-value of its family and the verdict on them. */
static int stored_row(stored_read *sr, const sb_rg_step_rec *s, sb_error *err)
{
    sb_rg_list *l = sr->out;
    if (l->n == sr->cap) {
        size_t nc = sr->cap ? sr->cap * 2 : 1024;
        sb_rg_row *nv = realloc(l->v, nc * sizeof *nv);
        if (nv)
            l->v = nv;
        long long *ni = nv ? realloc(sr->ids, 2 * nc * sizeof *ni) : NULL;
        if (!ni)
            return sb_error_set(err, NULL, NULL, "out of memory");
        sr->ids = ni;
        sr->cap = nc;
    }
    sb_rg_row *row = &l->v[l->n];
    row_init(row);
    row->verdict = (sb_rg_verdict)s->verdict;
    row->cause = (sb_rg_cause)s->cause;
    row->latest = s->latest;
    row->same_card = s->same_card;
    row->threshold_from = (sb_rg_threshold_from)s->threshold_from;
    row->n_old = (size_t)s->samples_old;
    row->n_new = (size_t)s->samples_new;
    row->range_commits = (long)s->range_commits;
    row->p = s->p;
    row->p_adjusted = isnan(s->p_adjusted) ? s->p : s->p_adjusted;
    row->rel_change = s->rel_change;
    row->threshold = s->threshold;
    int member = sb_rg_family_member(s->verdict, s->old_commit, s->p);
    if (member && s->cause == SB_RG_DRIFT && !isnan(s->rel_change)) {
        sb_rg_class_figs key = {0};
        key.cls = s->drift_class;
        const sb_rg_class_figs *f =
            sr->nfigs ? bsearch(&key, sr->figs, sr->nfigs, sizeof *sr->figs, cmp_class_figs) : NULL;
        if (!f)
            return sb_error_set(err, NULL, NULL, "a stored drift step whose noise class has no figures");
        sb_rg_class_threshold(f, s->grp, s->seq, sr->o->min_effect, &row->threshold, &row->threshold_from);
    }
    if (member)
        row->verdict = sb_rg_judge(row->p_adjusted, row->rel_change, sr->o->alpha, row->threshold);
    if (*s->changed) {
        if (!l->text && !(l->text = sb_text_pool_new()))
            return sb_error_set(err, NULL, NULL, "out of memory");
        if (!(row->changed = sb_text_pool_add(l->text, s->changed, strlen(s->changed), 1)))
            return sb_error_set(err, NULL, NULL, "out of memory");
    }
    sr->ids[2 * l->n] = s->old_run;
    sr->ids[2 * l->n + 1] = s->new_run;
    l->n++;
    return SB_OK;
}

static int cmp_group_rec(const void *x, const void *y)
{
    const sb_rg_group_rec *a = x, *b = y;
    int c = strcmp(a->case_key, b->case_key);
    if (!c)
        c = strcmp(a->provider, b->provider);
    return c ? c : strcmp(a->sku, b->sku);
}

static int cmp_group_ptr(const void *x, const void *y)
{
    return cmp_group_rec(*(const sb_rg_group_rec *const *)x, *(const sb_rg_group_rec *const *)y);
}

typedef struct noise_seen {
    long long seq;
    size_t k; /* index in the stored thresholds */
} noise_seen;

static int cmp_noise_seen(const void *a, const void *b)
{
    const noise_seen *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_noise_seq(const void *a, const void *b)
{
    const sb_rg_noise_seq *x = a, *y = b;
    if (x->grp != y->grp)
        return (x->grp > y->grp) - (x->grp < y->grp);
    return (x->noise > y->noise) - (x->noise < y->noise);
}

/* The cross-card thresholds into out->noise in the order the walk noted
 * them: as the steps met them, groups in order (g[0..ng)), then seq. */
static int read_noise(const sb_rg_stored *s, const sb_rg_group_rec *const *g, size_t ng, sb_rg_list *out,
                      sb_error *err)
{
    const sb_rg_noise_rec *nz = s->noise;
    size_t nnz = s->nnoise;
    int rc = SB_OK;
    unsigned char *seen = NULL;
    noise_seen *here = NULL;
    if (nnz && (!(out->noise = malloc(nnz * sizeof *out->noise)) || !(seen = calloc(nnz, 1)) ||
                !(here = malloc(nnz * sizeof *here))))
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; rc == SB_OK && i < ng && out->nnoise < nnz; i++) {
        size_t nh = 0;
        for (size_t k = 0; k < nnz; k++) {
            sb_rg_noise_seq key = {g[i]->grp, nz[k].id, 0};
            const sb_rg_noise_seq *hit =
                !seen[k] && s->nnoise_first
                    ? bsearch(&key, s->noise_first, s->nnoise_first, sizeof key, cmp_noise_seq)
                    : NULL;
            if (hit)
                here[nh++] = (noise_seen){hit->seq, k};
        }
        if (nh)
            qsort(here, nh, sizeof *here, cmp_noise_seen);
        for (size_t h = 0; h < nh; h++) {
            const sb_rg_noise_rec *e = &nz[here[h].k];
            seen[here[h].k] = 1;
            sb_rg_noise *d = &out->noise[out->nnoise++];
            snprintf(d->sku, sizeof d->sku, "%s", e->sku);
            d->let_go = e->let_go;
            d->threshold = e->threshold;
            d->comparisons = (size_t)e->comparisons;
        }
    }
    free(here);
    free(seen);
    return rc;
}

/* The latest stored steps into sr (sr->out its list), groups in the
 * order of their runs in a result set, with the series counts, the drift
 * counts of the whole history and the cross-card thresholds in the order
 * the steps met them. */
static int read_steps(const sb_rg_stored *s, stored_read *sr, sb_error *err)
{
    sb_rg_list *out = sr->out;
    size_t ng = s->ngroups;
    const sb_rg_group_rec **g = malloc((ng ? ng : 1) * sizeof *g);
    if (!g)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sr->figs = s->figs;
    sr->nfigs = s->nfigs;
    for (size_t i = 0; i < sr->nfigs; i++)
        out->drift_flagged += (size_t)sr->figs[i].flagged;
    for (size_t i = 0; i < ng; i++)
        g[i] = &s->groups[i];
    if (ng)
        qsort(g, ng, sizeof *g, cmp_group_ptr);
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < ng; i++) {
        size_t gi = (size_t)(g[i] - s->groups);
        out->series_git += (size_t)g[i]->series_git;
        out->series_measured += (size_t)g[i]->series_measured;
        out->drift_tested += (size_t)g[i]->drift_tested;
        for (size_t k = s->latest_from[gi]; rc == SB_OK && k < s->latest_from[gi + 1]; k++)
            rc = stored_row(sr, &s->latest[k], err);
    }
    if (rc == SB_OK)
        rc = read_noise(s, g, ng, out, err);
    free(g);
    return rc;
}

static int cmp_result_id(const void *a, const void *b)
{
    long long x = (*(const sb_result *const *)a)->run_id, y = (*(const sb_result *const *)b)->run_id;
    return (x > y) - (x < y);
}

static const sb_result *find_run(const sb_result **by_id, size_t n, long long id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_id[mid]->run_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && by_id[lo]->run_id == id ? by_id[lo] : NULL;
}

/* Points the latest rows of out (row i with runs rid[2i], rid[2i + 1])
 * at their runs, *runs, which out->runs takes over. */
static int keep_latest(sb_result_set *runs, const char *name, sb_rg_list *out, const long long *rid, sb_error *err)
{
    if (!(out->runs = calloc(1, sizeof *out->runs)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    *out->runs = *runs;
    memset(runs, 0, sizeof *runs);
    size_t m = 0;
    int rc = SB_OK;
    const sb_result **by_id = malloc((out->runs->n ? out->runs->n : 1) * sizeof *by_id);
    if (!by_id)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < out->runs->n; i++)
        by_id[i] = &out->runs->v[i];
    qsort(by_id, out->runs->n, sizeof *by_id, cmp_result_id);
    for (size_t i = 0; i < out->n && rc == SB_OK; i++) {
        long long old_id = rid[2 * i], new_id = rid[2 * i + 1];
        sb_rg_row r = out->v[i];
        r.new_run = find_run(by_id, out->runs->n, new_id);
        r.old_run = old_id >= 0 ? find_run(by_id, out->runs->n, old_id) : NULL;
        if (!r.new_run || (old_id >= 0 && !r.old_run))
            rc = sb_error_set(err, name, NULL, "a stored regression step names run %lld, which is not stored",
                              !r.new_run ? new_id : old_id);
        out->v[m++] = r;
    }
    out->n = m;
    free(by_id);
    return rc;
}

int sb_rg_latest(const sb_rg_stored *stored, sb_result_set *runs, const char *name, const sb_rg_opts *o,
                 long long upto, sb_rg_list *out, int *found, sb_error *err)
{
    memset(out, 0, sizeof *out);
    *found = 0;
    const sb_rg_state *then = &stored->then;
    sb_rg_state now = stored->now;
    int fresh;
    if (basis_holds(o, then, stored->found, &now, &fresh, err) != SB_OK)
        return SB_ERR;
    if (!fresh || (upto != LLONG_MAX && (then->undated || then->newest_epoch >= upto)))
        return SB_OK;
    if (!stored->steps_read)
        return sb_error_set(err, name, NULL, "the stored regression steps were not read");
    stored_read sr;
    memset(&sr, 0, sizeof sr);
    sr.o = o;
    sr.out = out;
    int rc = read_steps(stored, &sr, err);
    if (rc == SB_OK) {
        out->latest_only = 1;
        rc = keep_latest(runs, name, out, sr.ids, err);
    }
    stored_read_free(&sr);
    if (rc != SB_OK) {
        sb_rg_free(out);
        return SB_ERR;
    }
    *found = 1;
    return SB_OK;
}

int sb_rg_counts(const sb_rg_row *r)
{
    return r->latest && r->cause == SB_RG_CODE &&
           (r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_NOW_FAILING);
}

size_t sb_rg_count_regressions(const sb_rg_list *l)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++)
        c += (size_t)sb_rg_counts(&l->v[i]);
    return c;
}

void sb_rg_drift_share(const sb_rg_list *l, size_t *tested, size_t *flagged)
{
    if (l->latest_only) {
        *tested = l->drift_tested;
        *flagged = l->drift_flagged;
        return;
    }
    *tested = *flagged = 0;
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        if (r->cause != SB_RG_DRIFT)
            continue;
        if (r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_IMPROVEMENT ||
            r->verdict == SB_RG_NO_CHANGE)
            (*tested)++;
        if (r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_IMPROVEMENT)
            (*flagged)++;
    }
}

/* ---- the history as of a time (sb_rg_asof) ---------------------------- */

/* One walked run of the whole history as a history up to a time sees it. */
typedef struct asof_run {
    long long in;  /* the run is up to end when in < end (LLONG_MAX: never) */
    long rank;     /* its commit's place in its group's order (git or first measured) */
    unsigned series;
    unsigned char git_known;
} asof_run;

typedef struct asof_group {
    size_t first, last;   /* its runs in the set, first..last */
    size_t row0, row1;    /* its rows in the whole list */
    size_t series0, nseries; /* its series in asof.rep_in */
    int git;              /* the whole walk took git order */
} asof_group;

/* A card and whether the step's held launch was let go: what
 * note_sku_noise keys the cross-card noise it lists by. */
typedef struct asof_noise_key {
    const char *sku;
    int let_go;
} asof_noise_key;

typedef struct asof_fam_fig {
    double p, rel_change;
} asof_fam_fig;

struct sb_rg_asof {
    const sb_rg_list *full;
    const sb_result_set *set;
    sb_rg_opts o;
    const aa_noise *aa;
    asof_run *run;        /* by index in set->v; rank -1: not walked */
    asof_group *g;
    size_t ng;
    long long *rep_in;    /* each series' first run's in */
    size_t nrep;
    double *pre_threshold; /* the rows' thresholds before drift_noise */
    unsigned char *pre_from;
    /* What each week reads of the whole list's rows, packed: a pass over
     * these costs a fraction of one over the rows themselves, and every
     * week makes several. */
    long *row_rank;       /* the new run's rank; LONG_MAX: a single-commit row */
    unsigned *row_series; /* the new run's series in its group */
    double *pre_padj;     /* the rows' p_adjusted in the whole walk */
    unsigned char *pre_verdict, *row_drift; /* verdict; cause is drift */
    unsigned *row_noise;  /* 1 + the row's index in noise_key where its
                           * threshold is the card's A/A noise; 0: none */
    asof_noise_key *noise_key; /* the distinct (SKU, let go) of those rows */
    size_t nnoise_key;
    asof_fam_fig *fam_fig; /* fam's rows' p and rel_change, in fam's order */
    drift_fig *drift;     /* tested drift rows by (class, row) */
    size_t ndrift;
    step_member *fam;     /* tested rows by (old commit, new commit, row) */
    size_t nfam;
    long long confirm_in; /* the earliest in of a passing confirming run */
    int usable;
};

void sb_rg_asof_free(sb_rg_asof *a)
{
    if (!a)
        return;
    free(a->run);
    free(a->g);
    free(a->rep_in);
    free(a->pre_threshold);
    free(a->pre_from);
    free(a->row_rank);
    free(a->row_series);
    free(a->pre_padj);
    free(a->pre_verdict);
    free(a->row_drift);
    free(a->row_noise);
    free(a->noise_key);
    free(a->fam_fig);
    free(a->drift);
    free(a->fam);
    free(a);
}

int sb_rg_asof_new(const sb_result_set *set, const sb_commit_ordinals *git, const sb_rg_opts *o, const sb_rg_aa *aa,
                   const sb_rg_list *full, sb_rg_asof **out, sb_error *err)
{
    sb_rg_asof *a = calloc(1, sizeof *a);
    *out = NULL;
    if (!a)
        return sb_error_set(err, NULL, NULL, "out of memory");
    a->full = full;
    a->set = set;
    a->o = *o;
    a->confirm_in = LLONG_MAX;
    a->aa = aa;
    int rc = SB_OK;
    sb_rg_order ord = {0};
    /* the rows' keys: read while the rows are indexed below, then freed,
     * as each week reads only what is drawn from them */
    step_key *keys = NULL;
    size_t nr = full->n;
    a->run = malloc((set->n ? set->n : 1) * sizeof *a->run);
    a->rep_in = malloc((set->n ? set->n : 1) * sizeof *a->rep_in);
    a->g = malloc((set->n ? set->n : 1) * sizeof *a->g);
    a->pre_threshold = malloc((nr ? nr : 1) * sizeof *a->pre_threshold);
    a->pre_from = malloc((nr ? nr : 1) * sizeof *a->pre_from);
    a->row_rank = malloc((nr ? nr : 1) * sizeof *a->row_rank);
    a->row_series = malloc((nr ? nr : 1) * sizeof *a->row_series);
    a->pre_padj = malloc((nr ? nr : 1) * sizeof *a->pre_padj);
    a->pre_verdict = malloc(nr ? nr : 1);
    a->row_drift = malloc(nr ? nr : 1);
    a->row_noise = malloc((nr ? nr : 1) * sizeof *a->row_noise);
    a->drift = malloc((nr ? nr : 1) * sizeof *a->drift);
    a->fam = malloc((nr ? nr : 1) * sizeof *a->fam);
    const sb_result **reps = malloc((set->n ? set->n : 1) * sizeof *reps);
    if (rc == SB_OK && (!a->run || !a->rep_in || !a->g || !a->pre_threshold || !a->pre_from || !a->row_rank ||
                        !a->row_series || !a->pre_padj || !a->pre_verdict || !a->row_drift || !a->row_noise || !a->drift ||
                        !a->fam || !reps))
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    if (rc == SB_OK)
        rc = sb_rg_order_build(set, &ord, err);
    if (rc == SB_OK)
        order_take_git(&ord, git);
    /* the runs as the walk took them, group by group (group_rows_of) */
    sb_result_filter f = {0};
    f.has_range = 1;
    f.from = LLONG_MIN;
    f.to = LLONG_MAX;
    for (size_t i = 0; rc == SB_OK && i < set->n;) {
        size_t j = group_end(set, i);
        asof_group *g = &a->g[a->ng++];
        *g = (asof_group){i, j, 0, 0, a->nrep, 0, 1};
        int any = 0;
        for (size_t k = i; k <= j; k++) {
            const sb_result *r = &set->v[k];
            const commit_pos *c = order_find(&ord, r->git_sha);
            asof_run *x = &a->run[k];
            x->in = sb_result_matches(r, &f) ? r->finished_epoch : LLONG_MAX;
            if (r->passing && strcmp(r->suite, SB_RG_CONFIRM_SUITE) == 0 && x->in < a->confirm_in)
                a->confirm_in = x->in;
            x->rank = -1;
            if (!c || strcmp(r->suite, SB_RG_CONFIRM_SUITE) == 0)
                continue;
            any = 1;
            g->git &= c->git >= 0;
            size_t s = 0;
            while (s < g->nseries && !(same_protocol(reps[s], r) && same_environment(reps[s], r)))
                s++;
            if (s == g->nseries) {
                reps[g->nseries++] = r;
                a->rep_in[a->nrep++] = x->in;
            }
            x->series = (unsigned)s;
            x->git_known = c->git >= 0;
            x->rank = (long)c->rank;
        }
        if (any && g->git)
            for (size_t k = i; k <= j; k++)
                if (a->run[k].rank >= 0)
                    a->run[k].rank = (long)order_find(&ord, set->v[k].git_sha)->git;
        i = j + 1;
    }
    /* Sized for a group a run until the groups were counted: give the
     * rest back, since the site's peak memory comes later in this call. */
    free(reps);
    reps = NULL;
    if (rc == SB_OK) {
        asof_group *g = realloc(a->g, (a->ng ? a->ng : 1) * sizeof *g);
        long long *rin = realloc(a->rep_in, (a->nrep ? a->nrep : 1) * sizeof *rin);
        a->g = g ? g : a->g;
        a->rep_in = rin ? rin : a->rep_in;
    }
    if (rc == SB_OK)
        rc = walk_keys(full, &ord, &keys, err);
    /* each group's rows, and what drift_noise and adjust_steps read */
    size_t gi = 0;
    for (size_t i = 0; rc == SB_OK && i < nr; i++) {
        const sb_rg_row *r = &full->v[i];
        size_t k = (size_t)(r->new_run - set->v);
        while (gi < a->ng && k > a->g[gi].last)
            gi++;
        if (k >= set->n || gi == a->ng || k < a->g[gi].first || a->run[k].rank < 0) {
            a->usable = 0;
            goto done;
        }
        if (a->g[gi].row1 == 0)
            a->g[gi].row0 = i;
        a->g[gi].row1 = i + 1;
        a->pre_threshold[i] = r->threshold;
        a->pre_from[i] = (unsigned char)r->threshold_from;
        a->row_rank[i] = r->verdict == SB_RG_SINGLE_COMMIT ? LONG_MAX : a->run[k].rank;
        a->row_series[i] = a->run[k].series;
        a->pre_padj[i] = r->p_adjusted;
        a->pre_verdict[i] = (unsigned char)r->verdict;
        a->row_drift[i] = r->cause == SB_RG_DRIFT;
        a->row_noise[i] = 0;
        if (a->pre_from[i] == SB_RG_FROM_SKU_AA) {
            asof_noise_key nk = {r->new_run->sku, step_let_go(r->old_run, r->new_run)};
            size_t q = 0;
            while (q < a->nnoise_key && !(a->noise_key[q].let_go == nk.let_go && !strcmp(a->noise_key[q].sku, nk.sku)))
                q++;
            if (q == a->nnoise_key) {
                asof_noise_key *nv = realloc(a->noise_key, (q + 1) * sizeof *nv);
                if (!nv) {
                    rc = sb_error_set(err, NULL, NULL, "out of memory");
                    break;
                }
                a->noise_key = nv;
                a->noise_key[a->nnoise_key++] = nk;
            }
            a->row_noise[i] = (unsigned)q + 1;
        }
        if (r->threshold_from == SB_RG_FROM_HISTORY_AA) {
            sb_rg_threshold_from from;
            a->pre_threshold[i] = sb_rg_threshold(a->aa, r->old_run, r->new_run, r->same_card, o->min_effect, &from);
            a->pre_from[i] = (unsigned char)from;
        }
        step_fig fg = fig_of(r);
        if (r->cause == SB_RG_DRIFT && tested_key(&fg, &keys[i]))
            a->drift[a->ndrift++] = (drift_fig){fabs(r->rel_change), keys[i].drift_class, i};
        if (sb_rg_family_member(r->verdict, keys[i].old_commit, r->p))
            a->fam[a->nfam++] = (step_member){keys[i].old_commit, keys[i].new_commit, i};
    }
    /* The keys are read no more, and drift and fam hold only the tested
     * rows: free and shrink before the sorts, which take a buffer as
     * large as what they sort. */
    free(keys);
    keys = NULL;
    if (rc == SB_OK) {
        drift_fig *d = realloc(a->drift, (a->ndrift ? a->ndrift : 1) * sizeof *d);
        step_member *fm = realloc(a->fam, (a->nfam ? a->nfam : 1) * sizeof *fm);
        a->drift = d ? d : a->drift;
        a->fam = fm ? fm : a->fam;
    }
    if (rc == SB_OK) {
        qsort(a->drift, a->ndrift, sizeof *a->drift, cmp_drift_fig);
        qsort(a->fam, a->nfam, sizeof *a->fam, cmp_step);
        a->fam_fig = malloc((a->nfam ? a->nfam : 1) * sizeof *a->fam_fig);
        if (!a->fam_fig)
            rc = sb_error_set(err, NULL, NULL, "out of memory");
        for (size_t k = 0; rc == SB_OK && k < a->nfam; k++)
            a->fam_fig[k] = (asof_fam_fig){full->v[a->fam[k].row].p, full->v[a->fam[k].row].rel_change};
        a->usable = !o->change_points && !full->latest_only && !full->searched_cp;
    }
done:
    sb_rg_order_free(&ord);
    free(reps);
    free(keys);
    if (rc != SB_OK) {
        sb_rg_asof_free(a);
        return SB_ERR;
    }
    *out = a;
    return SB_OK;
}

/* The newest run of series ser at rank among the walked runs first..last
 * of a group (passing: passing runs only), as pick finds it without a card. */
static const sb_result *asof_pick(const sb_rg_asof *a, const asof_group *g, unsigned ser, long rank, int passing)
{
    const sb_result *best = NULL;
    for (size_t k = g->first; k <= g->last; k++) {
        const asof_run *x = &a->run[k];
        const sb_result *r = &a->set->v[k];
        if (x->rank != rank || x->series != ser || (passing && !r->passing))
            continue;
        if (!best || newer(r, best))
            best = r;
    }
    return best;
}

typedef struct asof_week {
    long *maxin;          /* each group's newest rank up to end; -1: none */
    long *ser_last;       /* each series' newest rank up to end; -1: none */
    unsigned char *inc;   /* the whole list's rows that the history up to end holds */
    double *thr, *padj;
    unsigned char *verdict, *from;
} asof_week;

static void asof_week_free(asof_week *w)
{
    free(w->maxin);
    free(w->ser_last);
    free(w->inc);
    free(w->thr);
    free(w->padj);
    free(w->verdict);
    free(w->from);
}

/* Which runs and rows the history up to end holds; 0 where it is not a
 * part of the whole walk's (a group's runs up to end are not all of its
 * commits up to the newest of them, a series starts with a later run, or
 * the group's commit order would differ). */
static int asof_select(const sb_rg_asof *a, long long end, asof_week *w)
{
    for (size_t s = 0; s < a->nrep; s++)
        w->ser_last[s] = -1;
    for (size_t gi = 0; gi < a->ng; gi++) {
        const asof_group *g = &a->g[gi];
        long maxin = -1, minout = LONG_MAX;
        int git_unknown = 0;
        for (size_t k = g->first; k <= g->last; k++) {
            const asof_run *x = &a->run[k];
            if (x->rank < 0)
                continue;
            if (x->in < end) {
                maxin = x->rank > maxin ? x->rank : maxin;
                git_unknown |= !x->git_known;
                long *sl = &w->ser_last[g->series0 + x->series];
                *sl = x->rank > *sl ? x->rank : *sl;
            } else if (x->rank < minout) {
                minout = x->rank;
            }
        }
        w->maxin[gi] = maxin;
        if (maxin < 0)
            continue;
        if (minout <= maxin || (!g->git && !git_unknown))
            return 0;
        for (size_t s = 0; s < g->nseries; s++)
            if (w->ser_last[g->series0 + s] >= 0 && a->rep_in[g->series0 + s] >= end)
                return 0;
        for (size_t i = g->row0; i < g->row1; i++)
            w->inc[i] = a->row_rank[i] <= maxin;
    }
    return 1;
}

/* drift_noise and adjust_steps over the rows the history up to end holds. */
static int asof_settle(const sb_rg_asof *a, asof_week *w, sb_error *err)
{
    const sb_rg_list *full = a->full;
    memcpy(w->thr, a->pre_threshold, full->n * sizeof *w->thr);
    memcpy(w->from, a->pre_from, full->n);
    memcpy(w->padj, a->pre_padj, full->n * sizeof *w->padj);
    memcpy(w->verdict, a->pre_verdict, full->n);
    for (size_t b0 = 0; b0 < a->ndrift;) {
        size_t b1 = b0;
        size_t n = 0, top_count = 0;
        double top = -INFINITY, second = -INFINITY;
        for (; b1 < a->ndrift && a->drift[b1].cls == a->drift[b0].cls; b1++) {
            if (!w->inc[a->drift[b1].i])
                continue;
            double c = a->drift[b1].change;
            n++;
            if (c > top) {
                second = top;
                top = c;
                top_count = 1;
            } else {
                top_count += c == top;
                second = c > second ? c : second;
            }
        }
        if (n > SB_RG_DRIFT_MIN_CLASS) {
            for (size_t k = b0; k < b1; k++) {
                size_t i = a->drift[k].i;
                if (!w->inc[i])
                    continue;
                double most = a->drift[k].change == top && top_count == 1 ? second : top;
                double t = sb_aa_threshold(most, a->o.min_effect);
                if (t > w->thr[i]) {
                    w->thr[i] = t;
                    w->from[i] = SB_RG_FROM_HISTORY_AA;
                }
            }
        }
        b0 = b1;
    }
    double *p = malloc((a->nfam ? a->nfam : 1) * sizeof *p);
    double *adj = malloc((a->nfam ? a->nfam : 1) * sizeof *adj);
    if (!p || !adj) {
        free(p);
        free(adj);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    int rc = SB_OK;
    for (size_t b0 = 0; b0 < a->nfam && rc == SB_OK;) {
        size_t b1 = b0, n = 0;
        while (b1 < a->nfam && a->fam[b1].old_commit == a->fam[b0].old_commit &&
               a->fam[b1].new_commit == a->fam[b0].new_commit) {
            if (w->inc[a->fam[b1].row])
                p[n++] = a->fam_fig[b1].p;
            b1++;
        }
        /* a family whose steps are all up to end keeps the whole walk's p */
        if (n && n < b1 - b0) {
            if (sb_benjamini_hochberg(p, n, a->o.alpha, adj, NULL) != 0)
                rc = sb_error_set(err, NULL, NULL, "Benjamini-Hochberg: a p-value out of range");
            for (size_t k = b0, m = 0; rc == SB_OK && k < b1; k++)
                if (w->inc[a->fam[k].row])
                    w->padj[a->fam[k].row] = adj[m++];
        }
        for (size_t k = b0; n && rc == SB_OK && k < b1; k++) {
            size_t i = a->fam[k].row;
            if (w->inc[i])
                w->verdict[i] = (unsigned char)sb_rg_judge(w->padj[i], a->fam_fig[k].rel_change, a->o.alpha, w->thr[i]);
        }
        b0 = b1;
    }
    free(p);
    free(adj);
    return rc;
}

/* The rows of the history up to end that are latest into out, with the
 * drift counts, cross-card noise and series counts of all its rows. */
static int asof_rows(const sb_rg_asof *a, const asof_week *w, sb_rg_list *out, sb_error *err)
{
    const sb_rg_list *full = a->full;
    size_t cap = 0;
    out->latest_only = 1;
    /* note_sku_noise lists each (SKU, let go) once, at its first row */
    unsigned char *noted = calloc(a->nnoise_key ? a->nnoise_key : 1, 1);
    if (!noted)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < full->n; i++) {
        if (!w->inc[i])
            continue;
        if (a->row_drift[i] && (w->verdict[i] == SB_RG_REGRESSION || w->verdict[i] == SB_RG_IMPROVEMENT ||
                                w->verdict[i] == SB_RG_NO_CHANGE))
            out->drift_tested++;
        if (a->row_drift[i] && (w->verdict[i] == SB_RG_REGRESSION || w->verdict[i] == SB_RG_IMPROVEMENT))
            out->drift_flagged++;
        unsigned q = a->row_noise[i];
        if (q && !noted[q - 1]) {
            noted[q - 1] = 1;
            if (note_sku_noise(a->aa, a->noise_key[q - 1].sku, a->noise_key[q - 1].let_go, out, err) != SB_OK) {
                free(noted);
                return SB_ERR;
            }
        }
    }
    free(noted);
    for (size_t gi = 0; gi < a->ng; gi++) {
        const asof_group *g = &a->g[gi];
        long maxin = w->maxin[gi];
        if (maxin < 0)
            continue;
        size_t present = 0;
        for (size_t s = 0; s < g->nseries; s++)
            present += w->ser_last[g->series0 + s] >= 0;
        (g->git ? &out->series_git : &out->series_measured)[0] += present;
        /* the group's rows come series by series (series_rows) */
        for (size_t i = g->row0; i < g->row1;) {
            unsigned ser = a->row_series[i];
            size_t j = i, held = 0;
            for (; j < g->row1 && a->row_series[j] == ser; j++) {
                if (!w->inc[j])
                    continue;
                held++;
                if (a->row_rank[j] != maxin)
                    continue;
                sb_rg_row row = full->v[j];
                row.latest = 1;
                row.p_adjusted = w->padj[j];
                row.verdict = (sb_rg_verdict)w->verdict[j];
                row.threshold = w->thr[j];
                row.threshold_from = (sb_rg_threshold_from)w->from[j];
                row.confirm = SB_RG_UNCONFIRMED;
                row.confirm_change = NAN;
                row.confirm_old_run = row.confirm_new_run = -1;
                if (push(out, &cap, &row) != 0)
                    return sb_error_set(err, NULL, NULL, "out of memory");
            }
            long last = w->ser_last[g->series0 + ser];
            if (!held && last == maxin) {
                sb_rg_row row;
                row_init(&row);
                const sb_result *nw = asof_pick(a, g, ser, last, 1);
                row.new_run = nw ? nw : asof_pick(a, g, ser, last, 0);
                row.verdict = SB_RG_SINGLE_COMMIT;
                row.cause = sb_rg_own_provider(row.new_run->provider) ? SB_RG_CODE : SB_RG_DRIFT;
                row.latest = 1;
                if (push(out, &cap, &row) != 0)
                    return sb_error_set(err, NULL, NULL, "out of memory");
            }
            i = j;
        }
    }
    return SB_OK;
}

int sb_rg_asof_latest(const sb_rg_asof *a, long long end, sb_rg_list *out, int *found, sb_error *err)
{
    memset(out, 0, sizeof *out);
    *found = 0;
    if (!a || !a->usable || a->confirm_in < end)
        return SB_OK;
    size_t nr = a->full->n ? a->full->n : 1;
    asof_week w = {malloc((a->ng ? a->ng : 1) * sizeof *w.maxin), malloc((a->nrep ? a->nrep : 1) * sizeof *w.ser_last),
                   calloc(nr, 1), malloc(nr * sizeof *w.thr), malloc(nr * sizeof *w.padj), malloc(nr), malloc(nr)};
    int rc = SB_OK;
    if (!w.maxin || !w.ser_last || !w.inc || !w.thr || !w.padj || !w.verdict || !w.from)
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    else if (asof_select(a, end, &w) && (rc = asof_settle(a, &w, err)) == SB_OK &&
             (rc = asof_rows(a, &w, out, err)) == SB_OK)
        *found = 1;
    asof_week_free(&w);
    if (rc != SB_OK || !*found)
        sb_rg_free(out);
    return rc;
}
