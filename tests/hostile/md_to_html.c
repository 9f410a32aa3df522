/* md_to_html.c - renders a Markdown file to HTML with cmark-gfm (tables,
 * strikethrough, autolink) and raw HTML passed through, as the most
 * permissive renderer would: whatever markup survived solbook's encoding
 * shows up in the output. For hostile_e2e.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: md_to_html FILE.md\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *p = cmark_parser_new(CMARK_OPT_UNSAFE);
    /* A missing extension would make this renderer stricter than a
     * reader's, and markup that only it lets through would go unseen. */
    const char *exts[] = {"table", "strikethrough", "autolink"};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        cmark_syntax_extension *x = cmark_find_syntax_extension(exts[i]);
        if (!x || !cmark_parser_attach_syntax_extension(p, x)) {
            fprintf(stderr, "md_to_html: cmark-gfm has no %s extension\n", exts[i]);
            cmark_parser_free(p);
            fclose(f);
            return 2;
        }
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cmark_parser_feed(p, buf, n);
    fclose(f);
    cmark_node *doc = cmark_parser_finish(p);
    char *html = doc ? cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(p)) : NULL;
    /* hostile_e2e.py reads an empty page as "nothing injected": a render
     * that failed must say so instead */
    if (!html) {
        fprintf(stderr, "md_to_html: %s: cmark-gfm could not render it\n", argv[1]);
        cmark_node_free(doc);
        cmark_parser_free(p);
        return 1;
    }
    /* the same for a page cut short on its way out */
    int written = fputs(html, stdout) >= 0 && fflush(stdout) == 0;
    free(html);
    cmark_node_free(doc);
    cmark_parser_free(p);
    if (!written) {
        fprintf(stderr, "md_to_html: %s: cannot write the page\n", argv[1]);
        return 1;
    }
    return 0;
}
