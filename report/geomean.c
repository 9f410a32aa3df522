/* geomean.c - speedup tables (geomean.h). */
#include "geomean.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions.h"
#include "stats.h"

static int same_opgroup(const sb_result *a, const sb_result *b)
{
    return strcmp(a->op, b->op) == 0 && strcmp(a->mode, b->mode) == 0 &&
           strcmp(a->dtype, b->dtype) == 0;
}

const char *const sb_headline_baselines[] = {"huggingface", "torch-compile", "liger", NULL};

const char *sb_time_kind_name(sb_time_kind k)
{
    return k == SB_TIME_KERNEL ? "kernel" : "call";
}

int sb_both_kernel(const sb_result *p, const sb_result *b)
{
    return p->kernel_median_ms > 0 && b->kernel_median_ms > 0;
}

/* A ratio of two usable times can still overflow (1e308 / 0.1) or fall
 * below the normal range: NAN then, as for a missing time. */
static double usable_ratio(double r)
{
    return isnormal(r) && r > 0 ? r : NAN;
}

double sb_speedup(const sb_result *p, const sb_result *b, sb_time_kind time)
{
    if (time == SB_TIME_KERNEL && sb_both_kernel(p, b))
        return usable_ratio(b->kernel_median_ms / p->kernel_median_ms);
    if (!(p->median_ms > 0) || !(b->median_ms > 0))
        return NAN;
    return usable_ratio(b->median_ms / p->median_ms);
}

int sb_headline_baseline_rank(const char *p)
{
    int i = 0;
    for (; sb_headline_baselines[i]; i++)
        if (strcmp(sb_headline_baselines[i], p) == 0)
            return i;
    return i;
}

static int has_passing(const sb_pick *picks, size_t n, const sb_result *g, const char *provider)
{
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (r->passing && same_opgroup(r, g) && strcmp(r->provider, provider) == 0)
            return 1;
    }
    return 0;
}

typedef struct prov_count {
    const char *name;
    size_t count;
} prov_count;

/* The fallback baseline of the op group of g, when no headline baseline
 * has a passing case there: the provider with the most passing cases
 * (ties: alphabetical), never the diagnostic one. NULL when none. */
static const char *fallback_baseline(const sb_pick *picks, size_t n, const sb_result *g)
{
    prov_count *pc = NULL;
    size_t npc = 0, cap = 0;
    const char *best = NULL;
    size_t best_count = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (!same_opgroup(r, g) || !r->passing || strcmp(r->provider, SB_DIAGNOSTIC_PROVIDER) == 0)
            continue;
        size_t k = 0;
        while (k < npc && strcmp(pc[k].name, r->provider) != 0)
            k++;
        if (k == npc) {
            if (npc == cap) {
                size_t nc = cap ? cap * 2 : 16;
                prov_count *nv = realloc(pc, nc * sizeof *nv);
                if (!nv)
                    break;
                pc = nv;
                cap = nc;
            }
            pc[npc].name = r->provider;
            pc[npc++].count = 0;
        }
        pc[k].count++;
    }
    for (size_t k = 0; k < npc; k++) {
        if (pc[k].count > best_count ||
            (pc[k].count == best_count && best && strcmp(pc[k].name, best) < 0)) {
            best = pc[k].name;
            best_count = pc[k].count;
        }
    }
    free(pc);
    return best;
}

static int row_cmp(const void *a, const void *b)
{
    const sb_geo_row *x = a, *y = b;
    int c;
    if ((c = strcmp(x->op, y->op)) || (c = strcmp(x->mode, y->mode)) ||
        (c = strcmp(x->dtype, y->dtype)))
        return c;
    int ra = sb_arch_rank(x->arch), rb = sb_arch_rank(y->arch);
    if (ra != rb)
        return ra - rb;
    if ((c = strcmp(x->arch, y->arch)) || (c = strcmp(x->sku, y->sku)))
        return c;
    if (x->baseline_rank != y->baseline_rank)
        return x->baseline_rank - y->baseline_rank;
    if ((c = strcmp(x->baseline, y->baseline)))
        return c;
    return strcmp(x->provider, y->provider);
}

void sb_geo_free(sb_geo_table *t)
{
    free(t->rows);
    free(t->skus);
    free(t->sku_arch);
    memset(t, 0, sizeof *t);
}

/* Fills row g (op group, SKU, provider and baseline set) from the picks. */
static void fill_row(sb_geo_row *g, const sb_result *r, const char *base, const sb_pick *picks,
                     size_t n, const sb_session_headlines *paired, const sb_result **pv,
                     const sb_result **bv, double *ratios)
{
    size_t np = 0, kernel_pairs = 0;
    for (size_t j = 0; j < n; j++) {
        const sb_result *c = picks[j].r;
        if (!same_opgroup(c, r) || strcmp(c->sku, r->sku) != 0)
            continue;
        int is_prov = strcmp(c->provider, r->provider) == 0;
        int is_base = strcmp(c->provider, base) == 0;
        if (is_base) {
            /* counted from the baseline side only when the provider has
             * no run of the case at all */
            if (!sb_pick_find(picks, n, c->case_key, r->provider, r->sku) && c->passing)
                g->not_run++;
            continue;
        }
        if (!is_prov)
            continue;
        const sb_pick *b = sb_pick_find(picks, n, c->case_key, base, r->sku);
        if (strcmp(c->status, "skipped") == 0) {
            g->skipped++;
        } else if (!c->passing) {
            g->failed++;
        } else if (!b || !b->r->passing || isnan(sb_speedup(c, b->r, SB_TIME_CALL))) {
            g->no_baseline++;
        } else if (paired && sb_session_headlines_cover(paired, c->case_key, r->sku, r->provider, base)) {
            g->paired++;
        } else if (c->implausible || b->r->implausible) {
            g->implausible++;
        } else {
            pv[np] = c;
            bv[np++] = b->r;
            kernel_pairs += sb_both_kernel(c, b->r);
            if (picks[j].stale || b->stale)
                g->stale++;
            if (c->unchecked || b->r->unchecked)
                g->unchecked++;
        }
    }
    /* A kernel is compared with a kernel wherever both sides measured one:
     * call time would charge a Python provider's launch cost to its kernel.
     * Cases where either side has call time only are left out of a kernel
     * row, and counted, rather than mixed into it. */
    g->time = kernel_pairs ? SB_TIME_KERNEL : SB_TIME_CALL;
    if (kernel_pairs && kernel_pairs < np) {
        size_t k = 0;
        for (size_t q = 0; q < np; q++)
            if (sb_both_kernel(pv[q], bv[q])) {
                pv[k] = pv[q];
                bv[k++] = bv[q];
            }
        g->call_only = np - k;
        np = k;
    }
    for (size_t k = 0; k < np; k++)
        ratios[k] = sb_speedup(pv[k], bv[k], g->time);
    g->shapes = np;
    g->geomean = g->min = g->max = NAN;
    if (np) {
        g->geomean = sb_geomean(ratios, np);
        g->min = g->max = ratios[0];
        for (size_t k = 1; k < np; k++) {
            g->min = fmin(g->min, ratios[k]);
            g->max = fmax(g->max, ratios[k]);
        }
    }
}

#define MAX_BASES 8

int sb_geo_compute(const sb_result_set *set, const sb_pick *picks, size_t n,
                   const char *baseline, sb_geo_table *out, sb_error *err)
{
    return sb_geo_compute_unpaired(set, picks, n, baseline, NULL, out, err);
}

int sb_geo_row_session_kind(const sb_geo_row *g)
{
    return sb_headline_baselines[g->baseline_rank] != NULL;
}

int sb_geo_compute_unpaired(const sb_result_set *set, const sb_pick *picks, size_t n,
                            const char *baseline, const sb_session_headlines *paired,
                            sb_geo_table *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->left_out = set ? set->n_left_out : 0;
    size_t cap = n * MAX_BASES + 1;
    out->rows = calloc(cap, sizeof *out->rows);
    out->skus = calloc(n + 1, sizeof *out->skus);
    out->sku_arch = calloc(n + 1, sizeof *out->sku_arch);
    double *ratios = malloc((n + 1) * sizeof *ratios);
    const sb_result **pv = malloc((n + 1) * sizeof *pv), **bv = malloc((n + 1) * sizeof *bv);
    /* the baselines of each op group, computed once */
    const sb_result **grp = calloc(n + 1, sizeof *grp);
    const char *(*grp_base)[MAX_BASES] = calloc(n + 1, sizeof *grp_base);
    size_t *grp_nbase = calloc(n + 1, sizeof *grp_nbase);
    size_t ngrp = 0;
    if (!out->rows || !out->skus || !out->sku_arch || !ratios || !pv || !bv || !grp ||
        !grp_base || !grp_nbase) {
        free(ratios);
        free(pv);
        free(bv);
        free(grp);
        free(grp_base);
        free(grp_nbase);
        sb_geo_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        size_t gi = 0;
        while (gi < ngrp && !same_opgroup(grp[gi], r))
            gi++;
        if (gi == ngrp) {
            grp[ngrp] = r;
            size_t nb = 0;
            if (baseline) {
                grp_base[ngrp][nb++] = baseline;
            } else {
                for (size_t k = 0; sb_headline_baselines[k] && nb < MAX_BASES; k++)
                    if (has_passing(picks, n, r, sb_headline_baselines[k]))
                        grp_base[ngrp][nb++] = sb_headline_baselines[k];
                if (nb == 0) {
                    const char *fb = fallback_baseline(picks, n, r);
                    if (fb)
                        grp_base[ngrp][nb++] = fb;
                }
            }
            grp_nbase[ngrp++] = nb;
        }
        for (size_t bi = 0; bi < grp_nbase[gi]; bi++) {
            const char *base = grp_base[gi][bi];
            /* a provider that is an earlier baseline of the group is not
             * compared again with a later one */
            int earlier = 0;
            for (size_t q = 0; q <= bi && !earlier; q++)
                earlier = strcmp(r->provider, grp_base[gi][q]) == 0;
            if (earlier)
                continue;
            int seen = 0;
            for (size_t k = 0; k < out->n && !seen; k++) {
                const sb_geo_row *g = &out->rows[k];
                seen = strcmp(g->op, r->op) == 0 && strcmp(g->mode, r->mode) == 0 &&
                       strcmp(g->dtype, r->dtype) == 0 && strcmp(g->sku, r->sku) == 0 &&
                       strcmp(g->provider, r->provider) == 0 && strcmp(g->baseline, base) == 0;
            }
            if (seen)
                continue;
            sb_geo_row *g = &out->rows[out->n++];
            g->op = r->op;
            g->mode = r->mode;
            g->dtype = r->dtype;
            g->sku = r->sku;
            g->arch = r->arch;
            g->provider = r->provider;
            g->baseline = base;
            g->baseline_rank = sb_headline_baseline_rank(base);
            fill_row(g, r, base, picks, n, paired, pv, bv, ratios);
            int have = 0;
            for (size_t k = 0; k < out->nskus && !have; k++)
                have = strcmp(out->skus[k], r->sku) == 0;
            if (!have) {
                out->skus[out->nskus] = r->sku;
                out->sku_arch[out->nskus] = r->arch;
                out->nskus++;
            }
        }
    }
    free(ratios);
    free(pv);
    free(bv);
    free(grp);
    free(grp_base);
    free(grp_nbase);
    if (out->n) /* qsort(NULL, 0, ...) is undefined */
        qsort(out->rows, out->n, sizeof *out->rows, row_cmp);
    /* order SKUs by arch, then id (insertion sort: few) */
    for (size_t i = 1; i < out->nskus; i++) {
        for (size_t j = i; j > 0; j--) {
            int ra = sb_arch_rank(out->sku_arch[j - 1]), rb = sb_arch_rank(out->sku_arch[j]);
            int c = ra != rb ? ra - rb : strcmp(out->sku_arch[j - 1], out->sku_arch[j]);
            if (c == 0)
                c = strcmp(out->skus[j - 1], out->skus[j]);
            if (c <= 0)
                break;
            const char *t = out->skus[j];
            out->skus[j] = out->skus[j - 1];
            out->skus[j - 1] = t;
            t = out->sku_arch[j];
            out->sku_arch[j] = out->sku_arch[j - 1];
            out->sku_arch[j - 1] = t;
        }
    }
    return SB_OK;
}

void sb_gpu_short(const char *uuid, char *buf, size_t size)
{
    size_t n = 0;
    if (uuid) {
        const char *dash = strchr(uuid, '-');
        const char *end = dash ? strchr(dash + 1, '-') : NULL;
        n = end ? (size_t)(end - uuid) : strlen(uuid);
    }
    snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), uuid ? uuid : "");
}
