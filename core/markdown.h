/* markdown.h - GitHub-flavoured Markdown to HTML with cmark-gfm: the
 * table, strikethrough, autolink and tagfilter extensions, as GitHub
 * renders a file. cmark-gfm keeps process-wide state its parsers change
 * without a lock, so every conversion of the process goes through this
 * one function and its lock (markdown.c says why). */
#ifndef SOLBOOK_CORE_MARKDOWN_H
#define SOLBOOK_CORE_MARKDOWN_H

#include <stddef.h>

#include "error.h"

/* md[0..len) to an HTML fragment, malloc'd into *html (NULL on error). */
int sb_markdown_to_html(const char *md, size_t len, char **html, sb_error *err);

#endif
