/* regress.c - regressions between commits and weeks (regress.h). */
#include "regress.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    l->v = NULL;
    l->n = 0;
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
            v[n++] = (commit_pos){set->v[i].git_sha, set->v[i].finished_epoch, 0};
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

long sb_rg_order_rank(const sb_rg_order *o, const char *sha)
{
    commit_pos key = {sha, 0, 0};
    const commit_pos *c = o->n ? bsearch(&key, o->v, o->n, sizeof key, cmp_sha) : NULL;
    return c ? (long)c->rank : -1;
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
    for (size_t k = i; k <= j; k++)
        rank_of[k - i] = sb_rg_order_rank(ord, set->v[k].git_sha);
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
out:
    if (rk != ranks)
        free(rk);
    free(rank_of);
    return rc;
}

static int walk_groups(sqlite3 *db, const sb_result_set *set, int every_step, const sb_rg_opts *o,
                       sb_rg_list *out, sb_error *err)
{
    out->v = NULL;
    out->n = 0;
    size_t cap = 0;
    sb_rg_order ord;
    if (sb_rg_order_build(set, &ord, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    walk_ctx cache;
    memset(&cache, 0, sizeof cache);
    for (size_t i = 0; i < set->n && rc == SB_OK;) {
        size_t j = group_end(set, i);
        rc = group_rows(db, set, &ord, i, j, every_step, o, &cache, out, &cap, err);
        i = j + 1;
    }
    walk_free(&cache);
    sb_rg_order_free(&ord);
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
    out->v = NULL;
    out->n = 0;
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
        char om[32], nm[32], ch[32], p[32], os[13], ns[13];
        fmt_ms(r->old_run ? r->old_run->median_ms : NAN, om, sizeof om);
        fmt_ms(n->median_ms, nm, sizeof nm);
        if (isnan(r->rel_change))
            snprintf(ch, sizeof ch, "-");
        else
            snprintf(ch, sizeof ch, "%+.1f%%", r->rel_change * 100.0);
        if (isnan(r->p))
            snprintf(p, sizeof p, "-");
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
    md_section(l, out, want_regression, "Regressions");
    md_section(l, out, want_improvement, "Improvements");
    md_section(l, out, want_untested, "Not tested");
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
        json_object_set_new(j, "rel_change", num_or_null(r->rel_change));
        json_object_set_new(j, "samples_old", json_integer((json_int_t)r->n_old));
        json_object_set_new(j, "samples_new", json_integer((json_int_t)r->n_new));
        json_object_set_new(j, "latest", json_boolean(r->latest));
        json_array_append_new(rows, j);
    }
    return sb_report_json_finish(root, out, err);
}
