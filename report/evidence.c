/* evidence.c - the figures of out/EVIDENCE.md from what the caller read
 * (evidence.h). */
#include "evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "geomean.h"
#include "note.h"
#include "results.h"
#include "sessions.h"

/* The SM clocks after each repeat of a run and its throttle reasons, as
 * read for the ask (sb_evidence_ask): "" for both when none. */
static void run_clocks(const sb_run_details *det, long long run_id, const char **clocks,
                       const char **why)
{
    const sb_run_clocks *c = sb_run_details_clocks(det, run_id);
    *clocks = c ? c->clocks : "";
    *why = c ? c->reasons : "";
}

static const char *const COLUMNS[] = {"rel_noise"};

/* The value of the ceiling called name, NAN when none, and in *run the
 * calibration run it comes from (-1 when none). */
static double ceiling(const sb_ceiling *c, size_t n, const char *name, long long *run)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0) {
            *run = c[i].run_id;
            return c[i].value;
        }
    *run = -1;
    return NAN;
}

static int is_spec_run(const sb_result *r, const sb_gate_spec *spec, const char *sku)
{
    return !strcmp(r->sku, sku) && !strcmp(r->suite, spec->suite) && !strcmp(r->shape_key, spec->shape_key) &&
           !strcmp(r->dtype, spec->dtype) && r->passing;
}

/* 1 when a later spec run of r's provider on the SKU is stored. */
static int newer_spec_run(const sb_result_set *s, const sb_result *r, const sb_gate_spec *spec, const char *sku)
{
    for (size_t j = 0; j < s->n; j++)
        if (s->v[j].run_id > r->run_id && !strcmp(s->v[j].provider, r->provider) &&
            is_spec_run(&s->v[j], spec, sku))
            return 1;
    return 0;
}

/* An array of n elements of size bytes each, zeroed; n + 1 so that none
 * is of size 0. */
static void *zalloc(size_t n, size_t size, int *oom)
{
    void *p = calloc(n + 1, size);
    if (!p)
        *oom = 1;
    return p;
}

/* The GEMM figures of one card: the spec runs, the calibration, the
 * settle trials and the sweep. */
static void gemm_figures(const sb_snapshot *snap, const sb_run_details *det, const sb_sku_table *skus,
                         const sb_result_set *s, const sb_pick *picks, size_t n, sb_evidence_card *k, int *oom)
{
    const sb_gate_spec *spec = k->spec = sb_gate_spec_for("gemm");
    const sb_sku *row = skus ? sb_sku_find(skus, k->sku) : NULL;
    double peak = row ? sb_sku_peak_tflops(row, spec->dtype) : 0;
    k->spec_runs = zalloc(s->n, sizeof *k->spec_runs, oom);
    k->settle = zalloc(s->n, sizeof *k->settle, oom);
    k->sweep = zalloc(n, sizeof *k->sweep, oom);
    if (*oom)
        return;
    /* The spec's own runs, newest of each provider: the suite is no part of
     * a case's identity, so the newest run of the spec's case may be a
     * sweep or settle run, timed under another protocol. */
    for (size_t i = 0; i < s->n; i++) {
        const sb_result *r = &s->v[i];
        if (!is_spec_run(r, spec, k->sku) || newer_spec_run(s, r, spec, k->sku))
            continue;
        sb_evidence_spec_run *x = &k->spec_runs[k->nspec_runs++];
        x->run = r;
        run_clocks(det, r->run_id, &x->clocks, &x->why);
        x->rel_noise = sb_run_details_column(det, r->run_id, "rel_noise");
        x->of_peak = peak > 0 ? r->tflops / peak : NAN;
        if (strcmp(r->provider, spec->provider) == 0)
            k->library = r;
        if (strcmp(r->provider, "torch") == 0)
            k->torch = r;
    }
    long long newest;
    k->ceilings = sb_snapshot_ceilings(snap, k->sku, &k->nceilings, &newest);
    k->copy_gbps = ceiling(k->ceilings, k->nceilings, "bw.copy", &k->calibration);
    k->d2d_gbps = ceiling(k->ceilings, k->nceilings, "bw.memcpy_d2d", &k->d2d_calibration);
    size_t naside = 0;
    const sb_ceiling_aside *aside = sb_snapshot_set_aside(snap, &naside);
    for (size_t i = 0; i < naside; i++)
        if (!strcmp(aside[i].sku, k->sku)) {
            k->set_aside++;
            k->copy_set_aside += !strcmp(aside[i].ceiling.name, "bw.copy");
        }
    /* settle trials: every run, in order */
    for (size_t i = 0; i < s->n; i++) {
        const sb_result *r = &s->v[i];
        if (strcmp(r->sku, k->sku) || strcmp(r->suite, SB_EVIDENCE_SETTLE_SUITE) || !r->passing)
            continue;
        const char *clocks, *why;
        run_clocks(det, r->run_id, &clocks, &why);
        const char *last = strrchr(clocks, '/');
        k->settle[k->nsettle].run = r;
        k->settle[k->nsettle++].last_mhz = last ? last + 1 : *clocks ? clocks : "?";
        k->steady += r->repeat_spread < SB_NOTE_SPREAD_LIMIT;
    }
    /* the project's GEMM against the library in the sweep */
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, k->sku) || strcmp(r->suite, SB_EVIDENCE_SWEEP_SUITE) ||
            strcmp(r->provider, SB_EVIDENCE_SWEEP_OURS) || !r->passing)
            continue;
        const sb_pick *lib = sb_pick_find(picks, n, r->case_key, SB_EVIDENCE_SWEEP_LIBRARY, k->sku);
        if (!lib || !lib->r->passing)
            continue;
        k->sweep[k->nsweep++] = (sb_evidence_sweep){r, lib->r, r->tflops / lib->r->tflops};
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int group_seen(const sb_evidence_group *g, size_t n, const char *op, const char *mode, const char *dtype)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(g[i].op, op) && !strcmp(g[i].mode, mode) && !strcmp(g[i].dtype, dtype))
            return 1;
    return 0;
}

/* The groups of the project's passing runs and of its paired headlines on
 * sku, in that order; their count. */
static size_t kernel_groups(const sb_pick *picks, size_t n, const sb_session_headlines *h, const char *sku,
                            sb_evidence_group *g)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (!strcmp(r->sku, sku) && !strcmp(r->provider, SB_PROJECT_PROVIDER) && r->passing &&
            !group_seen(g, ng, r->op, r->mode, r->dtype))
            g[ng++] = (sb_evidence_group){.op = r->op, .mode = r->mode, .dtype = r->dtype};
    }
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (!strcmp(x->sku, sku) && !strcmp(x->provider, SB_PROJECT_PROVIDER) &&
            !group_seen(g, ng, x->op, x->mode, x->dtype))
            g[ng++] = (sb_evidence_group){.op = x->op, .mode = x->mode, .dtype = x->dtype};
    }
    return ng;
}

/* The headline of the group on sku against baseline from the session that
 * pairs the most of its cases (the newest of those on a tie); NULL: none. */
static const sb_session_headline *most_cases(const sb_session_headlines *h, const sb_evidence_group *g,
                                             const char *sku, const char *baseline)
{
    const sb_session_headline *best = NULL;
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (strcmp(x->op, g->op) || strcmp(x->mode, g->mode) || strcmp(x->dtype, g->dtype) || strcmp(x->sku, sku) ||
            strcmp(x->provider, SB_PROJECT_PROVIDER) || strcmp(x->baseline, baseline))
            continue;
        /* the pairs come in session start order: a larger index is a newer session */
        if (!best || x->count > best->count || (x->count == best->count && x->pair[0] > best->pair[0]))
            best = x;
    }
    return best;
}

/* The unpaired row of the group on sku against each headline baseline
 * (geo: sb_geo_compute_unpaired) that compared cases. */
static void unpaired_rows(const sb_geo_table *geo, const char *sku, sb_evidence_group *g)
{
    for (size_t k = 0; sb_headline_baselines[k] && k < SB_EVIDENCE_MAX_BASES; k++)
        for (size_t j = 0; j < geo->n && !g->unpaired[k]; j++) {
            const sb_geo_row *r = &geo->rows[j];
            if (!strcmp(r->sku, sku) && !strcmp(r->provider, SB_PROJECT_PROVIDER) && !strcmp(r->op, g->op) &&
                !strcmp(r->mode, g->mode) && !strcmp(r->dtype, g->dtype) &&
                !strcmp(r->baseline, sb_headline_baselines[k]) && r->shapes)
                g->unpaired[k] = r;
        }
}

/* The project's kernels per op x mode x dtype on one card: their share of
 * the copy ceiling from the newest runs, their speedups paired within a
 * session (paired), then the unpaired rest (geo). */
static void kernel_figures(const sb_pick *picks, size_t n, const sb_session_headlines *paired,
                           const sb_geo_table *geo, sb_evidence_card *k, int *oom)
{
    double *frac = malloc((n + 1) * sizeof *frac);
    k->groups = zalloc(n + paired->n, sizeof *k->groups, oom);
    if (!frac || *oom) {
        *oom = 1;
        free(frac);
        return;
    }
    k->ngroups = kernel_groups(picks, n, paired, k->sku, k->groups);
    for (size_t i = 0; i < k->ngroups; i++) {
        sb_evidence_group *g = &k->groups[i];
        size_t nf = 0;
        for (size_t j = 0; j < n; j++) {
            const sb_result *q = picks[j].r;
            if (!q->passing || strcmp(q->sku, k->sku) || strcmp(q->provider, SB_PROJECT_PROVIDER) ||
                strcmp(q->op, g->op) || strcmp(q->mode, g->mode) || strcmp(q->dtype, g->dtype))
                continue;
            g->cases++;
            /* an implausible run (report/plausible.h) gives no figure */
            if (q->bytes > 0 && q->median_ms > 0 && k->copy_gbps > 0 && !q->implausible)
                frac[nf++] = q->bytes / (q->median_ms * 1e6) / k->copy_gbps;
        }
        qsort(frac, nf, sizeof *frac, cmp_double);
        g->copy_min = nf ? frac[0] : NAN;
        g->copy_median = nf ? frac[nf / 2] : NAN;
        g->copy_max = nf ? frac[nf - 1] : NAN;
        for (size_t b = 0; sb_headline_baselines[b] && b < SB_EVIDENCE_MAX_BASES; b++) {
            const sb_session_headline *x = most_cases(paired, g, k->sku, sb_headline_baselines[b]);
            g->paired[b] = x;
            g->lowest[b] = x ? paired->report.pairs[x->worst].kernel.ratio : NAN;
        }
        unpaired_rows(geo, k->sku, g);
    }
    free(frac);
}

/* FLCE's peak memory against the first headline baseline, and the newest
 * runs that failed, on one card. */
static void memory_figures(const sb_pick *picks, size_t n, sb_evidence_card *k, int *oom)
{
    k->flce = zalloc(n, sizeof *k->flce, oom);
    k->failed = zalloc(n, sizeof *k->failed, oom);
    if (*oom)
        return;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, k->sku) || strcmp(r->op, "flce") || strcmp(r->provider, SB_PROJECT_PROVIDER) ||
            !r->passing || r->peak_device_bytes <= 0)
            continue;
        const sb_pick *h = sb_pick_find(picks, n, r->case_key, sb_headline_baselines[0], k->sku);
        if (!h || !h->r->passing || h->r->peak_device_bytes <= 0)
            continue;
        k->flce[k->nflce++] =
            (sb_evidence_flce){r, h->r, (double)r->peak_device_bytes / (double)h->r->peak_device_bytes};
    }
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, k->sku) || r->passing || strcmp(r->status, "skipped") == 0)
            continue;
        k->failed[k->nfailed++] = r;
    }
}

int sb_evidence_ask(const sb_result_set *set, sb_details_ask *ask, sb_error *err)
{
    if (sb_note_ask(set, SB_EVIDENCE_GATE_ARCHES, ask, err) != SB_OK)
        return SB_ERR;
    ask->columns = COLUMNS;
    ask->ncolumns = sizeof COLUMNS / sizeof COLUMNS[0];
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    for (size_t i = 0; i < set->n; i++) {
        const sb_result *r = &set->v[i];
        if ((is_spec_run(r, spec, r->sku) || (!strcmp(r->suite, SB_EVIDENCE_SETTLE_SUITE) && r->passing)) &&
            sb_details_ask_run(ask, r->run_id, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

void sb_evidence_page_free(sb_evidence_page *p)
{
    for (size_t i = 0; i < p->ncards; i++) {
        sb_evidence_card *k = &p->cards[i];
        free(k->spec_runs);
        free(k->settle);
        free(k->sweep);
        free(k->groups);
        free(k->flce);
        free(k->failed);
    }
    free(p->cards);
    free(p->picks);
    sb_geo_free(&p->geo);
    memset(p, 0, sizeof *p);
}

int sb_evidence_compute(const sb_result_set *set, const sb_session_headlines *paired, const sb_snapshot *snap,
                        const sb_run_details *det, const sb_sku_table *skus, sb_evidence_page *out,
                        sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (sb_picks_latest(set, &out->picks, &out->npicks, err) != SB_OK ||
        sb_geo_compute_unpaired(set, out->picks, out->npicks, NULL, paired, &out->geo, err) != SB_OK) {
        sb_evidence_page_free(out);
        return SB_ERR;
    }
    /* the SKUs, in arch order */
    const char *sk[16], *ar[16];
    size_t nsk = 0;
    for (size_t i = 0; i < out->npicks && nsk < 16; i++) {
        size_t k = 0;
        while (k < nsk && strcmp(sk[k], out->picks[i].r->sku))
            k++;
        if (k == nsk) {
            sk[nsk] = out->picks[i].r->sku;
            ar[nsk++] = out->picks[i].r->arch;
        }
    }
    sb_sort_skus(sk, ar, nsk);
    int oom = 0;
    out->cards = zalloc(nsk, sizeof *out->cards, &oom);
    for (size_t i = 0; !oom && i < nsk; i++) {
        sb_evidence_card *k = &out->cards[out->ncards++];
        const sb_sku *row = skus ? sb_sku_find(skus, sk[i]) : NULL;
        k->sku = sk[i];
        k->display = row ? row->display : sk[i];
        gemm_figures(snap, det, skus, set, out->picks, out->npicks, k, &oom);
        if (!oom)
            kernel_figures(out->picks, out->npicks, paired, &out->geo, k, &oom);
        if (!oom)
            memory_figures(out->picks, out->npicks, k, &oom);
    }
    if (oom) {
        sb_evidence_page_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    return SB_OK;
}
