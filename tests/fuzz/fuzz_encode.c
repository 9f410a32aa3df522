/* fuzz_encode.c - the context encoders (core/encode.h) hold their promises
 * for any input: terminal and shell-comment text has no raw control, C1 or
 * bidi character; a shell word, Markdown text and a code span stay on one
 * line; a fenced block's body never closes its fence; Markdown text and a
 * code span rendered by cmark-gfm as GitHub configures it (md_inert.h)
 * make no tag, attribute or link: a paragraph of the text, the text under
 * a line of text, a table row of text and code span. A broken promise
 * fails a fuzz_assert. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "fuzz_assert.h"
#include "md_inert.h"

/* 1 when s holds a byte < 0x20 other than those in allowed, DEL, a C1
 * control (U+0080-U+009F) or a bidi/line-separator control. */
static int has_raw_control(const char *s, const char *allowed)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++) {
        if ((*p < 0x20 && !strchr(allowed, *p)) || *p == 0x7f)
            return 1;
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            return 1;
        if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae)
            return 1;
        if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    size_t limit = size ? data[0] % 64 : 0;
    sb_buf b = SB_BUF_INIT;

    sb_enc_terminal(&b, s, limit);
    fuzz_assert(!has_raw_control(sb_buf_str(&b), ""));
    sb_buf_reset(&b);
    sb_enc_shell_comment(&b, s, 0);
    fuzz_assert(!has_raw_control(sb_buf_str(&b), ""));
    sb_buf_reset(&b);
    sb_enc_shell_arg(&b, s);
    fuzz_assert(!has_raw_control(sb_buf_str(&b), ""));
    sb_buf_reset(&b);
    sb_enc_md_text(&b, s, limit);
    fuzz_assert(!has_raw_control(sb_buf_str(&b), ""));
    sb_buf_reset(&b);
    sb_enc_md_code_span(&b, s, 0);
    fuzz_assert(!has_raw_control(sb_buf_str(&b), ""));
    sb_buf_reset(&b);

    /* rendered: only the document's own tags, and the span's <code> */
    static const char *const before[] = {"x ", "", "a line\n"};
    /* "-", a cell's "none", is a list item or underline at a line's start */
    for (size_t i = 0; i < (strcmp(s, "-") ? 3 : 1); i++) {
        sb_buf_puts(&b, before[i]);
        sb_enc_md_text(&b, s, limit);
        char *html = md_inert_render(sb_buf_str(&b));
        fuzz_assert(html != NULL && md_inert_stray_tag(html, "p code") == NULL);
        free(html);
        sb_buf_reset(&b);
    }
    sb_buf_puts(&b, "| a | b |\n| --- | --- |\n| ");
    sb_enc_md_text(&b, s, limit);
    sb_buf_puts(&b, " | ");
    sb_enc_md_code_span(&b, s, limit);
    sb_buf_puts(&b, " |\n");
    char *html = md_inert_render(sb_buf_str(&b));
    fuzz_assert(html != NULL && md_inert_stray_tag(html, "p code table thead tbody tr th td") == NULL);
    size_t cells = 0;
    for (const char *c = html; (c = strstr(c, "<td>")); c++)
        cells++;
    fuzz_assert(cells == 2);
    free(html);
    sb_buf_reset(&b);

    /* the fence: the first line is the opening fence; no later line but
     * the last may start with as many backticks */
    sb_enc_md_fence(&b, "sh", s);
    const char *out = sb_buf_str(&b);
    fuzz_assert(!has_raw_control(out, "\n\t"));
    size_t ticks = strspn(out, "`");
    const char *line = strchr(out, '\n');
    fuzz_assert(ticks >= 3 && line != NULL);
    size_t total = strlen(out);
    for (line++; *line; line = strchr(line, '\n') + 1) {
        const char *end = strchr(line, '\n');
        fuzz_assert(end != NULL); /* every line ends with a newline */
        size_t lead = strspn(line, " ");
        /* no body line closes the fence: only the last line may */
        int closes = lead < 4 && strspn(line + lead, "`") >= ticks;
        fuzz_assert(!closes || (size_t)(end + 1 - out) == total);
    }
    sb_buf_free(&b);
    free(s);
    return 0;
}
