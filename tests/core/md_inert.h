/* md_inert.h - renders Markdown with cmark-gfm as GitHub configures it
 * (tables, strikethrough, autolinks), raw HTML passed through, and names
 * the first markup in the HTML that is not one of the tags a test allows.
 * For the encoder tests and fuzz_encode: text and code spans written by
 * core/encode.h must come out as text, so any tag, attribute or link in
 * the HTML beyond the document's own was made from data. */
#ifndef SOLBOOK_TESTS_MD_INERT_H
#define SOLBOOK_TESTS_MD_INERT_H

#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

/* The HTML of md, malloc'd; NULL when cmark-gfm fails. */
static char *md_inert_render(const char *md)
{
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *p = cmark_parser_new(CMARK_OPT_UNSAFE);
    if (!p)
        return NULL;
    const char *exts[] = {"table", "strikethrough", "autolink"};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
        cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension(exts[i]));
    cmark_parser_feed(p, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(p);
    char *html = doc ? cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(p))
                     : NULL;
    cmark_node_free(doc);
    cmark_parser_free(p);
    return html;
}

/* The first tag in html that is not exactly one of the "<name>" and
 * "</name>" forms of the space-separated names in allowed (a cell's
 * align attribute, which comes from the delimiter row, is allowed on th
 * and td), or NULL when every tag is one of them. */
static const char *md_inert_stray_tag(const char *html, const char *allowed)
{
    for (const char *t = strchr(html, '<'); t; t = strchr(t + 1, '<')) {
        const char *name = t + 1 + (t[1] == '/');
        size_t n = strcspn(name, " >");
        const char *end = name + n;
        int ok = 0;
        for (const char *a = allowed; *a && !ok;) {
            size_t an = strcspn(a, " ");
            ok = an == n && strncmp(a, name, n) == 0;
            a += an + (a[an] == ' ');
        }
        if (ok && *end != '>')
            ok = t[1] != '/' && (strncmp(name, "td", 2) == 0 || strncmp(name, "th", 2) == 0) &&
                 (strncmp(end, " align=\"left\">", 14) == 0 ||
                  strncmp(end, " align=\"right\">", 15) == 0 ||
                  strncmp(end, " align=\"center\">", 16) == 0);
        if (!ok)
            return t;
    }
    return NULL;
}

#endif
