/* template.c - parser and renderer of the template language (template.h). */
#include "template.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "home.h"
#include "json_file.h"

enum tok_kind { TOK_TEXT, TOK_VAR, TOK_RAW, TOK_CODE, TOK_SECTION, TOK_INVERTED };

typedef struct tok {
    enum tok_kind kind;
    char *text;        /* TEXT: the bytes; others: the name */
    size_t len;        /* TEXT length */
    int line;          /* line of the tag (1-based) */
    struct tok *child; /* SECTION/INVERTED: first token inside */
    struct tok *next;
} tok;

struct sb_template {
    char *name;
    tok *root;
};

static void free_toks(tok *t)
{
    while (t) {
        tok *n = t->next;
        free_toks(t->child);
        free(t->text);
        free(t);
        t = n;
    }
}

void sb_template_free(sb_template *t)
{
    if (!t)
        return;
    free_toks(t->root);
    free(t->name);
    free(t);
}

static int line_at(const char *start, const char *p)
{
    int line = 1;
    for (const char *q = start; q < p; q++)
        if (*q == '\n')
            line++;
    return line;
}

/* A parsed tag before it is placed in the tree. */
typedef struct raw_tag {
    char sigil;        /* 0 var, '{' raw, '`' code span, '#', '^', '/', '!' */
    char *name;
    const char *begin; /* first byte of the tag */
    const char *end;   /* one past the last byte of the tag */
    int line;
} raw_tag;

static char *trimmed_copy(const char *b, const char *e)
{
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    size_t n = (size_t)(e - b);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = '\0';
    }
    return s;
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    if (strcmp(s, ".") == 0)
        return 1;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

/* Scans the next tag at or after p. Returns 1 found, 0 none, -1 error. */
static int next_tag(const char *start, const char *p, const char *name, raw_tag *out,
                    sb_error *err)
{
    const char *open = strstr(p, "{{");
    if (!open)
        return 0;
    char where[64];
    int line = line_at(start, open);
    snprintf(where, sizeof where, "line %d", line);
    const char *q = open + 2;
    out->sigil = 0;
    const char *close;
    if (*q == '{') {
        out->sigil = '{';
        q++;
        close = strstr(q, "}}}");
        if (!close)
            return sb_error_set(err, name, where, "unclosed {{{ tag"), -1;
        out->end = close + 3;
    } else {
        if (*q == '#' || *q == '^' || *q == '/' || *q == '!' || *q == '`') {
            out->sigil = *q;
            q++;
        }
        close = strstr(q, "}}");
        if (!close)
            return sb_error_set(err, name, where, "unclosed {{ tag"), -1;
        out->end = close + 2;
    }
    for (const char *c = q; c < close; c++)
        if (*c == '\n' && out->sigil != '!')
            return sb_error_set(err, name, where, "tag spans lines"), -1;
    out->name = trimmed_copy(q, close);
    if (!out->name)
        return sb_error_set(err, name, where, "out of memory"), -1;
    if (out->sigil != '!' && !valid_name(out->name)) {
        sb_error_set(err, name, where, "bad tag name '%s' (letters, digits, _ - . only)",
                     out->name);
        free(out->name);
        out->name = NULL;
        return -1;
    }
    out->begin = open;
    out->line = line;
    return 1;
}

static tok *new_tok(enum tok_kind k, int line)
{
    tok *t = calloc(1, sizeof *t);
    if (t) {
        t->kind = k;
        t->line = line;
    }
    return t;
}

typedef struct parse_frame {
    tok **tail;        /* where the next token of this level goes */
    tok *owner;        /* the section token, NULL at top */
} parse_frame;

#define MAX_DEPTH 32

int sb_template_parse(const char *text, const char *name, sb_template **out, sb_error *err)
{
    *out = NULL;
    sb_template *t = calloc(1, sizeof *t);
    if (!t || !(t->name = strdup(name ? name : "<template>"))) {
        free(t);
        return sb_error_set(err, name, NULL, "out of memory");
    }
    parse_frame stack[MAX_DEPTH];
    int depth = 0;
    stack[0].tail = &t->root;
    stack[0].owner = NULL;
    const char *p = text;
    /* text_from: start of pending literal text (may be trimmed by a
     * standalone tag). */
    for (;;) {
        raw_tag rt = {0};
        int r = next_tag(text, p, t->name, &rt, err);
        if (r < 0)
            goto fail;
        const char *text_end = r ? rt.begin : p + strlen(p);
        const char *resume = r ? rt.end : text_end;
        if (r && rt.sigil != 0 && rt.sigil != '{' && rt.sigil != '`') {
            /* Standalone: only whitespace before it on its line and after it
             * up to the newline. */
            const char *ls = rt.begin;
            while (ls > text && (ls[-1] == ' ' || ls[-1] == '\t'))
                ls--;
            const char *le = rt.end;
            while (*le == ' ' || *le == '\t' || *le == '\r')
                le++;
            if ((ls == text || ls[-1] == '\n') && (ls >= p) && (*le == '\n' || *le == '\0')) {
                text_end = ls;
                resume = *le == '\n' ? le + 1 : le;
            }
        }
        if (text_end > p) {
            tok *tt = new_tok(TOK_TEXT, line_at(text, p));
            if (!tt || !(tt->text = malloc((size_t)(text_end - p) + 1))) {
                free(tt);
                free(rt.name);
                sb_error_set(err, t->name, NULL, "out of memory");
                goto fail;
            }
            tt->len = (size_t)(text_end - p);
            memcpy(tt->text, p, tt->len);
            tt->text[tt->len] = '\0';
            *stack[depth].tail = tt;
            stack[depth].tail = &tt->next;
        }
        if (!r)
            break;
        p = resume;
        char where[64];
        snprintf(where, sizeof where, "line %d", rt.line);
        if (rt.sigil == '!') {
            free(rt.name);
            continue;
        }
        if (rt.sigil == '/') {
            if (depth == 0 || strcmp(stack[depth].owner->text, rt.name) != 0) {
                sb_error_set(err, t->name, where, "{{/%s}} closes no open section%s%s", rt.name,
                             depth ? "; open is " : "", depth ? stack[depth].owner->text : "");
                free(rt.name);
                goto fail;
            }
            free(rt.name);
            depth--;
            continue;
        }
        enum tok_kind k = rt.sigil == '{' ? TOK_RAW
                          : rt.sigil == '`' ? TOK_CODE
                          : rt.sigil == '#' ? TOK_SECTION
                          : rt.sigil == '^' ? TOK_INVERTED : TOK_VAR;
        tok *nt = new_tok(k, rt.line);
        if (!nt) {
            free(rt.name);
            sb_error_set(err, t->name, where, "out of memory");
            goto fail;
        }
        nt->text = rt.name;
        *stack[depth].tail = nt;
        stack[depth].tail = &nt->next;
        if (k == TOK_SECTION || k == TOK_INVERTED) {
            if (depth + 1 >= MAX_DEPTH) {
                sb_error_set(err, t->name, where, "sections nested deeper than %d", MAX_DEPTH - 1);
                goto fail;
            }
            depth++;
            stack[depth].owner = nt;
            stack[depth].tail = &nt->child;
        }
    }
    if (depth > 0) {
        char where[64];
        snprintf(where, sizeof where, "line %d", stack[depth].owner->line);
        sb_error_set(err, t->name, where, "section {{#%s}} is never closed",
                     stack[depth].owner->text);
        goto fail;
    }
    *out = t;
    return SB_OK;
fail:
    sb_template_free(t);
    return SB_ERR;
}

int sb_template_load(const char *path, sb_template **out, sb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    if (sb_file_read_all(path, &text, &len, err) != SB_OK)
        return SB_ERR;
    if (strlen(text) != len) {
        free(text);
        return sb_error_set(err, path, NULL, "template contains a NUL byte");
    }
    int rc = sb_template_parse(text, path, out, err);
    free(text);
    return rc;
}

int sb_template_load_home(const char *rel, sb_template **out, sb_error *err)
{
    char path[4096];
    char r[4096];
    if ((size_t)snprintf(r, sizeof r, "templates/%s", rel) >= sizeof r)
        return sb_error_set(err, rel, NULL, "template path too long");
    if (sb_data_path(path, sizeof path, r, err) != SB_OK)
        return SB_ERR;
    return sb_template_load(path, out, err);
}

/* ---- rendering ---- */

typedef struct scope {
    const json_t *value;
    const struct scope *parent;
} scope;

static const json_t *lookup(const scope *sc, const char *name)
{
    if (strcmp(name, ".") == 0)
        return sc ? sc->value : NULL;
    char first[256];
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    if (n == 0 || n >= sizeof first)
        return NULL;
    memcpy(first, name, n);
    first[n] = '\0';
    const json_t *v = NULL;
    for (const scope *s = sc; s; s = s->parent) {
        if (json_is_object(s->value) && (v = json_object_get(s->value, first)) != NULL)
            break;
    }
    while (v && dot) {
        const char *seg = dot + 1;
        dot = strchr(seg, '.');
        n = dot ? (size_t)(dot - seg) : strlen(seg);
        if (n == 0 || n >= sizeof first)
            return NULL;
        memcpy(first, seg, n);
        first[n] = '\0';
        v = json_is_object(v) ? json_object_get(v, first) : NULL;
    }
    return v;
}

static int truthy(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
    case JSON_FALSE: return 0;
    case JSON_TRUE: return 1;
    case JSON_STRING: return json_string_length(v) > 0;
    case JSON_INTEGER: return json_integer_value(v) != 0;
    case JSON_REAL: return json_real_value(v) != 0.0;
    case JSON_ARRAY: return json_array_size(v) > 0;
    case JSON_OBJECT: return 1;
    }
    return 0;
}

static void put_escaped(sb_buf *out, const char *s, sb_tpl_escape esc)
{
    if (esc == SB_TPL_ESCAPE_HTML)
        sb_enc_xml_text(out, s);
    else if (esc == SB_TPL_ESCAPE_MARKDOWN)
        sb_enc_md_text(out, s, SB_TEXT_NOTE_MAX);
    else if (esc == SB_TPL_ESCAPE_SHELL_ARG)
        sb_enc_shell_arg(out, s);
    else if (esc == SB_TPL_ESCAPE_SHELL_COMMENT)
        sb_enc_shell_comment(out, s, SB_TEXT_NOTE_MAX);
    else
        sb_buf_puts(out, s);
}

static int render_toks(const sb_template *t, const tok *k, const scope *sc, sb_tpl_escape esc,
                       sb_buf *out, sb_error *err);

static int render_value(const sb_template *t, const tok *k, const json_t *v, sb_tpl_escape esc,
                        sb_buf *out, sb_error *err)
{
    char num[64];
    const char *s = NULL;
    switch (json_typeof(v)) {
    case JSON_STRING: s = json_string_value(v); break;
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        s = num;
        break;
    case JSON_REAL:
        snprintf(num, sizeof num, "%.6g", json_real_value(v));
        s = num;
        break;
    case JSON_TRUE: s = "true"; break;
    case JSON_FALSE: s = "false"; break;
    case JSON_NULL: s = ""; break;
    default: {
        char where[64];
        snprintf(where, sizeof where, "line %d", k->line);
        return sb_error_set(err, t->name, where, "'%s' is a list or object, not a value", k->text);
    }
    }
    if (k->kind == TOK_RAW)
        sb_buf_puts(out, s);
    else if (k->kind == TOK_CODE && esc == SB_TPL_ESCAPE_MARKDOWN)
        sb_enc_md_code_span(out, s, SB_TEXT_NAME_MAX);
    else
        put_escaped(out, s, esc);
    return SB_OK;
}

static int render_toks(const sb_template *t, const tok *k, const scope *sc, sb_tpl_escape esc,
                       sb_buf *out, sb_error *err)
{
    for (; k; k = k->next) {
        if (k->kind == TOK_TEXT) {
            sb_buf_add(out, k->text, k->len);
            continue;
        }
        const json_t *v = lookup(sc, k->text);
        if (!v) {
            char where[64];
            snprintf(where, sizeof where, "line %d", k->line);
            return sb_error_set(err, t->name, where, "unknown variable '%s'", k->text);
        }
        if (k->kind == TOK_VAR || k->kind == TOK_RAW || k->kind == TOK_CODE) {
            if (render_value(t, k, v, esc, out, err) != SB_OK)
                return SB_ERR;
        } else if (k->kind == TOK_INVERTED) {
            if (!truthy(v) && render_toks(t, k->child, sc, esc, out, err) != SB_OK)
                return SB_ERR;
        } else if (json_is_array(v)) {
            size_t i;
            const json_t *el;
            json_array_foreach(v, i, el) {
                scope inner = {el, sc};
                if (render_toks(t, k->child, &inner, esc, out, err) != SB_OK)
                    return SB_ERR;
            }
        } else if (json_is_object(v)) {
            scope inner = {v, sc};
            if (render_toks(t, k->child, &inner, esc, out, err) != SB_OK)
                return SB_ERR;
        } else if (truthy(v)) {
            if (render_toks(t, k->child, sc, esc, out, err) != SB_OK)
                return SB_ERR;
        }
    }
    return SB_OK;
}

int sb_template_render(const sb_template *t, const json_t *data, sb_tpl_escape esc, sb_buf *out,
                       sb_error *err)
{
    scope top = {data, NULL};
    if (render_toks(t, t->root, &top, esc, out, err) != SB_OK)
        return SB_ERR;
    if (sb_buf_failed(out))
        return sb_error_set(err, t->name, NULL, "out of memory while rendering");
    return SB_OK;
}

int sb_template_render_file(const char *path, const json_t *data, sb_tpl_escape esc, sb_buf *out,
                            sb_error *err)
{
    sb_template *t = NULL;
    if (sb_template_load(path, &t, err) != SB_OK)
        return SB_ERR;
    int rc = sb_template_render(t, data, esc, out, err);
    sb_template_free(t);
    return rc;
}

void sb_tpl_set_str(json_t *o, const char *k, const char *v)
{
    json_object_set_new(o, k, json_string(v ? v : ""));
}

void sb_tpl_set_num(json_t *o, const char *k, const char *fmt, double v)
{
    /* room for the largest double in fixed digits (309 before the point),
     * which a cut buffer would print as a wrong number */
    char b[400];
    if (!isfinite(v))
        snprintf(b, sizeof b, "-");
    else
        snprintf(b, sizeof b, fmt, v);
    json_object_set_new(o, k, json_string(b));
}
