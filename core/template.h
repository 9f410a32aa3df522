/* template.h - the small template language of solbook's reports, packets
 * and site pages (syntax in docs/TEMPLATES.md).
 *
 * Wording lives in data/templates/ (files named NAME.tmpl); data comes as a
 * jansson object:
 *
 *   {{name}}               value of name, escaped for the output
 *   {{{name}}}             value of name, raw (pre-rendered Markdown, SVG)
 *   {{`name}}              value of name as a Markdown code span
 *                          (sb_enc_md_code_span: safe for any text); under
 *                          any other escape, as {{name}}
 *   {{a.b}}                member b of object a; {{.}} is the current item
 *   {{#name}}...{{/name}}  repeated for each element of an array (the
 *                          element becomes the innermost scope), once for an
 *                          object (pushed as scope) or a true/non-empty value,
 *                          not at all for false, null, "", 0 or []
 *   {{^name}}...{{/name}}  rendered only when name is false, null, "", 0 or []
 *   {{! comment }}         dropped
 *
 * A line holding only a section, inverted, close or comment tag (and
 * whitespace) is dropped entirely, so loops over table rows leave no blank
 * lines. Names are looked up from the innermost scope outwards. A name found
 * in no scope is an error naming the template file and line; so is an
 * unclosed tag or section. Values: strings as they are, integers in
 * decimal, reals with %.6g (callers format figures themselves for fixed
 * digits), true/false, null as "".
 */
#ifndef SOLBOOK_CORE_TEMPLATE_H
#define SOLBOOK_CORE_TEMPLATE_H

#include <jansson.h>

#include "error.h"
#include "strbuf.h"

typedef enum sb_tpl_escape {
    SB_TPL_ESCAPE_NONE = 0,      /* {{x}} is written verbatim: only for text that
                                    holds no data */
    SB_TPL_ESCAPE_HTML,          /* & < > " ' become entities */
    SB_TPL_ESCAPE_MARKDOWN,      /* sb_enc_md_text, at most SB_TEXT_NOTE_MAX characters */
    SB_TPL_ESCAPE_SHELL_ARG,     /* sb_enc_shell_arg: each value one shell word */
    SB_TPL_ESCAPE_SHELL_COMMENT  /* sb_enc_shell_comment: text on a '#' line */
} sb_tpl_escape;

typedef struct sb_template sb_template;  /* a parsed template */

/* Parses text; name is used in error messages (usually the file path). */
int sb_template_parse(const char *text, const char *name, sb_template **out, sb_error *err);
/* Reads and parses a file. */
int sb_template_load(const char *path, sb_template **out, sb_error *err);
/* Loads SOLBOOK_HOME/templates/REL. */
int sb_template_load_home(const char *rel, sb_template **out, sb_error *err);
void sb_template_free(sb_template *t);

/* Appends the rendering to out. On error out may hold a partial rendering. */
int sb_template_render(const sb_template *t, const json_t *data, sb_tpl_escape esc,
                       sb_buf *out, sb_error *err);

/* Parse + render in one call. */
int sb_template_render_file(const char *path, const json_t *data, sb_tpl_escape esc,
                            sb_buf *out, sb_error *err);

/* Helpers for building the data object: o[k] = v as a string ("" for NULL);
 * o[k] = v formatted with fmt (one double conversion, fixed digits) as a
 * string, "-" for NaN or an infinity (a figure that overflowed). */
void sb_tpl_set_str(json_t *o, const char *k, const char *v);
void sb_tpl_set_num(json_t *o, const char *k, const char *fmt, double v);

#endif
