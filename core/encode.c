/* encode.c - context encoders for stored text (encode.h). */
#include "encode.h"

#include <stdio.h>
#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6"

/* Decodes one UTF-8 character at s (s[0] != 0): the code point, or -1 for
 * a byte that does not start a valid, shortest-form sequence (then it
 * counts as one byte). *len gets the bytes used. */
static long utf8_next(const unsigned char *s, size_t *len)
{
    unsigned char c = s[0];
    long cp;
    size_t n;
    if (c < 0x80) {
        *len = 1;
        return c;
    } else if (c >= 0xc2 && c <= 0xdf) {
        cp = c & 0x1f;
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        cp = c & 0x0f;
        n = 3;
    } else if (c >= 0xf0 && c <= 0xf4) {
        cp = c & 0x07;
        n = 4;
    } else {
        *len = 1;
        return -1;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *len = 1;
            return -1;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
        *len = 1;
        return -1;
    }
    *len = n;
    return cp;
}

/* Characters that end lines, drive terminals or reorder displayed text. */
static int dangerous(long cp)
{
    return cp < 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c ||
           cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* The visible form of a dangerous character (byte b when cp is -1). */
static void put_escape(sb_buf *out, long cp, unsigned char b)
{
    char tmp[32];
    switch (cp) {
    case '\n': sb_buf_puts(out, "\\n"); return;
    case '\r': sb_buf_puts(out, "\\r"); return;
    case '\t': sb_buf_puts(out, "\\t"); return;
    case 0x1b: sb_buf_puts(out, "\\e"); return;
    default: break;
    }
    if (cp < 0)
        snprintf(tmp, sizeof tmp, "\\x%02X", b);
    else if (cp < 0x80)
        snprintf(tmp, sizeof tmp, "\\x%02lX", cp);
    else
        snprintf(tmp, sizeof tmp, "\\u{%04lX}", cp);
    sb_buf_puts(out, tmp);
}

size_t sb_enc_reordering_char(sb_buf *out, const char *s)
{
    unsigned char c = (unsigned char)s[0];
    size_t len;
    long cp;
    /* the lead bytes of every such character: C1 (C2), U+061C (D8) and
     * U+200E-U+2069 (E2), so most text costs one comparison a byte */
    if (c != 0xc2 && c != 0xd8 && c != 0xe2)
        return 0;
    cp = utf8_next((const unsigned char *)s, &len);
    if (cp < 0x80 || !dangerous(cp))
        return 0;
    put_escape(out, cp, c);
    return len;
}

void sb_enc_xml_text(sb_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sb_buf_puts(b, "&amp;"); break;
        case '<': sb_buf_puts(b, "&lt;"); break;
        case '>': sb_buf_puts(b, "&gt;"); break;
        case '"': sb_buf_puts(b, "&quot;"); break;
        case '\'': sb_buf_puts(b, "&#39;"); break;
        default: {
            /* Control characters other than tab/newline are not allowed in
             * XML 1.0; they are replaced so the output always parses. A
             * character that reorders the displayed text is shown as its
             * escape, as the Markdown outputs show it. */
            size_t n;
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r')
                sb_buf_putc(b, '?');
            else if ((n = sb_enc_reordering_char(b, s)) > 0)
                s += n - 1;
            else
                sb_buf_putc(b, *s);
        }
        }
    }
}

size_t sb_utf8_prefix_len(const char *s, size_t limit)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t used = 0, chars = 0, len;
    while (p[used] && chars < limit) {
        utf8_next(p + used, &len);
        used += len;
        chars++;
    }
    return p[used] && chars >= limit ? used : strlen(s);
}

size_t sb_utf8_valid_len(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        unsigned long cp;
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            cp = c & 0x1f;
            k = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            cp = c & 0x0f;
            k = 3;
        } else if (c >= 0xf0 && c <= 0xf4) {
            cp = c & 0x07;
            k = 4;
        } else {
            return i;
        }
        if (n - i < k)
            return i;
        for (size_t j = 1; j < k; j++) {
            if ((p[i + j] & 0xc0) != 0x80)
                return i;
            cp = (cp << 6) | (p[i + j] & 0x3f);
        }
        if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += k;
    }
    return n;
}

typedef enum {
    LINE,        /* terminal, shell comment: escapes, backslash doubled */
    MD_TEXT,     /* Markdown inline text */
    CODE_SPAN,   /* inside a code span: escapes, '|' as "\|" */
    FENCE_BODY   /* inside a fenced block: escapes, newline and tab kept */
} mode;

/* 1 when the ASCII character c at p in s would start a block or a link in
 * Markdown text although it is not escaped everywhere: '-' and '=' that
 * begin the text before a space or another of them (list item, thematic
 * break, setext underline), the '.' or ')' after the digits that begin it
 * before a space (ordered list item), and the '.' of "www." (GFM's www
 * autolink). */
static int md_line_start_mark(const char *s, const unsigned char *p, long c)
{
    size_t at = (size_t)(p - (const unsigned char *)s);
    int ends_word = p[1] == '\0' || strchr(" \t\r\n", p[1]);
    /* "-" alone is the mark for "none" in table cells and stays itself */
    if ((c == '-' || c == '=') && at == 0 && (ends_word || p[1] == c) && strcmp(s, "-") != 0)
        return 1;
    if ((c == '.' || c == ')') && ends_word && at > 0 && at <= 9 && strspn(s, "0123456789") == at)
        return 1;
    return c == '.' && at >= 3 && strchr("wW", s[at - 1]) && strchr("wW", s[at - 2]) &&
           strchr("wW", s[at - 3]);
}

/* Writes s for mode m, at most limit characters (0: all) and then an
 * ellipsis when s was longer. */
static void encode(sb_buf *out, const char *s, size_t limit, mode m)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0, len;
    while (*p) {
        if (limit && chars == limit) {
            sb_buf_puts(out, ELLIPSIS);
            return;
        }
        long cp = utf8_next(p, &len);
        chars++;
        if (m == MD_TEXT && (cp == ' ' || cp == '\n' || cp == '\r') && p == (const unsigned char *)s) {
            /* a leading space is text, never the indent of a code block */
            sb_buf_puts(out, "&#32;");
        } else if ((m == MD_TEXT || m == CODE_SPAN) && (cp == '\n' || cp == '\r')) {
            sb_buf_putc(out, ' ');
        } else if (m == FENCE_BODY && (cp == '\n' || cp == '\t')) {
            sb_buf_putc(out, (char)cp);
        } else if (dangerous(cp)) {
            if (m == MD_TEXT) {
                /* the escape's backslash and braces are Markdown punctuation */
                sb_buf tmp = SB_BUF_INIT;
                put_escape(&tmp, cp, *p);
                encode(out, sb_buf_str(&tmp), 0, MD_TEXT);
                sb_buf_free(&tmp);
            } else {
                put_escape(out, cp, *p);
            }
        } else if (m == LINE && cp == '\\') {
            sb_buf_puts(out, "\\\\");
        } else if (m == MD_TEXT && cp == '@') {
            /* GFM's e-mail autolink reads the text around '@' after
             * escapes are resolved: only another node in between stops it */
            sb_buf_puts(out, "`@`");
        } else if (m == MD_TEXT && cp < 0x80 &&
                   (strchr("\\`*_{}[]<>()#+!|~&:", (int)cp) || md_line_start_mark(s, p, cp))) {
            /* ':' starts GFM's http/ftp autolinks, "www." its www ones */
            sb_buf_putc(out, '\\');
            sb_buf_putc(out, (char)cp);

        } else if (m == CODE_SPAN && cp == '|') {
            sb_buf_puts(out, "\\|");
        } else {
            sb_buf_add(out, (const char *)p, len);
        }
        p += len;
    }
}

void sb_enc_terminal(sb_buf *out, const char *s, size_t limit)
{
    encode(out, s, limit, LINE);
}

void sb_enc_shell_comment(sb_buf *out, const char *s, size_t limit)
{
    encode(out, s, limit, LINE);
}

void sb_enc_csv_field(sb_buf *out, const char *s)
{
    sb_buf line = SB_BUF_INIT;
    /* what a spreadsheet takes for a formula is made text by a leading
     * apostrophe, which spreadsheets show as nothing */
    if (s && *s && strchr("=+-@", *s))
        sb_buf_putc(&line, '\'');
    encode(&line, s ? s : "", 0, LINE);
    if (sb_buf_failed(&line))
        out->failed = 1; /* out of memory: sticky in out as in line */
    else
        sb_buf_csv_field(out, sb_buf_str(&line));
    sb_buf_free(&line);
}

void sb_enc_shell_arg(sb_buf *out, const char *s)
{
    int plain = *s != '\0', hidden = 0;
    size_t len;
    for (const unsigned char *p = (const unsigned char *)s; *p; p += len) {
        long cp = utf8_next(p, &len);
        plain = plain && cp > 0 && cp < 0x80 &&
                ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
                 strchr("_.,=:/+-", (int)cp));
        hidden |= dangerous(cp);
    }
    if (plain) {
        sb_buf_puts(out, s);
        return;
    }
    if (!hidden) {
        sb_buf_putc(out, '\'');
        for (const char *p = s; *p; p++) {
            if (*p == '\'')
                sb_buf_puts(out, "'\\''");
            else
                sb_buf_putc(out, *p);
        }
        sb_buf_putc(out, '\'');
        return;
    }
    /* A character that cannot stand in the script as it is (it would end
     * the line, drive the terminal or reorder the text) is written as an
     * escape inside $'...', which the shell reads back as the very bytes:
     * in single quotes a visible escape would be another value. */
    sb_buf_puts(out, "$'");
    for (const unsigned char *p = (const unsigned char *)s; *p; p += len) {
        long cp = utf8_next(p, &len);
        char tmp[8];
        if (cp == '\n')
            sb_buf_puts(out, "\\n");
        else if (cp == '\r')
            sb_buf_puts(out, "\\r");
        else if (cp == '\t')
            sb_buf_puts(out, "\\t");
        else if (cp == '\'' || cp == '\\') {
            sb_buf_putc(out, '\\');
            sb_buf_putc(out, (char)cp);
        } else if (dangerous(cp)) {
            for (size_t i = 0; i < len; i++) {
                snprintf(tmp, sizeof tmp, "\\x%02X", p[i]);
                sb_buf_puts(out, tmp);
            }
        } else {
            sb_buf_add(out, (const char *)p, len);
        }
    }
    sb_buf_putc(out, '\'');
}

void sb_enc_md_text(sb_buf *out, const char *s, size_t limit)
{
    encode(out, s, limit, MD_TEXT);
}

/* Longest run of c in s. */
static size_t longest_run(const char *s, char c)
{
    size_t best = 0, run = 0;
    for (; *s; s++) {
        run = *s == c ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

static void put_repeated(sb_buf *out, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_buf_putc(out, c);
}

void sb_enc_md_code_span(sb_buf *out, const char *s, size_t limit)
{
    size_t ticks = longest_run(s, '`') + 1;
    if (ticks > SB_MD_CODE_TICKS_MAX) {
        /* cmark-gfm and GitHub read a longer run of backticks as text, so
         * no span could hold s: it is written as escaped text instead */
        sb_enc_md_text(out, s, limit);
        return;
    }
    /* A span that starts or ends with a backtick needs a space inside the
     * delimiters; CommonMark strips one space from each side. */
    size_t n = strlen(s);
    int pad = n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' || s[n - 1] == ' ');
    put_repeated(out, '`', ticks);
    if (pad)
        sb_buf_putc(out, ' ');
    encode(out, s, limit, CODE_SPAN);
    if (pad)
        sb_buf_putc(out, ' ');
    put_repeated(out, '`', ticks);
}

void sb_enc_md_fence(sb_buf *out, const char *info, const char *body)
{
    size_t ticks = longest_run(body, '`') + 1;
    if (ticks < 3)
        ticks = 3;
    put_repeated(out, '`', ticks);
    /* the info string is one word of the writer's own, still encoded: a
     * backtick in it would turn the fence into a code span */
    for (const char *p = info ? info : ""; *p; p++)
        if (*p > ' ' && *p < 0x7f && *p != '`')
            sb_buf_putc(out, *p);
    sb_buf_putc(out, '\n');
    encode(out, body, 0, FENCE_BODY);
    size_t n = strlen(body);
    if (n && body[n - 1] != '\n')
        sb_buf_putc(out, '\n');
    put_repeated(out, '`', ticks);
    sb_buf_putc(out, '\n');
}

int sb_url_link_safe(const char *url)
{
    if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)
        return 0;
    for (const char *c = url; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("-._~:/?#@!$&*+,;=%", *c)))
            return 0;
    return 1;
}

const char *sb_shell_interpreter(const char *text)
{
    return strstr(text, "$'") ? "/usr/bin/env bash" : "/bin/sh";
}
