/* site_docs.c - the pages not built from result rows alone: weekly
 * writeups and packets (rendered by report/), the promoted-kernel registry
 * (forge), the contributions ledger and the roadmap (data files in data/,
 * formats in docs/SITE.md). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv_rows.h"
#include "dir_names.h"
#include "forge_kernels.h"
#include "home.h"
#include "isoweek.h"
#include "json_file.h"
#include "markdown.h"
#include "note.h"
#include "packet.h"
#include "plausible.h"
#include "result_filter.h"
#include "results_query.h"
#include "run_query.h"
#include "run_summary.h"
#include "sha256.h"
#include "site.h"
#include "site_parts.h"
#include "site_plaus.h"
#include "site_weekly_read.h"
#include "training_render.h"
#include "weekly_render.h"

/* ---- roadmap ------------------------------------------------------------ */

static const char *const TASK_STATUS[] = {"done", "in progress", "planned", "dropped", NULL};
static const char *const TASK_CLASS[] = {"passed", "stale", "missing", "skipped", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return (int)i;
    return -1;
}

/* Each key of obj must be in allowed; the required ones present. */
static int check_keys(const char *path, const char *ptr, json_t *obj, const char *const *allowed,
                      const char *const *required, sb_error *err)
{
    if (!json_is_object(obj))
        return sb_error_set(err, path, ptr, "must be an object");
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (in_list(key, allowed) < 0)
            return sb_error_set(err, path, ptr, "unknown member '%s'", key);
    }
    for (size_t i = 0; required[i]; i++)
        if (!json_object_get(obj, required[i]))
            return sb_error_set(err, path, ptr, "missing member '%s'", required[i]);
    return SB_OK;
}

static int nonempty_string(const char *path, const char *ptr, json_t *v, sb_error *err)
{
    if (!json_is_string(v) || json_string_length(v) == 0)
        return sb_error_set(err, path, ptr, "must be a non-empty string");
    return SB_OK;
}

static int load_roadmap(const char *path, json_t **out, sb_error *err)
{
    json_t *doc = NULL;
    if (sb_json_load_file(path, &doc, err) != SB_OK)
        return SB_ERR;
    static const char *const top[] = {"schema", "weeks", NULL};
    static const char *const wk[] = {"week", "title", "tasks", NULL};
    static const char *const task_all[] = {"task", "status", "issue", "notes", NULL};
    static const char *const task_req[] = {"task", "status", NULL};
    char ptr[256];
    if (check_keys(path, "", doc, top, top, err) != SB_OK)
        goto bad;
    json_t *schema = json_object_get(doc, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), "solbook.roadmap.v1")) {
        sb_error_set(err, path, "/schema", "must be \"solbook.roadmap.v1\"");
        goto bad;
    }
    json_t *weeks = json_object_get(doc, "weeks");
    if (!json_is_array(weeks) || json_array_size(weeks) == 0) {
        sb_error_set(err, path, "/weeks", "must be a non-empty array");
        goto bad;
    }
    size_t i;
    json_t *w;
    char prev[16] = "";
    json_array_foreach(weeks, i, w) {
        snprintf(ptr, sizeof ptr, "/weeks/%zu", i);
        if (check_keys(path, ptr, w, wk, wk, err) != SB_OK)
            goto bad;
        json_t *week = json_object_get(w, "week");
        int y, n;
        sb_error werr;
        snprintf(ptr, sizeof ptr, "/weeks/%zu/week", i);
        if (!json_is_string(week) || sb_isoweek_parse(json_string_value(week), &y, &n, &werr) != SB_OK) {
            sb_error_set(err, path, ptr, "must be an ISO week YYYY-Www that exists");
            goto bad;
        }
        if (strcmp(prev, json_string_value(week)) >= 0) {
            sb_error_set(err, path, ptr, "weeks must be in increasing order without repeats");
            goto bad;
        }
        snprintf(prev, sizeof prev, "%s", json_string_value(week));
        snprintf(ptr, sizeof ptr, "/weeks/%zu/title", i);
        if (nonempty_string(path, ptr, json_object_get(w, "title"), err) != SB_OK)
            goto bad;
        json_t *tasks = json_object_get(w, "tasks");
        if (!json_is_array(tasks) || json_array_size(tasks) == 0) {
            snprintf(ptr, sizeof ptr, "/weeks/%zu/tasks", i);
            sb_error_set(err, path, ptr, "must be a non-empty array");
            goto bad;
        }
        size_t k;
        json_t *t;
        json_array_foreach(tasks, k, t) {
            snprintf(ptr, sizeof ptr, "/weeks/%zu/tasks/%zu", i, k);
            if (check_keys(path, ptr, t, task_all, task_req, err) != SB_OK)
                goto bad;
            snprintf(ptr, sizeof ptr, "/weeks/%zu/tasks/%zu/task", i, k);
            if (nonempty_string(path, ptr, json_object_get(t, "task"), err) != SB_OK)
                goto bad;
            json_t *st = json_object_get(t, "status");
            snprintf(ptr, sizeof ptr, "/weeks/%zu/tasks/%zu/status", i, k);
            if (!json_is_string(st) || in_list(json_string_value(st), TASK_STATUS) < 0) {
                sb_error_set(err, path, ptr, "must be one of: done, in progress, planned, dropped");
                goto bad;
            }
            json_t *issue = json_object_get(t, "issue");
            if (issue && (!json_is_integer(issue) || json_integer_value(issue) < 1)) {
                snprintf(ptr, sizeof ptr, "/weeks/%zu/tasks/%zu/issue", i, k);
                sb_error_set(err, path, ptr, "must be an issue number (integer >= 1)");
                goto bad;
            }
            json_t *notes = json_object_get(t, "notes");
            if (notes && !json_is_string(notes)) {
                snprintf(ptr, sizeof ptr, "/weeks/%zu/tasks/%zu/notes", i, k);
                sb_error_set(err, path, ptr, "must be a string");
                goto bad;
            }
        }
    }
    *out = doc;
    return SB_OK;
bad:
    json_decref(doc);
    return SB_ERR;
}

int sb_site_check_roadmap(const char *path, sb_error *err)
{
    json_t *doc = NULL;
    if (load_roadmap(path, &doc, err) != SB_OK)
        return SB_ERR;
    json_decref(doc);
    return SB_OK;
}

/* ---- contributions ledger ---------------------------------------------- */

#define LEDGER_COLS 9
static const char *const LEDGER_HEADER[LEDGER_COLS] = {"target", "kind", "title", "status", "link",
                                                       "packet", "ops", "runs", "notes"};
enum { L_TARGET, L_KIND, L_TITLE, L_STATUS, L_LINK, L_PACKET, L_OPS, L_RUNS, L_NOTES };
static const char *const LEDGER_KIND[] = {"discussion", "issue", "PR", NULL};
static const char *const LEDGER_STATUS[] = {"planned", "drafted", "posted", "merged", "closed", NULL};
static const char *const LEDGER_CLASS[] = {"missing", "stale", "neutral", "passed", "skipped", NULL};

typedef struct ledger_row {
    char *f[LEDGER_COLS];
} ledger_row;

typedef struct ledger {
    ledger_row *rows;
    size_t n, cap;
    size_t record;    /* records seen, header included */
} ledger;

static void ledger_free_row(ledger_row *r)
{
    for (int i = 0; i < LEDGER_COLS; i++) {
        free(r->f[i]);
        r->f[i] = NULL;
    }
}

static int ledger_record(void *data, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    ledger *l = data;
    char where[64];
    (void)line;
    snprintf(where, sizeof where, "record %zu", ++l->record);
    if (n != LEDGER_COLS)
        return sb_error_set(err, NULL, where, "%zu fields, the header has %d", n, LEDGER_COLS);
    if (l->record == 1) {
        for (int i = 0; i < LEDGER_COLS; i++)
            if (strcmp(fields[i], LEDGER_HEADER[i]))
                return sb_error_set(err, NULL, where, "header must be "
                                    "target,kind,title,status,link,packet,ops,runs,notes");
        return SB_OK;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        ledger_row *nr = realloc(l->rows, nc * sizeof *nr);
        if (!nr)
            return sb_error_set(err, NULL, where, "out of memory");
        l->rows = nr;
        l->cap = nc;
    }
    ledger_row *r = &l->rows[l->n++];
    int oom = 0;
    for (int i = 0; i < LEDGER_COLS; i++)
        oom |= !(r->f[i] = strdup(fields[i]));
    return oom ? sb_error_set(err, NULL, where, "out of memory") : SB_OK;
}

static void ledger_free(ledger *l)
{
    for (size_t i = 0; i < l->n; i++)
        ledger_free_row(&l->rows[i]);
    free(l->rows);
    memset(l, 0, sizeof *l);
}

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int load_ledger(const char *path, ledger *l, sb_error *err)
{
    memset(l, 0, sizeof *l);
    if (sb_csv_read_file(path, NULL, ledger_record, l, err) != SB_OK) {
        ledger_free(l);
        return SB_ERR;
    }
    char where[64];
    if (l->record == 0) {
        ledger_free(l);
        return sb_error_set(err, path, NULL, "empty: the header line is missing");
    }
    for (size_t i = 0; i < l->n; i++) {
        char **f = l->rows[i].f;
        snprintf(where, sizeof where, "record %zu", i + 2);
        const char *msg = NULL;
        if (!f[0][0])
            msg = "target is empty";
        else if (in_list(f[1], LEDGER_KIND) < 0)
            msg = "kind must be discussion, issue or PR";
        else if (!f[2][0])
            msg = "title is empty";
        else if (in_list(f[3], LEDGER_STATUS) < 0)
            msg = "status must be planned, drafted, posted, merged or closed";
        else if (f[4][0] && strncmp(f[4], "https://", 8) != 0)
            msg = "link must be empty or an https:// address";
        else if (!f[4][0] && strcmp(f[3], "planned") && strcmp(f[3], "drafted"))
            msg = "a posted, merged or closed entry needs its link";
        else if (f[4][0] && (!strcmp(f[3], "planned") || !strcmp(f[3], "drafted")))
            msg = "a planned or drafted entry has no link yet";
        else if (f[5][0] && !sb_packet_target_known(f[5]))
            msg = "packet must be empty or a packet target (liger, vllm, triton, pytorch, cutlass, "
                  "onnxruntime, jax, tilelang)";
        else if (f[L_OPS][0] && !f[L_PACKET][0])
            msg = "ops applies to a packet: give packet too, or leave ops empty";
        if (!msg && f[L_OPS][0]) {
            for (const char *q = f[L_OPS]; *q && !msg; q++)
                if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_' ||
                      *q == '-' || *q == '.' || *q == ' '))
                    msg = "ops must be space-separated op names ([a-z0-9_.-])";
        }
        if (!msg && f[L_RUNS][0]) {
            /* runs: content sha256 prefixes (12 to 64 hex digits), space-separated */
            const char *s = f[L_RUNS];
            while (*s && !msg) {
                size_t n = strcspn(s, " ");
                if (n < 12 || n > 64 || !is_hex(s, n))
                    msg = "runs must be space-separated content_sha256 prefixes of 12 to 64 "
                          "lower-case hex digits";
                s += n;
                while (*s == ' ')
                    s++;
            }
        }
        if (msg) {
            sb_error_set(err, path, where, "%s", msg);
            ledger_free(l);
            return SB_ERR;
        }
    }
    return SB_OK;
}

int sb_site_check_ledger(const char *path, sb_error *err)
{
    ledger l;
    if (load_ledger(path, &l, err) != SB_OK)
        return SB_ERR;
    ledger_free(&l);
    return SB_OK;
}

static void data_path(const char *given, const char *rel, char *buf, size_t size)
{
    sb_error e;
    if (given)
        snprintf(buf, size, "%s", given);
    else if (sb_data_path(buf, size, rel, &e) != SB_OK)
        snprintf(buf, size, "%s", rel);
}

/* A cited run on the ledger page: its page and id. */
static void cited_run(void *ctx, long long id)
{
    char rp[128];
    site_run_path(rp, sizeof rp, id);
    json_t *run = json_object();
    sb_tpl_set_str(run, "path", rp);
    json_object_set_new(run, "id", json_integer(id));
    json_array_append_new((json_t *)ctx, run);
}

int site_build_ledger(site_ctx *c, sb_error *err)
{
    char path[4096];
    data_path(c->o->ledger_path, "contributions.csv", path, sizeof path);
    ledger l;
    if (load_ledger(path, &l, err) != SB_OK)
        return SB_ERR;
    sb_buf b = SB_BUF_INIT;
    int rc = SB_ERR;
    sb_run_hash_lookup *runs = NULL;
    if (sb_run_hash_lookup_open(c->db, &runs, err) != SB_OK)
        goto done;
    json_t *d = json_object(), *rows = json_array();
    json_object_set_new(d, "rows", rows);
    json_object_set_new(d, "has_rows", json_boolean(l.n > 0));
    for (size_t i = 0; i < l.n; i++) {
        char **f = l.rows[i].f;
        json_t *row = json_object(), *cited = json_array();
        static const char *const names[] = {"target", "kind", "title", "status", "link",
                                            "packet", "ops", NULL, "notes"};
        for (int k = 0; k <= L_NOTES; k++)
            if (names[k])
                sb_tpl_set_str(row, names[k], f[k]);
        sb_tpl_set_str(row, "class", LEDGER_CLASS[in_list(f[L_STATUS], LEDGER_STATUS)]);
        json_object_set_new(row, "cited", cited);
        json_array_append_new(rows, row);
        for (const char *s = f[L_RUNS]; *s;) {
            size_t n = strcspn(s, " ");
            char pre[80];
            snprintf(pre, sizeof pre, "%.*s", (int)n, s);
            json_t *cite = json_object(), *ids = json_array();
            json_object_set_new(cite, "prefix", json_stringn(pre, strlen(pre) < 12 ? strlen(pre) : 12));
            json_object_set_new(cite, "runs", ids);
            json_array_append_new(cited, cite);
            if (sb_run_hash_lookup_ids(runs, pre, cited_run, ids, err) != SB_OK) {
                json_decref(d);
                goto done;
            }
            s += n;
            while (*s == ' ')
                s++;
        }
    }
    rc = site_render("contributions.html.tmpl", d, &b, err);
    json_decref(d);
    if (rc != SB_OK)
        goto done;
    rc = site_page(c, "contributions.html", 0, "contributions", "contributions ledger", &b, err);
done:
    sb_run_hash_lookup_close(runs);
    sb_buf_free(&b);
    ledger_free(&l);
    return rc;
}

int site_build_roadmap(site_ctx *c, sb_error *err)
{
    char path[4096];
    data_path(c->o->roadmap_path, "roadmap.json", path, sizeof path);
    json_t *doc = NULL;
    if (load_roadmap(path, &doc, err) != SB_OK)
        return SB_ERR;
    /* the document, with each task's label class and the optional
     * members the template names */
    json_t *d = json_object(), *weeks = json_array();
    json_object_set_new(d, "weeks", weeks);
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(doc, "weeks"), i, w) {
        json_t *wk = json_object(), *tasks = json_array();
        json_object_set(wk, "week", json_object_get(w, "week"));
        json_object_set(wk, "title", json_object_get(w, "title"));
        json_object_set_new(wk, "tasks", tasks);
        json_array_append_new(weeks, wk);
        size_t k;
        json_t *t;
        json_array_foreach(json_object_get(w, "tasks"), k, t) {
            const char *status = json_string_value(json_object_get(t, "status"));
            json_t *row = json_object(), *issue = json_object_get(t, "issue");
            json_t *notes = json_object_get(t, "notes");
            json_object_set(row, "task", json_object_get(t, "task"));
            sb_tpl_set_str(row, "status", status);
            sb_tpl_set_str(row, "class", TASK_CLASS[in_list(status, TASK_STATUS)]);
            json_object_set_new(row, "issue", json_integer(issue ? json_integer_value(issue) : 0));
            sb_tpl_set_str(row, "notes", notes ? json_string_value(notes) : "");
            json_array_append_new(tasks, row);
        }
    }
    sb_buf b = SB_BUF_INIT;
    if (site_render("roadmap.html.tmpl", d, &b, err) != SB_OK) {
        json_decref(d);
        sb_buf_free(&b);
        json_decref(doc);
        return SB_ERR;
    }
    json_decref(d);
    int rc = site_page(c, "roadmap.html", 0, "roadmap", "roadmap", &b, err);
    sb_buf_free(&b);
    json_decref(doc);
    return rc;
}

/* ---- weekly writeups ------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Every training run, of all weeks, under the weekly table
 * (report/training.c; its plot written beside the page), as HTML in *html
 * (malloc'd). */
static int training_section(site_ctx *c, char **html, sb_error *err)
{
    sb_buf md = SB_BUF_INIT, plot = SB_BUF_INIT;
    sb_training_opts to = {0};
    to.plot = &plot;
    to.all = &c->set;
    sb_training_set runs = {0};
    to.runs = &runs;
    sb_training_summary ts;
    *html = NULL;
    int rc = sb_training_load(c->db, 0, 0, 0, &runs, err);
    if (rc == SB_OK)
        rc = sb_training_render_md(&to, &md, &ts, err);
    sb_training_free(&runs);
    if (rc == SB_OK && ts.plot_drawn)
        rc = site_write(c, "weekly/training-tokens.svg", sb_buf_str(&plot), plot.len, err);
    if (rc == SB_OK)
        rc = sb_markdown_to_html(sb_buf_str(&md), md.len, html, err);
    sb_buf_free(&md);
    sb_buf_free(&plot);
    return rc;
}

/* The ISO weeks of the days runs finished on (yyyy * 100 + ww). */
typedef struct week_list {
    int *v;
    size_t n, cap;
    int failed;
} week_list;

static void add_week(void *ctx, const char *day)
{
    week_list *w = ctx;
    char ts[40];
    long long e;
    snprintf(ts, sizeof ts, "%.10sT12:00:00Z", day ? day : "");
    if (!day || w->failed || sb_rfc3339_parse(ts, &e) != 0)
        return;
    int y, wk;
    sb_isoweek_of(e, &y, &wk);
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        int *nv = realloc(w->v, cap * sizeof *nv);
        if (!nv) {
            w->failed = 1;
            return;
        }
        w->v = nv;
        w->cap = cap;
    }
    w->v[w->n++] = y * 100 + wk;
}

/* Headings one level down, in place: the page's own h1 names the week,
 * so the writeup's headings start at h2 and none is skipped. */
static void demote_headings(char *html)
{
    for (char *p = html; (p = strstr(p, "<")) != NULL; p++) {
        char *h = p[1] == '/' ? p + 2 : p + 1;
        if (h[0] == 'h' && h[1] >= '1' && h[1] <= '5' && (h[2] == '>' || h[2] == ' '))
            h[1]++;
    }
}

/* The week's writeup as a page of the site: report/weekly.h writes a
 * stand-alone HTML file without the site's header, navigation or
 * viewport; the page is rendered again from its Markdown inside the
 * site's layout, with a list of every chart of the week (most are only
 * named in the appendix, which stays Markdown: it is far over a page's
 * size budget). */
static int weekly_page(site_ctx *c, const char *dir, const char *name, const sb_weekly_summary *sum,
                       sb_error *err)
{
    char *md = NULL, *html = NULL;
    size_t len = 0;
    if (sb_file_read_all(sum->md_path, &md, &len, err) != SB_OK)
        return SB_ERR;
    int rc = sb_markdown_to_html(md, len, &html, err);
    free(md);
    if (rc != SB_OK)
        return SB_ERR;
    size_t appendix_pages = 0;
    if (site_weekly_appendix(c, name, sum->appendix_path, &appendix_pages, err) != SB_OK) {
        free(html);
        return SB_ERR;
    }
    demote_headings(html);
    /* run ids linked; the writeup's link to its appendix leads to the
     * appendix's pages */
    {
        sb_buf linked = SB_BUF_INIT;
        char md_href[64], html_href[64];
        snprintf(md_href, sizeof md_href, "href=\"%s-appendix.md\"", name);
        snprintf(html_href, sizeof html_href, "href=\"%s-appendix.html\"", name);
        site_link_runs(html, "../", &linked);
        free(html);
        html = NULL;
        sb_buf out = SB_BUF_INIT;
        const char *t = sb_buf_str(&linked);
        for (const char *m; (m = strstr(t, md_href)) != NULL; t = m + strlen(md_href)) {
            sb_buf_add(&out, t, (size_t)(m - t));
            sb_buf_puts(&out, html_href);
        }
        sb_buf_puts(&out, t);
        sb_buf_free(&linked);
        if (sb_buf_failed(&out)) {
            sb_buf_free(&out);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        html = sb_buf_take(&out);
    }
    char **svgs = NULL;
    size_t nsvg = 0, cap = 0, plen = strlen(name);
    DIR *dp = opendir(dir);
    if (!dp) {
        free(html);
        return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
    }
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t n = strlen(e->d_name);
        if (n < plen + 5 || strncmp(e->d_name, name, plen) || e->d_name[plen] != '-' ||
            strcmp(e->d_name + n - 4, ".svg"))
            continue;
        if (nsvg == cap) {
            cap = cap ? cap * 2 : 32;
            char **nv = realloc(svgs, cap * sizeof *nv);
            if (!nv)
                break;
            svgs = nv;
        }
        if (!(svgs[nsvg] = strdup(e->d_name)))
            break;
        nsvg++;
    }
    closedir(dp);
    if (nsvg)
        qsort(svgs, nsvg, sizeof *svgs, cmp_str);
    json_t *d = json_object(), *charts = json_array();
    sb_tpl_set_str(d, "name", name);
    sb_tpl_set_str(d, "body", html);
    json_object_set_new(d, "appendix_pages", json_integer((json_int_t)appendix_pages));
    json_object_set_new(d, "charts", charts);
    for (size_t i = 0; i < nsvg; i++) {
        json_t *o = json_object();
        sb_tpl_set_str(o, "file", svgs[i]);
        /* "2026-W48-speedup-rmsnorm~2fbwd~2fbf16.svg": the name after the week */
        char label[512];
        snprintf(label, sizeof label, "%.*s", (int)(strlen(svgs[i]) - plen - 5), svgs[i] + plen + 1);
        sb_tpl_set_str(o, "label", label);
        json_array_append_new(charts, o);
        free(svgs[i]);
    }
    free(svgs);
    free(html);
    sb_buf b = SB_BUF_INIT;
    rc = site_render("weekly-page.html.tmpl", d, &b, err);
    json_decref(d);
    if (rc == SB_OK) {
        char rel[64], title[64];
        snprintf(rel, sizeof rel, "weekly/%s.html", name);
        snprintf(title, sizeof title, "weekly writeup %s", name);
        rc = site_page(c, rel, 1, "weekly", title, &b, err);
    }
    sb_buf_free(&b);
    return rc;
}

/* ---- what a week's writeup is built from ---- */

/* The names in dir, sorted (core/dir_names.h); SB_ERR: the folder cannot
 * be read, or out of memory. */
static int list_dir(const char *dir, char ***names, size_t *n, sb_error *err)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
    int rc = sb_dir_read_names(d, dir, names, n, err);
    closedir(d);
    return rc;
}

/* The files under dir (rel names them in the hash) into in, as "rel
 * SHA-256" lines in name order: the templates, tables and data files
 * report/ reads while it writes a week. */
static int hash_tree(const char *dir, const char *rel, sb_buf *in, int depth, sb_error *err)
{
    char **names;
    size_t n;
    if (depth > 8)
        return SB_OK;
    if (list_dir(dir, &names, &n, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char path[4096], sub[4096], hex[SB_SHA256_HEX_LEN + 1];
        struct stat st;
        if (names[i][0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            rc = hash_tree(path, sub, in, depth + 1, err);
        else if (S_ISREG(st.st_mode) && (rc = sb_sha256_file_hex(path, hex, err)) == SB_OK)
            sb_buf_printf(in, "%s %s\n", sub, hex);
    }
    sb_dir_names_free(names, n);
    return rc;
}

/* A run as a writeup reads it: its id (a stored document does not
 * change under it), whether it passes and is plausible, and its kernel
 * time (an nsys import can give a stored run one). */
static void fp_run(sb_buf *in, char set, const sb_result *r)
{
    long long v[3] = {r->run_id, r->implausible, r->passing};
    sb_buf_putc(in, set);
    sb_buf_add(in, (const char *)v, sizeof v);
    sb_buf_add(in, (const char *)&r->kernel_median_ms, sizeof r->kernel_median_ms);
}

/* What every week's writeup depends on beyond the runs up to its end, as
 * a fingerprint: the data files, the options, what a result run's id does
 * not pin down (sb_run_other_stamp), and the runs a writeup reads
 * whenever they finished: the GEMM spec runs of its note (the gate as it
 * stands) and the runs of measuring sessions (a later re-measure confirms
 * an earlier change). */
static int weekly_base_fp(site_ctx *c, char fp[SITE_FP_SIZE], sb_error *err)
{
    sb_buf in = SB_BUF_INIT;
    char data[4096];
    int rc = sb_data_path(data, sizeof data, ".", err);
    if (rc == SB_OK)
        rc = hash_tree(data, "data", &in, 0, err);
    if (rc == SB_OK) {
        sb_buf_printf(&in, "db %s\nbaseline %s\nalpha %.17g\nmin_effect %.17g\nrepo %s\n",
                      c->o->db_label ? c->o->db_label : c->o->db_path,
                      c->o->baseline ? c->o->baseline : "-", c->rg_opts.alpha, c->rg_opts.min_effect,
                      c->rg_opts.repo_url ? c->rg_opts.repo_url : "-");
        sb_result_filter f = sb_note_filter();
        rc = sb_run_other_stamp(c->db, f.suite, f.op, &in, err);
    }
    if (rc == SB_OK) {
        sb_result_filter f = sb_note_filter();
        const sb_result_set *s = &c->set;
        for (size_t i = 0; i < s->n; i++)
            if (sb_result_matches(&s->v[i], &f))
                fp_run(&in, 'g', &s->v[i]);
        for (size_t i = 0; i < s->n_left_out; i++)
            if (sb_result_matches(&s->left_out[i], &f))
                fp_run(&in, 'G', &s->left_out[i]);
        s = &c->session_set;
        for (size_t i = 0; i < s->n; i++)
            fp_run(&in, 's', &s->v[i]);
        for (size_t i = 0; i < s->n_left_out; i++)
            fp_run(&in, 'S', &s->left_out[i]);
        rc = site_fp_hex(&in, fp, err);
    }
    sb_buf_free(&in);
    return rc;
}

static int cmp_run_time(const void *x, const void *y)
{
    const sb_result *a = *(const sb_result *const *)x, *b = *(const sb_result *const *)y;
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch < b->finished_epoch ? -1 : 1;
    return (a->run_id > b->run_id) - (a->run_id < b->run_id);
}

static int cmp_commit_time(const void *x, const void *y)
{
    const site_commit *a = *(const site_commit *const *)x, *b = *(const site_commit *const *)y;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return strcmp(a->sha, b->sha);
}

/* The fingerprint of each week's writeup (weeks[i], increasing) into
 * fps[i]: the base, the week, and every result run that finished by the
 * week's end (whether it passes and is plausible: a stored run does not
 * change under its id) with the commits first measured by then and their
 * place in git order. The runs are taken in time order and chained a
 * week at a time, so all the weeks cost one pass. */
static int weekly_fps(site_ctx *c, const int *weeks, size_t n, char (*fps)[SITE_FP_SIZE], sb_error *err)
{
    char base[SITE_FP_SIZE], chain[SITE_FP_SIZE] = "";
    if (weekly_base_fp(c, base, err) != SB_OK)
        return SB_ERR;
    size_t nr = c->set.n + c->set.n_left_out;
    const sb_result **runs = malloc((nr + 1) * sizeof *runs);
    const site_commit **cms = malloc((c->commits.n + 1) * sizeof *cms);
    if (!runs || !cms) {
        free(runs);
        free(cms);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < c->set.n; i++)
        runs[i] = &c->set.v[i];
    for (size_t i = 0; i < c->set.n_left_out; i++)
        runs[c->set.n + i] = &c->set.left_out[i];
    for (size_t i = 0; i < c->commits.n; i++)
        cms[i] = &c->commits.v[i];
    if (nr)
        qsort(runs, nr, sizeof *runs, cmp_run_time);
    if (c->commits.n)
        qsort(cms, c->commits.n, sizeof *cms, cmp_commit_time);
    size_t r = 0, k = 0;
    int rc = SB_OK;
    sb_buf in = SB_BUF_INIT;
    for (size_t w = 0; w < n && rc == SB_OK; w++) {
        long long start, end;
        char name[16];
        sb_isoweek_range(weeks[w] / 100, weeks[w] % 100, &start, &end);
        sb_isoweek_format(weeks[w] / 100, weeks[w] % 100, name, sizeof name);
        sb_buf_reset(&in);
        sb_buf_puts(&in, chain);
        for (; r < nr && runs[r]->finished_epoch <= end; r++)
            fp_run(&in, 'r', runs[r]);
        for (; k < c->commits.n && cms[k]->first <= end; k++) {
            long long v[2] = {cms[k]->git, cms[k]->committed_at};
            sb_buf_add(&in, cms[k]->sha, strlen(cms[k]->sha) + 1);
            sb_buf_add(&in, (const char *)v, sizeof v);
        }
        rc = site_fp_hex(&in, chain, err);
        if (rc == SB_OK) {
            sb_buf_reset(&in);
            sb_buf_printf(&in, "%s %s %lld %s", base, name, end, chain);
            rc = site_fp_hex(&in, fps[w], err);
        }
    }
    sb_buf_free(&in);
    free(runs);
    free(cms);
    return rc;
}

/* The files of the earlier site's weekly/ folder, sorted, into *files
 * (*n of them; none where there is no earlier site to take weeks over
 * from, or its folder cannot be read: then every week is written). */
static void old_weekly_files(const site_ctx *c, char ***files, size_t *n)
{
    char dir[4608];
    sb_error ignored;
    *files = NULL;
    *n = 0;
    if (!c->old || !c->old->n)
        return;
    snprintf(dir, sizeof dir, "%s/weekly", c->old_dir);
    list_dir(dir, files, n, &ignored);
}

/* The week's files (NAME.md, NAME-appendix.html, ...) from the earlier
 * site, where its writeup was built from the same (fp) there: *taken =
 * 1 and the week's counts in *sum. */
static int take_over_week(site_ctx *c, char *const *files, size_t nfiles, const char *name,
                          const char *fp, sb_weekly_summary *sum, int *taken, sb_error *err)
{
    char prefix[64];
    *taken = 0;
    snprintf(prefix, sizeof prefix, "weekly/%s ", name);
    const char *key = nfiles ? site_fp_find(c, prefix, fp) : NULL;
    memset(sum, 0, sizeof *sum);
    if (!key || sscanf(key + strlen(prefix),
                       "runs=%zu passing=%zu failed=%zu skipped=%zu training=%zu regressions=%zu",
                       &sum->runs, &sum->passing, &sum->failed, &sum->skipped, &sum->training,
                       &sum->regressions) != 6)
        return SB_OK;
    size_t len = strlen(name), found = 0;
    for (size_t i = 0; i < nfiles; i++) {
        if (strncmp(files[i], name, len) || (files[i][len] != '.' && files[i][len] != '-'))
            continue;
        char rel[4096];
        int ok;
        snprintf(rel, sizeof rel, "weekly/%s", files[i]);
        if (site_take_over(c, rel, &ok, err) != SB_OK)
            return SB_ERR;
        if (!ok)
            return sb_error_set(err, c->old_dir, NULL, "%s went away during the build", rel);
        found++;
    }
    if (!found)
        return sb_error_set(err, c->old_dir, NULL, "weekly/%s: the earlier site lists it but has no file of it",
                            name);
    *taken = 1;
    return SB_OK;
}

int site_build_weekly(site_ctx *c, sb_error *err)
{
    week_list wl = {NULL, 0, 0, 0};
    if (sb_run_finish_days(c->db, add_week, &wl, err) != SB_OK) {
        free(wl.v);
        return SB_ERR;
    }
    if (wl.failed) {
        free(wl.v);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    int *weeks = wl.v;
    size_t n = wl.n;
    if (n)
        qsort(weeks, n, sizeof *weeks, cmp_int);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || weeks[k - 1] != weeks[i])
            weeks[k++] = weeks[i];
    n = k;
    char dir[4608];
    snprintf(dir, sizeof dir, "%s/weekly", c->out);
    int rc = SB_OK;
    json_t *d = json_object(), *rows = json_array();
    json_object_set_new(d, "weeks", rows);
    json_object_set_new(d, "has_weeks", json_boolean(n > 0));
    char(*fps)[SITE_FP_SIZE] = malloc((n + 1) * sizeof *fps);
    char **files;
    size_t nfiles;
    old_weekly_files(c, &files, &nfiles);
    sb_buf note = SB_BUF_INIT;
    int has_note = 0;
    /* what the weeks walked share: the runs by time, and the older
     * weeks' regressions from the whole history's walk */
    sb_rg_asof *asof = NULL;
    sb_site_weeks *shared = NULL;
    if (!fps)
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    else
        rc = weekly_fps(c, weeks, n, fps, err);
    for (size_t i = n; i-- > 0 && rc == SB_OK;) {
        sb_weekly_summary sum;
        char name[16];
        int taken = 0;
        sb_isoweek_format(weeks[i] / 100, weeks[i] % 100, name, sizeof name);
        if (take_over_week(c, files, nfiles, name, fps[i], &sum, &taken, err) != SB_OK) {
            rc = SB_ERR;
            break;
        }
        if (taken) {
            c->sum->weeks++;
            goto row;
        }
        sb_weekly_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.year = weeks[i] / 100;
        wo.week = weeks[i] % 100;
        wo.out_dir = dir;
        wo.db_label = c->o->db_label ? c->o->db_label : c->o->db_path;
        wo.rg = c->rg_opts;
        wo.aa = c->rg_aa;
        wo.baseline = c->o->baseline;
        wo.all = &c->set;
        wo.sessions_all = &c->session_set;
        wo.snap = c->snap;
        sb_file_set built = {0};
        sb_site_weekly week_rows;
        /* the note is the same for every week: rendered for the first
         * week built, and its runs not read again for the others */
        wo.note = has_note ? sb_buf_str(&note) : NULL;
        if (!asof && i + 1 < n)
            rc = sb_rg_asof_new(&c->set, &c->rg_read.git, &c->rg_opts, c->rg_aa, &c->rg, &asof, err);
        if (rc == SB_OK && !shared)
            rc = sb_site_weeks_new(&c->set, &c->session_set, &shared, err);
        if (rc == SB_OK)
            rc = sb_site_weekly_read_shared(c->db, c->skus, &wo, &c->rg, shared, asof, &week_rows, err);
        if (rc == SB_OK) {
            if (!has_note) {
                rc = sb_weekly_note(&week_rows.snap, wo.all, c->skus, &note, err);
                if (rc == SB_OK && sb_buf_failed(&note))
                    rc = sb_error_set(err, NULL, NULL, "out of memory");
                has_note = rc == SB_OK;
                wo.note = sb_buf_str(&note);
            }
            wo.regressions = week_rows.regressions;
            if (rc == SB_OK)
                rc = sb_weekly_build(&week_rows.snap, &week_rows.steps, c->skus, &wo, &sum, &built, err);
            sb_site_weekly_free(&week_rows);
        }
        if (rc == SB_OK)
            rc = sb_file_set_publish(&built, dir, SB_STAGE_MERGE, err);
        sb_file_set_free(&built);
        if (rc != SB_OK)
            break;
        c->sum->weeks++;
        if (weekly_page(c, dir, name, &sum, err) != SB_OK) {
            rc = SB_ERR;
            break;
        }
    row:;
        /* the week's counts go into its key, for the index of a build
         * that takes the week over */
        char key[256];
        snprintf(key, sizeof key,
                 "weekly/%s runs=%zu passing=%zu failed=%zu skipped=%zu training=%zu regressions=%zu", name,
                 sum.runs, sum.passing, sum.failed, sum.skipped, sum.training, sum.regressions);
        if (site_fps_add(&c->fps, key, fps[i]) != SB_OK) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        json_t *row = json_object();
        sb_tpl_set_str(row, "name", name);
        json_object_set_new(row, "runs", json_integer((json_int_t)sum.runs));
        json_object_set_new(row, "passing", json_integer((json_int_t)sum.passing));
        json_object_set_new(row, "failed", json_integer((json_int_t)sum.failed));
        json_object_set_new(row, "skipped", json_integer((json_int_t)sum.skipped));
        json_object_set_new(row, "training", json_integer((json_int_t)sum.training));
        json_object_set_new(row, "regressions", json_integer((json_int_t)sum.regressions));
        json_array_append_new(rows, row);
    }
    char *training = NULL;
    if (rc == SB_OK)
        rc = training_section(c, &training, err);
    sb_buf b = SB_BUF_INIT;
    if (rc == SB_OK) {
        sb_tpl_set_str(d, "training", training);
        rc = site_render("weekly-index.html.tmpl", d, &b, err);
    }
    free(training);
    sb_buf_free(&note);
    sb_site_weeks_free(shared);
    sb_rg_asof_free(asof);
    json_decref(d);
    if (rc == SB_OK)
        rc = site_page(c, "weekly/index.html", 1, "weekly", "weekly writeups", &b, err);
    sb_buf_free(&b);
    free(weeks);
    free(fps);
    sb_dir_names_free(files, nfiles);
    return rc;
}

/* ---- packets -------------------------------------------------------------- */


/* One (target, op) packet to write. */
typedef struct packet_job {
    const char *target, *op;
} packet_job;

static int cmp_job(const void *x, const void *y)
{
    const packet_job *a = x, *b = y;
    int k = strcmp(a->target, b->target);
    return k ? k : strcmp(a->op, b->op);
}

/* Rendered discussions larger than this are linked, not inlined, so no
 * page grows with the number of cases. */
#define PACKET_INLINE_MAX (300u * 1024u)

/* What packets read besides the site's runs (sb_packet_needs): read for
 * the first packet that needs each, then shared by the rest, which only
 * read them. */
typedef struct packet_reads {
    int has_sessions, has_training;
    sb_session_runs sessions;
    sb_training_set training;
} packet_reads;

static void packet_reads_free(packet_reads *pr)
{
    sb_session_runs_free(&pr->sessions);
    sb_training_free(&pr->training);
}

/* Writes one packet and its page; appends its row (op, href, cited) to
 * rows. */
static int packet_page(site_ctx *c, const packet_job *pj, packet_reads *rd, json_t *rows, sb_error *err)
{
    char opdir[SB_PAGE_ID_SIZE], dir[4608], rel[700];
    sb_page_id(pj->op, opdir);
    snprintf(dir, sizeof dir, "%s/packets/%s/%s", c->out, pj->target, opdir);
    sb_packet_opts po;
    memset(&po, 0, sizeof po);
    po.target = pj->target;
    po.op = pj->op;
    po.out_dir = dir;
    po.db_label = c->o->db_label ? c->o->db_label : c->o->db_path;
    po.baseline = c->o->baseline;
    po.all = &c->set;
    sb_packet_summary ps;
    memset(&ps, 0, sizeof ps);
    int nothing = 0;
    sb_error perr;
    sb_error_clear(&perr);
    json_t *row = json_object();
    sb_tpl_set_str(row, "op", pj->op);
    sb_tpl_set_str(row, "href", "");
    json_object_set_new(row, "cited", json_integer(0));
    json_array_append_new(rows, row);
    /* what the packet reads besides the site's runs (sb_packet_needs) */
    sb_packet_inputs need;
    const sb_result_set no_runs = {0};
    const sb_session_runs no_sessions = {0};
    const sb_training_set no_training = {0};
    int64_t *ids = NULL;
    size_t nids = 0;
    sb_buf *docs = NULL;
    /* every result run with the sessions' runs, as sb_results_load gives
     * them for with_sessions, picked from what the site holds */
    sb_result_filter wf = {0};
    wf.with_sessions = 1;
    if (sb_packet_needs(pj->target, pj->op, &need, err) != SB_OK)
        return SB_ERR;
    if (need.sessions && !rd->has_sessions) {
        if (sb_site_plaus_session_runs(c->db, NULL, 0, NULL, &rd->sessions, err) != SB_OK)
            return SB_ERR;
        rd->has_sessions = 1;
    }
    if (need.training && !rd->has_training) {
        if (sb_training_load(c->db, 0, 0, 0, &rd->training, err) != SB_OK)
            return SB_ERR;
        rd->has_training = 1;
    }
    /* The cites take the runs' ids from the sessions alone; the build
     * reads with_sessions for the cited runs only, so it gets those
     * picked by id rather than a copy of every run. */
    sb_result_set cited_runs = {0};
    po.with_sessions = &no_runs;
    po.sessions = need.sessions ? &rd->sessions : &no_sessions;
    po.training = need.training ? &rd->training : &no_training;
    /* the runs it cites, then their stored documents for the build */
    sb_file_set files = {0};
    int built = sb_packet_cites(&po, &ids, &nids, &nothing, &perr);
    if (built == SB_OK && need.sessions) {
        built = sb_results_select_sessions_ids(&c->set, &c->session_set, &wf, ids, nids,
                                               &cited_runs, &perr);
        po.with_sessions = &cited_runs;
    }
    if (built == SB_OK)
        built = sb_run_docs_read(c->db, ids, nids, &docs, &perr);
    sb_packet_docs cited = {ids, docs, nids};
    po.docs = &cited;
    if (built == SB_OK)
        built = sb_packet_build(&po, &ps, &nothing, &files, &perr);
    sb_run_docs_free(docs, nids);
    free(ids);
    sb_results_free(&cited_runs);
    if (built != SB_OK) {
        if (!nothing) {
            *err = perr;
            return SB_ERR;
        }
        return SB_OK;
    }
    const sb_set_file *md = sb_file_set_get(&files, "DISCUSSION.md");
    char *html = NULL;
    if (sb_file_set_publish_new(&files, dir, err) != SB_OK ||
        sb_markdown_to_html(sb_buf_str(&md->data), md->data.len, &html, err) != SB_OK) {
        sb_file_set_free(&files);
        return SB_ERR;
    }
    sb_file_set_free(&files);
    c->sum->packets++;
    /* the discussion's own h1 under the page's: one h1 a page */
    demote_headings(html);
    json_t *d = json_object();
    json_object_set_new(d, "inline", json_boolean(strlen(html) <= PACKET_INLINE_MAX));
    sb_tpl_set_str(d, "discussion", html);
    json_object_set_new(d, "cited", json_integer((json_int_t)ps.cited));
    free(html);
    sb_buf page = SB_BUF_INIT;
    int rc = site_render("packet.html.tmpl", d, &page, err);
    json_decref(d);
    snprintf(rel, sizeof rel, "packets/%s/%s/index.html", pj->target, opdir);
    char title[256];
    snprintf(title, sizeof title, "packet for %s: %s", pj->target, pj->op);
    if (rc == SB_OK)
        rc = site_page(c, rel, 3, "packets", title, &page, err);
    sb_buf_free(&page);
    if (rc != SB_OK)
        return SB_ERR;
    snprintf(rel, sizeof rel, "%s/%s/index.html", pj->target, opdir);
    sb_tpl_set_str(row, "href", rel);
    json_object_set_new(row, "cited", json_integer((json_int_t)ps.cited));
    return SB_OK;
}

int site_build_packets(site_ctx *c, sb_error *err)
{
    char path[4096];
    data_path(c->o->ledger_path, "contributions.csv", path, sizeof path);
    ledger l;
    if (load_ledger(path, &l, err) != SB_OK)
        return SB_ERR;
    /* Ops with a passing newest run, for packets that name no ops. */
    const char **allops = malloc((c->npicks + 1) * sizeof *allops);
    size_t nall = 0, njobs = 0, cap = 16;
    packet_job *jobs = malloc(cap * sizeof *jobs);
    int rc = SB_OK;
    if (!allops || !jobs) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->npicks; i++)
        if (c->picks[i].r->passing)
            allops[nall++] = c->picks[i].r->op;
    if (nall)
        qsort(allops, nall, sizeof *allops, cmp_str);
    {
        size_t k = 0;
        for (size_t i = 0; i < nall; i++)
            if (k == 0 || strcmp(allops[k - 1], allops[i]))
                allops[k++] = allops[i];
        nall = k;
    }
    for (size_t i = 0; i < l.n && rc == SB_OK; i++) {
        char **f = l.rows[i].f;
        if (!f[L_PACKET][0])
            continue;
        /* ops named in the ledger (split in place), or every op */
        const char *names[256];
        size_t nn = 0;
        if (f[L_OPS][0]) {
            char *save = NULL;
            for (char *q = strtok_r(f[L_OPS], " ", &save); q && nn < 256;
                 q = strtok_r(NULL, " ", &save))
                names[nn++] = q;
        } else {
            for (size_t k = 0; k < nall && nn < 256; k++)
                names[nn++] = allops[k];
        }
        for (size_t k = 0; k < nn; k++) {
            if (njobs == cap) {
                cap *= 2;
                packet_job *nj = realloc(jobs, cap * sizeof *jobs);
                if (!nj) {
                    rc = sb_error_set(err, NULL, NULL, "out of memory");
                    break;
                }
                jobs = nj;
            }
            jobs[njobs++] = (packet_job){f[L_PACKET], names[k]};
        }
    }
    if (rc != SB_OK)
        goto done;
    if (njobs)
        qsort(jobs, njobs, sizeof *jobs, cmp_job);
    {
        size_t k = 0;
        for (size_t i = 0; i < njobs; i++)
            if (k == 0 || cmp_job(&jobs[k - 1], &jobs[i]))
                jobs[k++] = jobs[i];
        njobs = k;
    }
    json_t *d = json_object(), *targets = json_array(), *rows = NULL;
    packet_reads reads;
    memset(&reads, 0, sizeof reads);
    sb_tpl_set_str(d, "evidence", SB_EVIDENCE_OP);
    json_object_set_new(d, "targets", targets);
    for (size_t i = 0; i < njobs && rc == SB_OK; i++) {
        if (i == 0 || strcmp(jobs[i - 1].target, jobs[i].target)) {
            json_t *t = json_object();
            rows = json_array();
            sb_tpl_set_str(t, "target", jobs[i].target);
            json_object_set_new(t, "packets", rows);
            json_array_append_new(targets, t);
        }
        rc = packet_page(c, &jobs[i], &reads, rows, err);
    }
    sb_buf b = SB_BUF_INIT;
    if (rc == SB_OK)
        rc = site_render("packets-index.html.tmpl", d, &b, err);
    json_decref(d);
    packet_reads_free(&reads);
    if (rc == SB_OK)
        rc = site_page(c, "packets/index.html", 1, "packets", "upstream packets", &b, err);
    sb_buf_free(&b);
done:
    free(allops);
    free(jobs);
    ledger_free(&l);
    return rc;
}

/* ---- promoted kernels ----------------------------------------------------- */

/* A registry cell: text, or missing (null or absent). */
static json_t *json_cell(json_t *v)
{
    json_t *cell = json_object();
    char num[64];
    if (!v || json_is_null(v)) {
        json_object_set_new(cell, "missing", json_true());
        return cell;
    }
    json_object_set_new(cell, "missing", json_false());
    if (json_is_string(v)) {
        json_object_set(cell, "text", v);
    } else if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        sb_tpl_set_str(cell, "text", num);
    } else if (json_is_real(v)) {
        snprintf(num, sizeof num, "%.4g", json_real_value(v));
        sb_tpl_set_str(cell, "text", num);
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        sb_tpl_set_str(cell, "text", s ? s : "");
        free(s);
    }
    return cell;
}

int site_build_registry(site_ctx *c, sb_error *err)
{
    json_t *kernels = NULL;
    const char *src;
    if (c->o->kernels_path) {
        json_t *doc = NULL;
        if (sb_json_load_file(c->o->kernels_path, &doc, err) != SB_OK)
            return SB_ERR;
        json_t *arr = json_is_array(doc) ? doc : json_object_get(doc, "kernels");
        if (!json_is_array(arr)) {
            json_decref(doc);
            return sb_error_set(err, c->o->kernels_path, "/kernels",
                                "must be an array of promoted kernels (verified_kernels.json)");
        }
        kernels = json_incref(arr);
        json_decref(doc);
        /* the file's name only: a page names no folder of the building machine */
        const char *slash = strrchr(c->o->kernels_path, '/');
        src = slash ? slash + 1 : c->o->kernels_path;
    } else {
        if (sb_db_forge_kernels(c->db, &kernels, err) != SB_OK)
            return SB_ERR;
        src = NULL;
    }
    c->sum->kernels = json_array_size(kernels);
    /* the columns of data/templates/site/registry.html.tmpl */
    static const char *const cols[] = {"kernel_id", "op", "sku", "dtype", "shapes", "language",
                                       "speedup_geomean", "speedup_min", "min_speedup",
                                       "status", "evidence_level", "gpu_name", "commit",
                                       "author", "promoted_at", NULL};
    json_t *d = json_object(), *rows = json_array();
    sb_tpl_set_str(d, "evidence", SB_EVIDENCE_OP);
    sb_tpl_set_str(d, "source", src);
    json_object_set_new(d, "kernels", rows);
    json_object_set_new(d, "has_kernels", json_boolean(json_array_size(kernels) > 0));
    size_t i;
    json_t *kv;
    json_array_foreach(kernels, i, kv) {
        json_t *row = json_object(), *cells = json_array();
        json_object_set_new(row, "cells", cells);
        for (size_t k = 0; cols[k]; k++)
            json_array_append_new(cells, json_cell(json_object_get(kv, cols[k])));
        json_array_append_new(rows, row);
    }
    sb_buf b = SB_BUF_INIT;
    if (site_render("registry.html.tmpl", d, &b, err) != SB_OK) {
        json_decref(d);
        sb_buf_free(&b);
        json_decref(kernels);
        return SB_ERR;
    }
    json_decref(d);
    int rc = site_page(c, "registry.html", 0, "registry", "promoted kernels", &b, err);
    sb_buf_free(&b);
    json_decref(kernels);
    return rc;
}
