/* sessions.c - paired speedups and A/A noise of measuring sessions
 * (sessions.h). */
#include "sessions.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isoweek.h"
#include "results.h"
#include "stats.h"

const double sb_noise_shifts[4] = {0.02, 0.03, 0.05, 0.10};

/* Round medians of every passed run, kernel and call time, computed once. */
typedef struct medians {
    double **kernel, **call;
    size_t *nk, *nc;
    size_t n;
} medians;

static void medians_free(medians *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->kernel[i]);
        free(m->call[i]);
    }
    free(m->kernel);
    free(m->call);
    free(m->nk);
    free(m->nc);
    memset(m, 0, sizeof *m);
}

static double *copy_of(const double *v, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (c)
        memcpy(c, v, n * sizeof *c);
    return c;
}

/* The round medians of every passing run: those its load read
 * (sb_session_runs_medians), else read from its samples here. */
static int medians_make(const sb_session_runs *runs, medians *m, sb_error *err)
{
    memset(m, 0, sizeof *m);
    m->n = runs->n;
    m->kernel = calloc(runs->n + 1, sizeof *m->kernel);
    m->call = calloc(runs->n + 1, sizeof *m->call);
    m->nk = calloc(runs->n + 1, sizeof *m->nk);
    m->nc = calloc(runs->n + 1, sizeof *m->nc);
    if (!m->kernel || !m->call || !m->nk || !m->nc) {
        medians_free(m);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < runs->n; i++) {
        const sb_session_run *r = &runs->v[i];
        if (strcmp(r->status, "passed") != 0)
            continue;
        if (r->medians_read) {
            if ((r->kernel_rounds && !(m->kernel[i] = copy_of(r->kernel_medians, r->kernel_rounds))) ||
                (r->call_rounds && !(m->call[i] = copy_of(r->call_medians, r->call_rounds)))) {
                medians_free(m);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            m->nk[i] = r->kernel_rounds;
            m->nc[i] = r->call_rounds;
            continue;
        }
        sb_error e;
        if (r->kernel_samples && sb_round_medians(r->kernel_samples, &m->kernel[i], &m->nk[i], &e) != SB_OK) {
            medians_free(m);
            return sb_error_set(err, NULL, NULL, "run %lld: kernel time %s", (long long)r->run_id, e.msg);
        }
        if (r->call_samples && sb_round_medians(r->call_samples, &m->call[i], &m->nc[i], &e) != SB_OK) {
            medians_free(m);
            return sb_error_set(err, NULL, NULL, "run %lld: call time %s", (long long)r->run_id, e.msg);
        }
    }
    return SB_OK;
}

static int same_str(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Why two runs of one session cannot be paired, or NULL. */
static const char *unpairable(const sb_session_run *a, const sb_session_run *b, const medians *m, size_t ia,
                              size_t ib)
{
    if (!same_str(a->gpu_uuid, b->gpu_uuid))
        return "GPU UUID";
    /* one card that two runs name by different SKUs: a pair's figure is
     * stated on one SKU, so it cannot rest on both */
    if (!same_str(a->sku, b->sku))
        return "SKU";
    if (!same_str(a->timing_method, b->timing_method))
        return "timing method";
    if (!same_str(a->check_version, b->check_version))
        return "correctness check";
    if (!m->kernel[ia] || !m->kernel[ib] || m->nk[ia] != m->nk[ib] || m->nk[ia] < 2)
        return "rounds";
    return NULL;
}

static double median_of(const double *v, size_t n)
{
    return sb_median(v, n);
}

/* The A/A changes of a set of runs: |copy 1 / copy 0 - 1| of each provider
 * measured twice a round, by case, provider and GPU. */
typedef struct aa_change {
    const sb_session_run *run; /* copy 0 */
    double change;
} aa_change;
typedef struct aa_table {
    aa_change *v;
    size_t n;
} aa_table;

/* The end of the runs of one case in one session that start at lo (runs
 * come by session, then case). */
static size_t case_end(const sb_session_runs *runs, size_t lo)
{
    size_t hi = lo + 1;
    while (hi < runs->n && same_str(runs->v[hi].session_id, runs->v[lo].session_id) &&
           same_str(runs->v[hi].case_key, runs->v[lo].case_key))
        hi++;
    return hi;
}

static int aa_collect(const sb_session_runs *runs, const medians *m, double level, aa_table *t, sb_error *err)
{
    memset(t, 0, sizeof *t);
    /* the runs of a case flooded in one session (SB_SESSION_CASE_RUNS_MAX)
     * are no A/A runs: their copies would meet as the square of their number */
    char *flooded = calloc(runs->n + 1, 1);
    if (!flooded)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t lo = 0; lo < runs->n;) {
        size_t hi = case_end(runs, lo);
        if (hi - lo > SB_SESSION_CASE_RUNS_MAX)
            memset(flooded + lo, 1, hi - lo);
        lo = hi;
    }
    int rc = SB_OK;
    for (size_t i = 0; i < runs->n && rc == SB_OK; i++) {
        const sb_session_run *a = &runs->v[i];
        if (a->copy != 0 || !m->kernel[i] || flooded[i])
            continue;
        for (size_t j = i + 1; j < runs->n; j++) {
            const sb_session_run *b = &runs->v[j];
            if (b->copy != 1 || !m->kernel[j] || flooded[j] || !same_str(a->session_id, b->session_id) ||
                !same_str(a->case_key, b->case_key) || !same_str(a->provider, b->provider) ||
                m->nk[i] != m->nk[j] || m->nk[i] < 2)
                continue;
            sb_paired p;
            if ((rc = sb_paired_ratio(m->kernel[i], m->kernel[j], m->nk[i], level, &p, err)) != SB_OK)
                break;
            aa_change *v = realloc(t->v, (t->n + 1) * sizeof *v);
            if (!v) {
                rc = sb_error_set(err, NULL, NULL, "out of memory");
                break;
            }
            t->v = v;
            t->v[t->n++] = (aa_change){a, fabs(p.ratio - 1.0)};
        }
    }
    free(flooded);
    return rc;
}

/* The pair's threshold (sb_session_pair.threshold): sb_aa_threshold of
 * the A/A change (sb_aa_change) of the case's copies of either provider on
 * the pair's GPU, else of every A/A comparison on that GPU. */
static int pair_threshold(const aa_table *t, sb_session_pair *p, double floor, sb_error *err)
{
    double *mine = malloc((t->n + 1) * sizeof *mine), *all = malloc((t->n + 1) * sizeof *all);
    size_t nmine = 0, nall = 0;
    if (!mine || !all) {
        free(mine);
        free(all);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < t->n; i++) {
        const sb_session_run *r = t->v[i].run;
        if (!same_str(r->gpu_uuid, p->target->gpu_uuid))
            continue;
        all[nall++] = t->v[i].change;
        if (same_str(r->case_key, p->target->case_key) &&
            (same_str(r->provider, p->target->provider) || same_str(r->provider, p->base->provider)))
            mine[nmine++] = t->v[i].change;
    }
    p->aa_cases = nmine > 0;
    double *v = nmine ? mine : all;
    size_t n = nmine ? nmine : nall;
    double change = -1.0;
    if (n) {
        sb_sort_ascending(v, n);
        change = sb_aa_change(v, n);
    }
    p->threshold = sb_aa_threshold(change, floor);
    free(mine);
    free(all);
    return SB_OK;
}

static int pair_push(sb_session_report *r, const sb_session_pair *p)
{
    sb_session_pair *v = realloc(r->pairs, (r->npairs + 1) * sizeof *v);
    if (!v)
        return -1;
    r->pairs = v;
    r->pairs[r->npairs++] = *p;
    return 0;
}

/* Pairs of target run t with the other runs of its session's case:
 * runs [lo, hi) share session and case. */
static int pair_target(const sb_session_runs *runs, const medians *m, size_t lo, size_t hi, size_t t,
                       double level, sb_session_report *out, sb_error *err)
{
    for (size_t i = lo; i < hi; i++) {
        const sb_session_run *b = &runs->v[i];
        if (i == t || b->copy != 0 || !m->kernel[i])
            continue;
        if (runs->v[t].implausible || b->implausible) {
            out->implausible++;
            continue;
        }
        const char *why = unpairable(&runs->v[t], b, m, t, i);
        if (why) {
            if (!out->refused++)
                snprintf(out->first_refusal, sizeof out->first_refusal, "runs %lld and %lld: different %s",
                         (long long)runs->v[t].run_id, (long long)b->run_id, why);
            continue;
        }
        sb_session_pair p = {.target = &runs->v[t], .base = b};
        if (sb_paired_ratio(m->kernel[t], m->kernel[i], m->nk[t], level, &p.kernel, err) != SB_OK)
            return SB_ERR;
        if (m->call[t] && m->call[i] && m->nc[t] == m->nc[i] && m->nc[t] >= 2) {
            if (sb_paired_ratio(m->call[t], m->call[i], m->nc[t], level, &p.call, err) != SB_OK)
                return SB_ERR;
            p.has_call = 1;
        }
        p.target_ms = median_of(m->kernel[t], m->nk[t]);
        p.base_ms = median_of(m->kernel[i], m->nk[i]);
        if (pair_push(out, &p) != 0)
            return sb_error_set(err, NULL, NULL, "out of memory");
    }
    return SB_OK;
}

/* Pairs of one session's case: runs [lo, hi) share session and case;
 * target NULL: every provider's copy 0 is a target. */
static int pair_case(const sb_session_runs *runs, const medians *m, size_t lo, size_t hi, const char *target,
                     double level, sb_session_report *out, sb_error *err)
{
    for (size_t t = lo; t < hi; t++) {
        if (runs->v[t].copy != 0 || !m->kernel[t] || (target && !same_str(runs->v[t].provider, target)))
            continue;
        if (pair_target(runs, m, lo, hi, t, level, out, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

/* strcmp with NULL before any text: an order for sorting; sameness
 * stays same_str's */
static int strcmp_null(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

typedef struct pair_ref {
    sb_session_pair *p;
    size_t i;
} pair_ref;

static int newest_cmp(const void *x, const void *y)
{
    const pair_ref *ra = x, *rb = y;
    const sb_session_pair *a = ra->p, *b = rb->p;
    int c;
    if ((c = strcmp_null(a->target->case_key, b->target->case_key)) ||
        (c = strcmp_null(a->target->sku, b->target->sku)) ||
        (c = strcmp_null(a->target->provider, b->target->provider)) ||
        (c = strcmp_null(a->base->provider, b->base->provider)))
        return c;
    return (ra->i > rb->i) - (ra->i < rb->i);
}

/* same_str's sameness: a NULL field matches nothing, not even itself */
static int same_key(const sb_session_pair *a, const sb_session_pair *b)
{
    return same_str(a->target->case_key, b->target->case_key) && same_str(a->target->sku, b->target->sku) &&
           same_str(a->target->provider, b->target->provider) && same_str(a->base->provider, b->base->provider);
}

/* The newest session's pair of each (case, SKU, target, baseline): pairs
 * come in session start order, so a later one replaces an earlier one.
 * Marked once through a sort of the pairs' indices: comparing each pair
 * with every later one takes hours where a session holds a few hundred
 * providers of one case (their pairs grow as the square). */
static int mark_newest(sb_session_report *r, sb_error *err)
{
    pair_ref *idx = malloc((r->npairs + 1) * sizeof *idx);
    if (!idx)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < r->npairs; i++)
        idx[i] = (pair_ref){&r->pairs[i], i};
    qsort(idx, r->npairs, sizeof *idx, newest_cmp);
    for (size_t k = 0; k < r->npairs; k++)
        idx[k].p->newest = k + 1 == r->npairs || !same_key(idx[k].p, idx[k + 1].p);
    free(idx);
    return SB_OK;
}

/* Each pair's threshold and verdict, from the A/A runs among runs. */
static int judge_pairs(const sb_session_runs *runs, const medians *m, double level, double floor,
                       sb_session_report *r, sb_error *err)
{
    aa_table t;
    if (aa_collect(runs, m, level, &t, err) != SB_OK) {
        free(t.v);
        return SB_ERR;
    }
    int rc = SB_OK;
    for (size_t i = 0; i < r->npairs && rc == SB_OK; i++) {
        sb_session_pair *p = &r->pairs[i];
        rc = pair_threshold(&t, p, floor, err);
        /* the target's time over the base's: the inverse of the speedup */
        sb_paired inv = {p->kernel.n, 1.0 / p->kernel.ratio, 1.0 / p->kernel.hi, 1.0 / p->kernel.lo,
                         p->kernel.log_se};
        p->verdict = sb_paired_judge(&inv, p->threshold);
    }
    free(t.v);
    return rc;
}

/* The geomean of the kernel-time speedups of pairs[idx[0..count)], the
 * worst pair and the wins and losses by their verdicts. */
int sb_session_summarize(const sb_session_pair *pairs, const size_t *idx, size_t count, double level, sb_paired *geo,
                         size_t *worst, size_t *wins, size_t *losses, sb_error *err)
{
    sb_paired *k = malloc((count + 1) * sizeof *k);
    if (!k)
        return sb_error_set(err, NULL, NULL, "out of memory");
    *worst = idx[0];
    for (size_t c = 0; c < count; c++) {
        const sb_session_pair *p = &pairs[idx[c]];
        k[c] = p->kernel;
        if (p->kernel.ratio < pairs[*worst].kernel.ratio)
            *worst = idx[c];
        *wins += p->verdict == SB_PAIRED_FASTER;
        *losses += p->verdict == SB_PAIRED_SLOWER;
    }
    int rc = sb_paired_geomean(k, count, level, geo, err);
    free(k);
    return rc;
}

static int group_cmp(const void *x, const void *y)
{
    const pair_ref *ra = x, *rb = y;
    const sb_session_run *a = ra->p->target, *b = rb->p->target;
    int c;
    if ((c = strcmp_null(a->op, b->op)) || (c = strcmp_null(a->sku, b->sku)) ||
        (c = strcmp_null(a->provider, b->provider)) || (c = strcmp_null(ra->p->base->provider, rb->p->base->provider)))
        return c;
    return (ra->i > rb->i) - (ra->i < rb->i);
}

static int same_group(const sb_session_pair *a, const sb_session_pair *b)
{
    return same_str(a->target->op, b->target->op) && same_str(a->target->sku, b->target->sku) &&
           same_str(a->target->provider, b->target->provider) && same_str(a->base->provider, b->base->provider);
}

/* A group's run of refs, [start, start + count), and the index of its
 * first pair (refs[start].i). */
typedef struct group_span {
    size_t start, count, first;
} group_span;

static int first_index_cmp(const void *x, const void *y)
{
    size_t a = ((const group_span *)x)->first, b = ((const group_span *)y)->first;
    return (a > b) - (a < b);
}

/* Groups of the newest pairs by op, SKU, target and baseline, in the
 * order of their first pair, each with its pairs in order: found through
 * one sort, since looking each pair up among the groups made so far takes
 * hours where a session holds a few hundred providers of one case. */
static int make_groups(sb_session_report *r, double level, sb_error *err)
{
    pair_ref *refs = malloc((r->npairs + 1) * sizeof *refs);
    group_span *spans = malloc((r->npairs + 1) * sizeof *spans);
    size_t n = 0, nspans = 0;
    if (!refs || !spans) {
        free(refs);
        free(spans);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < r->npairs; i++)
        if (r->pairs[i].newest)
            refs[n++] = (pair_ref){&r->pairs[i], i};
    qsort(refs, n, sizeof *refs, group_cmp);
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || !same_group(refs[k - 1].p, refs[k].p))
            spans[nspans++] = (group_span){k, 0, refs[k].i};
        spans[nspans - 1].count++;
    }
    /* the groups in the order of their first pairs (indices differ, so
     * the order is total) */
    qsort(spans, nspans, sizeof *spans, first_index_cmp);
    r->groups = calloc(nspans + 1, sizeof *r->groups);
    int rc = r->groups ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t g = 0; g < nspans && rc == SB_OK; g++) {
        const group_span *sp = &spans[g];
        sb_session_group *gr = &r->groups[g];
        const sb_session_pair *p = refs[sp->start].p;
        gr->op = p->target->op;
        gr->sku = p->target->sku;
        gr->provider = p->target->provider;
        gr->baseline = p->base->provider;
        if (!(gr->pair = malloc(sp->count * sizeof *gr->pair))) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        r->ngroups++;
        for (size_t k = 0; k < sp->count; k++)
            gr->pair[gr->count++] = refs[sp->start + k].i;
    }
    free(refs);
    free(spans);
    if (rc != SB_OK)
        return rc;
    for (size_t g = 0; g < r->ngroups; g++) {
        sb_session_group *gr = &r->groups[g];
        if (sb_session_summarize(r->pairs, gr->pair, gr->count, level, &gr->geomean, &gr->worst, &gr->wins, &gr->losses,
                      err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

int sb_session_compare(const sb_session_runs *runs, const char *target, double level, double floor,
                       sb_session_report *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    medians m;
    if (medians_make(runs, &m, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    for (size_t lo = 0; lo < runs->n && rc == SB_OK;) {
        size_t hi = case_end(runs, lo);
        if (hi - lo > SB_SESSION_CASE_RUNS_MAX) {
            if (!out->refused++)
                snprintf(out->first_refusal, sizeof out->first_refusal,
                         "run %lld: one of %zu runs of one case in one session, more than %d",
                         (long long)runs->v[lo].run_id, hi - lo, SB_SESSION_CASE_RUNS_MAX);
        } else {
            rc = pair_case(runs, &m, lo, hi, target, level, out, err);
        }
        lo = hi;
    }
    if (rc == SB_OK)
        rc = mark_newest(out, err);
    if (rc == SB_OK)
        rc = judge_pairs(runs, &m, level, floor, out, err);
    medians_free(&m);
    if (rc == SB_OK)
        rc = make_groups(out, level, err);
    if (rc != SB_OK)
        sb_session_report_free(out);
    return rc;
}

void sb_session_report_free(sb_session_report *r)
{
    for (size_t g = 0; g < r->ngroups; g++)
        free(r->groups[g].pair);
    free(r->groups);
    free(r->pairs);
    memset(r, 0, sizeof *r);
}

void sb_verdict_counts(sb_buf *out, size_t wins, size_t losses)
{
    sb_buf_printf(out, "%zu %s, %zu %s", wins, wins == 1 ? sb_verdict_one[SB_PAIRED_FASTER] : sb_verdict_many[SB_PAIRED_FASTER],
                  losses, losses == 1 ? sb_verdict_one[SB_PAIRED_SLOWER] : sb_verdict_many[SB_PAIRED_SLOWER]);
}

void sb_session_ids_text(const sb_session_pair *pairs, const size_t *idx, size_t count, sb_buf *out)
{
    /* the smallest id above the last one written, until none is left */
    const char *last = NULL;
    for (;;) {
        const char *next = NULL;
        for (size_t i = 0; i < count; i++) {
            const char *id = pairs[idx[i]].target->session_id;
            if ((!last || strcmp(id, last) > 0) && (!next || strcmp(id, next) < 0))
                next = id;
        }
        if (!next)
            return;
        sb_buf_printf(out, "%s%.*s", last ? ", " : "", SB_SESSION_SHORT, next);
        last = next;
    }
}

/* ---- Headlines ---------------------------------------------------------- */

/* The position of provider p in the NULL-ended list bases; its length for
 * any other provider. */
static int rank_in(const char *const *bases, const char *p)
{
    int i = 0;
    for (; bases[i]; i++)
        if (strcmp(bases[i], p) == 0)
            return i;
    return i;
}

/* 1 when pair p may stand in a headline against the baselines asked for. */
static int headline_pair(const sb_session_pair *p, const char *op, const char *const *bases)
{
    const char *t = p->target->provider, *b = p->base->provider;
    if (op && !same_str(p->target->op, op))
        return 0;
    int rb = rank_in(bases, b);
    return bases[rb] && rank_in(bases, t) > rb;
}

static int same_headline(const sb_session_headline *h, const sb_session_pair *p)
{
    const sb_session_run *t = p->target;
    return same_str(h->op, t->op) && same_str(h->mode, t->mode) && same_str(h->dtype, t->dtype) &&
           same_str(h->sku, t->sku) && same_str(h->provider, t->provider) &&
           same_str(h->baseline, p->base->provider) && same_str(h->session_id, t->session_id);
}

static int headline_cmp(const void *x, const void *y)
{
    const sb_session_headline *a = x, *b = y;
    int c;
    if ((c = strcmp(a->op, b->op)) || (c = strcmp(a->mode, b->mode)) || (c = strcmp(a->dtype, b->dtype)))
        return c;
    int ra = sb_arch_rank(a->arch), rb = sb_arch_rank(b->arch);
    if (ra != rb)
        return ra - rb;
    if ((c = strcmp(a->arch, b->arch)) || (c = strcmp(a->sku, b->sku)))
        return c;
    if (a->baseline_rank != b->baseline_rank)
        return a->baseline_rank - b->baseline_rank;
    if ((c = strcmp(a->baseline, b->baseline)) || (c = strcmp(a->provider, b->provider)))
        return c;
    /* the pairs come in session start order: the earlier session first */
    return (a->pair[0] > b->pair[0]) - (a->pair[0] < b->pair[0]);
}

static int headline_add(sb_session_headlines *h, const char *const *bases, size_t i)
{
    const sb_session_pair *p = &h->report.pairs[i];
    size_t k = 0;
    while (k < h->n && !same_headline(&h->v[k], p))
        k++;
    if (k == h->n) {
        sb_session_headline *v = realloc(h->v, (h->n + 1) * sizeof *v);
        if (!v)
            return -1;
        h->v = v;
        const sb_session_run *t = p->target;
        v[h->n] = (sb_session_headline){.op = t->op, .mode = t->mode, .dtype = t->dtype, .sku = t->sku,
                                        .arch = t->arch, .provider = t->provider, .baseline = p->base->provider,
                                        .session_id = t->session_id, .gpu_uuid = t->gpu_uuid,
                                        .timing_method = t->timing_method, .check_version = t->check_version,
                                        .baseline_rank = rank_in(bases, p->base->provider)};
        h->n++;
    }
    size_t *v = realloc(h->v[k].pair, (h->v[k].count + 1) * sizeof *v);
    if (!v)
        return -1;
    h->v[k].pair = v;
    v[h->v[k].count++] = i;
    return 0;
}

int sb_session_headlines_make(const sb_session_runs *runs, const char *op, const char *const *bases, double level,
                              double floor, sb_session_headlines *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (sb_session_compare(runs, NULL, level, floor, &out->report, err) != SB_OK)
        return SB_ERR;
    const sb_session_report *r = &out->report;
    for (size_t i = 0; i < r->npairs; i++) {
        if (!headline_pair(&r->pairs[i], op, bases) || !r->pairs[i].newest)
            continue;
        if (headline_add(out, bases, i) != 0) {
            sb_session_headlines_free(out);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
    }
    for (size_t k = 0; k < out->n; k++) {
        sb_session_headline *h = &out->v[k];
        if (sb_session_summarize(r->pairs, h->pair, h->count, level, &h->geomean, &h->worst, &h->wins, &h->losses, err) !=
            SB_OK) {
            sb_session_headlines_free(out);
            return SB_ERR;
        }
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, headline_cmp);
    return SB_OK;
}

int sb_session_headlines_take(sb_session_runs *runs, const char *op, const char *const *bases, long long from,
                              long long to, sb_session_headlines *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    sb_session_runs in = *runs;
    sb_session_run *window = NULL;
    if (to > from) {
        window = malloc((runs->n + 1) * sizeof *window);
        if (!window) {
            sb_session_runs_free(runs);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        in.v = window;
        in.n = 0;
        for (size_t i = 0; i < runs->n; i++) {
            long long t;
            if (runs->v[i].finished_at && sb_rfc3339_parse(runs->v[i].finished_at, &t) == 0 && t >= from && t < to)
                window[in.n++] = runs->v[i]; /* shares runs->v[i]'s text */
        }
    }
    int rc = sb_session_headlines_make(&in, op, bases, SB_HEADLINE_LEVEL, SB_HEADLINE_FLOOR, out, err);
    /* the pairs point into runs->v or window, which move with them */
    out->runs = *runs;
    out->window = window;
    memset(runs, 0, sizeof *runs);
    if (rc != SB_OK)
        sb_session_headlines_free(out);
    return rc;
}

void sb_session_headlines_free(sb_session_headlines *h)
{
    for (size_t k = 0; k < h->n; k++)
        free(h->v[k].pair);
    free(h->v);
    sb_session_report_free(&h->report);
    free(h->window);
    sb_session_runs_free(&h->runs);
    memset(h, 0, sizeof *h);
}

const sb_session_headline *sb_session_headline_find(const sb_session_headlines *h, const char *op,
                                                    const char *mode, const char *dtype, const char *sku,
                                                    const char *provider, const char *baseline)
{
    const sb_session_headline *found = NULL;
    for (size_t k = 0; k < h->n; k++) {
        const sb_session_headline *x = &h->v[k];
        if (same_str(x->op, op) && (!mode || same_str(x->mode, mode)) && (!dtype || same_str(x->dtype, dtype)) &&
            same_str(x->sku, sku) && same_str(x->provider, provider) && same_str(x->baseline, baseline) &&
            (!found || x->pair[0] > found->pair[0]))
            found = x;
    }
    return found;
}

/* 1 when a case key (op|mode|dtype|shape_key|params_json) is the session
 * case's: the same op, mode, dtype and shape, and every parameter the
 * session names with the same value. A harness that names more (solbench's
 * weight_dtype, chunk and accum) measured that op and shape, maybe in a
 * configuration of its own (Liger's FLCE with accum=fp32 is the variant
 * liger-fp32-accum, not liger): the session's pair, each provider at its
 * defaults, is the figure for it. */
static int same_case(const char *session_key, const char *key)
{
    if (same_str(session_key, key))
        return 1;
    const char *a = session_key, *b = key;
    for (int bars = 0; bars < 4; a++, b++) {
        if (*a != *b || !*a)
            return 0;
        bars += *a == '|';
    }
    json_t *sp = json_loads(a, 0, NULL), *p = json_loads(b, 0, NULL);
    int ok = json_is_object(sp) && json_is_object(p);
    const char *name;
    json_t *v;
    if (ok)
        json_object_foreach(sp, name, v)
        {
            json_t *w = json_object_get(p, name);
            if (!w || !(json_equal(v, w) || (json_is_number(v) && json_is_number(w) &&
                                             json_number_value(v) == json_number_value(w)))) {
                ok = 0;
                break;
            }
        }
    json_decref(sp);
    json_decref(p);
    return ok;
}

int sb_session_headlines_cover(const sb_session_headlines *h, const char *case_key, const char *sku,
                               const char *provider, const char *baseline)
{
    for (size_t k = 0; h && k < h->n; k++) {
        const sb_session_headline *x = &h->v[k];
        if (!same_str(x->sku, sku) || !same_str(x->provider, provider) || !same_str(x->baseline, baseline))
            continue;
        for (size_t c = 0; c < x->count; c++)
            if (same_case(h->report.pairs[x->pair[c]].target->case_key, case_key))
                return 1;
    }
    return 0;
}

/* ---- A/A noise ---------------------------------------------------------- */

const char *sb_noise_kind_name(int kind)
{
    static const char *const names[] = {"same card, one session (paired)", "same card, two sessions",
                                        "two cards of one SKU"};
    return kind >= 0 && kind < SB_NOISE_KINDS ? names[kind] : "unknown";
}

static int kind_add(sb_noise_kind *k, double change)
{
    double *v = realloc(k->abs_change, (k->n + 1) * sizeof *v);
    if (!v)
        return -1;
    k->abs_change = v;
    v[k->n++] = change;
    return 0;
}

/* Copies 0 and 1 of one provider in one session, round by round. */
static int noise_paired(const double *a, const double *b, size_t n, const sb_noise_opts *o, sb_noise_kind *k,
                        double *ratio, sb_error *err)
{
    sb_paired p;
    if (sb_paired_ratio(a, b, n, o->level, &p, err) != SB_OK)
        return SB_ERR;
    *ratio = p.ratio;
    sb_paired_verdict v = sb_paired_judge(&p, o->paired_threshold);
    if (v == SB_PAIRED_SLOWER || v == SB_PAIRED_FASTER)
        k->flagged++;
    if (kind_add(k, fabs(p.ratio - 1.0)) != 0)
        return sb_error_set(err, NULL, NULL, "out of memory");
    double *s = malloc(n * sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of memory");
    k->power_n++;
    for (int j = 0; j < 4; j++) {
        for (size_t i = 0; i < n; i++)
            s[i] = b[i] * (1.0 + sb_noise_shifts[j]);
        if (sb_paired_ratio(a, s, n, o->level, &p, err) != SB_OK) {
            free(s);
            return SB_ERR;
        }
        if (sb_paired_judge(&p, o->paired_threshold) == SB_PAIRED_SLOWER)
            k->detected[j]++;
    }
    free(s);
    return SB_OK;
}

/* One side's round medians against the other's, unpaired: flagged when
 * the Mann-Whitney test rejects at alpha and the medians differ by more
 * than the threshold. */
static int unpaired_flags(const double *a, size_t na, const double *b, size_t nb, const sb_noise_opts *o,
                          sb_mw_cache *cache, int *flag)
{
    sb_mw_result mw;
    if (sb_mann_whitney_cached(a, na, b, nb, cache, &mw) != 0)
        return -1;
    double ratio = sb_median(b, nb) / sb_median(a, na);
    *flag = mw.p < o->alpha && fabs(ratio - 1.0) > o->unpaired_threshold;
    return 0;
}

static int noise_unpaired(const double *a, size_t na, const double *b, size_t nb, const sb_noise_opts *o,
                          sb_mw_cache *cache, sb_noise_kind *k, double *ratio, sb_error *err)
{
    int flag;
    *ratio = sb_median(b, nb) / sb_median(a, na);
    double *s = malloc(nb * sizeof *s);
    if (!s || unpaired_flags(a, na, b, nb, o, cache, &flag) != 0) {
        free(s);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    k->flagged += (size_t)flag;
    if (kind_add(k, fabs(*ratio - 1.0)) != 0) {
        free(s);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    k->power_n++;
    for (int j = 0; j < 4; j++) {
        for (size_t i = 0; i < nb; i++)
            s[i] = b[i] * (1.0 + sb_noise_shifts[j]);
        int slower;
        if (unpaired_flags(a, na, s, nb, o, cache, &slower) != 0) {
            free(s);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        if (slower && sb_median(s, nb) > sb_median(a, na))
            k->detected[j]++;
    }
    free(s);
    return SB_OK;
}

/* strcmp with NULL first (only to sort: same_str never matches NULL). */
static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* A run (or a comparison) with its place, sorted by what its partners
 * must share and then by place. */
typedef struct placed {
    const void *x;
    size_t at;
} placed;

/* An A/A comparison, kept for the held-out pass: a and b are the round
 * medians of its two sides (paired for SB_NOISE_SESSION). */
typedef struct aa_pair {
    int kind;
    const sb_session_run *ra, *rb;
    const double *a, *b;
    size_t na, nb;
    double change; /* |ratio - 1| */
    double ratio;  /* b over a */
} aa_pair;

int sb_noise_same_card(int kind)
{
    return kind == SB_NOISE_SESSION || kind == SB_NOISE_CARD;
}

static int aa_let_go(const aa_pair *v)
{
    return v->ra->hold_timeouts > 0 || v->rb->hold_timeouts > 0;
}

/* Orders comparisons by their key for the held-out pass: one case,
 * provider and SKU on the same relation of cards (one card, or two), under
 * one protocol of inputs, both held or both with a hold let go
 * (report/regress.c keys a series' A/A noise the same way). Comparisons of
 * one key that share no session are held out for each other. */
static int held_key_cmp(const aa_pair *a, const aa_pair *b)
{
    int sa = sb_noise_same_card(a->kind), sb = sb_noise_same_card(b->kind);
    if (sa != sb)
        return sa - sb;
    if (a->ra->input_sets != b->ra->input_sets)
        return a->ra->input_sets < b->ra->input_sets ? -1 : 1;
    int la = aa_let_go(a), lb = aa_let_go(b);
    if (la != lb)
        return la - lb;
    int c;
    if ((c = cmp_str(a->ra->case_key, b->ra->case_key)) || (c = cmp_str(a->ra->provider, b->ra->provider)))
        return c;
    return cmp_str(a->ra->sku, b->ra->sku);
}

static int cmp_held(const void *p, const void *q)
{
    const placed *x = p, *y = q;
    int c = held_key_cmp(x->x, y->x);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Flags (and says slower) the comparison of a with b at threshold thr,
 * as its kind judges one: paired by sb_paired_judge, unpaired by the
 * Mann-Whitney test of the round medians and the change of their medians. */
static int held_out_judge(const aa_pair *v, const double *b, const sb_noise_opts *o, double thr,
                          sb_mw_cache *cache, int *flag, int *slower, sb_error *err)
{
    if (v->kind == SB_NOISE_SESSION) {
        sb_paired p;
        if (sb_paired_ratio(v->a, b, v->na, o->level, &p, err) != SB_OK)
            return SB_ERR;
        sb_paired_verdict verdict = sb_paired_judge(&p, thr);
        *flag = verdict == SB_PAIRED_SLOWER || verdict == SB_PAIRED_FASTER;
        *slower = verdict == SB_PAIRED_SLOWER;
        return SB_OK;
    }
    sb_noise_opts u = *o;
    u.unpaired_threshold = thr;
    if (unpaired_flags(v->a, v->na, b, v->nb, &u, cache, flag) != 0)
        return sb_error_set(err, NULL, NULL, "out of memory");
    *slower = *flag && sb_median(b, v->nb) > sb_median(v->a, v->na);
    return SB_OK;
}

static int cmp_placed_str(const void *p, const void *q)
{
    const placed *x = p, *y = q;
    int c = cmp_str(x->x, y->x);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The sessions of each comparison as small numbers: side[2 i] and
 * side[2 i + 1] for v[i]'s two runs (the same number within a session);
 * SIZE_MAX for a run without a session id, which shares none. -1 when out
 * of memory. */
static int session_numbers(const aa_pair *v, size_t n, size_t *side, size_t *count)
{
    placed *p = malloc((n ? 2 * n : 1) * sizeof *p);
    if (!p)
        return -1;
    for (size_t i = 0; i < n; i++) {
        p[2 * i] = (placed){v[i].ra->session_id, 2 * i};
        p[2 * i + 1] = (placed){v[i].rb->session_id, 2 * i + 1};
    }
    qsort(p, 2 * n, sizeof *p, cmp_placed_str);
    size_t next = 0;
    for (size_t k = 0; k < 2 * n; k++) {
        if (!p[k].x) {
            side[p[k].at] = SIZE_MAX;
            continue;
        }
        if (k > 0 && p[k - 1].x && strcmp(p[k - 1].x, p[k].x) == 0)
            side[p[k].at] = side[p[k - 1].at];
        else
            side[p[k].at] = next++;
    }
    *count = next;
    free(p);
    return 0;
}

/* 1 when comparisons i and j share a session (side: session_numbers). */
static int share_session(const size_t *side, size_t i, size_t j)
{
    size_t a = side[2 * i], b = side[2 * i + 1], c = side[2 * j], d = side[2 * j + 1];
    return (a != SIZE_MAX && (a == c || a == d)) || (b != SIZE_MAX && (b == c || b == d));
}

static int cmp_change_desc(const void *p, const void *q)
{
    const aa_pair *a = ((const placed *)p)->x, *b = ((const placed *)q)->x;
    return (a->change < b->change) - (a->change > b->change);
}

/* A comparison's two sessions, lo <= hi (session_numbers). */
typedef struct span {
    size_t lo, hi, at;
} span;

static int cmp_span(const void *p, const void *q)
{
    const span *a = p, *b = q;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return (a->hi > b->hi) - (a->hi < b->hi);
}

/* The sessions of comparison i as an ordered pair (lo <= hi). */
static void session_span(const size_t *side, size_t i, size_t *lo, size_t *hi)
{
    size_t a = side[2 * i], b = side[2 * i + 1];
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* The held-out threshold of every comparison of one key, the run
 * group[0..g) of comparisons sharing held_key_cmp: of the comparisons of
 * the group that share no session with it, m of them, the one
 * sb_aa_change would pick once sorted, found from the largest down
 * without sorting them again. m is the group less those that touch either
 * of its sessions: cnt[s] counts the group's comparisons touching session
 * s, and those touching both of its two sessions are the ones between
 * exactly those two (same_span). So each comparison reads the twentieth
 * of its key above the quantile and the few sharing a session, where it
 * gathered and sorted all of them. */
static void held_of_group(const aa_pair *v, const placed *group, size_t g, const size_t *side, size_t *cnt,
                          size_t *same_span, span *spans, placed *desc, double *held_change, size_t *held_n)
{
    for (size_t k = 0; k < g; k++) {
        size_t lo, hi, i = group[k].at;
        session_span(side, i, &lo, &hi);
        if (lo != SIZE_MAX)
            cnt[lo]++;
        if (hi != SIZE_MAX && hi != lo)
            cnt[hi]++;
        desc[k] = group[k];
    }
    qsort(desc, g, sizeof *desc, cmp_change_desc);
    /* same_span[i]: the group's comparisons between exactly i's two
     * sessions, counted over the group sorted by its pairs of sessions */
    for (size_t k = 0; k < g; k++) {
        spans[k].at = group[k].at;
        session_span(side, group[k].at, &spans[k].lo, &spans[k].hi);
    }
    qsort(spans, g, sizeof *spans, cmp_span);
    for (size_t a = 0; a < g;) {
        size_t b = a + 1;
        while (b < g && spans[b].lo == spans[a].lo && spans[b].hi == spans[a].hi)
            b++;
        for (size_t k = a; k < b; k++)
            same_span[spans[k].at] = b - a;
        a = b;
    }
    for (size_t k = 0; k < g; k++) {
        size_t i = group[k].at, lo, hi;
        session_span(side, i, &lo, &hi);
        size_t excluded = 0;
        if (lo != SIZE_MAX)
            excluded += cnt[lo];
        if (hi != SIZE_MAX && hi != lo)
            excluded += cnt[hi] - same_span[i];
        size_t m = g - excluded;
        held_n[i] = m;
        held_change[i] = NAN;
        if (!m)
            continue;
        size_t from_top = m - 1 - sb_quantile_index(m, SB_AA_QUANTILE), seen = 0;
        for (size_t d = 0; d < g; d++) {
            size_t j = desc[d].at;
            if (share_session(side, i, j))
                continue;
            if (seen++ == from_top) {
                held_change[i] = v[j].change;
                break;
            }
        }
    }
    for (size_t k = 0; k < g; k++) {
        size_t lo, hi;
        session_span(side, group[k].at, &lo, &hi);
        if (lo != SIZE_MAX)
            cnt[lo] = 0;
        if (hi != SIZE_MAX)
            cnt[hi] = 0;
    }
}

/* held[i] and held_n[i] for every comparison of v (held_of_group), key by
 * key (held_key_cmp). -1 when out of memory. */
static int held_out_changes(const aa_pair *v, size_t n, double *held, size_t *held_n)
{
    size_t m = n ? n : 1, nsessions = 0;
    placed *sorted = malloc(m * sizeof *sorted), *desc = malloc(m * sizeof *desc);
    size_t *same_span = malloc(m * sizeof *same_span), *side = malloc(2 * m * sizeof *side), *cnt = NULL;
    span *spans = malloc(m * sizeof *spans);
    int rc = -1;
    if (sorted && desc && same_span && side && spans && session_numbers(v, n, side, &nsessions) == 0 &&
        (cnt = calloc(nsessions ? nsessions : 1, sizeof *cnt)) != NULL) {
        for (size_t i = 0; i < n; i++)
            sorted[i] = (placed){&v[i], i};
        qsort(sorted, n, sizeof *sorted, cmp_held);
        for (size_t a = 0; a < n;) {
            size_t b = a + 1;
            while (b < n && held_key_cmp(sorted[a].x, sorted[b].x) == 0)
                b++;
            held_of_group(v, sorted + a, b - a, side, cnt, same_span, spans, desc, held, held_n);
            a = b;
        }
        rc = 0;
    }
    free(sorted);
    free(desc);
    free(same_span);
    free(side);
    free(spans);
    free(cnt);
    return rc;
}

/* Each comparison judged again with a threshold of its case's own, taken
 * from the comparisons of the same case, provider, SKU and relation of
 * cards in sessions other than its two (held out): the larger of the
 * kind's floor and 1.5 times sb_aa_change of their |ratio - 1|. What each
 * comparison got goes to out->cmp[i] (the same order as v). */
static int noise_held_out(const aa_pair *v, size_t n, const sb_noise_opts *o, sb_mw_cache *cache,
                          sb_noise_report *out, sb_error *err)
{
    /* held[i], held_n[i]: the held-out change of v[i] and how many
     * comparisons it was taken from */
    double *held = malloc((n ? n : 1) * sizeof *held);
    size_t *held_n = malloc((n ? n : 1) * sizeof *held_n);
    if (!held || !held_n || held_out_changes(v, n, held, held_n) != 0) {
        free(held);
        free(held_n);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    int rc = SB_OK;
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        size_t nheld = held_n[i];
        sb_noise_cmp *c = &out->cmp[i];
        c->threshold = NAN;
        if (!nheld)
            continue;
        sb_noise_kind *k = &out->kind[v[i].kind];
        double thr = sb_aa_threshold(held[i],
                                     v[i].kind == SB_NOISE_SESSION ? o->paired_threshold : o->unpaired_threshold);
        int flag, slower;
        if (held_out_judge(&v[i], v[i].b, o, thr, cache, &flag, &slower, err) != SB_OK) {
            rc = SB_ERR;
            break;
        }
        int let_go = c->let_go;
        c->threshold = thr;
        c->held_out = nheld;
        c->flagged = flag;
        size_t *n_of = let_go ? &k->let_go_n : &k->derived_n;
        size_t *flagged = let_go ? &k->let_go_flagged : &k->derived_flagged;
        size_t *detected = let_go ? k->let_go_detected : k->derived_detected;
        (*n_of)++;
        *flagged += (size_t)flag;
        double *s = malloc((v[i].nb ? v[i].nb : 1) * sizeof *s);
        if (!s) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        for (int j = 0; j < 4 && rc == SB_OK; j++) {
            for (size_t r = 0; r < v[i].nb; r++)
                s[r] = v[i].b[r] * (1.0 + sb_noise_shifts[j]);
            rc = held_out_judge(&v[i], s, o, thr, cache, &flag, &slower, err);
            c->detected[j] = slower;
            detected[j] += (size_t)slower;
        }
        free(s);
    }
    free(held);
    free(held_n);
    return rc;
}

/* Keeps comparison v for the held-out pass and in out->cmp. */
static int aa_keep(aa_pair **aa, size_t *naa, const aa_pair *v, sb_noise_report *out, sb_error *err)
{
    aa_pair *nv = realloc(*aa, (*naa + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    *aa = nv;
    nv[(*naa)++] = *v;
    sb_noise_cmp *nc = realloc(out->cmp, (out->ncmp + 1) * sizeof *nc);
    if (!nc)
        return sb_error_set(err, NULL, NULL, "out of memory");
    out->cmp = nc;
    nc[out->ncmp++] = (sb_noise_cmp){.kind = v->kind,
                                     .a = v->ra,
                                     .b = v->rb,
                                     .change = v->change,
                                     .ratio = v->ratio,
                                     .spread_a = sb_relative_stdev(v->a, v->na),
                                     .spread_b = sb_relative_stdev(v->b, v->nb),
                                     .let_go = aa_let_go(v),
                                     .threshold = NAN};
    return SB_OK;
}

static int cmp_partners(const void *p, const void *q)
{
    const placed *x = p, *y = q;
    const sb_session_run *a = x->x, *b = y->x;
    int c;
    if ((c = cmp_str(a->case_key, b->case_key)) || (c = cmp_str(a->provider, b->provider)) ||
        (c = cmp_str(a->timing_method, b->timing_method)) || (c = cmp_str(a->check_version, b->check_version)))
        return c;
    if (a->input_sets != b->input_sets)
        return a->input_sets < b->input_sets ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* next[i]: the next run after i (in the runs' order) that an A/A
 * comparison may pair it with (one case, provider, timing method, check
 * and protocol of inputs), SIZE_MAX for none: every run meets only its
 * possible partners, not every other run. -1 when out of memory. */
static int partners_make(const sb_session_runs *runs, const medians *m, size_t **next)
{
    *next = malloc((runs->n ? runs->n : 1) * sizeof **next);
    placed *v = malloc((runs->n ? runs->n : 1) * sizeof *v);
    if (!*next || !v) {
        free(*next);
        free(v);
        *next = NULL;
        return -1;
    }
    size_t n = 0;
    for (size_t lo = 0; lo < runs->n;) {
        size_t hi = case_end(runs, lo);
        /* a case flooded in one session has no partners, as it has no
         * pairs (SB_SESSION_CASE_RUNS_MAX): its copies would meet each
         * other as the square of their number */
        for (size_t i = lo; i < hi; i++) {
            (*next)[i] = SIZE_MAX;
            if (m->kernel[i] && hi - lo <= SB_SESSION_CASE_RUNS_MAX)
                v[n++] = (placed){&runs->v[i], i};
        }
        lo = hi;
    }
    qsort(v, n, sizeof *v, cmp_partners);
    for (size_t k = 0; k + 1 < n; k++) {
        const sb_session_run *a = v[k].x, *b = v[k + 1].x;
        if (same_str(a->case_key, b->case_key) && same_str(a->provider, b->provider) &&
            same_str(a->timing_method, b->timing_method) && same_str(a->check_version, b->check_version) &&
            a->input_sets == b->input_sets)
            (*next)[v[k].at] = v[k + 1].at;
    }
    free(v);
    return 0;
}

int sb_noise_measure(const sb_session_runs *runs, const sb_noise_opts *o, sb_noise_report *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    medians m;
    if (medians_make(runs, &m, err) != SB_OK)
        return SB_ERR;
    size_t *next = NULL;
    if (partners_make(runs, &m, &next) != 0) {
        medians_free(&m);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    sb_mw_cache mw = {0};
    int rc = SB_OK;
    aa_pair *aa = NULL;
    size_t naa = 0;
    for (size_t i = 0; i < runs->n && rc == SB_OK; i++) {
        const sb_session_run *a = &runs->v[i];
        size_t across = 0;
        /* A session's runs lie together, in the order the sessions
         * started: a partner of another session is of a later one, and
         * every partner after it too. */
        for (size_t j = next[i]; j != SIZE_MAX && rc == SB_OK && across < SB_NOISE_ACROSS_SESSIONS; j = next[j]) {
            const sb_session_run *b = &runs->v[j];
            if (same_str(a->session_id, b->session_id)) {
                if (a->copy == 0 && b->copy == 1 && m.nk[i] == m.nk[j] && m.nk[i] >= 2) {
                    sb_noise_kind *k = &out->kind[SB_NOISE_SESSION];
                    double ratio = 1.0;
                    rc = noise_paired(m.kernel[i], m.kernel[j], m.nk[i], o, k, &ratio, err);
                    aa_pair v = {SB_NOISE_SESSION, a, b, m.kernel[i], m.kernel[j], m.nk[i], m.nk[j],
                                 rc == SB_OK ? k->abs_change[k->n - 1] : 0.0, ratio};
                    if (rc == SB_OK)
                        rc = aa_keep(&aa, &naa, &v, out, err);
                }
                continue;
            }
            /* across sessions: each side's copy 0, each pair of sessions
             * once, up to SB_NOISE_ACROSS_SESSIONS sessions after a's */
            if (a->copy != 0)
                break;
            if (b->copy != 0)
                continue;
            across++;
            int kind = same_str(a->gpu_uuid, b->gpu_uuid) ? SB_NOISE_CARD
                       : same_str(a->sku, b->sku)          ? SB_NOISE_SKU
                                                           : -1;
            if (kind < 0)
                continue;
            sb_noise_kind *k = &out->kind[kind];
            double ratio = 1.0;
            rc = noise_unpaired(m.kernel[i], m.nk[i], m.kernel[j], m.nk[j], o, &mw, k, &ratio, err);
            aa_pair v = {kind, a, b, m.kernel[i], m.kernel[j], m.nk[i], m.nk[j],
                         rc == SB_OK ? k->abs_change[k->n - 1] : 0.0, ratio};
            if (rc == SB_OK)
                rc = aa_keep(&aa, &naa, &v, out, err);
        }
    }
    if (rc == SB_OK)
        rc = noise_held_out(aa, naa, o, &mw, out, err);
    free(aa);
    free(next);
    sb_mw_cache_free(&mw);
    medians_free(&m);
    if (rc != SB_OK) {
        sb_noise_report_free(out);
        return SB_ERR;
    }
    for (int k = 0; k < SB_NOISE_KINDS; k++)
        if (out->kind[k].n)
            sb_sort_ascending(out->kind[k].abs_change, out->kind[k].n);
    return SB_OK;
}

int sb_noise_sku_change(const sb_noise_report *r, const char *sku, int let_go, double *change, size_t *n,
                        sb_error *err)
{
    *change = NAN;
    *n = 0;
    double *v = malloc((r->ncmp ? r->ncmp : 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < r->ncmp; i++) {
        const sb_noise_cmp *c = &r->cmp[i];
        if (c->kind == SB_NOISE_SKU && c->let_go == let_go && same_str(c->a->sku, sku))
            v[(*n)++] = c->change;
    }
    if (*n) {
        sb_sort_ascending(v, *n);
        *change = sb_aa_change(v, *n);
    }
    free(v);
    return SB_OK;
}

void sb_noise_report_free(sb_noise_report *r)
{
    for (int k = 0; k < SB_NOISE_KINDS; k++)
        free(r->kind[k].abs_change);
    free(r->cmp);
    memset(r, 0, sizeof *r);
}
