/* markdown.c - Markdown to HTML with cmark-gfm (markdown.h), behind the
 * one lock this library version needs. */
#include "markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
