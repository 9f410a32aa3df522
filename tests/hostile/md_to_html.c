/* md_to_html.c - renders a Markdown file to HTML with cmark-gfm (tables,
 * strikethrough, autolink) and raw HTML passed through, as the most
 * permissive renderer would: whatever markup survived solbook's encoding
 * shows up in the output. For hostile_e2e.py, which looks for injected
 * markup in what this prints.
 *
 * A renderer stricter than a reader's would hide an injection and the test
 * would pass on it, so before the file this renders a probe and fails
 * (exit 1) unless raw HTML, a javascript: link, a table, struck text and
 * an autolink all come out live. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

static const char probe_md[] = "<img src=x onerror=alert(1)> [a](javascript:alert(1)) ~~old~~ "
                               "https://example.org\n\n| op | ms |\n| --- | --- |\n| gemm | 1 |\n";
/* what each part of the probe must render as */
static const char *const probe_want[] = {
    "<img src=x onerror=alert(1)>", "href=\"javascript:alert(1)\"", "<del>old</del>",
    "<a href=\"https://example.org\">", "<td>gemm</td>",
};

/* A parser with the extensions a reader's renderer has; NULL when one is
 * missing or out of memory (message on stderr). */
static cmark_parser *new_parser(void)
{
    cmark_parser *p = cmark_parser_new(CMARK_OPT_UNSAFE);
    if (!p) {
        fprintf(stderr, "md_to_html: out of memory\n");
        return NULL;
    }
    const char *exts[] = {"table", "strikethrough", "autolink"};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        cmark_syntax_extension *x = cmark_find_syntax_extension(exts[i]);
        if (!x || !cmark_parser_attach_syntax_extension(p, x)) {
            fprintf(stderr, "md_to_html: cmark-gfm has no %s extension\n", exts[i]);
            cmark_parser_free(p);
            return NULL;
        }
    }
    return p;
}

/* Finishes what was fed to p and frees p: the HTML, malloc'd, or NULL when
 * cmark-gfm fails (message on stderr, naming what). */
static char *finish(cmark_parser *p, const char *name)
{
    cmark_node *doc = cmark_parser_finish(p);
    char *html = doc ? cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(p)) : NULL;
    if (!html)
        fprintf(stderr, "md_to_html: %s: cmark-gfm could not render it\n", name);
    cmark_node_free(doc);
    cmark_parser_free(p);
    return html;
}

/* 0 when the probe renders every part live; else 1, naming the first part
 * that does not. */
static int check_permissive(void)
{
    cmark_parser *p = new_parser();
    if (!p)
        return 1;
    cmark_parser_feed(p, probe_md, sizeof probe_md - 1);
    char *html = finish(p, "the probe");
    if (!html)
        return 1;
    int rc = 0;
    for (size_t i = 0; i < sizeof probe_want / sizeof *probe_want && rc == 0; i++) {
        if (!strstr(html, probe_want[i])) {
            fprintf(stderr, "md_to_html: the probe does not render %s live: %s\n", probe_want[i],
                    html);
            rc = 1;
        }
    }
    free(html);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: md_to_html FILE.md\n");
        return 2;
    }
    cmark_gfm_core_extensions_ensure_registered();
    if (check_permissive() != 0)
        return 1;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    cmark_parser *p = new_parser();
    if (!p) {
        fclose(f);
        return 2;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cmark_parser_feed(p, buf, n);
    int read_failed = ferror(f);
    fclose(f);
    if (read_failed) {
        fprintf(stderr, "md_to_html: %s: cannot read it\n", argv[1]);
        cmark_parser_free(p);
        return 2;
    }
    char *html = finish(p, argv[1]);
    /* hostile_e2e.py reads an empty page as "nothing injected": a render
     * that failed must say so instead, and so must a page cut short on its
     * way out */
    if (!html)
        return 1;
    int written = fputs(html, stdout) >= 0 && fflush(stdout) == 0;
    free(html);
    if (!written) {
        fprintf(stderr, "md_to_html: %s: cannot write the page\n", argv[1]);
        return 1;
    }
    return 0;
}
