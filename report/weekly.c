/* weekly.c - the weekly writeup (weekly.h). */
#include "weekly.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geomean.h"
#include "isoweek.h"
#include "plots.h"
#include "repro.h"
#include "results.h"
#include "template.h"

int sb_markdown_to_html(const char *md, size_t len, char **html, sb_error *err)
{
    *html = NULL;
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

static int str_in(const char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return 1;
    return 0;
}

/* Environment matrix rows: distinct (sku, gpu, driver, cuda, cublas, sha). */
static json_t *env_rows(const sb_result_set *set, const sb_training_set *tr)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < set->n + tr->n; i++) {
        const char *sku, *arch, *gpu, *drv, *cuda, *cublas, *sha;
        if (i < set->n) {
            const sb_result *r = &set->v[i];
            sku = r->sku, arch = r->arch, gpu = r->gpu_name, drv = r->driver, cuda = r->cuda,
            cublas = r->cublas, sha = r->git_sha;
        } else {
            const sb_training *t = &tr->v[i - set->n];
            sku = t->sku, arch = t->arch, gpu = t->gpu_name, drv = t->driver, cuda = t->cuda,
            cublas = NULL, sha = t->git_sha;
        }
        drv = drv ? drv : "unknown";
        cuda = cuda ? cuda : "unknown";
        cublas = cublas ? cublas : "-";
        size_t k;
        json_t *row;
        json_t *found = NULL;
        json_array_foreach(rows, k, row) {
            if (!strcmp(json_string_value(json_object_get(row, "sku")), sku) &&
                !strcmp(json_string_value(json_object_get(row, "driver")), drv) &&
                !strcmp(json_string_value(json_object_get(row, "cuda")), cuda) &&
                !strcmp(json_string_value(json_object_get(row, "cublas")), cublas) &&
                !strcmp(json_string_value(json_object_get(row, "git_sha")), sha))
                found = row;
        }
        if (found) {
            json_object_set_new(found, "runs",
                                json_integer(json_integer_value(json_object_get(found, "runs")) + 1));
            continue;
        }
        row = json_object();
        sb_tpl_set_str(row, "sku", sku);
        sb_tpl_set_str(row, "arch", arch);
        sb_tpl_set_str(row, "gpu", gpu);
        sb_tpl_set_str(row, "driver", drv);
        sb_tpl_set_str(row, "cuda", cuda);
        sb_tpl_set_str(row, "cublas", cublas);
        sb_tpl_set_str(row, "git_sha", sha);
        json_object_set_new(row, "runs", json_integer(1));
        json_object_set_new(row, "arch_rank", json_integer(sb_arch_rank(arch)));
        json_array_append_new(rows, row);
    }
    /* order by arch rank, sku, git sha, driver (insertion sort, few rows) */
    size_t n = json_array_size(rows);
    for (size_t i = 1; i < n; i++) {
        for (size_t j = i; j > 0; j--) {
            json_t *a = json_array_get(rows, j - 1), *b = json_array_get(rows, j);
            long long ra = json_integer_value(json_object_get(a, "arch_rank"));
            long long rb = json_integer_value(json_object_get(b, "arch_rank"));
            int c = ra != rb ? (ra > rb) - (ra < rb) : 0;
            const char *keys[] = {"sku", "git_sha", "driver", "cuda", "cublas"};
            for (size_t q = 0; q < 5 && !c; q++)
                c = strcmp(json_string_value(json_object_get(a, keys[q])),
                           json_string_value(json_object_get(b, keys[q])));
            if (c <= 0)
                break;
            json_incref(a);
            json_array_set(rows, j - 1, b);
            json_array_set_new(rows, j, a);
        }
    }
    return rows;
}

typedef struct opgroup {
    const char *op, *mode, *dtype, *suite;
} opgroup;

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
    if (sb_mkdirs(o->out_dir, err) != SB_OK)
        return SB_ERR;

    int rc = SB_ERR;
    sb_result_set set = {0}, both = {0};
    sb_training_set tr = {0};
    sb_pick *picks = NULL;
    size_t npicks = 0;
    sb_geo_table geo = {0};
    sb_rg_list rg = {0};
    sb_repro *rp = NULL;
    json_t *d = NULL;
    sb_buf md = SB_BUF_INIT, tmp = SB_BUF_INIT, html = SB_BUF_INIT;
    char *frag = NULL;
    opgroup *groups = NULL;
    size_t ngroups = 0;

    sb_result_filter f = {0};
    f.has_range = 1;
    f.from = start;
    f.to = end;
    if (sb_results_load(db, &f, &set, err) != SB_OK)
        goto done;
    f.from = pstart;
    if (sb_results_load(db, &f, &both, err) != SB_OK)
        goto done;
    if (sb_training_load(db, 1, start, end, &tr, err) != SB_OK)
        goto done;
    if (sb_picks_latest(&set, &picks, &npicks, err) != SB_OK)
        goto done;
    if (sb_geo_compute(&set, picks, npicks, o->baseline, &geo, err) != SB_OK)
        goto done;
    if (sb_rg_windows(db, &both, pstart, start, end, &o->rg, &rg, err) != SB_OK)
        goto done;
    if (sb_repro_open(&rp, err) != SB_OK)
        goto done;

    for (size_t i = 0; i < set.n; i++) {
        const sb_result *r = &set.v[i];
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
        if (rg.v[i].verdict == SB_RG_IMPROVEMENT)
            sum->improvements++;

    d = json_object();
    if (!d) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    char date[16];
    sb_tpl_set_str(d, "week", week);
    sb_tpl_set_str(d, "previous_week", prev);
    sb_epoch_date(start, date);
    sb_tpl_set_str(d, "week_start", date);
    sb_epoch_date(end - 86400, date);
    sb_tpl_set_str(d, "week_end", date);
    sb_tpl_set_str(d, "evidence_op", SB_EVIDENCE_OP);
    sb_tpl_set_str(d, "evidence_e2e", SB_EVIDENCE_E2E);
    json_object_set_new(d, "runs", json_integer((json_int_t)sum->runs));
    json_object_set_new(d, "passing", json_integer((json_int_t)sum->passing));
    json_object_set_new(d, "failed", json_integer((json_int_t)sum->failed));
    json_object_set_new(d, "skipped", json_integer((json_int_t)sum->skipped));
    json_object_set_new(d, "training_runs", json_integer((json_int_t)tr.n));
    json_object_set_new(d, "regressions", json_integer((json_int_t)sum->regressions));
    json_object_set_new(d, "improvements", json_integer((json_int_t)sum->improvements));
    json_object_set_new(d, "compared_cases", json_integer((json_int_t)rg.n));
    json_object_set_new(d, "has_runs", json_boolean(set.n > 0 || tr.n > 0));
    json_object_set_new(d, "has_results", json_boolean(set.n > 0));

    /* distinct cases, providers, SKUs */
    {
        const char **sk = calloc(npicks + 1, sizeof *sk);
        const char **pv = calloc(npicks + 1, sizeof *pv);
        const char **cs = calloc(npicks + 1, sizeof *cs);
        size_t nsk = 0, npv = 0, ncs = 0;
        if (!sk || !pv || !cs) {
            free(sk);
            free(pv);
            free(cs);
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < npicks; i++) {
            if (!str_in(sk, nsk, picks[i].r->sku))
                sk[nsk++] = picks[i].r->sku;
            if (!str_in(pv, npv, picks[i].r->provider))
                pv[npv++] = picks[i].r->provider;
            if (!str_in(cs, ncs, picks[i].r->case_key))
                cs[ncs++] = picks[i].r->case_key;
        }
        json_object_set_new(d, "cases", json_integer((json_int_t)ncs));
        json_object_set_new(d, "providers", json_integer((json_int_t)npv));
        sb_buf_reset(&tmp);
        for (size_t k = 0; k < geo.nskus; k++)
            sb_buf_printf(&tmp, "%s%s", k ? ", " : "", geo.skus[k]);
        /* SKUs with runs but no comparison row still count */
        for (size_t k = 0; k < nsk; k++) {
            int listed = 0;
            for (size_t q = 0; q < geo.nskus && !listed; q++)
                listed = strcmp(geo.skus[q], sk[k]) == 0;
            if (!listed)
                sb_buf_printf(&tmp, "%s%s", tmp.len ? ", " : "", sk[k]);
        }
        sb_tpl_set_str(d, "skus", tmp.len ? sb_buf_str(&tmp) : "none");
        free(sk);
        free(pv);
        free(cs);
    }

    /* best and worst geomean row, for the note */
    {
        const sb_geo_row *best = NULL, *worst = NULL;
        for (size_t i = 0; i < geo.n; i++) {
            const sb_geo_row *g = &geo.rows[i];
            if (!g->shapes)
                continue;
            if (!best || g->geomean > best->geomean)
                best = g;
            if (!worst || g->geomean < worst->geomean)
                worst = g;
        }
        json_t *b = json_object(), *w = json_object();
        if (best) {
            sb_tpl_set_str(b, "op", best->op);
            sb_tpl_set_str(b, "mode", best->mode);
            sb_tpl_set_str(b, "dtype", best->dtype);
            sb_tpl_set_str(b, "provider", best->provider);
            sb_tpl_set_str(b, "baseline", best->baseline);
            sb_tpl_set_str(b, "sku", best->sku);
            sb_tpl_set_num(b, "geomean", "%.3f", best->geomean);
            json_object_set_new(b, "shapes", json_integer((json_int_t)best->shapes));
            sb_tpl_set_str(w, "op", worst->op);
            sb_tpl_set_str(w, "mode", worst->mode);
            sb_tpl_set_str(w, "dtype", worst->dtype);
            sb_tpl_set_str(w, "provider", worst->provider);
            sb_tpl_set_str(w, "baseline", worst->baseline);
            sb_tpl_set_str(w, "sku", worst->sku);
            sb_tpl_set_num(w, "geomean", "%.3f", worst->geomean);
            json_object_set_new(w, "shapes", json_integer((json_int_t)worst->shapes));
            json_object_set_new(d, "best", b);
            json_object_set_new(d, "worst", w);
        } else {
            json_decref(b);
            json_decref(w);
            json_object_set_new(d, "best", json_false());
            json_object_set_new(d, "worst", json_false());
        }
    }

    json_object_set_new(d, "environment", env_rows(&set, &tr));

    sb_buf_reset(&tmp);
    if (geo.n)
        sb_geo_render_md(&geo, &tmp);
    sb_tpl_set_str(d, "geomean_tables", sb_buf_str(&tmp));
    json_object_set_new(d, "has_geomean", json_boolean(geo.n > 0));

    /* plots */
    json_t *plots = json_array();
    json_object_set_new(d, "plots", plots);
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
        for (size_t i = 1; i < nsk; i++)
            for (size_t j = i; j > 0; j--) {
                int c = sb_arch_rank(ar[j - 1]) - sb_arch_rank(ar[j]);
                if (!c)
                    c = strcmp(sk[j - 1], sk[j]);
                if (c <= 0)
                    break;
                const char *t = sk[j];
                sk[j] = sk[j - 1];
                sk[j - 1] = t;
                t = ar[j];
                ar[j] = ar[j - 1];
                ar[j - 1] = t;
            }
        int bad = 0;
        for (size_t k = 0; k < nsk && !bad; k++) {
            char slug[256], file[1024], path[4096];
            size_t drawn = 0;
            sb_slug(sk[k], slug, sizeof slug);
            snprintf(file, sizeof file, "%s-roofline-%s.svg", week, slug);
            snprintf(path, sizeof path, "%s/%s", o->out_dir, file);
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
            json_array_append_new(plots, p);
            sum->plots++;
        }
        /* op groups (op, mode, dtype) of the picks */
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
        for (size_t g = 0; g < ngroups && !bad; g++) {
            char slug[256], file[1024], path[4096], title[512], name[256];
            snprintf(name, sizeof name, "%s-%s-%s", groups[g].op, groups[g].mode, groups[g].dtype);
            sb_slug(name, slug, sizeof slug);
            int has_rows = 0;
            for (size_t i = 0; i < geo.n && !has_rows; i++)
                has_rows = !strcmp(geo.rows[i].op, groups[g].op) &&
                           !strcmp(geo.rows[i].mode, groups[g].mode) &&
                           !strcmp(geo.rows[i].dtype, groups[g].dtype);
            if (has_rows) {
                snprintf(file, sizeof file, "%s-speedup-%s.svg", week, slug);
                snprintf(path, sizeof path, "%s/%s", o->out_dir, file);
                sb_buf_reset(&tmp);
                sb_plot_speedup(&geo, groups[g].op, groups[g].mode, groups[g].dtype, &tmp);
                if (sb_write_buf(path, &tmp, err) != SB_OK) {
                    bad = 1;
                    break;
                }
                json_t *p = json_object();
                snprintf(title, sizeof title, "Geomean speedup, %s %s %s", groups[g].op,
                         groups[g].mode, groups[g].dtype);
                sb_tpl_set_str(p, "title", title);
                sb_tpl_set_str(p, "file", file);
                json_array_append_new(plots, p);
                sum->plots++;
            }
            for (size_t k = 0; k < nsk && !bad; k++) {
                int any = 0;
                for (size_t i = 0; i < npicks && !any; i++)
                    any = !strcmp(picks[i].r->sku, sk[k]) && !strcmp(picks[i].r->op, groups[g].op) &&
                          !strcmp(picks[i].r->mode, groups[g].mode) &&
                          !strcmp(picks[i].r->dtype, groups[g].dtype);
                if (!any)
                    continue;
                char sslug[256];
                sb_slug(sk[k], sslug, sizeof sslug);
                snprintf(file, sizeof file, "%s-latency-%s-%s.svg", week, slug, sslug);
                snprintf(path, sizeof path, "%s/%s", o->out_dir, file);
                sb_buf_reset(&tmp);
                sb_plot_latency(picks, npicks, groups[g].op, groups[g].mode, groups[g].dtype,
                                sk[k], &tmp);
                if (sb_write_buf(path, &tmp, err) != SB_OK) {
                    bad = 1;
                    break;
                }
                json_t *p = json_object();
                snprintf(title, sizeof title, "Latency by shape, %s %s %s on %s", groups[g].op,
                         groups[g].mode, groups[g].dtype, sk[k]);
                sb_tpl_set_str(p, "title", title);
                sb_tpl_set_str(p, "file", file);
                json_array_append_new(plots, p);
                sum->plots++;
            }
        }
        free(sk);
        free(ar);
        if (bad)
            goto done;
    }

    /* regressions since the previous week */
    sb_buf_reset(&tmp);
    sb_rg_render_md(&rg, &o->rg, &tmp);
    sb_tpl_set_str(d, "regressions_md", sb_buf_str(&tmp));

    /* training (end-to-end) */
    {
        json_t *rows = json_array();
        for (size_t i = 0; i < tr.n; i++) {
            const sb_training *t = &tr.v[i];
            json_t *r = json_object();
            sb_tpl_set_str(r, "model", t->model_name);
            sb_tpl_set_str(r, "sku", t->sku);
            sb_tpl_set_str(r, "patch", t->patch_name);
            sb_tpl_set_str(r, "strategy", t->strategy);
            sb_tpl_set_str(r, "dtype", t->dtype);
            sb_tpl_set_str(r, "status", t->status);
            sb_tpl_set_str(r, "git_sha", t->git_sha);
            json_object_set_new(r, "seq_len", json_integer(t->seq_len));
            json_object_set_new(r, "micro_batch_size", json_integer(t->micro_batch_size));
            json_object_set_new(r, "world_size", json_integer(t->world_size));
            int ok = strcmp(t->status, "passed") == 0;
            sb_tpl_set_num(r, "tokens_per_s", "%.0f", ok ? t->tokens_per_s : NAN);
            sb_tpl_set_num(r, "median_step_ms", "%.2f", ok ? t->median_step_ms : NAN);
            json_object_set_new(r, "run_id", json_integer(t->run_id));
            json_array_append_new(rows, r);
        }
        json_object_set_new(d, "training", rows);
        json_object_set_new(d, "has_training", json_boolean(tr.n > 0));
    }

    /* commands per op group */
    {
        json_t *cmds = json_array();
        json_object_set_new(d, "commands", cmds);
        for (size_t g = 0; g < ngroups; g++) {
            json_t *c = json_object();
            char name[512];
            snprintf(name, sizeof name, "%s %s %s", groups[g].op, groups[g].mode, groups[g].dtype);
            sb_tpl_set_str(c, "table", name);
            sb_buf_reset(&tmp);
            const char **seen_suites = calloc(npicks + 1, sizeof *seen_suites);
            size_t nsuites = 0;
            if (!seen_suites) {
                json_decref(c);
                sb_error_set(err, NULL, NULL, "out of memory");
                goto done;
            }
            sb_buf seen = SB_BUF_INIT;
            for (size_t i = 0; i < npicks; i++) {
                const sb_result *r = picks[i].r;
                if (strcmp(r->op, groups[g].op) || strcmp(r->mode, groups[g].mode) ||
                    strcmp(r->dtype, groups[g].dtype))
                    continue;
                if (!str_in(seen_suites, nsuites, r->suite))
                    seen_suites[nsuites++] = r->suite;
                sb_buf line = SB_BUF_INIT;
                if (sb_repro_case(rp, r, &line, err) != SB_OK) {
                    sb_buf_free(&line);
                    sb_buf_free(&seen);
                    free(seen_suites);
                    json_decref(c);
                    goto done;
                }
                /* the same command for several SKUs appears once */
                sb_buf_putc(&line, '\n');
                if (!strstr(sb_buf_str(&seen), sb_buf_str(&line))) {
                    sb_buf_puts(&seen, sb_buf_str(&line));
                }
                sb_buf_free(&line);
            }
            sb_buf_puts(&tmp, sb_buf_str(&seen));
            sb_buf_free(&seen);
            sb_buf_puts(&tmp, "solbook ingest results/");
            if (o->db_label) {
                sb_buf_puts(&tmp, " --db ");
                sb_shell_quote(&tmp, o->db_label);
            }
            sb_buf_puts(&tmp, "\n");
            for (size_t s = 0; s < nsuites; s++) {
                sb_buf_puts(&tmp, "solbook report geomean");
                if (o->db_label) {
                    sb_buf_puts(&tmp, " --db ");
                    sb_shell_quote(&tmp, o->db_label);
                }
                sb_buf_puts(&tmp, " --suite ");
                sb_shell_quote(&tmp, seen_suites[s]);
                sb_buf_puts(&tmp, " --op ");
                sb_shell_quote(&tmp, groups[g].op);
                sb_buf_puts(&tmp, "\n");
            }
            free(seen_suites);
            sb_tpl_set_str(c, "lines", sb_buf_str(&tmp));
            json_array_append_new(cmds, c);
        }
    }

    sb_buf_reset(&md);
    if (sb_render_home("weekly.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, &md, err) != SB_OK)
        goto done;
    snprintf(sum->md_path, sizeof sum->md_path, "%s/%s.md", o->out_dir, week);
    snprintf(sum->html_path, sizeof sum->html_path, "%s/%s.html", o->out_dir, week);
    if (sb_write_buf(sum->md_path, &md, err) != SB_OK)
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
    if (sb_write_buf(sum->html_path, &html, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    free(frag);
    free(groups);
    sb_buf_free(&md);
    sb_buf_free(&tmp);
    sb_buf_free(&html);
    json_decref(d);
    sb_repro_close(rp);
    sb_rg_free(&rg);
    sb_geo_free(&geo);
    free(picks);
    sb_training_free(&tr);
    sb_results_free(&set);
    sb_results_free(&both);
    return rc;
}
