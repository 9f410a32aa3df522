/* site_history.c - history of each case on each SKU across commits: the
 * chart of site_chart.c (medians and p20-p80 bands over commits in git
 * order, regressions and improvements marked), the verdicts of
 * report/regress.h, every run (oldest first, paginated: runs added at
 * the end leave the earlier pages as they were), and the index of
 * histories. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"
#include "site_parts.h"

static int cmp_hist(const void *x, const void *y)
{
    const sb_result *a = *(const sb_result *const *)x, *b = *(const sb_result *const *)y;
    int k = strcmp(a->case_key, b->case_key);
    if (!k)
        k = strcmp(a->sku, b->sku);
    if (!k && a->finished_epoch != b->finished_epoch)
        k = a->finished_epoch < b->finished_epoch ? -1 : 1; /* oldest first */
    /* ties the other way round: read backwards (the verdict line, the
     * table of steps), a history lists the newest first with its
     * providers in order */
    if (!k)
        k = strcmp(b->provider, a->provider);
    if (!k)
        k = (a->run_id > b->run_id) - (a->run_id < b->run_id);
    return k;
}

typedef struct rg_ref {
    long long run_id;
    const sb_rg_row *row;
    int is_new; /* 1: the newer run of the comparison; 0: the older */
    long long other; /* the comparison's other run; -1: none */
} rg_ref;

static int cmp_ref(const void *x, const void *y)
{
    const rg_ref *a = x, *b = y;
    if (a->run_id != b->run_id)
        return (a->run_id > b->run_id) - (a->run_id < b->run_id);
    if (a->is_new != b->is_new)
        return a->is_new - b->is_new;
    if (a->other != b->other)
        return (a->other > b->other) - (a->other < b->other);
    return (a->row > b->row) - (a->row < b->row);
}

static int marks_change(const sb_rg_row *r)
{
    return r->verdict != SB_RG_SINGLE_COMMIT && r->verdict != SB_RG_NO_CHANGE;
}

/* The comparisons of the history walk, sorted by cmp_ref, and where each
 * run's begin: those of run id lo + i are first[i] up to first[i + 1].
 * A history of a year of runs looks each run up five times, and the ids
 * of a result set are nearly dense. */
typedef struct ref_index {
    const rg_ref *refs;
    size_t n;
    long long lo;
    size_t *first; /* NULL: no refs */
    size_t span;   /* ids lo .. lo + span - 1 */
} ref_index;

static int ref_index_build(const rg_ref *refs, size_t n, ref_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->refs = refs;
    ix->n = n;
    if (!n)
        return SB_OK;
    ix->lo = refs[0].run_id;
    /* ids far apart (a database whose runs were mostly deleted) are
     * searched for instead */
    if ((unsigned long long)(refs[n - 1].run_id - ix->lo) >= 4 * (unsigned long long)n + 1024)
        return SB_OK;
    ix->span = (size_t)(refs[n - 1].run_id - ix->lo) + 1;
    if (!(ix->first = malloc((ix->span + 1) * sizeof *ix->first)))
        return SB_ERR;
    size_t k = 0;
    for (size_t i = 0; i <= ix->span; i++) {
        while (k < n && refs[k].run_id < ix->lo + (long long)i)
            k++;
        ix->first[i] = k;
    }
    return SB_OK;
}

/* The comparison run_id is the newer (is_new) or the older run of. A run
 * can be the older run of several (the last passing run before a failing
 * commit, against that one and the next passing one): then the first
 * that marks a change, else the first, in the order of the other run, so
 * that the choice depends on the history itself and not on the steps of
 * other histories beside it in refs. NULL: none. */
static const rg_ref *find_ref(const ref_index *ix, long long run_id, int is_new)
{
    size_t lo, hi;
    if (ix->first) {
        if (run_id < ix->lo || (unsigned long long)(run_id - ix->lo) >= ix->span)
            return NULL;
        lo = ix->first[run_id - ix->lo];
        hi = ix->first[run_id - ix->lo + 1];
    } else {
        lo = 0;
        hi = ix->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ix->refs[mid].run_id < run_id)
                lo = mid + 1;
            else
                hi = mid;
        }
        hi = ix->n;
    }
    const rg_ref *first = NULL;
    for (size_t k = lo; k < hi && ix->refs[k].run_id == run_id; k++) {
        if (ix->refs[k].is_new != is_new)
            continue;
        if (marks_change(ix->refs[k].row))
            return &ix->refs[k];
        if (!first)
            first = &ix->refs[k];
    }
    return first;
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

static void pct(sb_buf *b, double v)
{
    if (isnan(v))
        sb_buf_puts(b, "\xe2\x80\x93");
    else
        sb_buf_printf(b, "%+.1f%%", 100 * v);
}

/* A run's page and anchor, as a string member of o. */
static void set_run_href(json_t *o, const char *k, long long run_id)
{
    char rp[128];
    site_run_path(rp, sizeof rp, run_id);
    sb_tpl_set_str(o, k, rp);
}

void site_commit_href(const site_ctx *c, const char *sha, char *buf, size_t size)
{
    const char *url = c->o->repo_url;
    buf[0] = '\0';
    if (!url || !*url || strlen(sha) != 40 || strspn(sha, "0123456789abcdef") != 40)
        return;
    size_t len = strlen(url);
    while (len && url[len - 1] == '/')
        len--;
    snprintf(buf, size, "%.*s/commit/%s", (int)len, url, sha);
}

/* The short SHA as member k, and the commit's address as k_href ("" for
 * none: the templates link the SHA only where there is one). */
static void set_sha(const site_ctx *c, json_t *o, const char *k, const char *sha)
{
    char t[16], key[32], href[4200];
    snprintf(t, sizeof t, "%.10s", sha);
    sb_tpl_set_str(o, k, t);
    site_commit_href(c, sha, href, sizeof href);
    snprintf(key, sizeof key, "%s_href", k);
    sb_tpl_set_str(o, key, href);
}

static void set_pct(json_t *o, const char *k, double v, int blank_nan)
{
    sb_buf t = SB_BUF_INIT;
    if (!(blank_nan && isnan(v)))
        pct(&t, v);
    sb_tpl_set_str(o, k, sb_buf_str(&t));
    sb_buf_free(&t);
}

/* A regression or improvement step of the history. */
static json_t *step_row(const site_ctx *c, const sb_rg_row *r)
{
    json_t *o = json_object();
    char p[32] = "\xe2\x80\x93";
    sb_tpl_set_str(o, "provider", r->new_run->provider);
    sb_tpl_set_str(o, "cls", verdict_class(r->verdict));
    sb_tpl_set_str(o, "verdict", sb_rg_verdict_name(r->verdict));
    json_object_set_new(o, "has_old", json_boolean(r->old_run != NULL));
    if (r->old_run) {
        set_run_href(o, "old_href", r->old_run->run_id);
        json_object_set_new(o, "old_run", json_integer(r->old_run->run_id));
        set_sha(c, o, "old_sha", r->old_run->git_sha);
    }
    set_run_href(o, "new_href", r->new_run->run_id);
    json_object_set_new(o, "new_run", json_integer(r->new_run->run_id));
    set_sha(c, o, "new_sha", r->new_run->git_sha);
    set_pct(o, "change", r->rel_change, 0);
    if (!isnan(r->p))
        snprintf(p, sizeof p, "%.3g", r->p);
    sb_tpl_set_str(o, "p", p);
    json_object_set_new(o, "n_old", json_integer((json_int_t)r->n_old));
    json_object_set_new(o, "n_new", json_integer((json_int_t)r->n_new));
    return o;
}

/* "<a href="../runs/G.html#rID">ID</a>": a link to a run's row. */
static void run_link(sb_buf *b, long long run_id)
{
    char rp[128];
    site_run_path(rp, sizeof rp, run_id);
    sb_buf_puts(b, "<a href=\"../");
    site_esc(b, rp);
    sb_buf_puts(b, "\">");
    site_put_ll(b, run_id);
    sb_buf_puts(b, "</a>");
}

/* A run's row in the history table, one line: fo is the step it is the
 * older run of, fn the step it is the newer run of (either may be NULL).
 * Written here rather than through the page template: a history of a
 * year of nightly runs has a row per run, and a template value object
 * per row cost more than the rest of the page. */
static void run_row(const site_ctx *c, const sb_result *r, const rg_ref *fo, const rg_ref *fn,
                    sb_buf *b)
{
    int marked = fn && marks_change(fn->row);
    const char *cls = !marked ? ""
                      : strcmp(verdict_class(fn->row->verdict), "failed") == 0 ? "row-regression"
                                                                               : "row-marked";
    sb_buf_puts(b, "<tr");
    if (*cls) {
        sb_buf_puts(b, " class=\"");
        sb_buf_puts(b, cls);
        sb_buf_putc(b, '"');
    }
    sb_buf_puts(b, "><td>");
    run_link(b, r->run_id);
    char sha[16], href[4200];
    snprintf(sha, sizeof sha, "%.10s", r->git_sha ? r->git_sha : "");
    site_commit_href(c, r->git_sha ? r->git_sha : "", href, sizeof href);
    sb_buf_puts(b, "<td>");
    if (*href) {
        sb_buf_puts(b, "<a href=\"");
        site_esc(b, href);
        sb_buf_puts(b, "\">");
    }
    sb_buf_puts(b, "<code>");
    site_esc(b, sha);
    sb_buf_puts(b, "</code>");
    if (*href)
        sb_buf_puts(b, "</a>");
    sb_buf_puts(b, "<td>");
    site_esc(b, r->provider ? r->provider : "");
    sb_buf_puts(b, "<td>");
    /* only the statuses other than passed are labels */
    if (r->passing)
        sb_buf_puts(b, "passed");
    else if (strcmp(r->status ? r->status : "", "skipped") == 0)
        site_status(b, "skipped", "skipped");
    else
        site_status(b, "failed", r->correct == 0 ? "failed correctness" : r->status ? r->status : "");
    sb_buf_puts(b, "<td>");
    site_num(b, r->passing ? r->median_ms : NAN);
    sb_buf_puts(b, "<td>");
    /* only what changed is marked: a step with no change says nothing a
     * reader needs next to the figures */
    if (marked) {
        site_status(b, verdict_class(fn->row->verdict), sb_rg_verdict_name(fn->row->verdict));
        if (fn->row->old_run) {
            sb_buf_puts(b, " vs ");
            run_link(b, fn->row->old_run->run_id);
        }
    }
    if (fo && marks_change(fo->row)) {
        if (marked)
            sb_buf_puts(b, "; ");
        sb_buf_puts(b, "before ");
        run_link(b, fo->row->new_run->run_id);
    }
    sb_buf_putc(b, '\n');
}

/* A number's bytes into a fingerprint's inputs: the inputs are hashed,
 * never read back, and formatting them as text cost a history of a year
 * of runs more than hashing them. */
static void fp_i(sb_buf *in, long long v)
{
    sb_buf_add(in, (const char *)&v, sizeof v);
}

static void fp_d(sb_buf *in, double v)
{
    sb_buf_add(in, (const char *)&v, sizeof v);
}

/* A comparison as the history shows it, into a fingerprint's inputs. */
static void fp_step(sb_buf *in, char what, const rg_ref *f)
{
    sb_buf_putc(in, what);
    if (!f) {
        sb_buf_putc(in, '-');
        return;
    }
    const sb_rg_row *r = f->row;
    fp_i(in, r->old_run ? r->old_run->run_id : -1LL);
    fp_i(in, r->new_run->run_id);
    fp_i(in, (long long)r->verdict);
    fp_i(in, (long long)r->n_old);
    fp_i(in, (long long)r->n_new);
    fp_d(in, r->p);
    fp_d(in, r->p_adjusted);
    fp_d(in, r->rel_change);
    fp_i(in, r->latest);
    fp_i(in, (long long)r->cause);
    fp_i(in, r->same_card);
    fp_d(in, r->threshold);
    fp_i(in, r->range_commits);
    fp_i(in, (long long)r->confirm);
    fp_d(in, r->confirm_change);
    fp_i(in, r->confirm_old_run);
    fp_i(in, r->confirm_new_run);
    /* with its NUL, so that the next field cannot extend it */
    sb_buf_add(in, r->changed ? r->changed : "", strlen(r->changed ? r->changed : "") + 1);
}

/* The case and SKU every page of a history names in its title (the
 * same in every run of it), into a fingerprint's inputs, each with its
 * NUL. */
static void fp_head(sb_buf *in, const sb_result *head)
{
    const char *v[] = {head->op, head->mode, head->dtype, head->shape_key, head->params_json,
                       head->sku};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        sb_buf_add(in, v[i] ? v[i] : "", strlen(v[i] ? v[i] : "") + 1);
}

/* A run's row as run_row shows it: the run (a stored run does not
 * change under its id) and the change it marks, with the run it is
 * against, or the run after it that marks one. Not the rest of the
 * comparison: an adjusted p moves with every step added to the walk,
 * and a row does not show it. */
static void fp_row(sb_buf *in, const sb_result *r, const ref_index *ix)
{
    fp_i(in, r->run_id);
    fp_i(in, r->passing);
    fp_d(in, r->median_ms);
    const rg_ref *fn = find_ref(ix, r->run_id, 1), *fo = find_ref(ix, r->run_id, 0);
    if (fn && marks_change(fn->row)) {
        fp_i(in, (long long)fn->row->verdict);
        fp_i(in, fn->row->old_run ? fn->row->old_run->run_id : -1LL);
    } else {
        fp_i(in, -1LL);
    }
    fp_i(in, fo && marks_change(fo->row) ? fo->row->new_run->run_id : -1LL);
}

/* What page pg of a history is rendered from, into a fingerprint. Page 1
 * carries the chart, the verdicts and every regression and improvement,
 * so its inputs are the whole history: every run, whether it passes and
 * is plausible, the place of its commit on the chart and its
 * comparisons. A later page shows its own rows only, oldest first, and a
 * pager that names no page count, so runs added at the end leave every
 * page but the last (which gains a link to the next) and page 1 as they
 * were. */
static int history_page_fp(site_ctx *c, const sb_result *const *runs, size_t cnt, size_t pg,
                           size_t pages, const ref_index *ix, char fp[SITE_FP_SIZE], sb_error *err)
{
    sb_buf in = SB_BUF_INIT;
    fp_head(&in, runs[0]);
    if (pg == 1) {
        /* the lead names the newest run's arch and suite */
        const char *v[] = {runs[cnt - 1]->arch, runs[cnt - 1]->suite};
        for (size_t i = 0; i < 2; i++)
            sb_buf_add(&in, v[i] ? v[i] : "", strlen(v[i] ? v[i] : "") + 1);
        fp_i(&in, (long long)cnt);
        for (size_t k = 0; k < cnt; k++) {
            const sb_result *r = runs[k];
            const site_commit *cm = site_commits_find(&c->commits, r->git_sha);
            fp_row(&in, r, ix);
            fp_step(&in, 'n', find_ref(ix, r->run_id, 1));
            fp_step(&in, 'o', find_ref(ix, r->run_id, 0));
            fp_i(&in, r->implausible);
            fp_d(&in, r->p20_ms);
            fp_d(&in, r->p80_ms);
            sb_buf_putc(&in, cm ? 'c' : '-');
            if (cm) {
                fp_i(&in, cm->git);
                fp_i(&in, cm->committed_at);
                fp_i(&in, cm->rank);
                fp_i(&in, cm->first);
            }
        }
    } else {
        fp_i(&in, (long long)pg);
        fp_i(&in, pg < pages);
        size_t from = (pg - 1) * c->page_rows, to = from + c->page_rows;
        for (size_t k = from; k < to && k < cnt; k++)
            fp_row(&in, runs[k], ix);
    }
    int rc = site_fp_hex(&in, fp, err);
    sb_buf_free(&in);
    return rc;
}

/* Page pg of a history from the earlier site, where it was rendered from
 * the same (*taken = 1); its fingerprint goes into the manifest either
 * way. */
static int take_over_history_page(site_ctx *c, const sb_result *const *runs, size_t cnt, size_t pg,
                                  size_t pages, const ref_index *ix, int *taken, sb_error *err)
{
    const sb_result *head = runs[0];
    char key[600], fp[SITE_FP_SIZE];
    *taken = 0;
    if (history_page_fp(c, runs, cnt, pg, pages, ix, fp, err) != SB_OK)
        return SB_ERR;
    site_history_path(key, sizeof key, head->case_key, head->sku, pg);
    key[strlen(key) - 5] = '\0'; /* no ".html" */
    if (site_fps_add(&c->fps, key, fp) != SB_OK)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (!site_fp_unchanged(c, key, fp))
        return SB_OK;
    char rel[600];
    int found;
    site_history_path(rel, sizeof rel, head->case_key, head->sku, pg);
    if (site_take_over(c, rel, &found, err) != SB_OK)
        return SB_ERR;
    *taken = found;
    return SB_OK;
}

/* Writes history/index.html (page 1) or index-N.html with its rows. */
static int write_index_page(site_ctx *c, const sb_template *t, json_t *rows, size_t page,
                            size_t pages, sb_error *err)
{
    json_t *d = json_object();
    json_object_set(d, "rows", rows);
    sb_buf pager = SB_BUF_INIT, b = SB_BUF_INIT;
    site_pager(&pager, page, pages, index_name, NULL);
    sb_tpl_set_str(d, "pager", sb_buf_str(&pager));
    int rc = sb_template_render(t, d, SB_TPL_ESCAPE_HTML, &b, err);
    json_decref(d);
    char irel[64], ipath[80], ititle[64];
    index_name(irel, sizeof irel, page, NULL);
    snprintf(ipath, sizeof ipath, "history/%s", irel);
    snprintf(ititle, sizeof ititle, "history, page %zu of %zu", page, pages);
    if (rc == SB_OK)
        rc = site_page(c, ipath, 1, "history", pages > 1 ? ititle : "history", &b, err);
    sb_buf_free(&pager);
    sb_buf_free(&b);
    return rc;
}

int site_build_history(site_ctx *c, sb_error *err)
{
    size_t n = c->set.n;
    const sb_result **ord = malloc((n + 1) * sizeof *ord);
    rg_ref *refs = malloc((2 * c->rg.n + 1) * sizeof *refs);
    sb_buf b = SB_BUF_INIT, rows = SB_BUF_INIT;
    sb_template *page_tpl = NULL, *index_tpl = NULL;
    json_t *irows = json_array();
    ref_index rix = {0};
    int rc = SB_ERR;
    if (!ord || !refs) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (sb_template_load_home("site/history.html.tmpl", &page_tpl, err) != SB_OK ||
        sb_template_load_home("site/history-index.html.tmpl", &index_tpl, err) != SB_OK)
        goto done;
    for (size_t i = 0; i < n; i++)
        ord[i] = &c->set.v[i];
    if (n) /* qsort(NULL, 0, ...) is undefined */
        qsort(ord, n, sizeof *ord, cmp_hist);
    size_t nrefs = 0;
    for (size_t i = 0; i < c->rg.n; i++) {
        const sb_rg_row *r = &c->rg.v[i];
        if (r->new_run)
            refs[nrefs++] = (rg_ref){r->new_run->run_id, r, 1, r->old_run ? r->old_run->run_id : -1};
        if (r->old_run)
            refs[nrefs++] = (rg_ref){r->old_run->run_id, r, 0, r->new_run ? r->new_run->run_id : -1};
    }
    if (nrefs) /* qsort(NULL, 0, ...) is undefined */
        qsort(refs, nrefs, sizeof *refs, cmp_ref);
    if (ref_index_build(refs, nrefs, &rix) != SB_OK) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }

    /* Count the groups for the index pagination. */
    size_t ngroups = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(ord[i]->case_key, ord[i - 1]->case_key) ||
            strcmp(ord[i]->sku, ord[i - 1]->sku))
            ngroups++;
    size_t ipages = ngroups ? (ngroups + c->page_rows - 1) / c->page_rows : 1, ipage = 1;
    c->sum->histories = ngroups;

    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && strcmp(ord[j + 1]->case_key, ord[i]->case_key) == 0 &&
               strcmp(ord[j + 1]->sku, ord[i]->sku) == 0)
            j++;
        size_t cnt = j - i + 1;
        const sb_result *head = ord[j]; /* the newest */
        site_keyed_pages ha = {site_history_path, head->case_key, head->sku};
        /* verdicts of this group: rg rows whose new run is in it; the
         * newest step of each provider in a line, every regression and
         * improvement of the history in a table, all of them on the chart */
        size_t regs = 0, imps = 0, nsteps = 0;
        const sb_rg_row **steps = malloc((cnt + 1) * sizeof *steps);
        if (!steps) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        json_t *d = json_object(), *latest = json_array(), *marked = json_array();
        json_object_set_new(d, "latest", latest);
        json_object_set_new(d, "steps", marked);
        /* newest first, as the verdict line and the table of steps read */
        for (size_t k = j + 1; k-- > i;) {
            const rg_ref *f = find_ref(&rix, ord[k]->run_id, 1);
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
                json_t *o = json_object();
                sb_tpl_set_str(o, "sep", json_array_size(latest) ? "; " : " ");
                sb_tpl_set_str(o, "provider", r->new_run->provider);
                sb_tpl_set_str(o, "cls", verdict_class(r->verdict));
                sb_tpl_set_str(o, "verdict", sb_rg_verdict_name(r->verdict));
                set_pct(o, "change", r->rel_change, 1);
                json_array_append_new(latest, o);
            }
            if (is_reg || r->verdict == SB_RG_IMPROVEMENT)
                json_array_append_new(marked, step_row(c, r));
        }
        json_object_set_new(d, "has_steps", json_boolean(json_array_size(marked) > 0));
        size_t pages = (cnt + c->page_rows - 1) / c->page_rows;
        char opp[256];
        site_op_path(opp, sizeof opp, head->op);
        sb_tpl_set_str(d, "arch", head->arch);
        sb_tpl_set_str(d, "suite", head->suite);
        json_object_set_new(d, "runs", json_integer((json_int_t)cnt));
        sb_tpl_set_str(d, "op_href", opp);
        {
            char first[600];
            site_keyed_page_name(first, sizeof first, 1, &ha);
            sb_tpl_set_str(d, "first_href", first);
        }
        int charted = 0;
        for (size_t pg = 1; pg <= pages; pg++) {
            int taken = 0;
            if (take_over_history_page(c, ord + i, cnt, pg, pages, &rix, &taken, err) != SB_OK) {
                free(steps);
                json_decref(d);
                goto done;
            }
            if (taken)
                continue;
            /* the chart, on page 1 only: it is the largest part of a
             * history page, and every later page links to it */
            if (pg == 1 && !charted) {
                char ctitle[1024];
                snprintf(ctitle, sizeof ctitle, "%s %s %s %s on %s: median over commits", head->op,
                         head->mode, head->dtype, head->shape_key, head->sku);
                sb_history_sort_steps(steps, nsteps);
                size_t drawn = 0;
                int git = 0;
                sb_buf svg = SB_BUF_INIT;
                site_history_chart(ord + i, cnt, &c->commits, steps, nsteps, ctitle, &svg, &drawn, &git);
                sb_tpl_set_str(d, "chart", drawn ? sb_buf_str(&svg) : "");
                json_object_set_new(d, "git_order", json_boolean(git));
                sb_buf_free(&svg);
                charted = 1;
            }
            json_object_set_new(d, "first", json_boolean(pg == 1));
            sb_buf_reset(&b);
            sb_buf_reset(&rows);
            size_t from = i + (pg - 1) * c->page_rows, to = from + c->page_rows;
            if (to > j + 1)
                to = j + 1;
            for (size_t k = from; k < to; k++) {
                const sb_result *r = ord[k];
                const rg_ref *fo = find_ref(&rix, r->run_id, 0);
                const rg_ref *fn = find_ref(&rix, r->run_id, 1);
                run_row(c, r, fo, fn, &rows);
            }
            if (sb_buf_failed(&rows)) {
                free(steps);
                json_decref(d);
                sb_error_set(err, NULL, NULL, "out of memory");
                goto done;
            }
            sb_tpl_set_str(d, "rows", sb_buf_str(&rows));
            sb_buf pager = SB_BUF_INIT;
            /* page 1 is rendered again whenever the history grows, so it
             * alone names the page count */
            if (pg == 1)
                site_pager(&pager, pg, pages, site_keyed_page_name, &ha);
            else
                site_pager_open(&pager, pg, pg < pages, site_keyed_page_name, &ha);
            sb_tpl_set_str(d, "pager", sb_buf_str(&pager));
            sb_buf_free(&pager);
            char rel[600], title[1024];
            site_history_path(rel, sizeof rel, head->case_key, head->sku, pg);
            sb_buf params = SB_BUF_INIT;
            site_params_text(head->params_json, &params);
            snprintf(title, sizeof title, "history: %s %s %s %s%s%s on %s%s", head->op, head->mode,
                     head->dtype, head->shape_key, params.len ? " " : "", sb_buf_str(&params), head->sku,
                     pages > 1 ? " (paged)" : "");
            sb_buf_free(&params);
            if (sb_template_render(page_tpl, d, SB_TPL_ESCAPE_HTML, &b, err) != SB_OK ||
                site_page(c, rel, 1, "history", title, &b, err) != SB_OK) {
                free(steps);
                json_decref(d);
                goto done;
            }
        }
        free(steps);
        json_decref(d);

        if (json_array_size(irows) == c->page_rows) {
            if (write_index_page(c, index_tpl, irows, ipage, ipages, err) != SB_OK)
                goto done;
            ipage++;
            json_array_clear(irows);
        }
        char rel[600];
        site_history_path(rel, sizeof rel, head->case_key, head->sku, 1);
        json_t *o = json_object();
        sb_tpl_set_str(o, "op", head->op);
        sb_tpl_set_str(o, "mode", head->mode);
        sb_tpl_set_str(o, "dtype", head->dtype);
        sb_tpl_set_str(o, "shape", head->shape_key);
        {
            /* cases that differ only in params (accum=fp32, vocab...) must be told apart */
            sb_buf params = SB_BUF_INIT;
            site_params_text(head->params_json, &params);
            sb_tpl_set_str(o, "params", sb_buf_str(&params));
            sb_buf_free(&params);
        }
        sb_tpl_set_str(o, "sku", head->sku);
        json_object_set_new(o, "runs", json_integer((json_int_t)cnt));
        json_object_set_new(o, "regressions", json_integer((json_int_t)regs));
        json_object_set_new(o, "improvements", json_integer((json_int_t)imps));
        sb_tpl_set_str(o, "href", rel + 8);
        json_array_append_new(irows, o);
        i = j + 1;
    }
    if (write_index_page(c, index_tpl, irows, ipage, ipages, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    json_decref(irows);
    sb_template_free(page_tpl);
    sb_template_free(index_tpl);
    sb_buf_free(&b);
    sb_buf_free(&rows);
    free(ord);
    free(rix.first);
    free(refs);
    return rc;
}
