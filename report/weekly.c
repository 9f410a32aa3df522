/* weekly.c - the weekly writeup (weekly.h). */
#include "weekly.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "casetable.h"
#include "claims.h"
#include "sessions.h"
#include "crossarch.h"
#include "encode.h"
#include "gate.h"
#include "geomean.h"
#include "isoweek.h"
#include "note.h"
#include "plots.h"
#include "repro.h"
#include "plausible.h"
#include "results.h"
#include "staged_dir.h"
#include "template.h"
#include "training.h"

/* cmark-gfm 0.29.0.gfm.6 (Debian 12) keeps process-wide state that its
 * parsers change without a lock: the core extensions are registered behind
 * a plain static flag, and each parser adds its extensions' characters to
 * one global table of special inline characters when it parses and takes
 * them out again when it finishes. The site renders Markdown on two
 * threads (docs, and the weeks on a side thread): with both parsing at once
 * one thread's finish takes '~' away from the other mid-parse
 * (struck text comes out as plain text), and two first calls register the
 * extensions twice, after which a table node made with one registration's
 * types aborts in the other's renderer. One lock around the whole
 * conversion is the only safe use of this library version; the docs and
 * weeks spend a few milliseconds in it. */
static pthread_mutex_t cmark_lock = PTHREAD_MUTEX_INITIALIZER;

static int markdown_to_html_locked(const char *md, size_t len, char **html, sb_error *err)
{
    cmark_gfm_core_extensions_ensure_registered();
    int opts = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8;
    cmark_parser *p = cmark_parser_new(opts);
    if (!p)
        return sb_error_set(err, NULL, NULL, "out of memory");
    static const char *const exts[] = {"table", "strikethrough", "autolink", "tagfilter"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        cmark_syntax_extension *e = cmark_find_syntax_extension(exts[i]);
        if (!e) {
            cmark_parser_free(p);
            return sb_error_set(err, NULL, NULL, "cmark-gfm has no '%s' extension", exts[i]);
        }
        cmark_parser_attach_syntax_extension(p, e);
    }
    cmark_parser_feed(p, md, len);
    cmark_node *doc = cmark_parser_finish(p);
    if (!doc) {
        cmark_parser_free(p);
        return sb_error_set(err, NULL, NULL, "cmark-gfm could not parse the Markdown");
    }
    char *h = cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p));
    cmark_node_free(doc);
    cmark_parser_free(p);
    if (!h)
        return sb_error_set(err, NULL, NULL, "out of memory");
    /* cmark allocates with its default allocator (malloc); copy to be sure
     * the caller can free() it. */
    *html = strdup(h);
    cmark_get_default_mem_allocator()->free(h);
    if (!*html)
        return sb_error_set(err, NULL, NULL, "out of memory");
    return SB_OK;
}

int sb_markdown_to_html(const char *md, size_t len, char **html, sb_error *err)
{
    *html = NULL;
    int e = pthread_mutex_lock(&cmark_lock);
    if (e != 0)
        return sb_error_set(err, NULL, NULL, "cannot lock the Markdown renderer: %s", strerror(e));
    int rc = markdown_to_html_locked(md, len, html, err);
    pthread_mutex_unlock(&cmark_lock);
    return rc;
}

static int str_in(const char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return 1;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts the n names in v and drops repeats; returns how many are left. */
static size_t sorted_names(const char **v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_name);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i], v[k - 1]))
            v[k++] = v[i];
    return k;
}

static int sorted_has(const char **v, size_t n, const char *s)
{
    return n && bsearch(&s, v, n, sizeof *v, cmp_name) != NULL;
}

/* Appends v to the ", "-list in b unless it is there. */
static void add_distinct(sb_buf *b, const char *v)
{
    if (!v || !*v)
        return;
    const char *t = sb_buf_str(b);
    size_t lv = strlen(v);
    for (const char *p = t; (p = strstr(p, v)) != NULL; p++)
        if ((p == t || p[-1] == ' ') && (p[lv] == ',' || p[lv] == '\0'))
            return;
    sb_buf_printf(b, "%s%s", b->len ? ", " : "", v);
}

/* One environment row per SKU: GPU, drivers, CUDA, cuBLAS (where recorded),
 * commits, packages, runs. */
static json_t *env_rows(const sb_result_set *set, const sb_training_set *tr)
{
    json_t *rows = json_array();
    const char **sk = calloc(set->n + tr->n + 1, sizeof *sk), **ar = calloc(set->n + tr->n + 1, sizeof *ar);
    size_t nsk = 0;
    if (!sk || !ar) {
        free(sk);
        free(ar);
        return rows;
    }
    for (size_t i = 0; i < set->n + tr->n; i++) {
        const char *s = i < set->n ? set->v[i].sku : tr->v[i - set->n].sku;
        const char *a = i < set->n ? set->v[i].arch : tr->v[i - set->n].arch;
        if (!str_in(sk, nsk, s)) {
            sk[nsk] = s;
            ar[nsk++] = a;
        }
    }
    sb_sort_skus(sk, ar, nsk);
    for (size_t k = 0; k < nsk; k++) {
        sb_buf gpu = SB_BUF_INIT, drv = SB_BUF_INIT, cuda = SB_BUF_INIT, cublas = SB_BUF_INIT,
               sha = SB_BUF_INIT, pkg = SB_BUF_INIT;
        size_t runs = 0;
        for (size_t i = 0; i < set->n + tr->n; i++) {
            const char *s, *g, *d, *c, *cb = NULL, *h, *pj = NULL;
            if (i < set->n) {
                const sb_result *r = &set->v[i];
                s = r->sku, g = r->gpu_name, d = r->driver, c = r->cuda, cb = r->cublas,
                h = r->git_sha, pj = r->packages_json;
            } else {
                const sb_training *t = &tr->v[i - set->n];
                s = t->sku, g = t->gpu_name, d = t->driver, c = t->cuda, h = t->git_sha;
            }
            if (strcmp(s, sk[k]))
                continue;
            runs++;
            add_distinct(&gpu, g);
            add_distinct(&drv, d);
            add_distinct(&cuda, c);
            if (cb && strcmp(cb, "unknown"))
                add_distinct(&cublas, cb);
            char short_sha[16];
            snprintf(short_sha, sizeof short_sha, "%.7s", h);
            add_distinct(&sha, short_sha);
            sb_packages_list(pj, &pkg);
        }
        size_t ncommits = 1;
        for (const char *p = sb_buf_str(&sha); *p; p++)
            ncommits += *p == ',';
        json_t *row = json_object();
        sb_tpl_set_str(row, "sku", sk[k]);
        sb_tpl_set_str(row, "arch", ar[k]);
        sb_tpl_set_str(row, "gpu", sb_buf_str(&gpu));
        sb_tpl_set_str(row, "driver", drv.len ? sb_buf_str(&drv) : "unknown");
        sb_tpl_set_str(row, "cuda", cuda.len ? sb_buf_str(&cuda) : "unknown");
        sb_tpl_set_str(row, "cublas", cublas.len ? sb_buf_str(&cublas) : "-");
        sb_tpl_set_str(row, "packages", pkg.len ? sb_buf_str(&pkg) : "-");
        json_object_set_new(row, "commits", json_integer((json_int_t)ncommits));
        /* a long commit list goes to the appendix */
        sb_tpl_set_str(row, "commit_list", sb_buf_str(&sha));
        json_object_set_new(row, "runs", json_integer((json_int_t)runs));
        json_array_append_new(rows, row);
        sb_buf_free(&gpu);
        sb_buf_free(&drv);
        sb_buf_free(&cuda);
        sb_buf_free(&cublas);
        sb_buf_free(&sha);
        sb_buf_free(&pkg);
    }
    free(sk);
    free(ar);
    return rows;
}

typedef struct opgroup {
    const char *op, *mode, *dtype, *suite;
} opgroup;

static size_t count_lines(const sb_buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += sb_buf_str(b)[i] == '\n';
    return n;
}

/* One change since the previous week for the list at the top. */
static json_t *change_item(const sb_rg_row *r, const sb_rg_opts *o)
{
    json_t *c = json_object();
    const sb_result *n = r->new_run;
    sb_buf label = SB_BUF_INIT;
    sb_case_label(n, &label);
    sb_tpl_set_str(c, "op", n->op);
    sb_tpl_set_str(c, "mode", n->mode);
    sb_tpl_set_str(c, "dtype", n->dtype);
    sb_tpl_set_str(c, "case", sb_buf_str(&label));
    sb_tpl_set_str(c, "provider", n->provider);
    sb_tpl_set_str(c, "sku", n->sku);
    sb_tpl_set_num(c, "change", "%+.1f", 100.0 * r->rel_change);
    json_object_set_new(c, "old_run", json_integer(r->old_run ? r->old_run->run_id : -1));
    json_object_set_new(c, "new_run", json_integer(n->run_id));
    sb_buf_reset(&label);
    if (r->old_run)
        sb_rg_range_md(r, o, &label);
    sb_tpl_set_str(c, "range", sb_buf_str(&label));
    sb_tpl_set_str(c, "confirm", sb_rg_confirm_name(r->confirm));
    sb_buf_free(&label);
    return c;
}

static int cmp_change(const void *a, const void *b)
{
    double x = fabs((*(const sb_rg_row *const *)a)->rel_change);
    double y = fabs((*(const sb_rg_row *const *)b)->rel_change);
    return (x < y) - (x > y);
}

/* The opening table: per op x mode x dtype and SKU, the project's kernels
 * over each baseline in the newest session that pairs them (the other
 * sessions' figures are in the appendix), one cell a baseline; returns
 * the rows written. */
static size_t summary_table(const sb_session_headlines *h, sb_buf *out)
{
    const char *bases[8];
    size_t nb = 0;
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (strcmp(x->provider, SB_WEEKLY_SUBJECT) || str_in(bases, nb, x->baseline) ||
            nb == sizeof bases / sizeof bases[0])
            continue;
        size_t k = nb++;
        for (; k > 0 && sb_headline_baseline_rank(bases[k - 1]) > x->baseline_rank; k--)
            bases[k] = bases[k - 1];
        bases[k] = x->baseline;
    }
    if (nb == 0)
        return 0;
    sb_buf_puts(out, "| op | mode | dtype | SKU |");
    for (size_t b = 0; b < nb; b++) {
        sb_buf_puts(out, " over ");
        sb_enc_md_text(out, bases[b], SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " |");
    }
    sb_buf_puts(out, " session (shapes) |\n| --- | --- | --- | --- |");
    for (size_t b = 0; b < nb; b++)
        sb_buf_puts(out, " ---: |");
    sb_buf_puts(out, " --- |\n");
    size_t rows = 0;
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *g = &h->v[i];
        if (strcmp(g->provider, SB_WEEKLY_SUBJECT))
            continue;
        int first = 1;
        for (size_t j = 0; j < i && first; j++) {
            const sb_session_headline *y = &h->v[j];
            first = strcmp(y->provider, g->provider) || strcmp(y->op, g->op) || strcmp(y->mode, g->mode) ||
                    strcmp(y->dtype, g->dtype) || strcmp(y->sku, g->sku);
        }
        if (!first)
            continue;
        const char *cells[] = {g->op, g->mode, g->dtype, g->sku};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 4; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        sb_buf sessions = SB_BUF_INIT;
        for (size_t b = 0; b < nb; b++) {
            const sb_session_headline *x =
                sb_session_headline_find(h, g->op, g->mode, g->dtype, g->sku, g->provider, bases[b]);
            if (!x) {
                sb_buf_puts(out, " - |");
                continue;
            }
            sb_buf_printf(out, " %.3f [%.3f-%.3f] |", x->geomean.ratio, x->geomean.lo, x->geomean.hi);
            char one[64];
            snprintf(one, sizeof one, "%.*s (%zu)", SB_SESSION_SHORT, x->session_id, x->count);
            add_distinct(&sessions, one);
        }
        sb_buf_printf(out, " %s |\n", sb_buf_str(&sessions));
        sb_buf_free(&sessions);
        rows++;
    }
    sb_buf_puts(out, "\n");
    return rows;
}

/* What the week measured on each SKU, for the opening lines: its runs,
 * its measuring sessions and the distinct GPUs they ran on (from the
 * session runs h read), e.g. "h100-sxm5-80gb (NVIDIA H100 80GB HBM3):
 * 312 runs, 9 measuring sessions on 4 GPUs". */
static int measured_cards(const sb_result_set *week, const sb_session_headlines *h, sb_buf *out, size_t *nsessions)
{
    *nsessions = 0;
    size_t n = week->n, nsku = 0;
    const char **ids = calloc(n + 1, sizeof *ids), **sku = calloc(n + 1, sizeof *sku),
               **arch = calloc(n + 1, sizeof *arch), **gpus = calloc(h->runs.n + 1, sizeof *gpus);
    if (!ids || !sku || !arch || !gpus) {
        free(ids);
        free(sku);
        free(arch);
        free(gpus);
        return -1;
    }
    size_t nids = 0;
    for (size_t i = 0; i < n; i++) {
        if (week->v[i].session_id)
            ids[nids++] = week->v[i].session_id;
        if (!str_in(sku, nsku, week->v[i].sku)) {
            sku[nsku] = week->v[i].sku;
            arch[nsku++] = week->v[i].arch;
        }
    }
    nids = sorted_names(ids, nids);
    *nsessions = nids;
    sb_sort_skus(sku, arch, nsku);
    for (size_t k = 0; k < nsku; k++) {
        size_t runs = 0, sessions = 0, ngpu = 0;
        const char *gpu_name = "";
        for (size_t i = 0; i < n; i++)
            if (!strcmp(week->v[i].sku, sku[k])) {
                runs++;
                gpu_name = week->v[i].gpu_name;
            }
        for (size_t s = 0; s < nids; s++) {
            for (size_t i = 0; i < n; i++)
                if (week->v[i].session_id && !strcmp(week->v[i].session_id, ids[s]) &&
                    !strcmp(week->v[i].sku, sku[k])) {
                    sessions++;
                    break;
                }
        }
        for (size_t i = 0; i < h->runs.n; i++) {
            const sb_session_run *r = &h->runs.v[i];
            if (r->gpu_uuid && !strcmp(r->sku, sku[k]) && sorted_has(ids, nids, r->session_id))
                gpus[ngpu++] = r->gpu_uuid;
        }
        ngpu = sorted_names(gpus, ngpu);
        sb_buf_puts(out, k ? "; " : "");
        sb_enc_md_text(out, sku[k], SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " (");
        sb_enc_md_text(out, gpu_name, SB_TEXT_NAME_MAX);
        sb_buf_printf(out, "): %zu run%s", runs, runs == 1 ? "" : "s");
        if (sessions)
            sb_buf_printf(out, ", %zu measuring session%s on %zu GPU%s", sessions, sessions == 1 ? "" : "s", ngpu,
                          ngpu == 1 ? "" : "s");
    }
    free(ids);
    free(sku);
    free(arch);
    free(gpus);
    return 0;
}

#define TOP_CHANGES 5

/* 1: every run of all would be selected as a run up to end (finished
 * before it; not profiled, not a session's): the week's history is the
 * history of all. */
static int all_up_to(const sb_result_set *all, long long end)
{
    for (size_t i = 0; i < all->n + all->n_left_out; i++) {
        const sb_result *r = i < all->n ? &all->v[i] : &all->left_out[i - all->n];
        if (r->profiler || r->session_id || r->finished_epoch == LLONG_MIN || r->finished_epoch >= end)
            return 0;
    }
    return 1;
}

int sb_weekly_write(sqlite3 *db, const sb_sku_table *skus, const sb_weekly_opts *o,
                    sb_weekly_summary *sum, sb_error *err)
{
    memset(sum, 0, sizeof *sum);
    char week[16], prev[16];
    int py, pw;
    sb_isoweek_format(o->year, o->week, week, sizeof week);
    sb_isoweek_prev(o->year, o->week, &py, &pw);
    sb_isoweek_format(py, pw, prev, sizeof prev);
    long long start, end, pstart, pend;
    sb_isoweek_range(o->year, o->week, &start, &end);
    sb_isoweek_range(py, pw, &pstart, &pend);
    /* The week's files are written into a staging folder and moved into
     * the output folder only when all are written (core/staged_dir.h): a
     * failure leaves the earlier writeup of the week as it was. */
    sb_staged_dir stage;
    if (sb_staged_dir_open(&stage, o->out_dir, SB_STAGE_MERGE, err) != SB_OK)
        return SB_ERR;

    int rc = SB_ERR;
    sb_result_set set = {0}, both = {0}, spec = {0}, sess = {0}, upto = {0};
    sb_training_set tr = {0};
    sb_pick *picks = NULL;
    size_t npicks = 0;
    sb_geo_table geo = {0};
    sb_session_headlines paired = {0};
    sb_xa_set xa = {0};
    sb_rg_list rg = {0};
    int rg_given = 0; /* rg is o->rg_all's, not to be freed here */
    sb_repro *rp = NULL;
    json_t *d = NULL, *ad = NULL;
    sb_buf md = SB_BUF_INIT, tmp = SB_BUF_INIT, html = SB_BUF_INIT, app = SB_BUF_INIT,
           script = SB_BUF_INIT;
    char *frag = NULL;
    opgroup *groups = NULL;
    size_t ngroups = 0;
    const sb_result **cited = NULL;
    const sb_rg_row **chg = NULL;

    sb_result_filter f = {0};
    f.has_range = 1;
    f.from = start;
    f.to = end;
    if (sb_results_select(db, o->all, &f, &set, err) != SB_OK)
        goto done;
    {
        /* the ops and cards of the previous week, measuring sessions
         * included, as the week's own are counted with them */
        sb_result_filter bf = f;
        bf.from = pstart;
        bf.with_sessions = 1;
        if (sb_results_select(db, NULL, &bf, &both, err) != SB_OK)
            goto done;
    }
    /* runs picked from o->all carry its marks */
    if (!o->all && sb_plaus_mark(db, &set, err) != SB_OK)
        goto done;
    {
        const sb_gate_spec *gs = sb_gate_spec_for("gemm");
        sb_result_filter sf = {0};
        sf.suite = gs->suite;
        if (sb_results_select(db, o->all, &sf, &spec, err) != SB_OK)
            goto done;
    }
    {
        /* every run of the week, its measuring sessions' included: what
         * the week counts, its cards and what changed; the paired
         * headline cites them */
        sb_result_filter wf = f;
        wf.with_sessions = 1;
        if (sb_results_select(db, NULL, &wf, &sess, err) != SB_OK)
            goto done;
    }
    if (sb_training_load(db, 1, start, end, &tr, err) != SB_OK)
        goto done;
    if (sb_picks_latest(&set, &picks, &npicks, err) != SB_OK)
        goto done;
    /* the headline: the week's sessions, paired; the newest runs of the
     * rest only in the sections labelled as not paired (docs/CLAIMS.md) */
    if (sb_claims_headlines_read(db, NULL, NULL, o->baseline, start, end, &paired, err) != SB_OK ||
        sb_geo_compute_unpaired(&set, picks, npicks, o->baseline, &paired, &geo, err) != SB_OK)
        goto done;
    if (sb_xa_build(db, picks, npicks, SB_WEEKLY_SUBJECT, o->baseline, &xa, err) != SB_OK)
        goto done;
    /* regressions: the one definition of `report regressions` (regress.h)
     * over every run up to the end of the week */
    f.from = LLONG_MIN;
    if (o->rg_all && o->all && all_up_to(o->all, end)) {
        rg = *o->rg_all;
        rg_given = 1;
    } else if (sb_results_select(db, o->all, &f, &upto, err) != SB_OK ||
               sb_rg_history(db, &upto, &o->rg, &rg, err) != SB_OK) {
        goto done;
    }
    if (sb_repro_open(&rp, err) != SB_OK)
        goto done;

    for (size_t i = 0; i < sess.n; i++) {
        const sb_result *r = &sess.v[i];
        sum->runs++;
        if (r->passing)
            sum->passing++;
        else if (strcmp(r->status, "skipped") == 0)
            sum->skipped++;
        else
            sum->failed++;
    }
    sum->training = tr.n;
    sum->regressions = sb_rg_count_regressions(&rg);
    for (size_t i = 0; i < rg.n; i++)
        if (rg.v[i].latest && rg.v[i].cause == SB_RG_CODE && rg.v[i].verdict == SB_RG_IMPROVEMENT)
            sum->improvements++;

    d = json_object();
    ad = json_object();
    if (!d || !ad) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    char date[16], appendix[64];
    snprintf(appendix, sizeof appendix, "%s-appendix.md", week);
    json_t *both_d[] = {d, ad};
    for (size_t k = 0; k < 2; k++) {
        json_t *x = both_d[k];
        sb_tpl_set_str(x, "week", week);
        sb_tpl_set_str(x, "previous_week", prev);
        sb_epoch_date(start, date);
        sb_tpl_set_str(x, "week_start", date);
        sb_epoch_date(end - 86400, date);
        sb_tpl_set_str(x, "week_end", date);
        sb_evidence_labels_set(x);
        sb_tpl_set_str(x, "appendix", appendix);
        sb_tpl_set_str(x, "site", SB_WEEKLY_SITE_ROOT);
        sb_tpl_set_str(x, "subject", SB_WEEKLY_SUBJECT);
        json_object_set_new(x, "has_runs", json_boolean(sess.n > 0 || tr.n > 0));
        json_object_set_new(x, "has_results", json_boolean(set.n > 0));
    }
    json_object_set_new(d, "runs", json_integer((json_int_t)sum->runs));
    {
        size_t in_sessions = 0, nsessions = 0, ops = 0;
        for (size_t i = 0; i < sess.n; i++)
            in_sessions += sess.v[i].session_id != NULL;
        json_object_set_new(d, "session_runs", json_integer((json_int_t)in_sessions));
        json_object_set_new(d, "result_runs", json_integer((json_int_t)(sess.n - in_sessions)));
        sb_buf_reset(&tmp);
        if (measured_cards(&sess, &paired, &tmp, &nsessions) != 0) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        sb_tpl_set_str(d, "measured_cards", sb_buf_str(&tmp));
        char phrase[64];
        snprintf(phrase, sizeof phrase, "%zu measuring session%s", nsessions, nsessions == 1 ? "" : "s");
        sb_tpl_set_str(d, "sessions", phrase);
        sb_buf_reset(&tmp);
        for (size_t i = 0; i < sess.n; i++) {
            size_t before = tmp.len;
            add_distinct(&tmp, sess.v[i].op);
            ops += tmp.len > before;
        }
        sb_tpl_set_str(d, "measured_ops", sb_buf_str(&tmp));
        char op_phrase[64];
        snprintf(op_phrase, sizeof op_phrase, "%zu op%s", ops, ops == 1 ? "" : "s");
        sb_tpl_set_str(d, "measured_op_count", op_phrase);
        /* the note's GEMM spec runs may be of any week: say how many are this week's */
        size_t spec_week = 0;
        for (size_t i = 0; i < spec.n; i++)
            spec_week += spec.v[i].finished_epoch >= start && spec.v[i].finished_epoch < end;
        json_object_set_new(d, "spec_runs", json_integer((json_int_t)spec_week));
    }
    {
        char line[128];
        snprintf(line, sizeof line, "%zu " SB_LEFT_OUT_TIME, set.n_left_out);
        sb_tpl_set_str(d, "left_out", line);
        json_object_set_new(d, "has_left_out", json_boolean(set.n_left_out > 0));
    }
    json_object_set_new(d, "passing", json_integer((json_int_t)sum->passing));
    json_object_set_new(d, "failed", json_integer((json_int_t)sum->failed));
    json_object_set_new(d, "skipped", json_integer((json_int_t)sum->skipped));
    json_object_set_new(d, "training_runs", json_integer((json_int_t)tr.n));
    json_object_set_new(d, "regressions", json_integer((json_int_t)sum->regressions));
    json_object_set_new(d, "improvements", json_integer((json_int_t)sum->improvements));
    {
        sb_buf_reset(&tmp);
        sb_rg_definition(&rg, &o->rg, &tmp);
        sb_tpl_set_str(d, "regression_definition", sb_buf_str(&tmp));
        size_t tested, flagged, changes = 0;
        sb_rg_drift_share(&rg, &tested, &flagged);
        for (size_t i = 0; i < rg.n; i++)
            changes += rg.v[i].latest && (rg.v[i].cause == SB_RG_PROTOCOL || rg.v[i].cause == SB_RG_ENVIRONMENT);
        json_object_set_new(d, "drift_tested", json_integer((json_int_t)tested));
        json_object_set_new(d, "drift_flagged", json_integer((json_int_t)flagged));
        json_object_set_new(d, "setup_changes", json_integer((json_int_t)changes));
    }

    /* the note */
    sb_buf_reset(&tmp);
    if (sb_note_render(db, o->all, skus, SB_WEEKLY_GATE_ARCHES, &tmp, err) != SB_OK)
        goto done;
    sb_tpl_set_str(d, "note", sb_buf_str(&tmp));

    /* what changed: the largest regressions and improvements, new ops and cards */
    {
        chg = calloc(rg.n + 1, sizeof *chg);
        if (!chg) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        const char *keys[] = {"regressed", "improved"};
        for (size_t k = 0; k < 2; k++) {
            size_t nc = 0;
            for (size_t i = 0; i < rg.n; i++) {
                const sb_rg_row *r = &rg.v[i];
                if (k == 0 ? sb_rg_counts(r) && r->verdict == SB_RG_REGRESSION
                           : r->latest && r->cause == SB_RG_CODE && r->verdict == SB_RG_IMPROVEMENT)
                    chg[nc++] = r;
            }
            qsort(chg, nc, sizeof *chg, cmp_change);
            json_t *l = json_array();
            for (size_t i = 0; i < nc && i < TOP_CHANGES; i++)
                json_array_append_new(l, change_item(chg[i], &o->rg));
            json_object_set_new(d, keys[k], l);
        }
        size_t now_failing = 0;
        for (size_t i = 0; i < rg.n; i++)
            now_failing += sb_rg_counts(&rg.v[i]) && rg.v[i].verdict == SB_RG_NOW_FAILING;
        json_object_set_new(d, "now_failing", json_integer((json_int_t)now_failing));
        /* the ops and cards of the previous week, sorted once, so each of
         * the week's runs is looked up instead of compared with every run */
        const char **ops_before = calloc(both.n + 1, sizeof *ops_before);
        const char **skus_before = calloc(both.n + 1, sizeof *skus_before);
        if (!ops_before || !skus_before) {
            free(ops_before);
            free(skus_before);
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        size_t nbefore = 0;
        for (size_t j = 0; j < both.n; j++)
            if (both.v[j].finished_epoch < start) {
                ops_before[nbefore] = both.v[j].op;
                skus_before[nbefore++] = both.v[j].sku;
            }
        size_t nops_before = sorted_names(ops_before, nbefore);
        size_t nskus_before = sorted_names(skus_before, nbefore);
        sb_buf ops = SB_BUF_INIT, cards = SB_BUF_INIT;
        for (size_t i = 0; i < sess.n; i++) {
            const sb_result *r = &sess.v[i];
            if (!sorted_has(ops_before, nops_before, r->op))
                add_distinct(&ops, r->op);
            if (!sorted_has(skus_before, nskus_before, r->sku))
                add_distinct(&cards, r->sku);
        }
        free(ops_before);
        free(skus_before);
        sb_tpl_set_str(d, "new_ops", sb_buf_str(&ops));
        sb_tpl_set_str(d, "new_skus", sb_buf_str(&cards));
        sb_buf_free(&ops);
        sb_buf_free(&cards);
    }

    json_object_set_new(d, "environment", env_rows(&sess, &tr));
    json_object_set_new(ad, "environment", env_rows(&sess, &tr));

    /* the paired headline: the project's kernels in the writeup, every
     * provider in the appendix */
    sb_buf_reset(&tmp);
    size_t summary_rows = summary_table(&paired, &tmp);
    sb_tpl_set_str(d, "paired_md", sb_buf_str(&tmp));
    json_object_set_new(d, "has_paired", json_boolean(summary_rows > 0));
    json_object_set_new(d, "paired_count", json_integer((json_int_t)paired.n));
    json_object_set_new(ad, "has_paired", json_boolean(paired.n > 0));
    /* the geomean tables and full cross-arch tables go to the appendix */
    sb_buf_reset(&tmp);
    if (geo.n || paired.n)
        sb_geo_render_report_md(&paired, &geo, &tmp);
    sb_tpl_set_str(ad, "geomean_tables", sb_buf_str(&tmp));
    json_object_set_new(ad, "has_geomean", json_boolean(geo.n > 0 || paired.n > 0));
    {
        sb_plaus_summary ps;
        sb_buf_reset(&tmp);
        if (sb_plaus_render_md(db, picks, npicks, "##", &tmp, &ps, err) != SB_OK)
            goto done;
        sb_tpl_set_str(ad, "plausibility_md", sb_buf_str(&tmp));
        json_object_set_new(d, "plaus_checked", json_integer((json_int_t)ps.checked));
        json_object_set_new(d, "implausible", json_integer((json_int_t)ps.implausible));
        json_object_set_new(d, "cache_resident", json_integer((json_int_t)ps.cache_resident));
        json_object_set_new(d, "big_speedups", json_integer((json_int_t)ps.big_speedups));
    }
    sb_buf_reset(&tmp);
    for (size_t i = 0; i < xa.n; i++)
        sb_xa_render_md(&xa.v[i], SIZE_MAX, &tmp);
    sb_tpl_set_str(ad, "cross_tables", sb_buf_str(&tmp));
    json_object_set_new(d, "has_cross", json_boolean(xa.n > 0));
    json_object_set_new(ad, "has_cross", json_boolean(xa.n > 0));
    json_object_set_new(d, "cross_count", json_integer((json_int_t)xa.n));

    /* plots: rooflines and speedup bars are written; the writeup shows the
     * rooflines and the bars of the groups with the most cases */
    json_t *plots = json_array(), *all_plots = json_array();
    json_object_set_new(d, "plots", plots);
    json_object_set_new(ad, "plots", all_plots);
    {
        const char **sk = calloc(npicks + 1, sizeof *sk);
        const char **ar = calloc(npicks + 1, sizeof *ar);
        size_t nsk = 0;
        if (!sk || !ar) {
            free(sk);
            free(ar);
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < npicks; i++)
            if (!str_in(sk, nsk, picks[i].r->sku)) {
                sk[nsk] = picks[i].r->sku;
                ar[nsk++] = picks[i].r->arch;
            }
        sb_sort_skus(sk, ar, nsk);
        int bad = 0;
        for (size_t k = 0; k < nsk && !bad; k++) {
            char slug[SB_PAGE_ID_SIZE], file[1024], path[8192];
            size_t drawn = 0;
            sb_page_id(sk[k], slug);
            snprintf(file, sizeof file, "%s-roofline-%s.svg", week, slug);
            snprintf(path, sizeof path, "%s/%s", stage.stage, file);
            sb_buf_reset(&tmp);
            if (sb_plot_roofline(db, skus, picks, npicks, sk[k], &tmp, &drawn, err) != SB_OK ||
                sb_write_buf(path, &tmp, err) != SB_OK) {
                bad = 1;
                break;
            }
            json_t *p = json_object();
            char title[512];
            snprintf(title, sizeof title, "Roofline on %s, %zu points", sk[k], drawn);
            sb_tpl_set_str(p, "title", title);
            sb_tpl_set_str(p, "file", file);
            json_array_append_new(plots, json_deep_copy(p));
            json_array_append_new(all_plots, p);
            sum->plots++;
        }
        free(sk);
        free(ar);
        groups = calloc(npicks + 1, sizeof *groups);
        if (!groups && !bad) {
            sb_error_set(err, NULL, NULL, "out of memory");
            bad = 1;
        }
        for (size_t i = 0; i < npicks && !bad; i++) {
            const sb_result *r = picks[i].r;
            size_t g = 0;
            while (g < ngroups && (strcmp(groups[g].op, r->op) || strcmp(groups[g].mode, r->mode) ||
                                   strcmp(groups[g].dtype, r->dtype)))
                g++;
            if (g == ngroups)
                groups[ngroups++] = (opgroup){r->op, r->mode, r->dtype, r->suite};
        }
        /* the bars shown: the cross-arch tables with the most cases */
        size_t shown[SB_WEEKLY_PLOTS] = {0}, nshown = 0;
        for (size_t q = 0; q < SB_WEEKLY_PLOTS && q < xa.n; q++) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < xa.n; i++) {
                int taken = 0;
                for (size_t j = 0; j < nshown; j++)
                    taken |= shown[j] == i;
                if (!taken && (best == SIZE_MAX || xa.v[i].nrows > xa.v[best].nrows))
                    best = i;
            }
            shown[nshown++] = best;
        }
        for (size_t g = 0; g < ngroups && !bad; g++) {
            char slug[SB_PAGE_ID_SIZE], file[1024], path[8192], title[512], name[1024];
            const char *base = NULL;
            int rank = -1;
            for (size_t i = 0; i < geo.n; i++) {
                const sb_geo_row *r = &geo.rows[i];
                if (!strcmp(r->op, groups[g].op) && !strcmp(r->mode, groups[g].mode) &&
                    !strcmp(r->dtype, groups[g].dtype) && (rank < 0 || r->baseline_rank < rank)) {
                    rank = r->baseline_rank;
                    base = r->baseline;
                }
            }
            if (!base)
                continue;
            /* '/' is escaped in a page id and mode and dtype are enum
             * values without one, so distinct groups get distinct names */
            snprintf(name, sizeof name, "%s/%s/%s", groups[g].op, groups[g].mode, groups[g].dtype);
            sb_page_id(name, slug);
            snprintf(file, sizeof file, "%s-speedup-%s.svg", week, slug);
            snprintf(path, sizeof path, "%s/%s", stage.stage, file);
            sb_buf_reset(&tmp);
            sb_plot_speedup(&geo, groups[g].op, groups[g].mode, groups[g].dtype, &tmp);
            snprintf(title, sizeof title, "Geomean speedup over %s, %s %s %s", base, groups[g].op,
                     groups[g].mode, groups[g].dtype);
            if (sb_write_buf(path, &tmp, err) != SB_OK) {
                bad = 1;
                break;
            }
            json_t *p = json_object();
            sb_tpl_set_str(p, "title", title);
            sb_tpl_set_str(p, "file", file);
            int show = 0;
            for (size_t j = 0; j < nshown; j++)
                show |= !strcmp(xa.v[shown[j]].op, groups[g].op) &&
                        !strcmp(xa.v[shown[j]].mode, groups[g].mode) &&
                        !strcmp(xa.v[shown[j]].dtype, groups[g].dtype);
            if (show)
                json_array_append_new(plots, json_deep_copy(p));
            json_array_append_new(all_plots, p);
            sum->plots++;
        }
        if (bad)
            goto done;
    }

    /* regressions in full: appendix */
    sb_buf_reset(&tmp);
    sb_rg_render_md(&rg, &o->rg, 1, &tmp);
    sb_tpl_set_str(ad, "regressions_md", sb_buf_str(&tmp));

    /* training (end-to-end): report/training.c, in the appendix; counted
     * in the writeup */
    {
        sb_training_opts to = {1, start, end, o->out_dir, NULL, o->all};
        char tname[64];
        snprintf(tname, sizeof tname, "%s-training-tokens.svg", week);
        to.plot_name = tname;
        sb_training_summary ts;
        sb_buf_reset(&tmp);
        if (sb_training_render_md(db, &to, &tmp, &ts, err) != SB_OK)
            goto done;
        sb_tpl_set_str(ad, "training_md", sb_buf_str(&tmp));
        sum->plots += (size_t)ts.plot_written;
    }

    /* commands per op group: a script beside the appendix, which lists the
     * groups and links it, so the appendix stays a page a reader opens; the
     * database is named by its file name only, so no path of this machine
     * is written */
    const char *db_name = o->db_label ? strrchr(o->db_label, '/') : NULL;
    db_name = db_name ? db_name + 1 : o->db_label ? o->db_label : "solbook.db";
    char reproduce[64];
    snprintf(reproduce, sizeof reproduce, "%s-reproduce.sh", week);
    sb_tpl_set_str(ad, "reproduce", reproduce);
    json_object_set_new(ad, "has_commands", json_boolean(ngroups > 0));
    {
        json_t *cmds = json_array();
        json_object_set_new(ad, "commands", cmds);
        for (size_t g = 0; g < ngroups; g++) {
            json_t *c = json_object();
            char name[512];
            snprintf(name, sizeof name, "%s %s %s", groups[g].op, groups[g].mode, groups[g].dtype);
            sb_tpl_set_str(c, "table", name);
            size_t cases = 0; /* distinct lines: one a picked run */
            sb_buf_reset(&tmp);
            sb_buf seen = SB_BUF_INIT;
            for (size_t i = 0; i < npicks; i++) {
                const sb_result *r = picks[i].r;
                if (strcmp(r->op, groups[g].op) || strcmp(r->mode, groups[g].mode) ||
                    strcmp(r->dtype, groups[g].dtype))
                    continue;
                sb_buf line = SB_BUF_INIT;
                if (sb_repro_case(rp, r, &line, err) != SB_OK) {
                    sb_buf_free(&line);
                    sb_buf_free(&seen);
                    json_decref(c);
                    goto done;
                }
                sb_buf_putc(&line, '\n');
                if (!strstr(sb_buf_str(&seen), sb_buf_str(&line))) {
                    sb_buf_puts(&seen, sb_buf_str(&line));
                    cases++;
                }
                sb_buf_free(&line);
            }
            json_object_set_new(c, "count", json_integer((json_int_t)cases));
            sb_buf_puts(&tmp, sb_buf_str(&seen));
            sb_buf_free(&seen);
            /* options before operands: solbook's parser stops at the
             * first operand, as git's does */
            sb_buf_puts(&tmp, "solbook ingest --db ");
            sb_enc_shell_arg(&tmp, db_name);
            sb_buf_puts(&tmp, " results/\nsolbook report table --db ");
            sb_enc_shell_arg(&tmp, db_name);
            sb_buf_puts(&tmp, " --op ");
            sb_enc_shell_arg(&tmp, groups[g].op);
            sb_buf_puts(&tmp, " --sku SKU");
            sb_tpl_set_str(c, "lines", sb_buf_str(&tmp));
            json_array_append_new(cmds, c);
        }
    }
    sb_tpl_set_str(d, "db_name", db_name);
    {
        /* a code span of one command: the database name is one shell word,
         * and the span's backticks outnumber any run inside it */
        sb_buf cmd = SB_BUF_INIT, span = SB_BUF_INIT;
        sb_buf_printf(&cmd, "solbook report weekly --week %s --db ", week);
        sb_enc_shell_arg(&cmd, db_name);
        sb_enc_md_code_span(&span, sb_buf_str(&cmd), 0);
        sb_tpl_set_str(d, "rebuild", sb_buf_str(&span));
        sb_buf_free(&cmd);
        sb_buf_free(&span);
    }

    /* the writeup within its limits: as many of the largest cases per
     * cross-arch table as the line budget leaves */
    size_t rows = SIZE_MAX;
    for (;;) {
        sb_buf_reset(&tmp);
        for (size_t i = 0; i < xa.n; i++)
            sb_xa_render_md(&xa.v[i], rows == SIZE_MAX ? 0 : rows, &tmp);
        sb_tpl_set_str(d, "cross_tables", sb_buf_str(&tmp));
        sb_buf_reset(&md);
        if (sb_render_home("weekly.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, &md, err) != SB_OK)
            goto done;
        if (rows == SIZE_MAX) {
            /* the lines the tables may take beside everything else */
            size_t fixed = count_lines(&md);
            size_t budget = fixed < SB_WEEKLY_MAX_LINES ? SB_WEEKLY_MAX_LINES - fixed : 0;
            rows = xa.n ? budget / xa.n : 0;
            continue;
        }
        if ((count_lines(&md) <= SB_WEEKLY_MAX_LINES && md.len <= SB_WEEKLY_MAX_BYTES) || rows == 0)
            break;
        rows--;
    }
    if (md.len > SB_WEEKLY_MAX_BYTES || count_lines(&md) > SB_WEEKLY_MAX_LINES) {
        sb_error_set(err, NULL, NULL,
                     "the %s writeup would be %zu bytes and %zu lines even with only the geomean "
                     "row of each cross-arch table (limits: %d bytes, %d lines)",
                     week, md.len, count_lines(&md), SB_WEEKLY_MAX_BYTES, SB_WEEKLY_MAX_LINES);
        goto done;
    }
    /* what the writeup names must come from its runs, with no local path */
    cited = calloc(spec.n + sess.n + 2 * rg.n + 1, sizeof *cited);
    if (!cited) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    size_t ncited = 0;
    for (size_t i = 0; i < spec.n; i++)
        cited[ncited++] = &spec.v[i];
    for (size_t i = 0; i < sess.n; i++)
        cited[ncited++] = &sess.v[i];
    /* the regressions and improvements listed may cite runs of earlier weeks */
    for (size_t i = 0; i < rg.n; i++)
        if (rg.v[i].latest && rg.v[i].cause == SB_RG_CODE && rg.v[i].old_run &&
            (rg.v[i].verdict == SB_RG_REGRESSION || rg.v[i].verdict == SB_RG_IMPROVEMENT)) {
            cited[ncited++] = rg.v[i].old_run;
            cited[ncited++] = rg.v[i].new_run;
        }
    {
        char gate_missing[8][48];
        /* the gate's "ARCH: missing" lines; the week's training runs are
         * cited beside its result runs */
        const char **allowed = calloc(9, sizeof *allowed);
        if (!allowed) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        char arches[] = SB_WEEKLY_GATE_ARCHES;
        size_t na = 0;
        char *save = NULL;
        for (char *a = strtok_r(arches, ",", &save); a && na < 8; a = strtok_r(NULL, ",", &save)) {
            snprintf(gate_missing[na], sizeof gate_missing[na], "%s: missing", a);
            allowed[na] = gate_missing[na];
            na++;
        }
        const char *paths[] = {o->out_dir, o->db_label, NULL};
        int claims = sb_claims_check(db, skus, cited, ncited, &tr, allowed, sb_buf_str(&md),
                                     "the weekly writeup", err);
        free(allowed);
        if (claims != SB_OK || sb_paths_check(paths, sb_buf_str(&md), "the weekly writeup", err) != SB_OK)
            goto done;
        if (sb_render_home("weekly-appendix.md.tmpl", ad, SB_TPL_ESCAPE_MARKDOWN, &app, err) !=
                SB_OK ||
            sb_paths_check(paths, sb_buf_str(&app), "the weekly appendix", err) != SB_OK ||
            sb_render_home("weekly-reproduce.sh.tmpl", ad, SB_TPL_ESCAPE_SHELL_COMMENT, &script,
                           err) != SB_OK ||
            sb_paths_check(paths, sb_buf_str(&script), "the weekly reproduce script", err) != SB_OK)
            goto done;
    }
    /* the paths reported are where the files are once moved into place */
    snprintf(sum->md_path, sizeof sum->md_path, "%s/%s.md", o->out_dir, week);
    snprintf(sum->html_path, sizeof sum->html_path, "%s/%s.html", o->out_dir, week);
    snprintf(sum->appendix_path, sizeof sum->appendix_path, "%s/%s", o->out_dir, appendix);
    snprintf(sum->reproduce_path, sizeof sum->reproduce_path, "%s/%s", o->out_dir, reproduce);
    sum->md_bytes = md.len;
    sum->md_lines = count_lines(&md);
    char md_path[8192], html_path[8192], appendix_path[8192];
    snprintf(md_path, sizeof md_path, "%s/%s.md", stage.stage, week);
    snprintf(html_path, sizeof html_path, "%s/%s.html", stage.stage, week);
    snprintf(appendix_path, sizeof appendix_path, "%s/%s", stage.stage, appendix);
    char script_path[8192];
    snprintf(script_path, sizeof script_path, "%s/%s", stage.stage, reproduce);
    if (sb_write_buf(md_path, &md, err) != SB_OK || sb_write_buf(appendix_path, &app, err) != SB_OK ||
        sb_write_buf(script_path, &script, err) != SB_OK)
        goto done;
    if (sb_markdown_to_html(sb_buf_str(&md), md.len, &frag, err) != SB_OK)
        goto done;
    {
        json_t *h = json_object();
        char title[128];
        snprintf(title, sizeof title, "solbook weekly %s", week);
        sb_tpl_set_str(h, "title", title);
        sb_tpl_set_str(h, "body", frag);
        int r2 = sb_render_home("weekly.html.tmpl", h, SB_TPL_ESCAPE_HTML, &html, err);
        json_decref(h);
        if (r2 != SB_OK)
            goto done;
    }
    if (sb_write_buf(html_path, &html, err) != SB_OK)
        goto done;
    rc = sb_staged_dir_commit(&stage, err);
done:
    sb_staged_dir_discard(&stage);
    free(frag);
    free(groups);
    free(cited);
    free(chg);
    sb_buf_free(&md);
    sb_buf_free(&tmp);
    sb_buf_free(&html);
    sb_buf_free(&app);
    sb_buf_free(&script);
    json_decref(d);
    json_decref(ad);
    sb_repro_close(rp);
    if (!rg_given)
        sb_rg_free(&rg);
    sb_xa_free(&xa);
    sb_geo_free(&geo);
    sb_session_headlines_free(&paired);
    free(picks);
    sb_training_free(&tr);
    sb_results_free(&set);
    sb_results_free(&both);
    sb_results_free(&upto);
    sb_results_free(&spec);
    sb_results_free(&sess);
    return rc;
}
