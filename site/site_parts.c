/* site_parts.c - the helpers the parts of the site share: HTML pieces,
 * file names, the page writer, and contexts for other threads. */
#include "site_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bulk_reader.h"
#include "encode.h"
#include "file_name.h"
#include "mkdirs.h"
#include "sha256.h"
#include "svg.h"

/* ---- HTML helpers ---------------------------------------------------- */

void site_root(sb_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        sb_buf_puts(b, "../");
}

/* The escaping of sb_enc_xml_text (the same output), copying runs of
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
        case 0xc2:
        case 0xd8:
        case 0xe2: {
            /* a character that reorders the displayed text: its escape */
            if (s > run)
                sb_buf_add(b, run, (size_t)(s - run));
            run = s;
            size_t n = sb_enc_reordering_char(b, s);
            if (n > 0) {
                s += n - 1;
                run = s + 1;
            }
            continue;
        }
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

/* The pager's opening and its links back: first and previous. */
static void pager_back(sb_buf *b, size_t page, site_page_name_fn fn, const void *arg)
{
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
}

/* A link to page to, text its words, after a space. */
static void pager_link(sb_buf *b, size_t to, const char *rel, const char *text, site_page_name_fn fn,
                       const void *arg)
{
    char name[512];
    fn(name, sizeof name, to, arg);
    sb_buf_puts(b, " <a href=\"");
    site_esc(b, name);
    sb_buf_putc(b, '"');
    if (rel) {
        sb_buf_puts(b, " rel=\"");
        sb_buf_puts(b, rel);
        sb_buf_putc(b, '"');
    }
    sb_buf_putc(b, '>');
    sb_buf_puts(b, text);
    sb_buf_puts(b, "</a>");
}

void site_pager(sb_buf *b, size_t page, size_t pages, site_page_name_fn fn, const void *arg)
{
    if (pages <= 1)
        return;
    pager_back(b, page, fn, arg);
    sb_buf_printf(b, "<span>page %zu of %zu</span>", page, pages);
    if (page < pages) {
        pager_link(b, page + 1, "next", "next", fn, arg);
        pager_link(b, pages, NULL, "last", fn, arg);
    }
    sb_buf_puts(b, "</nav>\n");
}

void site_pager_open(sb_buf *b, size_t page, int more, site_page_name_fn fn, const void *arg)
{
    pager_back(b, page, fn, arg);
    sb_buf_printf(b, "<span>page %zu</span>", page);
    if (more)
        pager_link(b, page + 1, "next", "next", fn, arg);
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

/* ---- contexts for other threads --------------------------------------- */

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
    if (c->readers) {
        pthread_mutex_lock(&c->readers->lock);
        if (c->readers->n)
            out->db = c->readers->spare[--c->readers->n];
        pthread_mutex_unlock(&c->readers->lock);
    }
    /* more clones than spares: a connection of its own, which reads the
     * database as it is now */
    if (!out->db && sb_bulk_reader_open(c->o->db_path, &out->db, err) != SB_OK) {
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

