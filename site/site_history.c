/* site_history.c - history of each case on each SKU across commits: the
 * chart of report/history.h (medians and p20-p80 bands over commits in
 * commit order, regressions and improvements marked), the verdicts of
 * report/regress.h, every run (newest first, paginated), and the index of
 * histories. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "site_internal.h"

static int cmp_hist(const void *x, const void *y)
{
    const sb_result *a = *(const sb_result *const *)x, *b = *(const sb_result *const *)y;
    int k = strcmp(a->case_key, b->case_key);
    if (!k)
        k = strcmp(a->sku, b->sku);
    if (!k && a->finished_epoch != b->finished_epoch)
        k = a->finished_epoch < b->finished_epoch ? 1 : -1; /* newest first */
    if (!k)
        k = strcmp(a->provider, b->provider);
    if (!k)
        k = (a->run_id < b->run_id) - (a->run_id > b->run_id);
    return k;
}

typedef struct rg_ref {
    long long run_id;
    const sb_rg_row *row;
    int is_new; /* 1: the newer run of the comparison; 0: the older */
} rg_ref;

static int cmp_ref(const void *x, const void *y)
{
    const rg_ref *a = x, *b = y;
    if (a->run_id != b->run_id)
        return (a->run_id > b->run_id) - (a->run_id < b->run_id);
    return a->is_new - b->is_new;
}

static const char *verdict_class(sb_rg_verdict v)
{
    switch (v) {
    case SB_RG_REGRESSION:
    case SB_RG_NOW_FAILING: return "failed";
    case SB_RG_IMPROVEMENT: return "passed";
    default: return "neutral";
    }
}

static void index_name(char *buf, size_t size, size_t page, const void *arg)
{
    (void)arg;
    if (page <= 1)
        snprintf(buf, size, "index.html");
    else
        snprintf(buf, size, "index-%zu.html", page);
}

static void run_link(sb_buf *b, const sb_result *r, int depth)
{
    char rp[128];
    site_run_path(rp, sizeof rp, r->run_id);
    sb_buf_puts(b, "<a href=\"");
    site_root(b, depth);
    sb_buf_printf(b, "%s\">%lld</a>", rp, r->run_id);
}

static void pct(sb_buf *b, double v)
{
    if (isnan(v))
        sb_buf_puts(b, "\xe2\x80\x93");
    else
        sb_buf_printf(b, "%+.1f%%", 100 * v);
}

int site_build_history(site_ctx *c, sb_error *err)
{
    size_t n = c->set.n;
    const sb_result **ord = malloc((n + 1) * sizeof *ord);
    rg_ref *refs = malloc((2 * c->rg.n + 1) * sizeof *refs);
    sb_buf b = SB_BUF_INIT, idx = SB_BUF_INIT;
    int rc = SB_ERR;
    if (!ord || !refs) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        ord[i] = &c->set.v[i];
    if (n) /* qsort(NULL, 0, ...) is undefined */
        qsort(ord, n, sizeof *ord, cmp_hist);
    size_t nrefs = 0;
    for (size_t i = 0; i < c->rg.n; i++) {
        const sb_rg_row *r = &c->rg.v[i];
        if (r->new_run)
            refs[nrefs++] = (rg_ref){r->new_run->run_id, r, 1};
        if (r->old_run)
            refs[nrefs++] = (rg_ref){r->old_run->run_id, r, 0};
    }
    if (nrefs) /* qsort(NULL, 0, ...) is undefined */
        qsort(refs, nrefs, sizeof *refs, cmp_ref);

    /* Count the groups for the index pagination. */
    size_t ngroups = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(ord[i]->case_key, ord[i - 1]->case_key) ||
            strcmp(ord[i]->sku, ord[i - 1]->sku))
            ngroups++;
    size_t ipages = ngroups ? (ngroups + c->page_rows - 1) / c->page_rows : 1, ipage = 1,
           irows = 0;
    c->sum->histories = ngroups;

#define INDEX_HEAD()                                                                               \
    do {                                                                                           \
        sb_buf_reset(&idx);                                                                        \
        sb_buf_puts(&idx, "<p class=\"note\">Every case on every SKU, with the regressions and "    \
                          "improvements of its history, each commit against the one before "      \
                          "(two-sided Mann-Whitney U on the samples, alpha 0.01, at least 3 % "   \
                          "change of the median).</p>\n");                                       \
        site_pager(&idx, ipage, ipages, index_name, NULL);                                         \
        sb_buf_puts(&idx, "<table class=\"sortable\"><thead><tr><th>op</th><th>mode</th>"          \
                          "<th>dtype</th><th>shape</th><th>SKU</th><th class=\"num\">runs</th>"    \
                          "<th class=\"num\">regressions</th><th class=\"num\">improvements</th>"  \
                          "<th>history</th></tr></thead><tbody>\n");                               \
    } while (0)
#define INDEX_END()                                                                                \
    do {                                                                                           \
        sb_buf_puts(&idx, "</tbody></table>\n");                                                   \
        site_pager(&idx, ipage, ipages, index_name, NULL);                                         \
        char irel[64], ititle[64];                                                                 \
        index_name(irel, sizeof irel, ipage, NULL);                                                \
        char ipath[80];                                                                            \
        snprintf(ipath, sizeof ipath, "history/%s", irel);                                         \
        snprintf(ititle, sizeof ititle, "history, page %zu of %zu", ipage, ipages);                \
        if (site_page(c, ipath, 1, "history", ipages > 1 ? ititle : "history", &idx, err) !=      \
            SB_OK)                                                                                 \
            goto done;                                                                             \
    } while (0)

    INDEX_HEAD();
    if (ngroups == 0)
        sb_buf_puts(&idx, "<tr><td colspan=\"9\" class=\"empty\">no result runs</td></tr>\n");
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && strcmp(ord[j + 1]->case_key, ord[i]->case_key) == 0 &&
               strcmp(ord[j + 1]->sku, ord[i]->sku) == 0)
            j++;
        size_t cnt = j - i + 1;
        const sb_result *head = ord[i];
        site_keyed_pages ha = {site_history_path, head->case_key, head->sku};
        /* verdicts of this group: rg rows whose new run is in it; the
         * newest step of each provider in one table, every regression and
         * improvement of the history in another, all of them on the chart */
        size_t regs = 0, imps = 0, nsteps = 0;
        const sb_rg_row **steps = malloc((cnt + 1) * sizeof *steps);
        if (!steps) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        sb_buf verdicts = SB_BUF_INIT, marked_steps = SB_BUF_INIT;
        /* the newest commit of each provider against the one before, in a
         * line (its runs head the runs table; the marked steps, with their
         * p values and sample counts, follow in a table) */
        sb_buf_puts(&verdicts, "<p class=\"verdicts\">Newest commit against the one before:");
        size_t nlatest = 0;
        for (size_t k = i; k <= j; k++) {
            rg_ref key = {ord[k]->run_id, NULL, 1};
            const rg_ref *f = bsearch(&key, refs, nrefs, sizeof *refs, cmp_ref);
            if (!f)
                continue;
            const sb_rg_row *r = f->row;
            steps[nsteps++] = r;
            int is_reg = r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_NOW_FAILING;
            if (is_reg)
                regs++;
            if (r->verdict == SB_RG_IMPROVEMENT)
                imps++;
            if (r->latest) {
                sb_buf_puts(&verdicts, nlatest++ ? "; " : " ");
                site_h(&verdicts, r->new_run->provider);
                sb_buf_putc(&verdicts, ' ');
                site_status(&verdicts, verdict_class(r->verdict), sb_rg_verdict_name(r->verdict));
                if (!isnan(r->rel_change)) {
                    sb_buf_putc(&verdicts, ' ');
                    pct(&verdicts, r->rel_change);
                }
            }
            if (!is_reg && r->verdict != SB_RG_IMPROVEMENT)
                continue;
            sb_buf *vb = &marked_steps;
            sb_buf_puts(vb, "<tr><td>");
            site_h(vb, r->new_run->provider);
            sb_buf_puts(vb, "<td>");
            site_status(vb, verdict_class(r->verdict), sb_rg_verdict_name(r->verdict));
            sb_buf_puts(vb, "<td>");
            if (r->old_run) {
                run_link(vb, r->old_run, 1);
                sb_buf_printf(vb, " <code>%.10s</code>", r->old_run->git_sha);
            } else {
                sb_buf_puts(vb, "\xe2\x80\x93");
            }
            sb_buf_puts(vb, "<td>");
            run_link(vb, r->new_run, 1);
            sb_buf_printf(vb, " <code>%.10s</code><td>", r->new_run->git_sha);
            pct(vb, r->rel_change);
            sb_buf_puts(vb, "<td>");
            if (isnan(r->p))
                sb_buf_puts(vb, "\xe2\x80\x93");
            else
                sb_buf_printf(vb, "%.3g", r->p);
            sb_buf_printf(vb, "<td>%zu / %zu\n", r->n_old, r->n_new);
        }
        if (!nlatest)
            sb_buf_puts(&verdicts, " none (a single commit)");
        sb_buf_puts(&verdicts, ".</p>\n");
        if (marked_steps.len) {
            sb_buf_puts(&verdicts, "<h2>Regressions and improvements over the history</h2>\n"
                                   "<table class=\"sortable steps\"><thead><tr><th>provider</th>"
                                   "<th>verdict</th><th>commit before</th><th>commit</th>"
                                   "<th class=\"num\">median change</th><th class=\"num\">p</th>"
                                   "<th class=\"num\">samples</th></tr></thead><tbody>\n");
            sb_buf_add(&verdicts, sb_buf_str(&marked_steps), marked_steps.len);
            sb_buf_puts(&verdicts, "</tbody></table>\n");
        }
        sb_buf_free(&marked_steps);
        /* the chart */
        sb_buf chart = SB_BUF_INIT;
        {
            char ctitle[1024];
            snprintf(ctitle, sizeof ctitle, "%s %s %s %s on %s: median over commits", head->op,
                     head->mode, head->dtype, head->shape_key, head->sku);
            sb_history_sort_steps(steps, nsteps);
            size_t drawn = 0;
            sb_buf svg = SB_BUF_INIT;
            site_history_chart(ord + i, cnt, &c->order, steps, nsteps, ctitle, &svg, &drawn);
            if (drawn) {
                sb_buf_puts(&chart, "<figure class=\"plot history-chart\">");
                sb_buf_add(&chart, sb_buf_str(&svg), svg.len);
                sb_buf_puts(&chart, "<figcaption>Median line, p20 to p80 band; red triangle: "
                                    "regression, green: improvement.</figcaption></figure>\n");
            }
            sb_buf_free(&svg);
        }
        free(steps);

        size_t pages = (cnt + c->page_rows - 1) / c->page_rows;
        for (size_t pg = 1; pg <= pages; pg++) {
            sb_buf_reset(&b);
            char opp[256];
            site_op_path(opp, sizeof opp, head->op);
            /* the heading names the case and the SKU */
            sb_buf_puts(&b, "<p class=\"lead\">Arch ");
            site_h(&b, head->arch);
            sb_buf_printf(&b, ", suite ");
            site_h(&b, head->suite);
            sb_buf_printf(&b, "; %zu runs. <a href=\"../%s\">op page</a></p>\n", cnt, opp);
            sb_buf_add(&b, sb_buf_str(&chart), chart.len);
            sb_buf_add(&b, sb_buf_str(&verdicts), verdicts.len);
            sb_buf_puts(&b, "<h2>Runs, newest first</h2>\n");
            site_pager(&b, pg, pages, site_keyed_page_name, &ha);
            /* one row a run, its other figures on its run page; the cells
             * and rows go without their optional end tags (HTML5) */
            sb_buf_puts(&b, "<table class=\"sortable history\"><thead><tr><th class=\"num\">run</th>"
                            "<th>commit</th><th>provider</th><th>status</th>"
                            "<th class=\"num\">median ms</th><th>marked</th></tr></thead><tbody>\n");
            size_t from = i + (pg - 1) * c->page_rows, to = from + c->page_rows;
            if (to > j + 1)
                to = j + 1;
            for (size_t k = from; k < to; k++) {
                const sb_result *r = ord[k];
                rg_ref key = {r->run_id, NULL, 0};
                const rg_ref *fo = bsearch(&key, refs, nrefs, sizeof *refs, cmp_ref);
                key.is_new = 1;
                const rg_ref *fn = bsearch(&key, refs, nrefs, sizeof *refs, cmp_ref);
                int marked = fn && fn->row->verdict != SB_RG_SINGLE_COMMIT &&
                             fn->row->verdict != SB_RG_NO_CHANGE;
                sb_buf_puts(&b, marked ? (strcmp(verdict_class(fn->row->verdict), "failed") == 0
                                              ? "<tr class=\"row-regression\"><td>"
                                              : "<tr class=\"row-marked\"><td>")
                                       : "<tr><td>");
                run_link(&b, r, 1);
                sb_buf_printf(&b, "<td><code>%.10s</code><td>", r->git_sha);
                site_h(&b, r->provider);
                sb_buf_puts(&b, "<td>");
                if (r->passing)
                    sb_buf_puts(&b, "passed"); /* only the others are badges */
                else if (strcmp(r->status, "skipped") == 0)
                    site_status(&b, "skipped", "skipped");
                else
                    site_status(&b, "failed", r->correct == 0 ? "failed correctness" : r->status);
                /* table.history right-aligns its number columns (site.css) */
                sb_buf_puts(&b, "<td>");
                site_num(&b, r->passing ? r->median_ms : NAN);
                sb_buf_puts(&b, "<td>");
                /* only what changed is marked: a step with no change says
                 * nothing a reader needs next to the figures */
                if (marked) {
                    site_status(&b, verdict_class(fn->row->verdict),
                                sb_rg_verdict_name(fn->row->verdict));
                    if (fn->row->old_run) {
                        sb_buf_puts(&b, " vs ");
                        run_link(&b, fn->row->old_run, 1);
                    }
                }
                if (fo && fo->row->verdict != SB_RG_SINGLE_COMMIT &&
                    fo->row->verdict != SB_RG_NO_CHANGE) {
                    sb_buf_puts(&b, marked ? "; " : "");
                    sb_buf_puts(&b, "before ");
                    run_link(&b, fo->row->new_run, 1);
                }
                sb_buf_putc(&b, '\n');
            }
            sb_buf_puts(&b, "</tbody></table>\n");
            site_pager(&b, pg, pages, site_keyed_page_name, &ha);
            char rel[600], title[1024];
            site_history_path(rel, sizeof rel, head->case_key, head->sku, pg);
            snprintf(title, sizeof title, "history: %s %s %s %s on %s%s", head->op, head->mode,
                     head->dtype, head->shape_key, head->sku, pages > 1 ? " (paged)" : "");
            if (site_page(c, rel, 1, "history", title, &b, err) != SB_OK) {
                sb_buf_free(&verdicts);
                sb_buf_free(&chart);
                goto done;
            }
        }
        sb_buf_free(&verdicts);
        sb_buf_free(&chart);

        if (irows == c->page_rows) {
            INDEX_END();
            ipage++;
            irows = 0;
            INDEX_HEAD();
        }
        char rel[600];
        site_history_path(rel, sizeof rel, head->case_key, head->sku, 1);
        sb_buf_puts(&idx, "<tr><td>");
        site_h(&idx, head->op);
        sb_buf_puts(&idx, "</td><td>");
        site_h(&idx, head->mode);
        sb_buf_puts(&idx, "</td><td>");
        site_h(&idx, head->dtype);
        sb_buf_puts(&idx, "</td><td>");
        site_h(&idx, head->shape_key);
        sb_buf_puts(&idx, "</td><td>");
        site_h(&idx, head->sku);
        sb_buf_printf(&idx, "</td><td class=\"num\">%zu</td><td class=\"num\">", cnt);
        if (regs)
            sb_buf_printf(&idx, "<span class=\"st st-failed\">%zu</span>", regs);
        else
            sb_buf_puts(&idx, "0");
        sb_buf_printf(&idx, "</td><td class=\"num\">%zu</td><td><a href=\"", imps);
        site_esc(&idx, rel + 8);
        sb_buf_puts(&idx, "\">history</a></td></tr>\n");
        irows++;
        i = j + 1;
    }
    INDEX_END();
    rc = SB_OK;
done:
    sb_buf_free(&b);
    sb_buf_free(&idx);
    free(ord);
    free(refs);
    return rc;
#undef INDEX_HEAD
#undef INDEX_END
}
