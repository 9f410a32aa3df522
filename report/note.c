/* note.c - the result note about the GEMM spec (note.h). */
#include "note.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "geomean.h"
#include "repro.h"
#include "results.h"
#include "stats.h"
#include "template.h"

typedef struct sol_metric {
    const char *metric, *key;
} sol_metric;

static const sol_metric SOL[] = {
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm"},
    {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory"},
    {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram"},
    {"gpu__time_duration.sum", "duration"},
};

/* The speed-of-light of a run: the median over its profiled launches
 * (up to 256) of each metric; false when none is stored. */
static json_t *ncu_sol(const sb_run_details *det, long long run_id)
{
    enum { NSOL = sizeof SOL / sizeof SOL[0] };
    json_t *o = json_object();
    size_t found = 0, launches = 0;
    for (size_t m = 0; m < NSOL; m++) {
        const double *v;
        const char *unit;
        size_t n = sb_run_details_values(det, run_id, SOL[m].metric, &v, &unit);
        if (n > 256)
            n = 256;
        if (!n) {
            sb_tpl_set_str(o, SOL[m].key, "-");
            continue;
        }
        found++;
        if (n > launches)
            launches = n;
        sb_tpl_set_num(o, SOL[m].key, "%.1f", sb_median(v, n));
        if (strcmp(SOL[m].key, "duration") == 0)
            sb_tpl_set_str(o, "duration_unit", unit);
    }
    if (!found) {
        json_decref(o);
        return json_false();
    }
    if (!json_object_get(o, "duration_unit"))
        sb_tpl_set_str(o, "duration_unit", "");
    json_object_set_new(o, "launches", json_integer((json_int_t)launches));
    return o;
}

static int is_spec_case(const sb_result *r, const sb_gate_spec *spec)
{
    return strcmp(r->mode, spec->mode) == 0 && strcmp(r->dtype, spec->dtype) == 0 &&
           strcmp(r->shape_key, spec->shape_key) == 0;
}

/* The newest passing spec run of provider on sku, and the one before it. */
static void newest_two(const sb_result_set *s, const sb_gate_spec *spec, const char *provider,
                       const char *sku, const sb_result **newest, const sb_result **previous)
{
    *newest = *previous = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const sb_result *r = &s->v[i];
        if (!r->passing || !is_spec_case(r, spec) || strcmp(r->provider, provider) ||
            strcmp(r->sku, sku))
            continue;
        if (!*newest || r->finished_epoch > (*newest)->finished_epoch ||
            (r->finished_epoch == (*newest)->finished_epoch && r->run_id > (*newest)->run_id)) {
            *previous = *newest;
            *newest = r;
        } else if (!*previous || r->finished_epoch > (*previous)->finished_epoch) {
            *previous = r;
        }
    }
}

static json_t *card_data(const sb_run_details *det, const sb_sku_table *skus,
                         const sb_gate_spec *spec, const sb_result_set *s, const char *sku)
{
    const sb_result *cub, *prev, *torch, *tprev;
    newest_two(s, spec, spec->provider, sku, &cub, &prev);
    newest_two(s, spec, "torch", sku, &torch, &tprev);
    if (!cub)
        return json_null();
    const sb_sku *k = skus ? sb_sku_find(skus, sku) : NULL;
    double peak = k ? sb_sku_peak_tflops(k, spec->dtype) : 0;
    json_t *c = json_object();
    sb_tpl_set_str(c, "sku", sku);
    sb_tpl_set_str(c, "card", cub->gpu_name);
    sb_tpl_set_str(c, "arch", cub->arch);
    json_object_set_new(c, "run_id", json_integer(cub->run_id));
    sb_tpl_set_num(c, "tflops", "%.1f", cub->tflops);
    json_object_set_new(c, "has_peak", json_boolean(peak > 0));
    sb_tpl_set_num(c, "peak", "%.1f", peak);
    sb_tpl_set_num(c, "pct_peak", "%.1f", peak > 0 ? 100.0 * cub->tflops / peak : NAN);
    if (torch) {
        json_t *t = json_object();
        json_object_set_new(t, "run_id", json_integer(torch->run_id));
        sb_tpl_set_num(t, "tflops", "%.1f", torch->tflops);
        sb_tpl_set_num(t, "pct_peak", "%.1f", peak > 0 ? 100.0 * torch->tflops / peak : NAN);
        sb_tpl_set_num(t, "cublas_over_torch", "%.1f", 100.0 * cub->tflops / torch->tflops);
        json_object_set_new(c, "torch", t);
    } else {
        json_object_set_new(c, "torch", json_false());
    }
    if (prev) {
        json_t *p = json_object();
        json_object_set_new(p, "run_id", json_integer(prev->run_id));
        sb_tpl_set_num(p, "tflops", "%.1f", prev->tflops);
        sb_tpl_set_num(p, "change", "%+.1f", 100.0 * (cub->tflops / prev->tflops - 1.0));
        json_object_set_new(c, "previous", p);
    } else {
        json_object_set_new(c, "previous", json_false());
    }
    json_object_set_new(c, "repeats", json_integer(cub->repeats));
    sb_tpl_set_num(c, "spread", "%.1f", 100.0 * cub->repeat_spread);
    int over = cub->repeat_spread > SB_NOTE_SPREAD_LIMIT;
    json_object_set_new(c, "spread_over", json_boolean(over));
    sb_tpl_set_num(c, "spread_limit", "%.0f", 100.0 * SB_NOTE_SPREAD_LIMIT);
    const sb_run_clocks *rc = sb_run_details_clocks(det, cub->run_id);
    json_object_set_new(c, "has_clocks", json_boolean(rc && rc->clocks[0]));
    sb_tpl_set_str(c, "clocks", rc ? rc->clocks : "");
    sb_tpl_set_str(c, "throttle", rc ? rc->reasons : "");
    json_object_set_new(c, "power_capped", json_boolean(rc && rc->power_capped));
    json_object_set_new(c, "has_power_limit", json_boolean(rc && !isnan(rc->power_limit_w)));
    sb_tpl_set_num(c, "power_limit_w", "%.0f", rc ? rc->power_limit_w : NAN);
    json_t *sol = ncu_sol(det, cub->run_id);
    json_object_set_new(c, "ncu", sol);
    return c;
}

sb_result_filter sb_note_filter(void)
{
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    sb_result_filter f = {0};
    f.suite = spec->suite;
    f.op = spec->op;
    return f;
}

/* The spec runs of all, and in *order the newest cuBLAS run's SKU of
 * each card, in arch order (*no of them; free both). */
static int note_cards(const sb_result_set *all, const sb_gate_spec *spec, sb_result_set *s,
                      const sb_result ***order, size_t *no, sb_error *err)
{
    sb_result_filter f = sb_note_filter();
    *order = NULL;
    *no = 0;
    if (sb_results_pick(all, &f, s, err) != SB_OK)
        return SB_ERR;
    const sb_result **o = calloc(s->n + 1, sizeof *o);
    if (!o) {
        sb_results_free(s);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        const sb_result *r = &s->v[i];
        if (!is_spec_case(r, spec) || strcmp(r->provider, spec->provider))
            continue;
        size_t k = 0;
        while (k < n && strcmp(o[k]->sku, r->sku))
            k++;
        if (k == n)
            o[n++] = r;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            int c = sb_arch_rank(o[j - 1]->arch) - sb_arch_rank(o[j]->arch);
            if (!c)
                c = strcmp(o[j - 1]->sku, o[j]->sku);
            if (c <= 0)
                break;
            const sb_result *t = o[j];
            o[j] = o[j - 1];
            o[j - 1] = t;
        }
    *order = o;
    *no = n;
    return SB_OK;
}

int sb_note_ask(const sb_result_set *all, const char *gate_arches, sb_details_ask *ask,
                sb_error *err)
{
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    /* the gate's metrics hold every metric of SOL */
    if (sb_gate_ask(all, spec, gate_arches, ask, err) != SB_OK)
        return SB_ERR;
    ask->clocks = 1;
    sb_result_set s = {0};
    const sb_result **order = NULL;
    size_t no = 0;
    if (note_cards(all, spec, &s, &order, &no, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    for (size_t i = 0; i < no && rc == SB_OK; i++) {
        const sb_result *cub, *prev;
        newest_two(&s, spec, spec->provider, order[i]->sku, &cub, &prev);
        if (cub)
            rc = sb_details_ask_run(ask, cub->run_id, err);
    }
    free(order);
    sb_results_free(&s);
    char *list = rc == SB_OK ? strdup(gate_arches) : NULL;
    if (rc == SB_OK && !list)
        return sb_error_set(err, NULL, NULL, "out of memory");
    char *save = NULL;
    for (char *arch = list ? strtok_r(list, ",", &save) : NULL; arch && rc == SB_OK;
         arch = strtok_r(NULL, ",", &save))
        if (*arch)
            rc = sb_details_ask_arch(ask, arch, err);
    free(list);
    return rc;
}

int sb_note_data(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                 const char *gate_arches, json_t **out, sb_error *err)
{
    *out = NULL;
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    sb_result_set s = {0};
    const sb_result **order = NULL;
    size_t no = 0;
    if (note_cards(all, spec, &s, &order, &no, err) != SB_OK)
        return SB_ERR;
    json_t *d = json_object(), *cards = json_array();
    json_object_set_new(d, "cards", cards);
    sb_tpl_set_str(d, "suite", spec->suite);
    sb_tpl_set_str(d, "op", spec->op);
    sb_tpl_set_str(d, "mode", spec->mode);
    sb_tpl_set_str(d, "dtype", spec->dtype);
    sb_tpl_set_str(d, "shape", spec->shape_key);
    sb_tpl_set_str(d, "provider", spec->provider);
    sb_tpl_set_str(d, "evidence_op", SB_EVIDENCE_OP);
    json_object_set_new(d, "warmup", json_integer(spec->warmup_iters));
    json_object_set_new(d, "iters", json_integer(spec->iters));
    json_object_set_new(d, "repeats", json_integer(spec->repeats));
    int rc = SB_ERR;
    if (!d) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    /* the cards, in arch order */
    for (size_t i = 0; i < no; i++) {
        json_t *c = card_data(det, skus, spec, &s, order[i]->sku);
        if (!c) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        if (json_is_null(c))
            json_decref(c);
        else
            json_array_append_new(cards, c);
    }
    json_object_set_new(d, "has_cards", json_boolean(json_array_size(cards) > 0));
    /* the gate */
    sb_gate_verdict *v = NULL;
    size_t nv = 0;
    if (sb_gate_verdicts(all, det, skus, spec, gate_arches, &v, &nv, err) != SB_OK)
        goto done;
    json_t *gate = json_array();
    json_object_set_new(d, "gate", gate);
    for (size_t i = 0; i < nv; i++) {
        json_t *g = json_object();
        sb_tpl_set_str(g, "arch", v[i].arch);
        json_object_set_new(g, "ok", json_boolean(v[i].state == SB_GATE_OK));
        json_object_set_new(g, "ambiguous", json_boolean(v[i].state == SB_GATE_AMBIGUOUS));
        json_object_set_new(g, "missing", json_boolean(v[i].state == SB_GATE_MISSING));
        json_object_set_new(g, "run_id", json_integer(v[i].run_id));
        sb_tpl_set_str(g, "sku", v[i].sku);
        json_object_set_new(g, "candidates", json_integer((json_int_t)v[i].candidates));
        json_object_set_new(g, "complete", json_integer((json_int_t)v[i].complete));
        long long on_arch = sb_run_details_arch_runs(det, v[i].arch);
        json_object_set_new(g, "arch_runs", json_integer(on_arch < 0 ? 0 : on_arch));
        json_array_append_new(gate, g);
    }
    free(v);
    rc = SB_OK;
done:
    free(order);
    sb_results_free(&s);
    if (rc == SB_OK)
        *out = d;
    else
        json_decref(d);
    return rc;
}

int sb_note_render(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                   const char *gate_arches, sb_buf *out, sb_error *err)
{
    json_t *d = NULL;
    if (sb_note_data(all, det, skus, gate_arches, &d, err) != SB_OK)
        return SB_ERR;
    int rc = sb_render_home("note.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, out, err);
    json_decref(d);
    return rc;
}
