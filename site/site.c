/* site.c - `solbook site`: the build, the output folder, the page writer
 * and the HTML helpers shared by the parts (site_*.c). */
#include "site.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "bulk_reader.h"
#include "encode.h"
#include "file_name.h"
#include "home.h"
#include "plausible.h"
#include "json_file.h"
#include "staged_dir.h"
#include "repro.h"
#include "sha256.h"
#include "site_internal.h"
#include "svg.h"

#define MARKER ".solbook-site"
#define MARKER_TEXT "solbook site: this folder is rebuilt by `solbook site`\n"

/* ---- HTML helpers ---------------------------------------------------- */

void site_root(sb_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        sb_buf_puts(b, "../");
}

/* The escaping of sb_buf_xml_escaped (the same output), copying runs of
 * plain bytes at once: run pages escape every stored string. */
void site_esc(sb_buf *b, const char *s)
{
    const char *run = s;
    for (;; s++) {
        unsigned char ch = (unsigned char)*s;
        const char *rep;
        switch (ch) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        case '\0': rep = NULL; break;
        default:
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
                rep = "?";
            else
                continue;
        }
        if (s > run)
            sb_buf_add(b, run, (size_t)(s - run));
        if (!rep)
            return;
        sb_buf_puts(b, rep);
        run = s + 1;
    }
}

void site_h(sb_buf *b, const char *s)
{
    if (!s)
        sb_buf_puts(b, "\xe2\x80\x93");
    else
        site_esc(b, s);
}

void site_num(sb_buf *b, double v)
{
    if (isnan(v)) {
        sb_buf_puts(b, "\xe2\x80\x93");
        return;
    }
    char t[64];
    sb_fmt_sig3(v, t, sizeof t);
    sb_buf_puts(b, t);
}

void site_status(sb_buf *b, const char *cls, const char *text)
{
    sb_buf_puts(b, "<span class=\"st st-");
    sb_buf_puts(b, cls);
    sb_buf_puts(b, "\">");
    site_esc(b, text);
    sb_buf_puts(b, "</span>");
}

const char *site_svg_element(const sb_buf *svg)
{
    const char *s = sb_buf_str(svg);
    if (strncmp(s, "<?xml", 5) == 0) {
        const char *e = strstr(s, "?>");
        if (e) {
            s = e + 2;
            while (*s == '\n')
                s++;
        }
    }
    return s;
}

void site_inline_svg(sb_buf *b, const sb_buf *svg)
{
    const char *s = site_svg_element(svg);
    sb_buf_puts(b, "<figure class=\"plot\">");
    sb_buf_puts(b, s);
    sb_buf_puts(b, "</figure>\n");
}

void site_printf(sb_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        sb_buf_add(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_buf_add(b, big, (size_t)n);
    free(big);
}

void site_put_ll(sb_buf *b, long long v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    sb_buf_add(b, tmp + i, sizeof tmp - (size_t)i);
}

void site_put_coord(sb_buf *b, double v)
{
    if (!isfinite(v)) {
        /* no scale places such a value; never "nan" or "inf" in an attribute */
        sb_buf_putc(b, '0');
        return;
    }
    if (fabs(v) > 1e9) {
        site_printf(b, "%.1f", v);
        return;
    }
    long long t = llround(v * 10.0);
    if (t < 0) {
        sb_buf_putc(b, '-');
        t = -t;
    }
    site_put_ll(b, t / 10);
    if (t % 10) {
        char d[2] = {'.', (char)('0' + t % 10)};
        sb_buf_add(b, d, 2);
    }
}

void site_run_path(char *buf, size_t size, long long run_id)
{
    snprintf(buf, size, "runs/%lld.html#r%lld", site_run_page(run_id), run_id);
}

/* 16 hex digits of the case key's SHA-256: every run row, case row and
 * history index row links a history, so the name is kept short (the page
 * itself names the case), and a digest that data cannot be made to
 * collide with. The history pages sit in one folder
 * (history/CASE-SKU.html): a folder per case cost a 4 KB block each. */
void site_case_id(const char *case_key, char *buf, size_t size)
{
    char hex[SB_SHA256_HEX_LEN + 1];
    sb_error err;
    if (sb_sha256_hex(case_key, strlen(case_key), hex, &err) != SB_OK)
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)sb_name_hash48(case_key));
    snprintf(buf, size, "%.16s", hex);
}

/* The case id has a fixed length, so the SKU's page id (core/file_name.h)
 * after it keeps every case, SKU and page apart. */
void site_history_path(char *buf, size_t size, const char *case_key, const char *sku, size_t page)
{
    char id[96], s[SB_PAGE_ID_SIZE];
    site_case_id(case_key, id, sizeof id);
    sb_page_id_paged(sku, page, s);
    snprintf(buf, size, "history/%s-%s.html", id, s);
}

/* The op's page id: never "index", the list of ops. */
void site_op_path(char *buf, size_t size, const char *op)
{
    char s[SB_PAGE_ID_SIZE];
    sb_page_id(op, s);
    snprintf(buf, size, "ops/%s.html", s);
}

void site_keyed_page_name(char *buf, size_t size, size_t page, const void *arg)
{
    const site_keyed_pages *k = arg;
    char full[600];
    k->path(full, sizeof full, k->a, k->b, page);
    const char *slash = strrchr(full, '/');
    snprintf(buf, size, "%s", slash ? slash + 1 : full);
}

void site_pager(sb_buf *b, size_t page, size_t pages, site_page_name_fn fn, const void *arg)
{
    if (pages <= 1)
        return;
    char name[512];
    sb_buf_puts(b, "<nav class=\"pager\">");
    if (page > 1) {
        fn(name, sizeof name, 1, arg);
        sb_buf_puts(b, "<a href=\"");
        site_esc(b, name);
        sb_buf_puts(b, "\">first</a> ");
        fn(name, sizeof name, page - 1, arg);
        sb_buf_puts(b, "<a href=\"");
        site_esc(b, name);
        sb_buf_puts(b, "\" rel=\"prev\">previous</a> ");
    }
    sb_buf_printf(b, "<span>page %zu of %zu</span>", page, pages);
    if (page < pages) {
        fn(name, sizeof name, page + 1, arg);
        sb_buf_puts(b, " <a href=\"");
        site_esc(b, name);
        sb_buf_puts(b, "\" rel=\"next\">next</a>");
        fn(name, sizeof name, pages, arg);
        sb_buf_puts(b, " <a href=\"");
        site_esc(b, name);
        sb_buf_puts(b, "\">last</a>");
    }
    sb_buf_puts(b, "</nav>\n");
}

/* ---- writing files --------------------------------------------------- */

int site_make_dir(site_ctx *c, char *path, sb_error *err)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        return SB_OK;
    *slash = '\0';
    int rc = SB_OK;
    if (strcmp(path, c->lastdir) != 0) {
        rc = sb_mkdirs(path, err);
        size_t pl = strlen(path);
        if (rc == SB_OK && pl < sizeof c->lastdir)
            memcpy(c->lastdir, path, pl + 1);
    }
    *slash = '/';
    return rc;
}

int site_write(site_ctx *c, const char *rel, const char *data, size_t len, sb_error *err)
{
    char path[8192];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", c->out, rel) >= sizeof path)
        return sb_error_set(err, c->out, NULL, "path too long: %s", rel);
    if (site_make_dir(c, path, err) != SB_OK)
        return SB_ERR;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return sb_error_set(err, path, NULL, "cannot create: %s", strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return sb_error_set(err, path, NULL, "cannot write: %s", strerror(e));
        }
        off += (size_t)w;
    }
    if (close(fd) != 0)
        return sb_error_set(err, path, NULL, "cannot write: %s", strerror(errno));
    site_count_file(c, rel, len);
    return SB_OK;
}

void site_count_file(site_ctx *c, const char *rel, size_t len)
{
    c->sum->files++;
    size_t rl = strlen(rel);
    if (rl > 5 && strcmp(rel + rl - 5, ".html") == 0)
        c->sum->pages++;
    /* the marker and the manifest are the builder's, not pages */
    if (len > c->sum->largest_bytes && rel[0] != '.') {
        c->sum->largest_bytes = len;
        /* named where it will be once the staged site is moved into place */
        snprintf(c->sum->largest, sizeof c->sum->largest, "%.2000s/%.2000s", c->o->out_dir, rel);
    }
}

static const char *const NAV[] = {"overview", "ops", "runs", "history", "regressions", "weekly", "packets",
                                  "registry", "contributions", "roadmap", NULL};

int site_page(site_ctx *c, const char *rel, int depth, const char *nav, const char *title,
              const sb_buf *body, sb_error *err)
{
    if (sb_buf_failed(body))
        return sb_error_set(err, c->out, NULL, "out of memory building %s", rel);
    sb_buf root = SB_BUF_INIT;
    site_root(&root, depth);
    json_t *d = c->layout_data;
    json_object_set_new(d, "title", json_string(title));
    json_object_set_new(d, "root", json_string(sb_buf_str(&root)));
    json_object_set_new(d, "body", json_stringn_nocheck(sb_buf_str(body), body->len));
    if (c->last_nav != nav) {
        for (size_t i = 0; NAV[i]; i++) {
            char key[32];
            snprintf(key, sizeof key, "nav_%s", NAV[i]);
            json_object_set_new(d, key, json_boolean(strcmp(NAV[i], nav) == 0));
        }
        c->last_nav = nav;
    }
    sb_buf_free(&root);
    sb_buf page = SB_BUF_INIT;
    int rc = sb_template_render(c->layout, d, SB_TPL_ESCAPE_HTML, &page, err);
    if (rc == SB_OK && sb_buf_failed(&page))
        rc = sb_error_set(err, c->out, NULL, "out of memory building %s", rel);
    if (rc == SB_OK)
        rc = site_write(c, rel, sb_buf_str(&page), page.len, err);
    sb_buf_free(&page);
    return rc;
}

int site_render(const char *name, const json_t *data, sb_buf *out, sb_error *err)
{
    char rel[128];
    snprintf(rel, sizeof rel, "site/%s", name);
    sb_template *t = NULL;
    if (sb_template_load_home(rel, &t, err) != SB_OK)
        return SB_ERR;
    int rc = sb_template_render(t, data, SB_TPL_ESCAPE_HTML, out, err);
    sb_template_free(t);
    return rc;
}

/* ---- the output folder ----------------------------------------------- */

/* The folder must not exist, be empty, or hold an earlier site (marker
 * file). The site is built beside it and replaces it whole
 * (core/staged_dir.h), so no page of an older build survives and a failed
 * build leaves the earlier site as it was. */
static int check_out(const char *dir, int *earlier, sb_error *err)
{
    struct stat st;
    *earlier = 0;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
        return SB_OK;
    }
    if (!S_ISDIR(st.st_mode))
        return sb_error_set(err, dir, NULL, "exists and is not a directory");
    DIR *d = opendir(dir);
    if (!d)
        return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    if (empty)
        return SB_OK;
    char marker[4608];
    snprintf(marker, sizeof marker, "%s/%s", dir, MARKER);
    if (access(marker, F_OK) != 0)
        return sb_error_set(err, dir, NULL,
                            "not empty and not an earlier site (no %s file); give a new folder",
                            MARKER);
    *earlier = 1;
    return SB_OK;
}

static int copy_asset(site_ctx *c, const char *name, sb_error *err)
{
    char rel[256], path[4096];
    snprintf(rel, sizeof rel, "templates/site/%s", name);
    if (sb_home_path(path, sizeof path, rel, err) != SB_OK)
        return SB_ERR;
    char *data = NULL;
    size_t len = 0;
    if (sb_file_read_all(path, &data, &len, err) != SB_OK)
        return SB_ERR;
    snprintf(rel, sizeof rel, "assets/%s", name);
    int rc = site_write(c, rel, data, len, err);
    free(data);
    return rc;
}

/* ---- the build --------------------------------------------------------- */

int site_ctx_clone(const site_ctx *c, site_ctx *out, sb_site_summary *sum, sb_error *err)
{
    *out = *c;
    memset(sum, 0, sizeof *sum);
    out->sum = sum;
    out->lastdir[0] = '\0';
    out->last_nav = NULL;
    out->db = NULL;
    memset(&out->fps, 0, sizeof out->fps);
    out->layout_data = json_object();
    if (!out->layout_data)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (sb_bulk_reader_open(c->o->db_path, &out->db, err) != SB_OK) {
        json_decref(out->layout_data);
        out->layout_data = NULL;
        return SB_ERR;
    }
    return SB_OK;
}

void site_ctx_release(site_ctx *c, site_ctx *clone)
{
    sb_db_close(clone->db);
    json_decref(clone->layout_data);
    clone->db = NULL;
    clone->layout_data = NULL;
    sb_site_summary *s = c->sum, *t = clone->sum;
    if (site_fps_merge(&c->fps, &clone->fps) != SB_OK || clone->fps_failed)
        c->fps_failed = 1;
    s->pages += t->pages;
    s->files += t->files;
    s->reused += t->reused;
    s->runs += t->runs;
    s->weeks += t->weeks;
    s->packets += t->packets;
    if (t->largest_bytes > s->largest_bytes) {
        s->largest_bytes = t->largest_bytes;
        memcpy(s->largest, t->largest, sizeof s->largest);
    }
}

/* A part of the site built on a thread of its own, with its own context
 * (connection, layout data, counts). The weekly writeups only touch
 * weekly/ and the packets only packets/, so they run beside the pages
 * that the main thread writes. They start once the result set is loaded
 * and pick their runs from it (it is only read from then on) instead of
 * reading them from the database again for each week and packet. */
typedef struct side_job {
    site_ctx c;
    sb_site_summary sum;
    int (*build)(site_ctx *c, sb_error *err);
    sb_error err;
    int rc;
    int started;   /* 1: a thread runs it; 0: it runs at side_finish */
    pthread_t th;
} side_job;

static void *side_main(void *arg)
{
    side_job *j = arg;
    j->rc = j->build(&j->c, &j->err);
    return NULL;
}

/* Starts build on a thread (on this one at side_finish when SQLite has no
 * thread support). NULL: out of memory, or the clone failed (in err). */
static side_job *side_start(site_ctx *c, int (*build)(site_ctx *, sb_error *), sb_error *err)
{
    side_job *j = calloc(1, sizeof *j);
    if (!j) {
        sb_error_set(err, NULL, NULL, "out of memory");
        return NULL;
    }
    if (site_ctx_clone(c, &j->c, &j->sum, err) != SB_OK) {
        free(j);
        return NULL;
    }
    j->build = build;
    if (sb_bulk_readers_threaded()) {
        int e = pthread_create(&j->th, NULL, side_main, j);
        if (e != 0) {
            site_ctx_release(c, &j->c);
            free(j);
            sb_error_set(err, NULL, NULL, "cannot start a thread: %s", strerror(e));
            return NULL;
        }
        j->started = 1;
    }
    return j;
}

/* Waits for the job (or runs it, when ok and it has no thread), merges its
 * counts into c and frees it. Returns ok, or SB_ERR with the job's error
 * in err when the job failed. */
static int side_finish(site_ctx *c, side_job *j, int ok, sb_error *err)
{
    if (!j)
        return ok;
    if (j->started)
        pthread_join(j->th, NULL);
    else if (ok == SB_OK)
        side_main(j);
    else
        j->rc = SB_OK;
    site_ctx_release(c, &j->c);
    if (ok == SB_OK && j->rc != SB_OK) {
        *err = j->err;
        ok = SB_ERR;
    }
    free(j);
    return ok;
}

/* The measuring sessions' paired speedups (report/sessions.h), at 95%
 * with a 2% floor on verdicts, as `solbook session` computes them. */
static int load_sessions(site_ctx *c, sb_error *err)
{
    const char *path = c->o->sessions_path ? c->o->sessions_path : c->o->db_path;
    if (sb_session_runs_read(path, NULL, 0, &c->session_runs, err) != SB_OK)
        return SB_ERR;
    return sb_session_compare(&c->session_runs, SB_PROJECT_PROVIDER, SB_HEADLINE_LEVEL, SB_HEADLINE_FLOOR,
                              &c->sessions, err);
}

int sb_site_build(const sb_site_opts *o, sb_site_summary *sum, sb_error *err)
{
    memset(sum, 0, sizeof *sum);
    site_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.sum = sum;
    c.page_rows = o->page_rows ? o->page_rows : 200;
    c.rg_opts.alpha = 0.01;
    c.rg_opts.min_effect = 0.03;
    if (o->repo_url && *o->repo_url && !sb_url_link_safe(o->repo_url))
        return sb_error_set(err, NULL, NULL,
                            "repository URL '%s': expected an http(s) address of URL characters only "
                            "(no spaces, quotes, brackets, '|' or parentheses)",
                            o->repo_url);
    c.rg_opts.repo_url = o->repo_url && *o->repo_url ? o->repo_url : NULL;
    if ((size_t)snprintf(c.out, sizeof c.out, "%s", o->out_dir) >= sizeof c.out)
        return sb_error_set(err, o->out_dir, NULL, "path too long");
    size_t ol = strlen(c.out);
    while (ol > 1 && c.out[ol - 1] == '/')
        c.out[--ol] = '\0';

    int rc = SB_ERR;
    sb_staged_dir stage = {0};
    site_fps old = {0};
    if (sb_bulk_reader_open(o->db_path, &c.db, err) != SB_OK)
        return SB_ERR;
    if (sb_sku_table_load(NULL, &c.skus, err) != SB_OK)
        goto done;
    if (sb_template_load_home("site/layout.html.tmpl", &c.layout, err) != SB_OK ||
        sb_template_load_home("site/runs-page.html.tmpl", &c.runs_page, err) != SB_OK)
        goto done;
    /* The data files are checked before anything is written. */
    {
        char rp[4096], lp[4096];
        if (!o->roadmap_path && sb_home_path(rp, sizeof rp, "docs/roadmap.json", err) != SB_OK)
            goto done;
        if (!o->ledger_path && sb_home_path(lp, sizeof lp, "docs/contributions.csv", err) != SB_OK)
            goto done;
        if (sb_site_check_roadmap(o->roadmap_path ? o->roadmap_path : rp, err) != SB_OK ||
            sb_site_check_ledger(o->ledger_path ? o->ledger_path : lp, err) != SB_OK)
            goto done;
    }
    c.layout_data = json_object();
    if (!c.layout_data) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    int earlier = 0;
    memcpy(c.old_dir, c.out, sizeof c.old_dir);
    if (check_out(c.out, &earlier, err) != SB_OK ||
        site_manifest_open(&c, earlier, &old, err) != SB_OK ||
        sb_staged_dir_open(&stage, c.out, SB_STAGE_SWAP, err) != SB_OK)
        goto done;
    c.old = &old;
    /* every page is written into the stage */
    snprintf(c.out, sizeof c.out, "%s", stage.stage);
    if (site_write(&c, MARKER, MARKER_TEXT, strlen(MARKER_TEXT), err) != SB_OK ||
        copy_asset(&c, "site.css", err) != SB_OK || copy_asset(&c, "sort.js", err) != SB_OK)
        goto done;
    /* The run pages read only the database: they are written on threads
     * of their own while this one loads and analyses the result set. */
    side_job *runs = side_start(&c, site_build_runs, err), *weekly = NULL, *packets = NULL;
    int mrc = runs ? SB_OK : SB_ERR;
    if (mrc != SB_OK || sb_results_load(c.db, NULL, &c.set, err) != SB_OK ||
        sb_results_load_sessions(c.db, &c.session_set, err) != SB_OK ||
        sb_plaus_mark(c.db, &c.set, err) != SB_OK ||
        sb_picks_latest(&c.set, &c.picks, &c.npicks, err) != SB_OK ||
        load_sessions(&c, err) != SB_OK ||
        !(packets = side_start(&c, site_build_packets, err)) ||
        sb_geo_compute(&c.set, c.picks, c.npicks, o->baseline, &c.geo, err) != SB_OK ||
        sb_rg_history(c.db, &c.set, &c.rg_opts, &c.rg, err) != SB_OK ||
        !(weekly = side_start(&c, site_build_weekly, err)) ||
        sb_rg_order_build(&c.set, &c.order, err) != SB_OK ||
        site_commits_build(c.db, &c.set, &c.order, &c.commits, err) != SB_OK ||
        site_build_overview(&c, err) != SB_OK || site_build_ops(&c, err) != SB_OK ||
        site_build_history(&c, err) != SB_OK ||
        site_build_regressions(&c, err) != SB_OK ||
        site_build_registry(&c, err) != SB_OK || site_build_ledger(&c, err) != SB_OK ||
        site_build_roadmap(&c, err) != SB_OK)
        mrc = SB_ERR;
    mrc = side_finish(&c, packets, mrc, err);
    mrc = side_finish(&c, weekly, mrc, err);
    mrc = side_finish(&c, runs, mrc, err);
    if (mrc == SB_OK && c.fps_failed)
        mrc = sb_error_set(err, NULL, NULL, "out of memory");
    if (mrc != SB_OK || site_manifest_write(&c, err) != SB_OK)
        goto done;
    rc = sb_staged_dir_commit(&stage, err);
done:
    sb_staged_dir_discard(&stage);
    site_fps_free(&old);
    site_fps_free(&c.fps);
    sb_session_report_free(&c.sessions);
    sb_session_runs_free(&c.session_runs);
    sb_rg_free(&c.rg);
    sb_rg_order_free(&c.order);
    site_commits_free(&c.commits);
    sb_geo_free(&c.geo);
    free(c.picks);
    sb_results_free(&c.session_set);
    sb_results_free(&c.set);
    json_decref(c.layout_data);
    sb_template_free(c.layout);
    sb_template_free(c.runs_page);
    sb_sku_table_free(c.skus);
    sb_db_close(c.db);
    return rc;
}
