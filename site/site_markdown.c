/* site_markdown.c - Markdown of the report writers made into pages of the
 * site: run ids become links to their run pages, and a weekly appendix,
 * far over a page's size budget, is cut into pages at its block
 * boundaries (a table longer than a page between its rows, its head
 * repeated), each with the list of every section.
 *
 * The HTML comes from cmark-gfm (sb_markdown_to_html), which escapes
 * every '<', '>' and '"' of text and attribute values and leaves raw HTML
 * out, so every '<' in it opens a tag: scanning its tags is exact, and
 * the links added here wrap digits that were text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h" /* sb_file_read_all */
#include "markdown.h"
#include "site_parts.h"

/* ---- run links ----------------------------------------------------------- */

enum { COL_PLAIN = 0, COL_RUN, COL_RUNS };
#define MAX_COLS 64

/* The tag name at s (after '<'; "/x" for a closing one) into name;
 * returns its length in s. */
static size_t tag_name(const char *s, char *name, size_t size)
{
    size_t n = 0, k = 0;
    if (s[n] == '/')
        name[k++] = s[n++];
    while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9')) {
        if (k + 1 < size)
            name[k++] = s[n];
        n++;
    }
    name[k] = '\0';
    return n;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int is_word(char ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

/* Digits at s that make a whole number (not a figure like 12.5 or 40%):
 * their count, else 0. */
static size_t run_id_at(const char *s)
{
    size_t n = 0;
    while (is_digit(s[n]) && n < 18)
        n++;
    if (!n || is_digit(s[n]) || is_word(s[n]) || s[n] == '%' || (s[n] == '.' && is_digit(s[n + 1])))
        return 0;
    return n;
}

static void run_link(sb_buf *out, const char *root, const char *digits, size_t n)
{
    char id[24], href[128];
    snprintf(id, sizeof id, "%.*s", (int)n, digits);
    site_run_path(href, sizeof href, strtoll(id, NULL, 10));
    sb_buf_puts(out, "<a href=\"");
    sb_buf_puts(out, root);
    sb_buf_puts(out, href);
    sb_buf_puts(out, "\">");
    sb_buf_puts(out, id);
    sb_buf_puts(out, "</a>");
}

/* A column head's kind: one run id a cell, or a list of them. */
static int col_kind(const char *s, size_t n)
{
    if ((n == 3 && !memcmp(s, "run", 3)) || (n == 7 && !memcmp(s, "old run", 7)) ||
        (n == 7 && !memcmp(s, "new run", 7)))
        return COL_RUN;
    if (n == 4 && !memcmp(s, "runs", 4))
        return COL_RUNS;
    return COL_PLAIN;
}

/* 1: the cell text s[0..n) is one run id (COL_RUN) or a list "N, M, ..."
 * of two or more (COL_RUNS). A "runs" column of single numbers counts
 * runs (the cards table); it is left as it is. */
static int cell_ids(int kind, const char *s, size_t n)
{
    size_t k = 0, ids = 0;
    while (k < n) {
        size_t d = 0;
        while (k + d < n && is_digit(s[k + d]))
            d++;
        if (!d || d > 18)
            return 0;
        ids++;
        k += d;
        if (k == n)
            break;
        if (kind != COL_RUNS || n - k < 3 || s[k] != ',' || s[k + 1] != ' ')
            return 0;
        k += 2;
    }
    return ids && (kind == COL_RUN || ids >= 2);
}

static void cell_links(sb_buf *out, const char *root, const char *s, size_t n)
{
    for (size_t k = 0; k < n;) {
        size_t d = 0;
        while (k + d < n && is_digit(s[k + d]))
            d++;
        run_link(out, root, s + k, d);
        k += d;
        if (k < n) {
            sb_buf_puts(out, ", ");
            k += 2;
        }
    }
}

/* Text between tags: "run N" and "run N to M" with the ids linked. */
static void text_links(sb_buf *out, const char *root, const char *s, size_t n, int prev_word)
{
    size_t from = 0;
    for (size_t i = 0; i + 4 < n; i++) {
        if (memcmp(s + i, "run ", 4) || (i ? is_word(s[i - 1]) : prev_word))
            continue;
        size_t d = run_id_at(s + i + 4);
        if (!d || i + 4 + d > n)
            continue;
        sb_buf_add(out, s + from, i + 4 - from);
        run_link(out, root, s + i + 4, d);
        i += 4 + d;
        from = i;
        size_t e = 0;
        if (i + 4 < n && !memcmp(s + i, " to ", 4) && (e = run_id_at(s + i + 4)) && i + 4 + e <= n) {
            sb_buf_puts(out, " to ");
            run_link(out, root, s + i + 4, e);
            i += 4 + e;
            from = i;
        }
        i--; /* the loop's i++ */
    }
    sb_buf_add(out, s + from, n - from);
}

void site_link_runs(const char *html, const char *root, sb_buf *out)
{
    int kinds[MAX_COLS];
    size_t ncols = 0, col = 0;
    int in_head = 0, in_a = 0, in_code = 0;
    const char *s = html;
    while (*s) {
        const char *lt = strchr(s, '<');
        size_t n = lt ? (size_t)(lt - s) : strlen(s);
        if (in_a || in_code)
            sb_buf_add(out, s, n);
        else
            text_links(out, root, s, n, s > html && is_word(s[-1]));
        s += n;
        if (!*s)
            break;
        char name[16];
        tag_name(s + 1, name, sizeof name);
        const char *gt = strchr(s, '>');
        size_t tl = gt ? (size_t)(gt - s) + 1 : strlen(s);
        if (!strcmp(name, "table")) {
            ncols = 0;
            in_head = 0;
        } else if (!strcmp(name, "thead")) {
            in_head = 1;
        } else if (!strcmp(name, "/thead")) {
            in_head = 0;
        } else if (!strcmp(name, "tr")) {
            col = 0;
        } else if (!strcmp(name, "a")) {
            in_a = 1;
        } else if (!strcmp(name, "/a")) {
            in_a = 0;
        } else if (!strcmp(name, "code") || !strcmp(name, "pre")) {
            in_code++;
        } else if ((!strcmp(name, "/code") || !strcmp(name, "/pre")) && in_code) {
            in_code--;
        } else if ((!strcmp(name, "th") || !strcmp(name, "td")) && gt) {
            const char *body = gt + 1, *end = strstr(body, name[1] == 'h' ? "</th>" : "</td>");
            int kind = COL_PLAIN;
            if (in_head && name[1] == 'h' && end && ncols < MAX_COLS)
                kinds[ncols++] = col_kind(body, (size_t)(end - body));
            else if (name[1] == 'd' && col < ncols)
                kind = kinds[col];
            col++;
            if (kind != COL_PLAIN && end && cell_ids(kind, body, (size_t)(end - body))) {
                sb_buf_add(out, s, tl);
                cell_links(out, root, body, (size_t)(end - body));
                s = end;
                continue;
            }
        }
        sb_buf_add(out, s, tl);
        s += tl;
    }
}

/* ---- the appendix's pages ------------------------------------------------ */

/* Each page's share of the appendix stays under this, so that a page with
 * the layout and the list of sections stays under its 500 KB budget. */
#define APPENDIX_PAGE_MAX (360u * 1024u)

typedef struct block {
    const char *s;
    size_t len;
    int level; /* 2 or 3: a heading of that level; 0: anything else */
    char *own; /* s when the block was made here (a cut of a table) */
} block;

typedef struct blocks {
    block *v;
    size_t n, cap;
    int failed;
} blocks;

static void add_block(blocks *b, const char *s, size_t len, int level, char *own)
{
    if (b->failed || !len) {
        free(own);
        return;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        block *nv = realloc(b->v, cap * sizeof *nv);
        if (!nv) {
            b->failed = 1;
            free(own);
            return;
        }
        b->v = nv;
        b->cap = cap;
    }
    b->v[b->n++] = (block){s, len, level, own};
}

static int is_container(const char *name)
{
    static const char *const names[] = {"p", "table", "ul", "ol", "blockquote", "pre", "h1", "h2",
                                        "h3", "h4", "h5", "h6", "div", "dl", NULL};
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(name, names[i]))
            return 1;
    return 0;
}

/* A table longer than a page as pieces of whole rows under its head. */
static void cut_table(blocks *b, const char *s, size_t len)
{
    const char *body = strstr(s, "<tbody>");
    if (!body || body > s + len) {
        add_block(b, s, len, 0, NULL);
        return;
    }
    body += strlen("<tbody>");
    if (*body == '\n')
        body++;
    static const char tail[] = "</tbody>\n</table>\n";
    size_t head = (size_t)(body - s);
    const char *end = s + len, *rows_end = end;
    for (const char *t = body; t < end; t++)
        if (!strncmp(t, "</tbody>", 8)) {
            rows_end = t;
            break;
        }
    const char *from = body;
    while (from < rows_end) {
        const char *to = from, *next = from;
        /* whole rows while they fit */
        for (;;) {
            const char *r = strstr(next + 1, "<tr>");
            if (!r || r >= rows_end)
                r = rows_end;
            if (to > from && head + (size_t)(r - from) + sizeof tail > APPENDIX_PAGE_MAX)
                break;
            to = r;
            next = r;
            if (r == rows_end)
                break;
        }
        size_t n = head + (size_t)(to - from) + sizeof tail - 1;
        char *own = malloc(n + 1);
        if (!own) {
            b->failed = 1;
            return;
        }
        memcpy(own, s, head);
        memcpy(own + head, from, (size_t)(to - from));
        memcpy(own + head + (size_t)(to - from), tail, sizeof tail);
        add_block(b, own, n, 0, own);
        from = to;
    }
}

/* The top-level blocks of html (its first h1 left out: the page's title
 * says it). */
static void split_blocks(const char *html, blocks *b)
{
    int depth = 0, level = 0, table = 0, skip_h1 = 1;
    const char *start = html;
    for (const char *s = html; (s = strchr(s, '<')) != NULL;) {
        char name[16];
        tag_name(s + 1, name, sizeof name);
        const char *gt = strchr(s, '>');
        if (!gt)
            break;
        int closing = name[0] == '/';
        const char *bare = name + closing;
        if (depth == 0 && !closing) {
            start = s;
            level = (!strcmp(bare, "h2") || !strcmp(bare, "h3")) ? bare[1] - '0' : 0;
            table = !strcmp(bare, "table");
        }
        if (is_container(bare) && gt[-1] != '/')
            depth += closing ? -1 : 1;
        s = gt + 1;
        if (depth == 0 && (closing || !strcmp(bare, "hr"))) {
            const char *end = s;
            while (*end == '\n')
                end++;
            if (skip_h1 && !strcmp(bare, "h1")) {
                skip_h1 = 0;
            } else if (table && (size_t)(end - start) > APPENDIX_PAGE_MAX) {
                cut_table(b, start, (size_t)(end - start));
            } else {
                add_block(b, start, (size_t)(end - start), level, NULL);
            }
            s = end;
            start = end;
            if (depth < 0)
                depth = 0;
        }
    }
}

static void page_name(char *buf, size_t size, size_t page, const void *arg)
{
    if (page <= 1)
        snprintf(buf, size, "%s-appendix.html", (const char *)arg);
    else
        snprintf(buf, size, "%s-appendix-%zu.html", (const char *)arg, page);
}

/* The inner HTML of a heading block: "<h2>X</h2>\n" gives X. */
static void heading_inner(const block *h, const char **s, size_t *n)
{
    const char *a = memchr(h->s, '>', h->len), *e = h->s + h->len;
    while (e > h->s && e[-1] != '<')
        e--;
    *s = a ? a + 1 : h->s;
    *n = e > *s ? (size_t)(e - 1 - *s) : 0;
}

int site_weekly_appendix(site_ctx *c, const char *name, const char *md_path, size_t *npages,
                         sb_error *err)
{
    char *md = NULL, *html = NULL;
    size_t len = 0;
    *npages = 0;
    if (sb_file_read_all(md_path, &md, &len, err) != SB_OK)
        return SB_ERR;
    int rc = sb_markdown_to_html(md, len, &html, err);
    free(md);
    if (rc != SB_OK)
        return SB_ERR;
    sb_buf linked = SB_BUF_INIT;
    site_link_runs(html, "../", &linked);
    free(html);
    blocks b = {0};
    split_blocks(sb_buf_str(&linked), &b);
    /* pages: the first block of each; a heading goes with what follows it */
    size_t *first = malloc((b.n + 1) * sizeof *first), pages = 0, size = 0;
    if (!first || b.failed || sb_buf_failed(&linked)) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    first[pages++] = 0;
    for (size_t i = 0; i < b.n; i++) {
        if (size && size + b.v[i].len > APPENDIX_PAGE_MAX) {
            size_t at = i;
            while (at > first[pages - 1] + 1 && b.v[at - 1].level)
                at--;
            first[pages++] = at;
            size = 0;
            for (size_t k = at; k < i; k++)
                size += b.v[k].len;
        }
        size += b.v[i].len;
    }
    first[pages] = b.n;
    /* the sections (h2) and the page each starts on */
    json_t *toc = json_array();
    for (size_t p = 0, k = 0; p < pages; p++)
        for (size_t i = first[p]; i < first[p + 1]; i++)
            if (b.v[i].level == 2) {
                const char *t;
                size_t tn;
                heading_inner(&b.v[i], &t, &tn);
                char file[64], href[96];
                page_name(file, sizeof file, p + 1, name);
                snprintf(href, sizeof href, "%s#s%zu", file, ++k);
                json_t *o = json_object();
                json_object_set_new(o, "title", json_stringn(t, tn));
                sb_tpl_set_str(o, "href", href);
                json_array_append_new(toc, o);
            }
    sb_buf body = SB_BUF_INIT, page = SB_BUF_INIT, pager = SB_BUF_INIT;
    size_t section = 0;
    const block *last_h2 = NULL;
    for (size_t p = 0; p < pages && rc == SB_OK; p++) {
        sb_buf_reset(&body);
        sb_buf_reset(&page);
        sb_buf_reset(&pager);
        if (first[p] < b.n && b.v[first[p]].level != 2 && last_h2) {
            const char *t;
            size_t tn;
            heading_inner(last_h2, &t, &tn);
            sb_buf_puts(&body, "<h2>");
            sb_buf_add(&body, t, tn);
            sb_buf_puts(&body, " (continued)</h2>\n");
        }
        for (size_t i = first[p]; i < first[p + 1]; i++) {
            const block *k = &b.v[i];
            if (k->level == 2) {
                last_h2 = k;
                sb_buf_printf(&body, "<h2 id=\"s%zu\">", ++section);
                const char *t;
                size_t tn;
                heading_inner(k, &t, &tn);
                sb_buf_add(&body, t, tn);
                sb_buf_puts(&body, "</h2>\n");
            } else {
                sb_buf_add(&body, k->s, k->len);
            }
        }
        site_pager(&pager, p + 1, pages, page_name, name);
        json_t *d = json_object();
        sb_tpl_set_str(d, "name", name);
        sb_tpl_set_str(d, "body", sb_buf_str(&body));
        sb_tpl_set_str(d, "pager", sb_buf_str(&pager));
        json_object_set(d, "toc", toc);
        rc = site_render("weekly-appendix.html.tmpl", d, &page, err);
        json_decref(d);
        char file[64], rel[80], title[96];
        page_name(file, sizeof file, p + 1, name);
        snprintf(rel, sizeof rel, "weekly/%s", file);
        if (pages > 1)
            snprintf(title, sizeof title, "weekly writeup %s: appendix, part %zu of %zu", name, p + 1,
                     pages);
        else
            snprintf(title, sizeof title, "weekly writeup %s: appendix", name);
        if (rc == SB_OK)
            rc = site_page(c, rel, 1, "weekly", title, &page, err);
    }
    json_decref(toc);
    sb_buf_free(&body);
    sb_buf_free(&page);
    sb_buf_free(&pager);
    *npages = pages;
done:
    for (size_t i = 0; i < b.n; i++)
        free(b.v[i].own);
    free(b.v);
    free(first);
    sb_buf_free(&linked);
    return rc;
}
