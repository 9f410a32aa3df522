/* site.c - `solbook site`: the build, the output folder, the page writer
 * and the HTML helpers shared by the parts (site_*.c). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "site.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "home.h"
#include "json_file.h"
#include "repro.h"
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

void site_h(sb_buf *b, const char *s)
{
    if (!s)
        sb_buf_puts(b, "\xe2\x80\x93");
    else
        sb_buf_xml_escaped(b, s);
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
    sb_buf_xml_escaped(b, text);
    sb_buf_puts(b, "</span>");
}

void site_inline_svg(sb_buf *b, const sb_buf *svg)
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
    sb_buf_puts(b, "<figure class=\"plot\">");
    sb_buf_puts(b, s);
    sb_buf_puts(b, "</figure>\n");
}

/* 64-bit FNV-1a, for short stable file names of long keys. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* slug of s cut to 48 bytes; when the slug is not s itself (characters
 * changed or cut), "-" and 12 hex digits of its hash make it unique. */
static void safe_name(const char *s, char *buf, size_t size)
{
    char slug[64];
    sb_slug(s, slug, 49);
    if (strcmp(slug, s) == 0 && slug[0] && slug[0] != '.')
        snprintf(buf, size, "%s", slug);
    else
        snprintf(buf, size, "%s-%012llx", slug, (unsigned long long)(fnv1a(s) & 0xffffffffffffull));
}

void site_run_path(char *buf, size_t size, long long run_id, const char *ext)
{
    snprintf(buf, size, "runs/%lld/%lld.%s", run_id / 1000, run_id, ext);
}

void site_case_id(const char *case_key, char *buf, size_t size)
{
    char slug[64];
    sb_slug(case_key, slug, 49);
    snprintf(buf, size, "%s-%012llx", slug,
             (unsigned long long)(fnv1a(case_key) & 0xffffffffffffull));
}

void site_history_path(char *buf, size_t size, const char *case_key, const char *sku, size_t page)
{
    char id[96], s[96];
    site_case_id(case_key, id, sizeof id);
    safe_name(sku, s, sizeof s);
    if (page <= 1)
        snprintf(buf, size, "history/%s/%s.html", id, s);
    else
        snprintf(buf, size, "history/%s/%s-p%zu.html", id, s, page);
}

void site_op_path(char *buf, size_t size, const char *op)
{
    char s[96];
    safe_name(op, s, sizeof s);
    snprintf(buf, size, "ops/%s.html", s);
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
        sb_buf_xml_escaped(b, name);
        sb_buf_puts(b, "\">first</a> ");
        fn(name, sizeof name, page - 1, arg);
        sb_buf_puts(b, "<a href=\"");
        sb_buf_xml_escaped(b, name);
        sb_buf_puts(b, "\" rel=\"prev\">previous</a> ");
    }
    sb_buf_printf(b, "<span>page %zu of %zu</span>", page, pages);
    if (page < pages) {
        fn(name, sizeof name, page + 1, arg);
        sb_buf_puts(b, " <a href=\"");
        sb_buf_xml_escaped(b, name);
        sb_buf_puts(b, "\" rel=\"next\">next</a>");
        fn(name, sizeof name, pages, arg);
        sb_buf_puts(b, " <a href=\"");
        sb_buf_xml_escaped(b, name);
        sb_buf_puts(b, "\">last</a>");
    }
    sb_buf_puts(b, "</nav>\n");
}

/* ---- writing files --------------------------------------------------- */

int site_write(site_ctx *c, const char *rel, const char *data, size_t len, sb_error *err)
{
    char path[8192];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", c->out, rel) >= sizeof path)
        return sb_error_set(err, c->out, NULL, "path too long: %s", rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    if (strcmp(path, c->lastdir) != 0) {
        if (sb_mkdirs(path, err) != SB_OK)
            return SB_ERR;
        size_t pl = strlen(path);
        if (pl < sizeof c->lastdir)
            memcpy(c->lastdir, path, pl + 1);
    }
    *slash = '/';
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
    c->sum->files++;
    size_t rl = strlen(rel);
    if (rl > 5 && strcmp(rel + rl - 5, ".html") == 0)
        c->sum->pages++;
    if (len > c->sum->largest_bytes) {
        c->sum->largest_bytes = len;
        size_t pl = strlen(path);
        if (pl >= sizeof c->sum->largest)
            pl = sizeof c->sum->largest - 1;
        memcpy(c->sum->largest, path, pl);
        c->sum->largest[pl] = '\0';
    }
    return SB_OK;
}

static const char *const NAV[] = {"overview", "ops", "runs", "history", "weekly", "packets",
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
    for (size_t i = 0; NAV[i]; i++) {
        char key[32];
        snprintf(key, sizeof key, "nav_%s", NAV[i]);
        json_object_set_new(d, key, json_boolean(strcmp(NAV[i], nav) == 0));
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

/* ---- the output folder ----------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level == 0)
        return 0;
    return remove(path) == 0 ? 0 : -1;
}

/* The folder must not exist, be empty, or hold an earlier site (marker
 * file), which is removed first so no page of an older build survives. */
static int prepare_out(const char *dir, sb_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
        return sb_mkdirs(dir, err);
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
    if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return sb_error_set(err, dir, NULL, "cannot remove the earlier site: %s", strerror(errno));
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
    if ((size_t)snprintf(c.out, sizeof c.out, "%s", o->out_dir) >= sizeof c.out)
        return sb_error_set(err, o->out_dir, NULL, "path too long");
    size_t ol = strlen(c.out);
    while (ol > 1 && c.out[ol - 1] == '/')
        c.out[--ol] = '\0';

    int rc = SB_ERR;
    if (sb_report_db_open(o->db_path, &c.db, err) != SB_OK)
        return SB_ERR;
    if (sb_sku_table_load(NULL, &c.skus, err) != SB_OK)
        goto done;
    if (sb_template_load_home("site/layout.html.tmpl", &c.layout, err) != SB_OK)
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
    if (sb_results_load(c.db, NULL, &c.set, err) != SB_OK ||
        sb_picks_latest(&c.set, &c.picks, &c.npicks, err) != SB_OK ||
        sb_geo_compute(&c.set, c.picks, c.npicks, NULL, &c.geo, err) != SB_OK ||
        sb_rg_commits(c.db, &c.set, &c.rg_opts, &c.rg, err) != SB_OK)
        goto done;
    if (prepare_out(c.out, err) != SB_OK)
        goto done;
    if (site_write(&c, MARKER, MARKER_TEXT, strlen(MARKER_TEXT), err) != SB_OK ||
        copy_asset(&c, "site.css", err) != SB_OK || copy_asset(&c, "sort.js", err) != SB_OK)
        goto done;
    if (site_build_overview(&c, err) != SB_OK || site_build_ops(&c, err) != SB_OK ||
        site_build_runs(&c, err) != SB_OK || site_build_history(&c, err) != SB_OK ||
        site_build_weekly(&c, err) != SB_OK || site_build_packets(&c, err) != SB_OK ||
        site_build_registry(&c, err) != SB_OK || site_build_ledger(&c, err) != SB_OK ||
        site_build_roadmap(&c, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    sb_rg_free(&c.rg);
    sb_geo_free(&c.geo);
    free(c.picks);
    sb_results_free(&c.set);
    json_decref(c.layout_data);
    sb_template_free(c.layout);
    sb_sku_table_free(c.skus);
    sqlite3_close(c.db);
    return rc;
}
