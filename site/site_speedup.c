/* site_speedup.c - speedup by shape on op and op-on-SKU pages: the
 * project's provider against each baseline, shape by shape, in paired
 * kernel time from the newest measuring session of each case
 * (report/sessions.h), with the paired call time beside it. Kernel time
 * is what the headline uses; call time includes launch and host work,
 * which differ between providers far more than the kernels do, so the two
 * are shown side by side and never mixed. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_parts.h"
#include "encode.h"
#include "svg.h"

int site_natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int k = strncmp(a, b, la);
            if (k)
                return k;
            a += la;
            b += lb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (*a != 0) - (*b != 0);
}

void site_params_text(const char *params_json, sb_buf *out)
{
    json_error_t e;
    json_t *o = params_json ? json_loads(params_json, 0, &e) : NULL;
    if (!json_is_object(o) || json_object_size(o) == 0) {
        json_decref(o);
        return;
    }
    /* keys in name order, so the text does not depend on how it was stored */
    const char *keys[64];
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (n < 64)
            keys[n++] = k;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++) {
        v = json_object_get(o, keys[i]);
        if (i)
            sb_buf_putc(out, ' ');
        sb_buf_printf(out, "%s=", keys[i]);
        if (json_is_string(v))
            sb_buf_puts(out, json_string_value(v));
        else if (json_is_real(v))
            sb_buf_printf(out, "%g", json_real_value(v)); /* 1e-06, not 9.999999999999995e-7 */
        else {
            char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            sb_buf_puts(out, t ? t : "?");
            free(t);
        }
    }
    json_decref(o);
}

int site_case_cmp(const site_case *a, const site_case *b)
{
    int k = strcmp(a->mode, b->mode);
    if (!k)
        k = strcmp(a->dtype, b->dtype);
    if (!k)
        k = strcmp(a->params_json ? a->params_json : "", b->params_json ? b->params_json : "");
    if (!k)
        k = site_natural_cmp(a->shape_key, b->shape_key);
    return k;
}

static int cmp_pair_rows(const sb_session_pair *x, const sb_session_pair *y)
{
    const sb_session_run *a = x->target, *b = y->target;
    site_case ca = {a->mode, a->dtype, a->params_json, a->shape_key};
    site_case cb = {b->mode, b->dtype, b->params_json, b->shape_key};
    return site_case_cmp(&ca, &cb);
}

/* The group's pairs in row order: mode, dtype, params, then shapes by
 * their numbers (M=16384 before M=131072). */
static size_t *sorted_pairs(const sb_session_report *r, const sb_session_group *g)
{
    size_t *v = malloc((g->count + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < g->count; i++) {
        size_t j = i;
        v[j] = g->pair[i];
        while (j > 0 && cmp_pair_rows(&r->pairs[v[j - 1]], &r->pairs[v[j]]) > 0) {
            size_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
            j--;
        }
    }
    return v;
}

static const char *const *const VERDICT = sb_verdict_one; /* data/templates/verdicts.csv */

/* A chart row's label; the params too where the group's rows differ in
 * them (the table beside the chart always shows them). */
static void row_label(const sb_session_pair *p, int with_params, sb_buf *out)
{
    sb_buf_printf(out, "%s %s %s", p->target->mode, p->target->dtype, p->target->shape_key);
    sb_buf params = SB_BUF_INIT;
    if (with_params)
        site_params_text(p->target->params_json, &params);
    if (params.len)
        sb_buf_printf(out, " %s", sb_buf_str(&params));
    sb_buf_free(&params);
}

/* One group's chart: a row per shape, the kernel-time speedup as a dot
 * with its interval, the call-time speedup as a hollow diamond, a log x
 * axis with a line at 1 (equal). The baseline's colour
 * (sb_svg_provider_color) is the series colour; the two times differ in
 * shape, not colour. */
static void group_chart(const sb_session_report *r, const sb_session_group *g, const size_t *rows,
                        const char *target, sb_buf *out)
{
    enum { W = 760, L = 300, R = 730, T = 52 };
    const int step = 18;
    double lo = 1, hi = 1;
    for (size_t i = 0; i < g->count; i++) {
        const sb_session_pair *p = &r->pairs[rows[i]];
        double v[3] = {p->kernel.lo, p->kernel.hi, p->has_call ? p->call.ratio : NAN};
        for (int k = 0; k < 3; k++)
            if (v[k] > 0 && isfinite(v[k])) {
                lo = v[k] < lo ? v[k] : lo;
                hi = v[k] > hi ? v[k] : hi;
            }
    }
    double dlo = lo / 1.15, dhi = hi * 1.15;
    int B = T + step * (int)g->count + 8, H = B + 48;
    sb_scale xs = {dlo, dhi, L, R, 1};
    char title[512];
    snprintf(title, sizeof title, "%s over %s on %s: paired speedup per shape (kernel time dot, call time diamond)",
             target, g->baseline, g->sku);
    sb_svg_begin(out, W, H, title);
    sb_svg_text(out, 8, 18, "start", 13, 0, "#000000", title);
    sb_svg_text(out, 8, 36, "start", 11, 0, "#444444",
                "base time / target time round by round; > 1: the target is faster; bar: 95% interval");
    /* round ticks only, those inside the domain */
    static const double ticks[] = {0.05, 0.1, 0.2, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100};
    sb_svg_line(out, L, B, R, B, "#000000", 1, NULL);
    char tl[32];
    double last = -1e9;
    for (size_t k = 0; k < sizeof ticks / sizeof ticks[0]; k++) {
        if (ticks[k] < dlo || ticks[k] > dhi)
            continue;
        double x = sb_scale_map(&xs, ticks[k]);
        if (x - last < 34 && ticks[k] != 1) /* labels would overlap; 1 is always drawn */
            continue;
        last = x;
        sb_svg_line(out, x, T - 6, x, B, "#dddddd", 0.5, NULL);
        sb_svg_line(out, x, B, x, B + 5, "#000000", 1, NULL);
        snprintf(tl, sizeof tl, "%g\xc3\x97", ticks[k]);
        sb_svg_text(out, x, B + 18, "middle", 11, 0, "#000000", tl);
    }
    sb_svg_text(out, (L + R) / 2.0, B + 36, "middle", 12, 0, "#000000", "speedup (log scale)");
    double one = sb_scale_map(&xs, 1.0);
    sb_svg_line(out, one, T - 6, one, B, "#000000", 1, "4 3");
    const char *colour = sb_svg_provider_color(g->baseline);
    int mixed = 0;
    for (size_t i = 1; i < g->count && !mixed; i++) {
        const char *a = r->pairs[rows[0]].target->params_json, *b = r->pairs[rows[i]].target->params_json;
        mixed = strcmp(a ? a : "", b ? b : "") != 0;
    }
    sb_buf label = SB_BUF_INIT;
    char tip[512];
    for (size_t i = 0; i < g->count; i++) {
        const sb_session_pair *p = &r->pairs[rows[i]];
        double y = T + step * (double)i + step / 2.0;
        sb_buf_reset(&label);
        row_label(p, mixed, &label);
        sb_svg_text(out, L - 8, y + 4, "end", 11, 0, "#000000", sb_buf_str(&label));
        double x0 = sb_scale_map(&xs, p->kernel.lo), x1 = sb_scale_map(&xs, p->kernel.hi);
        sb_svg_line(out, x0, y, x1, y, colour, 2, NULL);
        snprintf(tip, sizeof tip, "%s: %.3fx kernel time (%.3f-%.3f), %s; session %s, commit %.10s",
                 sb_buf_str(&label), p->kernel.ratio, p->kernel.lo, p->kernel.hi, VERDICT[p->verdict],
                 p->target->session_id, p->target->git_sha);
        sb_svg_point(out, sb_scale_map(&xs, p->kernel.ratio), y, 4.5, colour, "kernel", tip);
        if (p->has_call && p->call.ratio > 0) {
            double cx = sb_scale_map(&xs, p->call.ratio);
            sb_buf_printf(out,
                          "<path class=\"call\" d=\"M%.2f %.2fl5 5l-5 5l-5 -5z\" fill=\"#ffffff\" "
                          "stroke=\"%s\" stroke-width=\"1.5\"><title>",
                          cx, y - 5, colour);
            snprintf(tip, sizeof tip, "%s: %.3fx call time", sb_buf_str(&label), p->call.ratio);
            sb_enc_xml_text(out, tip);
            sb_buf_puts(out, "</title></path>\n");
        }
    }
    sb_buf_free(&label);
    sb_svg_end(out);
}

static void set_fixed(json_t *o, const char *k, const char *fmt, double v)
{
    char buf[64];
    if (isnan(v))
        snprintf(buf, sizeof buf, "\xe2\x80\x93");
    else
        snprintf(buf, sizeof buf, fmt, v);
    sb_tpl_set_str(o, k, buf);
}

int site_speedup_section(const site_ctx *c, const char *op, const char *sku, sb_buf *out, sb_error *err)
{
    const sb_session_report *r = &c->sessions;
    json_t *d = json_object(), *groups = json_array();
    json_object_set_new(d, "groups", groups);
    sb_tpl_set_str(d, "target", SB_PROJECT_PROVIDER);
    sb_tpl_set_str(d, "op", op);
    json_object_set_new(d, "per_sku", json_boolean(sku != NULL));
    sb_buf svg = SB_BUF_INIT, t = SB_BUF_INIT;
    int rc = SB_OK;
    for (size_t gi = 0; gi < r->ngroups && rc == SB_OK; gi++) {
        const sb_session_group *g = &r->groups[gi];
        if (strcmp(g->op, op) || (sku && strcmp(g->sku, sku)) || g->count == 0)
            continue;
        size_t *rows = sorted_pairs(r, g);
        if (!rows) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        sb_buf_reset(&svg);
        group_chart(r, g, rows, SB_PROJECT_PROVIDER, &svg);
        json_t *o = json_object(), *jrows = json_array();
        sb_tpl_set_str(o, "sku", g->sku);
        sb_tpl_set_str(o, "baseline", g->baseline);
        sb_tpl_set_str(o, "colour", sb_svg_provider_color(g->baseline));
        sb_tpl_set_str(o, "svg", site_svg_element(&svg));
        set_fixed(o, "geomean", "%.3f", g->geomean.ratio);
        set_fixed(o, "lo", "%.3f", g->geomean.lo);
        set_fixed(o, "hi", "%.3f", g->geomean.hi);
        json_object_set_new(o, "cases", json_integer((json_int_t)g->count));
        json_object_set_new(o, "wins", json_integer((json_int_t)g->wins));
        json_object_set_new(o, "losses", json_integer((json_int_t)g->losses));
        sb_buf_reset(&t);
        sb_session_ids_text(r->pairs, g->pair, g->count, &t);
        sb_tpl_set_str(o, "sessions", sb_buf_str(&t));
        json_object_set_new(o, "rows", jrows);
        for (size_t i = 0; i < g->count; i++) {
            const sb_session_pair *p = &r->pairs[rows[i]];
            json_t *row = json_object();
            sb_tpl_set_str(row, "mode", p->target->mode);
            sb_tpl_set_str(row, "dtype", p->target->dtype);
            sb_tpl_set_str(row, "shape", p->target->shape_key);
            sb_buf_reset(&t);
            site_params_text(p->target->params_json, &t);
            sb_tpl_set_str(row, "params", sb_buf_str(&t));
            set_fixed(row, "kernel", "%.3f", p->kernel.ratio);
            set_fixed(row, "klo", "%.3f", p->kernel.lo);
            set_fixed(row, "khi", "%.3f", p->kernel.hi);
            set_fixed(row, "call", "%.3f", p->has_call ? p->call.ratio : NAN);
            set_fixed(row, "target_ms", "%.4f", p->target_ms);
            set_fixed(row, "base_ms", "%.4f", p->base_ms);
            set_fixed(row, "threshold", "%.1f", 100.0 * p->threshold);
            sb_tpl_set_str(row, "verdict", VERDICT[p->verdict]);
            sb_tpl_set_str(row, "session", p->target->session_id);
            sb_buf_reset(&t);
            sb_buf_printf(&t, "%.10s", p->target->git_sha ? p->target->git_sha : "");
            sb_tpl_set_str(row, "sha", sb_buf_str(&t));
            sb_tpl_set_str(row, "started", p->target->started_at);
            sb_tpl_set_str(row, "gpu", p->target->gpu_uuid);
            json_array_append_new(jrows, row);
        }
        json_array_append_new(groups, o);
        free(rows);
    }
    json_object_set_new(d, "has_groups", json_boolean(json_array_size(groups) > 0));
    if (rc == SB_OK)
        rc = site_render("speedup.html.tmpl", d, out, err);
    json_decref(d);
    sb_buf_free(&svg);
    sb_buf_free(&t);
    return rc;
}
