/* crossarch.c - cross-arch tables (crossarch.h). */
#include "crossarch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void sb_xa_free(sb_xa_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].rows);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

static int in_group(const sb_result *r, const sb_result *g)
{
    return strcmp(r->op, g->op) == 0 && strcmp(r->mode, g->mode) == 0 &&
           strcmp(r->dtype, g->dtype) == 0;
}

static double time_of(const sb_result *r, sb_time_kind k)
{
    return k == SB_TIME_KERNEL ? r->kernel_median_ms : r->median_ms;
}

static int row_cmp(const void *a, const void *b)
{
    const sb_xa_row *x = a, *y = b;
    double bx = isnan(x->bytes) ? -1 : x->bytes, by = isnan(y->bytes) ? -1 : y->bytes;
    if (bx != by)
        return bx < by ? -1 : 1;
    return strcmp(x->any->case_key, y->any->case_key);
}

static double geo_of(const double *v, size_t n)
{
    return n ? sb_geomean(v, n) : NAN;
}

static int build_table(const sb_snapshot *snap, const sb_pick *picks, size_t n, const sb_result *g,
                       const char *provider, const char *baseline, const sb_session_headlines *paired,
                       sb_xa_table *t, sb_error *err)
{
    memset(t, 0, sizeof *t);
    t->op = g->op;
    t->mode = g->mode;
    t->dtype = g->dtype;
    t->provider = provider;
    /* cards, by arch then SKU */
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (!r->passing || !in_group(r, g) || strcmp(r->provider, provider))
            continue;
        size_t k = 0;
        while (k < t->ncards && strcmp(t->sku[k], r->sku))
            k++;
        if (k == t->ncards && t->ncards < SB_XA_MAX_CARDS) {
            t->sku[t->ncards] = r->sku;
            t->arch[t->ncards++] = r->arch;
        }
    }
    sb_sort_skus(t->sku, t->arch, t->ncards);
    for (size_t k = 0; k < t->ncards; k++) {
        size_t nc = 0;
        long long cal = -1;
        const sb_ceiling *c = sb_snapshot_ceilings(snap, t->sku[k], &nc, &cal);
        t->copy_gbps[k] = NAN;
        for (size_t q = 0; q < nc; q++)
            if (strcmp(c[q].name, "bw.copy") == 0)
                t->copy_gbps[k] = c[q].value;
    }
    /* baselines */
    const char *const *cand = sb_headline_baselines;
    const char *one[2] = {baseline, NULL};
    if (baseline)
        cand = one;
    for (size_t b = 0; cand[b] && t->nbases < SB_XA_MAX_BASES; b++) {
        if (strcmp(cand[b], provider) == 0)
            continue;
        int has = 0;
        for (size_t i = 0; i < n && !has; i++)
            has = picks[i].r->passing && in_group(picks[i].r, g) &&
                  strcmp(picks[i].r->provider, cand[b]) == 0;
        if (has || baseline)
            t->base[t->nbases++] = cand[b];
    }
    /* rows: the provider's passing cases of the group */
    t->rows = calloc(n + 1, sizeof *t->rows);
    if (!t->rows)
        return sb_error_set(err, NULL, NULL, "out of memory");
    const char *first_suite = NULL;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (!r->passing || !in_group(r, g) || strcmp(r->provider, provider))
            continue;
        int seen = t->nrows && strcmp(t->rows[t->nrows - 1].any->case_key, r->case_key) == 0;
        if (seen)
            continue; /* picks are ordered by case, so a case's runs are adjacent */
        sb_xa_row *row = &t->rows[t->nrows++];
        row->any = r;
        row->bytes = r->bytes > 0 ? r->bytes : NAN;
        if (!first_suite)
            first_suite = r->suite;
        else if (strcmp(first_suite, r->suite))
            t->several_suites = 1;
        for (size_t k = 0; k < t->ncards; k++) {
            const sb_pick *p = sb_pick_find(picks, n, r->case_key, provider, t->sku[k]);
            row->cell[k].run = p && p->r->passing ? p->r : NULL;
        }
    }
    qsort(t->rows, t->nrows, sizeof *t->rows, row_cmp);
    /* which time: kernel where every run on that side recorded it */
    size_t with = 0, kernel = 0;
    for (size_t i = 0; i < t->nrows; i++)
        for (size_t k = 0; k < t->ncards; k++)
            if (t->rows[i].cell[k].run) {
                with++;
                kernel += t->rows[i].cell[k].run->kernel_median_ms > 0;
            }
    t->time = with && kernel == with ? SB_TIME_KERNEL : SB_TIME_CALL;
    for (size_t k = 0; k < t->ncards; k++)
        for (size_t b = 0; b < t->nbases; b++) {
            size_t pairs = 0, kp = 0;
            for (size_t i = 0; i < t->nrows; i++) {
                const sb_result *r = t->rows[i].cell[k].run;
                const sb_pick *p = r ? sb_pick_find(picks, n, r->case_key, t->base[b], r->sku) : NULL;
                if (p && p->r->passing) {
                    pairs++;
                    kp += sb_both_kernel(r, p->r);
                }
            }
            t->base_time[k][b] = pairs && kp == pairs ? SB_TIME_KERNEL : SB_TIME_CALL;
        }
    /* the cells and the geomean row */
    double *acc = malloc((t->nrows + 1) * sizeof *acc);
    if (!acc)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t k = 0; k < t->ncards; k++) {
        for (size_t i = 0; i < t->nrows; i++) {
            sb_xa_cell *c = &t->rows[i].cell[k];
            c->latency_ms = c->pct_copy = c->ratio = NAN;
            for (size_t b = 0; b < SB_XA_MAX_BASES; b++) {
                c->vs[b] = NAN;
                c->paired[b] = 0;
            }
            if (!c->run)
                continue;
            c->latency_ms = time_of(c->run, t->time);
            for (size_t b = 0; b < t->nbases; b++) {
                if (sb_session_headlines_cover(paired, c->run->case_key, c->run->sku, provider, t->base[b])) {
                    c->paired[b] = 1;
                    continue;
                }
                const sb_pick *p = sb_pick_find(picks, n, c->run->case_key, t->base[b], c->run->sku);
                /* an implausible side gives no speedup, so none reaches the geomean row */
                if (p && p->r->passing && !p->r->implausible && !c->run->implausible)
                    c->vs[b] = sb_speedup(c->run, p->r, t->base_time[k][b]);
            }
            if (c->run->bytes > 0 && c->latency_ms > 0 && t->copy_gbps[k] > 0)
                c->pct_copy = 100.0 * c->run->bytes / (c->latency_ms * 1e6) / t->copy_gbps[k];
            const sb_xa_cell *c0 = &t->rows[i].cell[0];
            if (k > 0 && c0->run && c0->latency_ms > 0)
                c->ratio = c->latency_ms / c0->latency_ms;
        }
        sb_xa_cell *gm = &t->geomean[k];
        size_t m = 0;
        gm->latency_ms = NAN;
        for (size_t b = 0; b < SB_XA_MAX_BASES; b++) {
            m = 0;
            for (size_t i = 0; i < t->nrows && b < t->nbases; i++)
                if (!isnan(t->rows[i].cell[k].vs[b]))
                    acc[m++] = t->rows[i].cell[k].vs[b];
            gm->vs[b] = geo_of(acc, m);
        }
        m = 0;
        for (size_t i = 0; i < t->nrows; i++)
            if (!isnan(t->rows[i].cell[k].pct_copy))
                acc[m++] = t->rows[i].cell[k].pct_copy;
        gm->pct_copy = geo_of(acc, m);
        m = 0;
        for (size_t i = 0; i < t->nrows; i++)
            if (!isnan(t->rows[i].cell[k].ratio))
                acc[m++] = t->rows[i].cell[k].ratio;
        gm->ratio = geo_of(acc, m);
    }
    free(acc);
    return SB_OK;
}

int sb_xa_build(const sb_snapshot *snap, const sb_pick *picks, size_t n, const char *provider,
                const char *baseline, const sb_session_headlines *paired, sb_xa_set *out, sb_error *err)
{
    out->v = NULL;
    out->n = 0;
    const sb_result **groups = calloc(n + 1, sizeof *groups);
    if (!groups)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (!r->passing || strcmp(r->provider, provider))
            continue;
        size_t g = 0;
        while (g < ng && !in_group(groups[g], r))
            g++;
        if (g == ng)
            groups[ng++] = r;
    }
    /* op, mode, dtype order */
    for (size_t i = 1; i < ng; i++)
        for (size_t j = i; j > 0; j--) {
            const sb_result *a = groups[j - 1], *b = groups[j];
            int c = strcmp(a->op, b->op);
            if (!c)
                c = strcmp(a->mode, b->mode);
            if (!c)
                c = strcmp(a->dtype, b->dtype);
            if (c <= 0)
                break;
            groups[j] = a;
            groups[j - 1] = b;
        }
    out->v = calloc(ng + 1, sizeof *out->v);
    if (!out->v) {
        free(groups);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t g = 0; g < ng; g++) {
        if (build_table(snap, picks, n, groups[g], provider, baseline, paired, &out->v[out->n], err) !=
            SB_OK) {
            free(out->v[out->n].rows);
            free(groups);
            sb_xa_free(out);
            return SB_ERR;
        }
        out->n++;
    }
    free(groups);
    return SB_OK;
}
