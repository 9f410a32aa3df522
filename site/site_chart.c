/* site_chart.c - the history chart of one case on one SKU as the site
 * draws it inline: per provider the median of the newest passing run at
 * each commit as a line, p20 to p80 as a band, commits along x in git
 * order where the commits table knows them all (else in the order first
 * measured), labelled with their dates and short SHAs, y ticks at round
 * 1-2-5 steps, a filled black triangle up on every regression and a
 * hollow one down on every improvement against the commit before.
 *
 * The chart is drawn for pages, not for a file of its own: each series is
 * one group (band, line, points) in the provider's colour
 * (sb_svg_provider_color), line widths and fonts come from classes in
 * assets/site.css, and coordinates have one decimal. Every point is an
 * element of its own with a tooltip (commit, date, run, median, p20-p80
 * spread), so a reader hovering a point needs no table to read it. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commits.h" /* sb_commits_lookup */
#include "isoweek.h" /* sb_epoch_date */
#include "site_parts.h"
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

static int cmp_commit(const void *x, const void *y)
{
    return strcmp(((const site_commit *)x)->sha, ((const site_commit *)y)->sha);
}

int site_commits_build(sb_db *db, const sb_result_set *set, const sb_rg_order *ord,
                       site_commits *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    site_commit *v = malloc((set->n ? set->n : 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        const sb_result *r = &set->v[i];
        long rank = sb_rg_order_rank(ord, r->git_sha);
        if (rank >= 0)
            v[n++] = (site_commit){r->git_sha, -1, -1, rank, r->finished_epoch};
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_commit);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && strcmp(v[m - 1].sha, v[i].sha) == 0) {
            /* LLONG_MIN: a run whose finish time is not known */
            if (v[i].first != LLONG_MIN &&
                (v[m - 1].first == LLONG_MIN || v[i].first < v[m - 1].first))
                v[m - 1].first = v[i].first;
        } else {
            v[m++] = v[i];
        }
    }
    /* v held an entry per run; the site keeps one per commit to its end */
    site_commit *sv = realloc(v, (m ? m : 1) * sizeof *v);
    if (sv)
        v = sv;
    const char **shas = malloc((m ? m : 1) * sizeof *shas);
    long long *git = malloc((m ? m : 1) * sizeof *git), *at = malloc((m ? m : 1) * sizeof *at);
    int rc = SB_OK;
    if (!shas || !git || !at) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    } else {
        for (size_t i = 0; i < m; i++)
            shas[i] = v[i].sha;
        rc = sb_commits_lookup(db, shas, m, git, at, err);
        for (size_t i = 0; rc == SB_OK && i < m; i++) {
            v[i].git = git[i];
            v[i].committed_at = at[i];
        }
    }
    free(shas);
    free(git);
    free(at);
    if (rc != SB_OK) {
        free(v);
        return rc;
    }
    out->v = v;
    out->n = m;
    return SB_OK;
}

const site_commit *site_commits_find(const site_commits *cm, const char *sha)
{
    site_commit key = {sha, -1, -1, -1, 0};
    return cm->n ? bsearch(&key, cm->v, cm->n, sizeof key, cmp_commit) : NULL;
}

void site_commits_free(site_commits *cm)
{
    free(cm->v);
    cm->v = NULL;
    cm->n = 0;
}

/* The y ticks: a step of 1, 2 or 5 times a power of ten giving about four
 * intervals over [*lo, *hi], which widen to whole steps; *decimals is
 * what the labels need. 0 where no such step fits (a range near the
 * largest double): then the caller keeps [lo, hi]. */
static int round_ticks(double *lo, double *hi, double *step, int *first, int *count,
                       int *decimals)
{
    double raw = (*hi - *lo) / 4;
    if (!(raw > 0) || !isfinite(raw))
        return 0;
    double mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;
    /* the nearest of 1, 2, 5 and 10: three to eight intervals */
    double st = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    double a = floor(*lo / st + 1e-9), b = ceil(*hi / st - 1e-9);
    if (!isfinite(a) || !isfinite(b) || !isfinite(b * st) || b - a < 1 || b - a > 12 ||
        fabs(a) > 1e9)
        return 0;
    int d = (int)-floor(log10(st) + 1e-9);
    *decimals = d > 0 ? d : 0;
    *step = st;
    *first = (int)a;
    *count = (int)(b - a);
    *lo = a * st;
    *hi = b * st;
    return 1;
}

typedef struct point {
    const sb_result *r;
    const site_commit *cm;
    long long key; /* x order: git ordinal, else rank first measured */
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
    return (a->key > b->key) - (a->key < b->key);
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* "2026-11-14 a1b2c3d": the commit's date (its commit time in git
 * order, else the day it was first measured) and short SHA. */
static void commit_label(const site_commit *c, int git_order, char *buf, size_t size)
{
    char day[16] = "";
    long long t = git_order ? c->committed_at : c->first;
    if (t != LLONG_MIN && t >= 0)
        sb_epoch_date(t, day);
    snprintf(buf, size, "%s%s%.7s", day, day[0] ? " " : "", c->sha);
}

/* A point's tooltip: provider, commit, date, run, median and spread. */
static void point_title(sb_buf *b, const point *p, int git_order)
{
    const sb_result *r = p->r;
    char label[48], med[48], p20[48], p80[48];
    commit_label(p->cm, git_order, label, sizeof label);
    sb_fmt_sig3(r->median_ms, med, sizeof med);
    sb_buf_puts(b, "<title>");
    site_esc(b, r->provider);
    sb_buf_puts(b, ", commit ");
    site_esc(b, label);
    site_printf(b, ", run %lld: median %s ms", r->run_id, med);
    if (!isnan(r->p20_ms) && !isnan(r->p80_ms)) {
        sb_fmt_sig3(r->p20_ms, p20, sizeof p20);
        sb_fmt_sig3(r->p80_ms, p80, sizeof p80);
        site_printf(b, ", p20-p80 %s-%s ms", p20, p80);
    } else {
        sb_buf_puts(b, ", p20-p80 not recorded");
    }
    sb_buf_puts(b, "</title>");
}

void site_history_chart(const sb_result *const *runs, size_t n, const site_commits *cm,
                        const sb_rg_row *const *steps, size_t nsteps, const char *title,
                        sb_buf *out, size_t *points, int *git_order)
{
    *points = 0;
    if (git_order)
        *git_order = 0;
    const char **prov = malloc((n ? n : 1) * sizeof *prov);
    point *pt = malloc((n ? n : 1) * sizeof *pt);
    long long *cols = malloc((n ? n : 1) * sizeof *cols);
    const site_commit **colc = malloc((n ? n : 1) * sizeof *colc);
    if (!prov || !pt || !cols || !colc) {
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
    int git = 1;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = runs[i];
        const site_commit *c = site_commits_find(cm, r->git_sha);
        if (!r->passing || !c || !(r->median_ms > 0))
            continue;
        git &= c->git >= 0;
        const char **f = bsearch(&r->provider, prov, np, sizeof *prov, cmp_str);
        size_t s = (size_t)(f - prov);
        size_t k = 0;
        while (k < npt && !(pt[k].series == s && pt[k].cm == c))
            k++;
        if (k == npt)
            pt[npt++] = (point){r, c, 0, 0, s};
        else if (newer(r, pt[k].r))
            pt[k].r = r;
    }
    if (!npt)
        goto done;
    /* git order where the commits table knows every commit drawn */
    for (size_t k = 0; k < npt; k++)
        pt[k].key = git ? pt[k].cm->git : pt[k].cm->rank;
    if (git_order)
        *git_order = git;
    qsort(pt, npt, sizeof *pt, cmp_point);
    for (size_t k = 0; k < npt; k++)
        cols[ncols++] = pt[k].key;
    qsort(cols, ncols, sizeof *cols, cmp_ll);
    size_t m = 0;
    for (size_t k = 0; k < ncols; k++)
        if (!m || cols[m - 1] != cols[k])
            cols[m++] = cols[k];
    ncols = m;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < npt; k++) {
        long long *c = bsearch(&pt[k].key, cols, ncols, sizeof *cols, cmp_ll);
        pt[k].col = (size_t)(c - cols);
        colc[pt[k].col] = pt[k].cm;
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
    /* round ticks (0.5, 0.6, 0.7), else five even ones */
    double tstep = (hi - lo) / 4;
    int tfirst = 0, tcount = 4, tdec = -1;
    if (!round_ticks(&lo, &hi, &tstep, &tfirst, &tcount, &tdec))
        tdec = -1;
    enum { W = 720, H = 340, L = 64, R = 150, T = 30, B = 100 };
    /* the first label, turned 40 degrees, reaches about 80 px left of its tick */
    sb_scale xs = {0, ncols > 1 ? (double)(ncols - 1) : 1, L + 24, W - R - 10, 0};
    sb_scale ys = {lo, hi, H - B, T, 0};
    if (ncols == 1)
        xs.p0 = xs.p1 = (L + W - R) / 2.0;
    double tick[16];
    for (int i = 0; i <= tcount; i++)
        tick[i] = tdec >= 0 ? (tfirst + i) * tstep : lo + tstep * i;

    /* the title is the tooltip only: the page's heading or the figure's
     * caption names the case */
    sb_buf_puts(out, "<svg class=\"hc\" role=\"img\" width=\"720\" height=\"340\" viewBox=\"0 0 720 340\">"
                     "<title>");
    site_esc(out, title);
    sb_buf_puts(out, "</title>");
    char label[48];
    sb_buf_puts(out, "\n<path class=\"grid\" d=\"");
    for (int i = 0; i <= tcount; i++) {
        put_xy(out, 'M', L, sb_scale_map(&ys, tick[i]));
        sb_buf_putc(out, 'H');
        site_put_coord(out, W - R);
    }
    sb_buf_puts(out, "\"/><path class=\"ax\" d=\"");
    put_xy(out, 'M', L, T);
    sb_buf_putc(out, 'V');
    site_put_coord(out, H - B);
    sb_buf_putc(out, 'H');
    site_put_coord(out, W - R);
    for (int i = 0; i <= tcount; i++) {
        put_xy(out, 'M', L - 5, sb_scale_map(&ys, tick[i]));
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
    for (int i = 0; i <= tcount; i++) {
        if (tdec >= 0)
            snprintf(label, sizeof label, "%.*f", tdec, tick[i]);
        else
            sb_fmt_sig3(tick[i], label, sizeof label);
        text_at(out, "yl", L - 8, sb_scale_map(&ys, tick[i]) + 4, 0, label);
    }
    text_at(out, "yt", L - 45, (H - B + T) / 2.0, -90, "median ms (band p20-p80)");
    for (size_t c = 0; c < ncols; c++) {
        if (c % every && c != ncols - 1)
            continue;
        commit_label(colc[c], git, label, sizeof label);
        /* turned 40 degrees by site.css, about the label's end */
        text_at(out, "xl", sb_scale_map(&xs, (double)c), H - B + 14, 0, label);
    }
    text_at(out, "xt", (L + W - R) / 2.0, H - 4, 0,
            git ? "commit (date, SHA), in git order"
                : "commit (date first measured, SHA), in the order first measured");
    sb_buf_putc(out, '\n');
    sb_buf marks = SB_BUF_INIT;
    for (size_t s = 0, k = 0; s < np; s++) {
        size_t from = k;
        while (k < npt && pt[k].series == s)
            k++;
        if (from == k)
            continue;
        /* the provider's colour on every chart (report/render/provider_colours.csv);
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
        /* the points: one element each, for its tooltip; the group's
         * class gives them their width and round caps */
        sb_buf_puts(out, "\"/><g class=\"pt\">");
        for (size_t q = from; q < k; q++) {
            const sb_result *r = pt[q].r;
            double x = sb_scale_map(&xs, (double)pt[q].col), y = sb_scale_map(&ys, r->median_ms);
            sb_buf_puts(out, "<path d=\"");
            put_xy(out, 'M', x, y);
            sb_buf_puts(out, "h0\">");
            point_title(out, &pt[q], git);
            sb_buf_puts(out, "</path>");
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
        sb_buf_puts(out, "</g><path class=\"lg\" d=\"");
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
    free(colc);
}
