/* history.c - the history chart of one case on one SKU (history.h). */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

static int cmp_step(const void *x, const void *y)
{
    long long a = (*(const sb_rg_row *const *)x)->new_run->run_id;
    long long b = (*(const sb_rg_row *const *)y)->new_run->run_id;
    return (a > b) - (a < b);
}

void sb_history_sort_steps(const sb_rg_row **steps, size_t n)
{
    qsort(steps, n, sizeof *steps, cmp_step);
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

void sb_history_svg(const sb_result *const *runs, size_t n, const sb_rg_order *ord,
                    const sb_rg_row *const *steps, size_t nsteps, const char *title, sb_buf *out,
                    size_t *points)
{
    *points = 0;
    /* providers, in name order */
    const char **prov = malloc((n ? n : 1) * sizeof *prov);
    point *pt = malloc((n ? n : 1) * sizeof *pt);
    long *cols = malloc((n ? n : 1) * sizeof *cols);
    if (!prov || !pt || !cols)
        goto done;
    size_t np = 0, npt = 0, ncols = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < np && strcmp(prov[k], runs[i]->provider) != 0)
            k++;
        if (k == np)
            prov[np++] = runs[i]->provider;
    }
    for (size_t a = 1; a < np; a++)
        for (size_t b = a; b > 0 && strcmp(prov[b - 1], prov[b]) > 0; b--) {
            const char *t = prov[b];
            prov[b] = prov[b - 1];
            prov[b - 1] = t;
        }
    /* one point per provider and commit: the newest passing run there */
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = runs[i];
        long rank = sb_rg_order_rank(ord, r->git_sha);
        if (!r->passing || rank < 0 || !(r->median_ms > 0))
            continue;
        size_t s = 0;
        while (strcmp(prov[s], r->provider) != 0)
            s++;
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
        size_t c = 0;
        while (cols[c] != pt[k].rank)
            c++;
        pt[k].col = c;
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
    hi += pad;
    enum { W = 720, H = 300, L = 64, R = 150, T = 30, B = 62 };
    sb_scale xs = {0, ncols > 1 ? (double)(ncols - 1) : 1, L + 10, W - R - 10, 0};
    sb_scale ys = {lo, hi, H - B, T, 0};
    if (ncols == 1)
        xs.p0 = xs.p1 = (L + W - R) / 2.0;
    sb_svg_begin(out, W, H, title);
    sb_svg_text(out, L, 18, "start", 13, 0, "#222222", title);
    sb_svg_axis_linear_y(out, &ys, L, W - R, 4, "median ms (band p20-p80)");
    sb_svg_line(out, L, H - B, W - R, H - B, "#333333", 1, NULL);
    /* commit labels: at most 16, evenly picked, the last always */
    size_t every = ncols > 16 ? (ncols + 15) / 16 : 1;
    for (size_t c = 0; c < ncols; c++) {
        if (c % every && c != ncols - 1)
            continue;
        double x = sb_scale_map(&xs, (double)c);
        const char *sha = NULL;
        for (size_t k = 0; k < npt && !sha; k++)
            if (pt[k].col == c)
                sha = pt[k].r->git_sha;
        char label[16];
        snprintf(label, sizeof label, "%.7s", sha ? sha : "");
        sb_svg_line(out, x, H - B, x, H - B + 4, "#333333", 1, NULL);
        sb_svg_text(out, x, H - B + 14, "end", 10, -40, "#333333", label);
    }
    sb_svg_text(out, (L + W - R) / 2.0, H - 4, "middle", 11, 0, "#333333",
                "commit, in the order first measured");
    char tip[512], med[32], p20[32], p80[32];
    for (size_t s = 0, k = 0; s < np; s++) {
        size_t from = k;
        while (k < npt && pt[k].series == s)
            k++;
        if (from == k)
            continue;
        const char *col = sb_svg_color(s);
        /* the band: p80 left to right, then p20 back */
        sb_buf_puts(out, "<polygon class=\"band\" fill=\"");
        sb_buf_puts(out, col);
        sb_buf_puts(out, "\" fill-opacity=\"0.15\" stroke=\"none\" points=\"");
        for (size_t q = from; q < k; q++) {
            const sb_result *r = pt[q].r;
            sb_buf_printf(out, "%.2f,%.2f ", sb_scale_map(&xs, (double)pt[q].col),
                          sb_scale_map(&ys, isnan(r->p80_ms) ? r->median_ms : r->p80_ms));
        }
        for (size_t q = k; q-- > from;) {
            const sb_result *r = pt[q].r;
            sb_buf_printf(out, "%.2f,%.2f ", sb_scale_map(&xs, (double)pt[q].col),
                          sb_scale_map(&ys, isnan(r->p20_ms) ? r->median_ms : r->p20_ms));
        }
        sb_buf_puts(out, "\"/>\n<polyline class=\"median-line\" fill=\"none\" stroke-width=\"1.5\" stroke=\"");
        sb_buf_puts(out, col);
        sb_buf_puts(out, "\" points=\"");
        for (size_t q = from; q < k; q++)
            sb_buf_printf(out, "%.2f,%.2f ", sb_scale_map(&xs, (double)pt[q].col),
                          sb_scale_map(&ys, pt[q].r->median_ms));
        sb_buf_puts(out, "\"/>\n");
        for (size_t q = from; q < k; q++) {
            const sb_result *r = pt[q].r;
            double x = sb_scale_map(&xs, (double)pt[q].col), y = sb_scale_map(&ys, r->median_ms);
            sb_fmt_sig3(r->median_ms, med, sizeof med);
            sb_fmt_sig3(r->p20_ms, p20, sizeof p20);
            sb_fmt_sig3(r->p80_ms, p80, sizeof p80);
            const sb_rg_row *st = step_of(steps, nsteps, r->run_id);
            const char *mark = st && st->verdict == SB_RG_REGRESSION    ? "regression"
                               : st && st->verdict == SB_RG_IMPROVEMENT ? "improvement"
                                                                        : NULL;
            snprintf(tip, sizeof tip, "%s %.7s: %s ms (%s-%s), run %lld%s%s", r->provider,
                     r->git_sha, med, p20, p80, r->run_id, mark ? ", " : "", mark ? mark : "");
            sb_svg_point(out, x, y, 3, col, "point", tip);
            if (mark) {
                int up = st->verdict == SB_RG_REGRESSION;
                sb_buf_printf(out,
                              "<polygon class=\"%s\" fill=\"%s\" points=\"%.2f,%.2f %.2f,%.2f "
                              "%.2f,%.2f\"><title>",
                              mark, up ? "#d62728" : "#2ca02c", x - 5, up ? y - 8 : y + 8, x + 5,
                              up ? y - 8 : y + 8, x, up ? y - 16 : y + 16);
                char change[160];
                snprintf(change, sizeof change, "%s: %+.1f%% against %.10s (p %.2g)", mark,
                         st->rel_change * 100, st->old_run ? st->old_run->git_sha : "-", st->p);
                sb_buf_xml_escaped(out, change);
                sb_buf_puts(out, "</title></polygon>\n");
            }
            (*points)++;
        }
        /* legend */
        double ly = T + 14 * (double)s;
        sb_svg_line(out, W - R + 12, ly, W - R + 28, ly, col, 2, NULL);
        sb_svg_text(out, W - R + 32, ly + 4, "start", 11, 0, "#333333", prov[s]);
    }
    sb_svg_end(out);
done:
    free(prov);
    free(pt);
    free(cols);
}
