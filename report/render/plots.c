/* plots.c - roofline, speedup bars, latency vs shape (plots.h). */
#include "plots.h"
#include "encode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* Distinct providers of the picks that pass the filter, sorted. */
typedef struct name_list {
    const char **v;
    size_t n;
} name_list;

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int names_add(name_list *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 0;
    const char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    l->v = nv;
    l->v[l->n++] = s;
    return 0;
}

/* Scales are built from finite data and sb_scale_decades, so this only
 * keeps a value no scale could hold out of the attributes. */
static double fin(double v)
{
    return isfinite(v) ? v : 0.0;
}

static void plot_area(sb_buf *b, const sb_scale *x, const sb_scale *y)
{
    sb_buf_printf(b,
                  "<rect class=\"plot-area\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                  "height=\"%.2f\" fill=\"none\" stroke=\"#999999\" stroke-width=\"0.5\" "
                  "data-x-min=\"%.9g\" data-x-max=\"%.9g\" data-y-min=\"%.9g\" "
                  "data-y-max=\"%.9g\" data-left=\"%.2f\" data-right=\"%.2f\" "
                  "data-top=\"%.2f\" data-bottom=\"%.2f\" data-x-log=\"%d\" data-y-log=\"%d\"/>\n",
                  fin(x->p0), fin(y->p1), fin(x->p1 - x->p0), fin(y->p0 - y->p1), fin(x->d0),
                  fin(x->d1), fin(y->d0), fin(y->d1), fin(x->p0), fin(x->p1), fin(y->p1),
                  fin(y->p0), x->log, y->log);
}

static void legend(sb_buf *b, const name_list *providers, double x, double y)
{
    sb_svg_text(b, x, y, "start", 12, 0, "#000000", "provider");
    for (size_t i = 0; i < providers->n; i++) {
        double yy = y + 18 + 18.0 * (double)i;
        sb_buf_printf(b,
                      "<circle class=\"legend\" cx=\"%.2f\" cy=\"%.2f\" r=\"5.0\" fill=\"%s\"/>\n",
                      x + 5, yy - 4, sb_svg_provider_color(providers->v[i]));
        sb_svg_text(b, x + 15, yy, "start", 11, 0, "#000000", providers->v[i]);
    }
}

static double achieved_tflops(const sb_result *r)
{
    if (!isnan(r->tflops) && r->tflops > 0)
        return r->tflops;
    double ai = r->flops / r->bytes;
    if (!isnan(r->gbps) && r->gbps > 0)
        return r->gbps * ai / 1e3;
    if (r->median_ms > 0)
        return r->flops / (r->median_ms * 1e9);
    return NAN;
}

static int drawable(const sb_result *r)
{
    if (!r->passing || !(r->flops > 0) || !(r->bytes > 0))
        return 0;
    double t = achieved_tflops(r);
    return t > 0 && isfinite(t);
}

typedef struct line_label {
    double value;
    char text[128];
    int slope;      /* 1: bandwidth slope (value in TB/s); 0: roof (TFLOP/s) */
    int measured;
} line_label;

int sb_plot_roofline(const sb_snapshot *snap, const sb_sku_table *skus, const sb_pick *picks,
                     size_t n, const char *sku, sb_buf *out, size_t *drawn, sb_error *err)
{
    *drawn = 0;
    const sb_sku *s = skus ? sb_sku_find(skus, sku) : NULL;
    size_t nceil = 0;
    long long calib_run = -1;
    const sb_ceiling *ceil = sb_snapshot_ceilings(snap, sku, &nceil, &calib_run);
    name_list providers = {0}, dtypes = {0};
    size_t not_modelled = 0, failed = 0, skipped = 0;
    const char *arch = NULL;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, sku) != 0)
            continue;
        arch = r->arch;
        if (strcmp(r->status, "skipped") == 0) {
            skipped++;
            continue;
        }
        if (!r->passing) {
            failed++;
            continue;
        }
        if (!drawable(r)) {
            not_modelled++;
            continue;
        }
        if (names_add(&providers, r->provider) || names_add(&dtypes, r->dtype))
            goto oom;
        double ai = r->flops / r->bytes, t = achieved_tflops(r);
        xlo = fmin(xlo, ai);
        xhi = fmax(xhi, ai);
        ylo = fmin(ylo, t);
        yhi = fmax(yhi, t);
    }
    /* nothing drawable leaves both lists without storage (qsort takes no NULL) */
    if (providers.n)
        qsort(providers.v, providers.n, sizeof *providers.v, name_cmp);
    if (dtypes.n)
        qsort(dtypes.v, dtypes.n, sizeof *dtypes.v, name_cmp);
    /* Ceilings to draw. */
    line_label lines[64];
    size_t nl = 0;
    if (s) {
        /* one roof per distinct peak; dtypes sharing a peak share the line */
        char names[32][64];
        for (size_t i = 0; i < dtypes.n && nl < 32; i++) {
            double peak = sb_sku_peak_tflops(s, dtypes.v[i]);
            if (!(peak > 0))
                continue;
            size_t k = 0;
            while (k < nl && lines[k].value != peak)
                k++;
            if (k < nl) {
                size_t used = strlen(names[k]);
                snprintf(names[k] + used, sizeof names[k] - used, "/%s", dtypes.v[i]);
            } else {
                snprintf(names[nl], sizeof names[nl], "%s", dtypes.v[i]);
                lines[nl].value = peak;
                lines[nl].slope = 0;
                lines[nl].measured = 0;
                nl++;
            }
        }
        for (size_t k = 0; k < nl; k++)
            snprintf(lines[k].text, sizeof lines[k].text, "%.63s datasheet %.4g TFLOP/s", names[k],
                     lines[k].value);
        if (s->hbm_tbps > 0) {
            lines[nl].value = s->hbm_tbps;
            lines[nl].slope = 1;
            lines[nl].measured = 0;
            snprintf(lines[nl].text, sizeof lines[nl].text, "HBM datasheet %.4g TB/s",
                     s->hbm_tbps);
            nl++;
        }
    }
    for (size_t i = 0; i < nceil && nl < 64; i++) {
        const sb_ceiling *c = &ceil[i];
        if (strcmp(c->name, "bw.copy") == 0 && strcmp(c->unit, "GB/s") == 0 && c->value > 0) {
            lines[nl].value = c->value / 1e3;
            lines[nl].slope = 1;
        } else if (strncmp(c->name, "gemm.", 5) == 0 && strcmp(c->unit, "TFLOP/s") == 0 &&
                   c->value > 0) {
            lines[nl].value = c->value;
            lines[nl].slope = 0;
        } else {
            continue;
        }
        lines[nl].measured = 1;
        snprintf(lines[nl].text, sizeof lines[nl].text, "%s measured %.4g %s", c->name, c->value,
                 c->unit);
        nl++;
    }
    if (providers.n == 0) {
        xlo = 0.1;
        xhi = 1000;
        ylo = 0.1;
        yhi = 10;
    }
    for (size_t i = 0; i < nl; i++) {
        if (lines[i].slope)
            continue;
        yhi = fmax(yhi, lines[i].value);
        /* show the ridge points: where each slope meets each roof */
        for (size_t j = 0; j < nl; j++)
            if (lines[j].slope)
                xhi = fmax(xhi, lines[i].value / lines[j].value);
    }
    double x0, x1, y0, y1;
    /* keep points off the frame: a margin of x1.5 before widening to decades */
    sb_scale_decades(xlo / 1.5, xhi * 1.5, &x0, &x1);
    sb_scale_decades(ylo / 1.5, yhi * 1.5, &y0, &y1);
    const double L = 90, R = 590, T = 50, B = 450;
    sb_scale sx = {x0, x1, L, R, 1}, sy = {y0, y1, B, T, 1};
    char title[256];
    snprintf(title, sizeof title, "Roofline, %s (%s)", sku, arch ? arch : "?");
    sb_svg_begin(out, 820, 540, title);
    sb_svg_text(out, L, 24, "start", 15, 0, "#000000", title);
    /* "stale" is said once here: in the shipped data nearly every point of
     * a roofline is, and the tooltips of hundreds of points repeat it */
    sb_svg_text(out, L, 40, "start", 11, 0, "#444444",
                "Evidence level: " SB_EVIDENCE_OP "; newest passing run per case (stale: not "
                "at the newest commit)");
    plot_area(out, &sx, &sy);
    sb_svg_axis_log_x(out, &sx, B, T, NULL, "arithmetic intensity (FLOP/byte)");
    sb_svg_axis_log_y(out, &sy, L, R, NULL, "achieved TFLOP/s");
    /* ceilings */
    for (size_t i = 0; i < nl; i++) {
        const line_label *ln = &lines[i];
        const char *colour = ln->measured ? "#b22222" : "#555555";
        const char *dash = ln->measured ? "6 3" : NULL;
        if (ln->slope) {
            double xa = fmax(x0, y0 / ln->value), xb = fmin(x1, y1 / ln->value);
            if (!(xa < xb))
                continue;
            double px1 = sb_scale_map(&sx, xa), py1 = sb_scale_map(&sy, ln->value * xa);
            double px2 = sb_scale_map(&sx, xb), py2 = sb_scale_map(&sy, ln->value * xb);
            sb_buf_puts(out, "<g class=\"ceiling\">\n");
            sb_svg_line(out, px1, py1, px2, py2, colour, 1.5, dash);
            /* datasheet label above the line near its start, measured
             * label below it further along, so the two never overlap */
            double at = ln->measured ? 0.3 : 0.08;
            double mx = px1 + (px2 - px1) * at, my = py1 + (py2 - py1) * at;
            double angle = atan2(py2 - py1, px2 - px1) * 180.0 / M_PI;
            double off = ln->measured ? 12 : -5;
            double rad = angle * M_PI / 180.0;
            sb_svg_text(out, mx - off * sin(rad), my + off * cos(rad), "start", 10, angle, colour,
                        ln->text);
            sb_buf_puts(out, "</g>\n");
        } else {
            if (ln->value < y0 || ln->value > y1)
                continue;
            double py = sb_scale_map(&sy, ln->value);
            sb_buf_puts(out, "<g class=\"ceiling\">\n");
            sb_svg_line(out, L, py, R, py, colour, 1.5, dash);
            /* datasheet roofs labelled above at the right, measured ones
             * below at the left */
            if (ln->measured)
                sb_svg_text(out, L + 6, py + 12, "start", 10, 0, colour, ln->text);
            else
                sb_svg_text(out, R - 4, py - 4, "end", 10, 0, colour, ln->text);
            sb_buf_puts(out, "</g>\n");
        }
    }
    /* points */
    sb_buf_puts(out, SB_SVG_POINTS_BEGIN);
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, sku) != 0 || !drawable(r))
            continue;
        double ai = r->flops / r->bytes, t = achieved_tflops(r);
        double gbps = !isnan(r->gbps) ? r->gbps : r->bytes / (r->median_ms * 1e6);
        char tip[1024];
        snprintf(tip, sizeof tip, "%s %s %s %s | %s | %.4g TFLOP/s | %.4g GB/s | run %lld%s",
                 r->op, r->mode, r->dtype, r->shape_key, r->provider, t, gbps, r->run_id,
                 picks[i].stale ? " | stale" : "");
        sb_svg_point(out, sb_scale_map(&sx, ai), sb_scale_map(&sy, t), 4.5,
                     sb_svg_provider_color(r->provider), "point", tip);
        (*drawn)++;
    }
    sb_buf_puts(out, SB_SVG_POINTS_END);
    legend(out, &providers, R + 20, T + 10);
    char note[512];
    snprintf(note, sizeof note,
             "Not drawn: %zu failed, %zu skipped, %zu passing without a FLOP/byte model.%s", failed,
             skipped, not_modelled,
             s ? "" : " SKU not in data/skus.csv: no datasheet ceilings.");
    sb_svg_text(out, L, 500, "start", 11, 0, "#444444", note);
    if (calib_run < 0) {
        sb_svg_text(out, L, 516, "start", 11, 0, "#444444",
                    "No calibration stored for this SKU: no measured ceilings.");
    } else {
        /* each ceiling is its name's newest credible one: say so when they
         * come from more than one calibration, naming each run once */
        char runs[256];
        size_t used = (size_t)snprintf(runs, sizeof runs, "%lld", calib_run), distinct = 1;
        for (size_t i = 0; i < nceil; i++) {
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = ceil[j].run_id == ceil[i].run_id;
            if (seen || ceil[i].run_id == calib_run)
                continue;
            distinct++;
            if (used < sizeof runs)
                used += (size_t)snprintf(runs + used, sizeof runs - used, ", %lld", ceil[i].run_id);
        }
        if (distinct == 1)
            snprintf(note, sizeof note,
                     "Dashed red: measured ceilings from calibration run %lld (newest for this SKU); "
                     "solid grey: datasheet (data/skus.csv).",
                     calib_run);
        else
            snprintf(note, sizeof note,
                     "Dashed red: measured ceilings, each the newest credible one (calibration runs %s); "
                     "solid grey: datasheet (data/skus.csv).",
                     runs);
        sb_svg_text(out, L, 516, "start", 11, 0, "#444444", note);
    }
    sb_svg_end(out);
    free(providers.v);
    free(dtypes.v);
    return SB_OK;
oom:
    free(providers.v);
    free(dtypes.v);
    return sb_error_set(err, NULL, NULL, "out of memory");
}

static int same_group(const sb_geo_row *g, const char *op, const char *mode, const char *dtype)
{
    return strcmp(g->op, op) == 0 && strcmp(g->mode, mode) == 0 && strcmp(g->dtype, dtype) == 0;
}

void sb_plot_speedup(const sb_geo_table *t, const char *op, const char *mode, const char *dtype,
                     sb_buf *out)
{
    name_list providers = {0}, skus = {0};
    double ymax = 1.0;
    const char *baseline = "";
    /* bars against the group's first baseline only: one bar per provider */
    int rank = -1;
    for (size_t i = 0; i < t->n; i++)
        if (same_group(&t->rows[i], op, mode, dtype) && (rank < 0 || t->rows[i].baseline_rank < rank))
            rank = t->rows[i].baseline_rank;
    for (size_t i = 0; i < t->n; i++) {
        const sb_geo_row *g = &t->rows[i];
        if (!same_group(g, op, mode, dtype) || g->baseline_rank != rank)
            continue;
        names_add(&providers, g->provider);
        baseline = g->baseline;
        if (g->shapes)
            ymax = fmax(ymax, g->geomean);
    }
    for (size_t k = 0; k < t->nskus; k++)
        for (size_t i = 0; i < t->n; i++)
            if (same_group(&t->rows[i], op, mode, dtype) && t->rows[i].baseline_rank == rank &&
                strcmp(t->rows[i].sku, t->skus[k]) == 0) {
                names_add(&skus, t->skus[k]);
                break;
            }
    if (providers.n) /* qsort(NULL, 0, ...) is undefined */
        qsort(providers.v, providers.n, sizeof *providers.v, name_cmp);
    const double bar = 26, L = 80, T = 50, B = 330;
    /* groups wide enough for the SKU label under them */
    double group_w = fmax((double)providers.n * bar + 34, 150);
    double R = L + (double)skus.n * group_w + 10;
    if (R < L + 300)
        R = L + 300;
    int width = (int)R + 200;
    if (width < 760)
        width = 760;
    /* a round tick step (0.25, 0.5, 1, 2, 5, 10...) giving at most 8 ticks */
    static const double steps[] = {0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    double step = steps[0];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        step = steps[i];
        if (ymax * 1.15 / step <= 8)
            break;
    }
    int nticks = (int)ceil(ymax * 1.15 / step);
    if (nticks < 1)
        nticks = 1;
    ymax = step * nticks;
    sb_scale sy = {0, ymax, B, T, 0};
    sb_scale sx = {0, 1, L, R, 0};
    char title[256];
    snprintf(title, sizeof title, "Unpaired: geomean speedup over %s: %s %s %s", baseline, op, mode, dtype);
    sb_svg_begin(out, width, 420, title);
    sb_svg_text(out, L, 24, "start", 15, 0, "#000000", title);
    /* the bars are of newest result runs, never a session's pairs
     * (docs/CLAIMS.md, rule 8): the caption says so */
    sb_svg_text(out, L, 40, "start", 11, 0, "#444444",
                "Evidence level: " SB_EVIDENCE_OP "; different runs: baseline median / provider median "
                "of the newest runs, geomean over shapes both passed");
    plot_area(out, &sx, &sy);
    sb_svg_axis_linear_y(out, &sy, L, R, nticks, "geomean speedup (x)");
    sb_svg_line(out, L, B, R, B, "#000000", 1, NULL);
    double y1 = sb_scale_map(&sy, 1.0);
    sb_svg_line(out, L, y1, R, y1, "#333333", 1, "4 3");
    char buf[512];
    snprintf(buf, sizeof buf, "1 = %s", baseline);
    sb_svg_text(out, R + 4, y1 + 4, "start", 10, 0, "#333333", buf);
    for (size_t k = 0; k < skus.n; k++) {
        double gx = L + 10 + (double)k * group_w + (group_w - 34 - (double)providers.n * bar) / 2;
        for (size_t p = 0; p < providers.n; p++) {
            const sb_geo_row *g = NULL;
            for (size_t i = 0; i < t->n && !g; i++)
                if (same_group(&t->rows[i], op, mode, dtype) && t->rows[i].baseline_rank == rank &&
                    strcmp(t->rows[i].sku, skus.v[k]) == 0 &&
                    strcmp(t->rows[i].provider, providers.v[p]) == 0)
                    g = &t->rows[i];
            double x = gx + (double)p * bar;
            if (!g)
                continue;
            if (g->shapes == 0) {
                snprintf(buf, sizeof buf, "%s on %s: no shape compared (%zu failed, %zu skipped)",
                         g->provider, g->sku, g->failed, g->skipped);
                sb_buf_puts(out, "<g class=\"no-data\">");
                sb_svg_text(out, x + bar / 2, B - 4, "middle", 9, -90, "#b22222",
                            g->failed ? "failed" : "n/a");
                sb_buf_puts(out, "</g>\n");
                continue;
            }
            double yv = sb_scale_map(&sy, g->geomean);
            snprintf(buf, sizeof buf,
                     "%s on %s: %.3fx geomean over %zu shapes (min %.3f, max %.3f); %zu failed, "
                     "%zu skipped",
                     g->provider, g->sku, g->geomean, g->shapes, g->min, g->max, g->failed,
                     g->skipped);
            sb_buf_puts(out, "<g class=\"bar\">");
            sb_svg_rect(out, x + 2, yv, bar - 4, B - yv, sb_svg_provider_color(providers.v[p]), buf);
            snprintf(buf, sizeof buf, "%.2f", g->geomean);
            sb_svg_text(out, x + bar / 2, yv - 3, "middle", 9, 0, "#000000", buf);
            sb_buf_puts(out, "</g>\n");
        }
        sb_svg_text(out, gx + (double)providers.n * bar / 2, B + 18, "middle", 11, 0, "#000000",
                    skus.v[k]);
    }
    legend(out, &providers, R + 60, T + 10);
    sb_svg_end(out);
    free(providers.v);
    free(skus.v);
}

/* A case a provider has no time at: a cross of half-size h at (x, y) in
 * a group of class cls whose tooltip says why. */
static void cross_mark(sb_buf *out, const char *cls, const char *tip, double x, double y, double h,
                       const char *colour, double width)
{
    sb_buf_printf(out, "<g class=\"%s\"><title>", cls);
    sb_enc_xml_text(out, tip);
    sb_buf_puts(out, "</title>");
    sb_svg_line(out, x - h, y - h, x + h, y + h, colour, width, NULL);
    sb_svg_line(out, x - h, y + h, x + h, y - h, colour, width, NULL);
    sb_buf_puts(out, "</g>\n");
}

typedef struct shape_slot {
    const char *case_key, *shape_key;
    double flops;
} shape_slot;

static int slot_cmp(const void *a, const void *b)
{
    const shape_slot *x = a, *y = b;
    double fx = isnan(x->flops) ? -1 : x->flops, fy = isnan(y->flops) ? -1 : y->flops;
    if (fx != fy)
        return (fx > fy) - (fx < fy);
    return strcmp(x->shape_key, y->shape_key);
}

void sb_plot_latency(const sb_pick *picks, size_t n, const char *op, const char *mode,
                     const char *dtype, const char *sku, sb_buf *out)
{
    name_list providers = {0};
    shape_slot *slots = calloc(n + 1, sizeof *slots);
    size_t ns = 0;
    double ylo = INFINITY, yhi = -INFINITY;
    if (!slots) {
        out->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->op, op) || strcmp(r->mode, mode) || strcmp(r->dtype, dtype) ||
            strcmp(r->sku, sku))
            continue;
        names_add(&providers, r->provider);
        size_t k = 0;
        while (k < ns && strcmp(slots[k].case_key, r->case_key) != 0)
            k++;
        if (k == ns) {
            slots[ns].case_key = r->case_key;
            slots[ns].shape_key = r->shape_key;
            slots[ns].flops = NAN;
            ns++;
        }
        if (r->flops > 0 && (isnan(slots[k].flops) || r->flops > slots[k].flops))
            slots[k].flops = r->flops;
        if (r->passing && r->median_ms > 0) {
            ylo = fmin(ylo, r->median_ms);
            yhi = fmax(yhi, r->median_ms);
        }
    }
    if (providers.n) /* qsort(NULL, 0, ...) is undefined */
        qsort(providers.v, providers.n, sizeof *providers.v, name_cmp);
    if (ns)
        qsort(slots, ns, sizeof *slots, slot_cmp);
    if (!(ylo <= yhi)) {
        ylo = 0.01;
        yhi = 1;
    }
    double y0, y1;
    sb_scale_decades(ylo / 1.5, yhi * 1.5, &y0, &y1);
    const double L = 90, T = 50, B = 360, step = 48;
    double R = L + 30 + (double)(ns > 1 ? ns - 1 : 1) * step + 30;
    if (R < L + 240)
        R = L + 240;
    sb_scale sx = {0, (double)(ns > 1 ? ns - 1 : 1), L + 30, R - 30, 0};
    sb_scale sy = {y0, y1, B, T, 1};
    char title[256];
    snprintf(title, sizeof title, "Median latency by shape: %s %s %s on %s", op, mode, dtype, sku);
    sb_svg_begin(out, (int)R + 200, 520, title);
    sb_svg_text(out, L, 24, "start", 15, 0, "#000000", title);
    sb_svg_text(out, L, 40, "start", 11, 0, "#444444",
                "Evidence level: " SB_EVIDENCE_OP "; newest run per case; x marks failed/skipped");
    plot_area(out, &sx, &sy);
    sb_svg_axis_log_y(out, &sy, L, R, "ms", "median latency");
    sb_svg_line(out, L, B, R, B, "#000000", 1, NULL);
    for (size_t k = 0; k < ns; k++) {
        double x = sb_scale_map(&sx, (double)k);
        sb_svg_line(out, x, B, x, B + 5, "#000000", 1, NULL);
        sb_svg_text(out, x, B + 14, "end", 10, -35, "#000000", slots[k].shape_key);
    }
    sb_buf_puts(out, SB_SVG_POINTS_BEGIN);
    for (size_t p = 0; p < providers.n; p++) {
        const char *colour = sb_svg_provider_color(providers.v[p]);
        sb_buf polyline = SB_BUF_INIT;
        size_t npts = 0;
        for (size_t k = 0; k < ns; k++) {
            const sb_pick *pk = NULL;
            for (size_t i = 0; i < n && !pk; i++)
                if (strcmp(picks[i].r->case_key, slots[k].case_key) == 0 &&
                    strcmp(picks[i].r->provider, providers.v[p]) == 0 &&
                    strcmp(picks[i].r->sku, sku) == 0)
                    pk = &picks[i];
            if (!pk)
                continue;
            const sb_result *r = pk->r;
            double x = sb_scale_map(&sx, (double)k);
            char tip[1024];
            if (r->passing && r->median_ms > 0) {
                double y = sb_scale_map(&sy, r->median_ms);
                snprintf(tip, sizeof tip, "%s %s | %s | median %.4g ms | run %lld%s", r->op,
                         r->shape_key, r->provider, r->median_ms, r->run_id,
                         pk->stale ? " | stale (not at the newest commit)" : "");
                sb_svg_point(out, x, y, 4, colour, "point", tip);
                sb_buf_printf(&polyline, "%s%.2f,%.2f", npts ? " " : "", x, y);
                npts++;
            } else {
                snprintf(tip, sizeof tip, "%s %s | %s | %s | run %lld", r->op, r->shape_key,
                         r->provider,
                         strcmp(r->status, "skipped") == 0 ? "skipped" : "failed correctness",
                         r->run_id);
                cross_mark(out, "failed-case", tip, x, B - 8 - 9.0 * (double)p, 4, colour, 2);
            }
        }
        if (npts > 1)
            sb_buf_printf(out,
                          "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                          "stroke-width=\"1.2\"/>\n",
                          sb_buf_str(&polyline), colour);
        if (sb_buf_failed(&polyline))
            out->failed = 1;
        sb_buf_free(&polyline);
    }
    sb_buf_puts(out, SB_SVG_POINTS_END);
    legend(out, &providers, R + 20, T + 10);
    sb_svg_end(out);
    free(providers.v);
    free(slots);
}

/* 1 when one of colours[0..n) is c. */
static int colour_used(const char *const *colours, size_t n, const char *c)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(colours[i], c) == 0)
            return 1;
    return 0;
}

void sb_plot_case_times(const char *title, const char *caption, const char *const *labels,
                        const char *const *tips, size_t ncases, const char *const *names,
                        const char *const *labels_p, size_t nproviders, const sb_case_time *t,
                        sb_buf *out)
{
    double ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < ncases * nproviders; i++)
        if (t[i].p50 > 0 && isfinite(t[i].p50)) {
            ylo = fmin(ylo, fmin(t[i].p50, t[i].p20 > 0 ? t[i].p20 : t[i].p50));
            yhi = fmax(yhi, fmax(t[i].p50, t[i].p80 > 0 ? t[i].p80 : t[i].p50));
        }
    if (!(ylo <= yhi)) {
        ylo = 0.01;
        yhi = 1;
    }
    double y0, y1;
    sb_scale_decades(ylo / 1.5, yhi * 1.5, &y0, &y1);
    /* a slot per case wide enough for a point of each provider side by side */
    double step = fmax(16.0, 7.0 * (double)nproviders + 4);
    const double L = 90, T = 50, B = 330;
    double R = L + 20 + (double)ncases * step;
    if (R < L + 300)
        R = L + 300;
    sb_scale sx = {0, (double)(ncases ? ncases : 1), L + 10, R - 10, 0};
    sb_scale sy = {y0, y1, B, T, 1};
    /* room under the axis for the slanted case labels */
    size_t longest = 0;
    for (size_t k = 0; k < ncases; k++)
        if (strlen(labels[k]) > longest)
            longest = strlen(labels[k]);
    int height = (int)(B + 40 + 5.5 * (double)longest * 0.8);
    int width = (int)R + 240;
    if (width < (int)(L + 6.0 * (double)strlen(caption)))
        width = (int)(L + 6.0 * (double)strlen(caption));
    /* each series its own colour: a provider without one of its own may
     * hash to another's, so a repeat takes the first colour not in use */
    const char *colours[32];
    size_t nc = nproviders < 32 ? nproviders : 32;
    for (size_t p = 0; p < nc; p++) {
        colours[p] = sb_svg_provider_color(names[p]);
        for (size_t i = 0; i < 64 && colour_used(colours, p, colours[p]); i++)
            colours[p] = sb_svg_color(i);
    }
    sb_svg_begin(out, width, height, title);
    sb_svg_text(out, L, 24, "start", 15, 0, "#000000", title);
    sb_svg_text(out, L, 40, "start", 11, 0, "#444444", caption);
    plot_area(out, &sx, &sy);
    sb_svg_axis_log_y(out, &sy, L, R, "ms", "kernel time, p50 (bar: p20-p80)");
    sb_svg_line(out, L, B, R, B, "#000000", 1, NULL);
    for (size_t k = 0; k < ncases; k++) {
        double x = sb_scale_map(&sx, (double)k + 0.5);
        sb_svg_line(out, x, B, x, B + 4, "#000000", 1, NULL);
        sb_svg_text(out, x, B + 12, "end", 9, -55, "#000000", labels[k]);
    }
    sb_buf_puts(out, SB_SVG_POINTS_BEGIN);
    for (size_t p = 0; p < nc; p++) {
        const char *colour = colours[p];
        double off = ((double)p - ((double)nproviders - 1) / 2.0) * 6.0;
        for (size_t k = 0; k < ncases; k++) {
            const sb_case_time *c = &t[k * nproviders + p];
            double x = sb_scale_map(&sx, (double)k + 0.5) + off;
            char tip[1024];
            if (c->p50 > 0 && isfinite(c->p50)) {
                double y = sb_scale_map(&sy, c->p50);
                if (c->p20 > 0 && c->p80 > 0)
                    sb_svg_line(out, x, sb_scale_map(&sy, c->p20), x, sb_scale_map(&sy, c->p80), colour, 1.5,
                                NULL);
                snprintf(tip, sizeof tip, "%s | %s | p50 %.4g ms (p20 %.4g, p80 %.4g)", tips[k], labels_p[p],
                         c->p50, c->p20, c->p80);
                sb_svg_point(out, x, y, 3, colour, "point", tip);
            } else if (c->state) {
                snprintf(tip, sizeof tip, "%s | %s | %s", tips[k], labels_p[p], c->state);
                cross_mark(out, "not-timed", tip, x, B - 6 - 7.0 * (double)p, 3, colour, 1.5);
            }
        }
    }
    sb_buf_puts(out, SB_SVG_POINTS_END);
    /* the legend with the labels given (a variant says so) */
    sb_svg_text(out, R + 20, T + 10, "start", 12, 0, "#000000", "provider");
    for (size_t p = 0; p < nc; p++) {
        double yy = T + 28 + 18.0 * (double)p;
        sb_buf_printf(out, "<circle class=\"legend\" cx=\"%.2f\" cy=\"%.2f\" r=\"5.0\" fill=\"%s\"/>\n", R + 25,
                      yy - 4, colours[p]);
        sb_svg_text(out, R + 35, yy, "start", 11, 0, "#000000", labels_p[p]);
    }
    sb_svg_end(out);
}
