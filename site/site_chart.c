/* site_chart.c - the history chart of one case on one SKU as the site
 * draws it inline: per provider the median of the newest passing run at
 * each commit as a line, p20 to p80 as a band, commits along x in the
 * order first measured, a filled black triangle up on every regression and a
 * hollow one down on every improvement against the commit before.
 *
 * The chart is drawn for pages, not for a file of its own: each series is
 * one group of three paths (band, line, points) in the provider's colour
 * (sb_svg_provider_color), line widths and fonts come from classes in
 * assets/site.css, coordinates have one decimal, and only
 * the regression and improvement marks carry a tooltip (the runs table
 * under the chart gives every point's figures). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"
#include "svg.h" /* sb_fmt_sig3, sb_scale, sb_svg_provider_color */

static void put_xy(sb_buf *b, char cmd, double x, double y)
{
    sb_buf_putc(b, cmd);
    site_put_coord(b, x);
    sb_buf_putc(b, ' ');
    site_put_coord(b, y);
}

static void text_at(sb_buf *b, const char *cls, double x, double y, int rotate, const char *s)
{
    sb_buf_puts(b, "<text class=\"");
    sb_buf_puts(b, cls);
    sb_buf_puts(b, "\" x=\"");
    site_put_coord(b, x);
    sb_buf_puts(b, "\" y=\"");
    site_put_coord(b, y);
    if (rotate) {
        sb_buf_puts(b, "\" transform=\"rotate(");
        site_put_ll(b, rotate);
        sb_buf_putc(b, ' ');
        site_put_coord(b, x);
        sb_buf_putc(b, ' ');
        site_put_coord(b, y);
        sb_buf_putc(b, ')');
    }
    sb_buf_puts(b, "\">");
    site_esc(b, s);
    sb_buf_puts(b, "</text>");
}

static const sb_rg_row *step_of(const sb_rg_row *const *steps, size_t n, long long run_id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        long long id = steps[mid]->new_run->run_id;
        if (id == run_id)
            return steps[mid];
        if (id < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

typedef struct point {
    const sb_result *r;
    long rank;     /* commit rank */
    size_t col;    /* x column: index among this chart's commits */
    size_t series; /* provider index */
} point;

static int newer(const sb_result *a, const sb_result *b)
{
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch > b->finished_epoch;
    return a->run_id > b->run_id;
}

static int cmp_point(const void *x, const void *y)
{
    const point *a = x, *b = y;
    if (a->series != b->series)
        return (a->series > b->series) - (a->series < b->series);
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static int cmp_long(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void site_history_chart(const sb_result *const *runs, size_t n, const sb_rg_order *ord,
                        const sb_rg_row *const *steps, size_t nsteps, const char *title,
                        sb_buf *out, size_t *points)
{
    *points = 0;
    const char **prov = malloc((n ? n : 1) * sizeof *prov);
    point *pt = malloc((n ? n : 1) * sizeof *pt);
    long *cols = malloc((n ? n : 1) * sizeof *cols);
    if (!prov || !pt || !cols) {
        out->failed = 1;
        goto done;
    }
    /* providers, in name order */
    size_t np = 0, npt = 0, ncols = 0;
    for (size_t i = 0; i < n; i++)
        prov[np++] = runs[i]->provider;
    if (np)
        qsort(prov, np, sizeof *prov, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < np; i++)
        if (!u || strcmp(prov[u - 1], prov[i]))
            prov[u++] = prov[i];
    np = u;
    /* one point per provider and commit: the newest passing run there */
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = runs[i];
        long rank = sb_rg_order_rank(ord, r->git_sha);
        if (!r->passing || rank < 0 || !(r->median_ms > 0))
            continue;
        const char **f = bsearch(&r->provider, prov, np, sizeof *prov, cmp_str);
        size_t s = (size_t)(f - prov);
        size_t k = 0;
        while (k < npt && !(pt[k].series == s && pt[k].rank == rank))
            k++;
        if (k == npt)
            pt[npt++] = (point){r, rank, 0, s};
        else if (newer(r, pt[k].r))
            pt[k].r = r;
    }
    if (!npt)
        goto done;
    qsort(pt, npt, sizeof *pt, cmp_point);
    for (size_t k = 0; k < npt; k++)
        cols[ncols++] = pt[k].rank;
    qsort(cols, ncols, sizeof *cols, cmp_long);
    size_t m = 0;
    for (size_t k = 0; k < ncols; k++)
        if (!m || cols[m - 1] != cols[k])
            cols[m++] = cols[k];
    ncols = m;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < npt; k++) {
        long *c = bsearch(&pt[k].rank, cols, ncols, sizeof *cols, cmp_long);
        pt[k].col = (size_t)(c - cols);
        const sb_result *r = pt[k].r;
        double a = isnan(r->p20_ms) ? r->median_ms : r->p20_ms;
        double b = isnan(r->p80_ms) ? r->median_ms : r->p80_ms;
        if (a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    double pad = (hi - lo) * 0.08;
    if (!(pad > 0))
        pad = lo * 0.05 + 1e-9;
    lo = lo - pad > 0 ? lo - pad : 0;
    /* a time near the largest double has no room above it */
    hi = hi + pad <= DBL_MAX ? hi + pad : DBL_MAX;
    enum { W = 720, H = 300, L = 64, R = 150, T = 30, B = 62 };
    sb_scale xs = {0, ncols > 1 ? (double)(ncols - 1) : 1, L + 10, W - R - 10, 0};
    sb_scale ys = {lo, hi, H - B, T, 0};
    if (ncols == 1)
        xs.p0 = xs.p1 = (L + W - R) / 2.0;

    /* the title is the tooltip only: the page's heading or the figure's
     * caption names the case */
    sb_buf_puts(out, "<svg class=\"hc\" role=\"img\" width=\"720\" height=\"300\" viewBox=\"0 0 720 300\">"
                     "<title>");
    site_esc(out, title);
    sb_buf_puts(out, "</title>");
    /* the y axis: grid, ticks and labels at five even steps */
    char label[48];
    sb_buf_puts(out, "\n<path class=\"grid\" d=\"");
    for (int i = 0; i <= 4; i++) {
        put_xy(out, 'M', L, sb_scale_map(&ys, lo + (hi - lo) / 4 * i));
        sb_buf_putc(out, 'H');
        site_put_coord(out, W - R);
    }
    sb_buf_puts(out, "\"/><path class=\"ax\" d=\"");
    put_xy(out, 'M', L, T);
    sb_buf_putc(out, 'V');
    site_put_coord(out, H - B);
    sb_buf_putc(out, 'H');
    site_put_coord(out, W - R);
    for (int i = 0; i <= 4; i++) {
        put_xy(out, 'M', L - 5, sb_scale_map(&ys, lo + (hi - lo) / 4 * i));
        sb_buf_puts(out, "h5");
    }
    /* commit labels: at most 16, evenly picked, the last always */
    size_t every = ncols > 16 ? (ncols + 15) / 16 : 1;
    for (size_t c = 0; c < ncols; c++)
        if (!(c % every) || c == ncols - 1) {
            put_xy(out, 'M', sb_scale_map(&xs, (double)c), H - B);
            sb_buf_puts(out, "v4");
        }
    sb_buf_puts(out, "\"/>\n");
    for (int i = 0; i <= 4; i++) {
        double v = lo + (hi - lo) / 4 * i;
        sb_fmt_sig3(v, label, sizeof label);
        text_at(out, "yl", L - 8, sb_scale_map(&ys, v) + 4, 0, label);
    }
    text_at(out, "yt", L - 45, (H - B + T) / 2.0, -90, "median ms (band p20-p80)");
    for (size_t c = 0; c < ncols; c++) {
        if (c % every && c != ncols - 1)
            continue;
        const char *sha = NULL;
        for (size_t k = 0; k < npt && !sha; k++)
            if (pt[k].col == c)
                sha = pt[k].r->git_sha;
        snprintf(label, sizeof label, "%.7s", sha ? sha : "");
        /* turned 40 degrees by site.css, about the label's end */
        text_at(out, "xl", sb_scale_map(&xs, (double)c), H - B + 14, 0, label);
    }
    text_at(out, "xt", (L + W - R) / 2.0, H - 4, 0, "commit, in the order first measured");
    sb_buf_putc(out, '\n');
    sb_buf marks = SB_BUF_INIT;
    for (size_t s = 0, k = 0; s < np; s++) {
        size_t from = k;
        while (k < npt && pt[k].series == s)
            k++;
        if (from == k)
            continue;
        /* the provider's colour on every chart (report/provider_colours.csv);
         * the classes of assets/site.css override these for each path */
        const char *colour = sb_svg_provider_color(prov[s]);
        sb_buf_puts(out, "<g fill=\"");
        sb_buf_puts(out, colour);
        sb_buf_puts(out, "\" stroke=\"");
        sb_buf_puts(out, colour);
        /* the band: p80 left to right, then p20 back */
        sb_buf_puts(out, "\"><path class=\"band\" d=\"");
        for (size_t q = from; q < k; q++) {
            const sb_result *r = pt[q].r;
            put_xy(out, q == from ? 'M' : 'L', sb_scale_map(&xs, (double)pt[q].col),
                   sb_scale_map(&ys, isnan(r->p80_ms) ? r->median_ms : r->p80_ms));
        }
        for (size_t q = k; q-- > from;) {
            const sb_result *r = pt[q].r;
            put_xy(out, 'L', sb_scale_map(&xs, (double)pt[q].col),
                   sb_scale_map(&ys, isnan(r->p20_ms) ? r->median_ms : r->p20_ms));
        }
        sb_buf_puts(out, "Z\"/><path class=\"ln\" d=\"");
        for (size_t q = from; q < k; q++)
            put_xy(out, q == from ? 'M' : 'L', sb_scale_map(&xs, (double)pt[q].col),
                   sb_scale_map(&ys, pt[q].r->median_ms));
        sb_buf_puts(out, "\"/><path class=\"pt\" d=\"");
        for (size_t q = from; q < k; q++) {
            const sb_result *r = pt[q].r;
            double x = sb_scale_map(&xs, (double)pt[q].col), y = sb_scale_map(&ys, r->median_ms);
            put_xy(out, 'M', x, y);
            sb_buf_puts(out, "h0");
            const sb_rg_row *st = step_of(steps, nsteps, r->run_id);
            if (st && (st->verdict == SB_RG_REGRESSION || st->verdict == SB_RG_IMPROVEMENT)) {
                int up = st->verdict == SB_RG_REGRESSION;
                const char *mark = up ? "regression" : "improvement";
                double tip = up ? y - 16 : y + 16, base = up ? y - 8 : y + 8;
                sb_buf_puts(&marks, "<polygon class=\"");
                sb_buf_puts(&marks, mark);
                sb_buf_puts(&marks, "\" points=\"");
                site_put_coord(&marks, x - 5);
                sb_buf_putc(&marks, ',');
                site_put_coord(&marks, base);
                sb_buf_putc(&marks, ' ');
                site_put_coord(&marks, x + 5);
                sb_buf_putc(&marks, ',');
                site_put_coord(&marks, base);
                sb_buf_putc(&marks, ' ');
                site_put_coord(&marks, x);
                sb_buf_putc(&marks, ',');
                site_put_coord(&marks, tip);
                char change[200];
                snprintf(change, sizeof change, "%s %.7s, run %lld: %s %+.1f%% against %.10s (p %.2g)",
                         r->provider, r->git_sha, r->run_id, mark, st->rel_change * 100,
                         st->old_run ? st->old_run->git_sha : "-", st->p);
                sb_buf_puts(&marks, "\"><title>");
                site_esc(&marks, change);
                sb_buf_puts(&marks, "</title></polygon>\n");
            }
            (*points)++;
        }
        /* legend */
        double ly = T + 14 * (double)s;
        sb_buf_puts(out, "\"/><path class=\"lg\" d=\"");
        put_xy(out, 'M', W - R + 12, ly);
        sb_buf_puts(out, "h16\"/>");
        text_at(out, "lt", W - R + 32, ly + 4, 0, prov[s]);
        sb_buf_puts(out, "</g>\n");
    }
    sb_buf_add(out, sb_buf_str(&marks), marks.len);
    if (sb_buf_failed(&marks))
        out->failed = 1;
    sb_buf_free(&marks);
    sb_buf_puts(out, "</svg>");
done:
    free(prov);
    free(pt);
    free(cols);
}
