/* test_encode.c - the context encoders (core/encode.h): each hostile
 * payload stays text in the context it is written to. Markdown output is
 * rendered with cmark-gfm (the renderer the weekly HTML uses) and shell
 * output is run by bash (what sb_shell_interpreter names for words that
 * need $'...') in a scratch folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "encode.h"
#include "md_inert.h"

static const char *const payloads[] = {
    "x\ntouch pwned-newline",
    "x\r\ntouch pwned-crlf",
    "x`; touch pwned-backtick; `",
    "$(touch pwned-subst)",
    "'; touch pwned-quote; '",
    "\n```\n# Injected heading\n<img src=x onerror=alert(1)>\n```\n",
    "~~~\n# tilde\n~~~",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "| a | b |\n|---|---|",
    "\x1b[31mred\x1b[0m\x1b]0;title\x07",
    "\xe2\x80\xae" "evil\xe2\x80\xac",   /* RLO ... PDF */
    "\xc2\x9b" "31m",                  /* C1 CSI */
    "back\\slash \\n not a newline",
    "\xff\xfe" " bad utf-8",
    "[link](javascript:alert(1))",
    "# heading at start",
    "",
};
#define NPAYLOADS (sizeof payloads / sizeof *payloads)

/* No byte below 0x20 but those allowed, no DEL, no C1, no bidi control. */
static void assert_no_raw_controls(const char *s, const char *allowed)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++) {
        if ((*p < 0x20 && !strchr(allowed, *p)) || *p == 0x7f)
            fail_msg("raw control byte 0x%02x in <%s>", *p, s);
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            fail_msg("raw C1 control in <%s>", s);
        if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae)
            fail_msg("raw bidi or line separator in <%s>", s);
        if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
            fail_msg("raw bidi isolate in <%s>", s);
        if (p[0] == 0xff || p[0] == 0xfe)
            fail_msg("raw non-UTF-8 byte in <%s>", s);
    }
}

static void test_terminal(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPAYLOADS; i++) {
        sb_buf b = SB_BUF_INIT;
        sb_enc_terminal(&b, payloads[i], 0);
        assert_no_raw_controls(sb_buf_str(&b), "");
        sb_buf_free(&b);
    }
    sb_buf b = SB_BUF_INIT;
    sb_enc_terminal(&b, "a\nb\x1b[0m\\n\xe2\x80\xae", 0);
    assert_string_equal(sb_buf_str(&b), "a\\nb\\e[0m\\\\n\\u{202E}");
    sb_buf_reset(&b);
    sb_enc_terminal(&b, "h\xc3\xa9llo w\xc3\xb6rld", 5);   /* cut after 5 characters */
    assert_string_equal(sb_buf_str(&b), "h\xc3\xa9llo\xe2\x80\xa6");
    sb_buf_reset(&b);
    sb_enc_terminal(&b, "short", 5);                        /* not longer: no ellipsis */
    assert_string_equal(sb_buf_str(&b), "short");
    sb_buf_free(&b);
    assert_int_equal(sb_utf8_prefix_len("h\xc3\xa9llo", 2), 3);
    assert_int_equal(sb_utf8_prefix_len("abc", 10), 3);
}

/* A CSV field of stored text: no raw control, escape or bidi character
 * (the file goes to a terminal as well as a spreadsheet), no leading
 * character a spreadsheet starts a formula with, and quoted where a
 * comma or quote in the text would end the field. */
static void test_csv_field(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPAYLOADS; i++) {
        sb_buf b = SB_BUF_INIT;
        sb_enc_csv_field(&b, payloads[i]);
        assert_no_raw_controls(sb_buf_str(&b), "");
        const char *f = sb_buf_str(&b);
        if (f[0] == '"')
            f++;
        assert_null(strchr("=+-@", f[0] ? f[0] : 'x'));
        sb_buf_free(&b);
    }
    static const char *const cases[][2] = {
        {"=HYPERLINK(\"http://evil.example\",\"x\")", "\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\""},
        {"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
        {"-2+3", "'-2+3"},
        {"@SUM(A1)", "'@SUM(A1)"},
        {"GPU-75dec15a\x1b]8;;http://e\a", "GPU-75dec15a\\e]8;;http://e\\x07"},
        {"a,b\nc", "\"a,b\\nc\""},
        {"plain", "plain"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_buf b = SB_BUF_INIT;
        sb_enc_csv_field(&b, cases[i][0]);
        assert_string_equal(sb_buf_str(&b), cases[i][1]);
        sb_buf_free(&b);
    }
}

/* Runs script in a fresh scratch folder; returns the number of entries the
 * folder holds afterwards (the script itself is written outside it). */
static int run_in_scratch(const char *script)
{
    char dir[] = "/tmp/sb_enc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s.sh", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(script, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && bash %s >/dev/null 2>&1; ls -A %s | wc -l > %s.n", dir,
             path, dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s.n", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    int n = -1;
    assert_int_equal(fscanf(f, "%d", &n), 1);
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s.sh %s.n", dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    return n;
}

static void test_shell(void **state)
{
    (void)state;
    sb_buf script = SB_BUF_INIT;
    for (size_t i = 0; i < NPAYLOADS; i++) {
        /* a comment line and an argument of a harmless command */
        sb_buf_puts(&script, "# ");
        sb_enc_shell_comment(&script, payloads[i], 0);
        sb_buf_puts(&script, "\ntrue ");
        sb_enc_shell_arg(&script, payloads[i]);
        sb_buf_putc(&script, '\n');
    }
    sb_buf_puts(&script, "echo done > ../sb_enc_marker_$$\nrm -f ../sb_enc_marker_$$\n");
    assert_no_raw_controls(sb_buf_str(&script), "\n");
    /* one comment and one command line per payload, nothing split */
    size_t lines = 0;
    for (const char *p = sb_buf_str(&script); *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2 * NPAYLOADS + 2);
    assert_int_equal(run_in_scratch(sb_buf_str(&script)), 0);
    sb_buf_free(&script);

    /* a printable argument reads back as itself */
    sb_buf b = SB_BUF_INIT;
    sb_buf_puts(&b, "printf '%s' ");
    sb_enc_shell_arg(&b, "it's $HOME `x` \"q\" \xc3\xa9");
    sb_buf_puts(&b, " > out.txt; test \"$(cat out.txt)\" = \"it's \\$HOME \\`x\\` \\\"q\\\" \xc3\xa9\" && touch same");
    assert_int_equal(run_in_scratch(sb_buf_str(&b)), 2);
    sb_buf_reset(&b);
    sb_enc_shell_arg(&b, "K=4096,M=1");
    assert_string_equal(sb_buf_str(&b), "K=4096,M=1");
    sb_buf_reset(&b);
    sb_enc_shell_arg(&b, "");
    assert_string_equal(sb_buf_str(&b), "''");
    sb_buf_free(&b);
}

/* Every payload, written as one word, reaches a command as its very bytes
 * (a value with a CR LF written as the text \r\n would be measured again
 * as another value), and a script needs bash only for such words. */
static void test_shell_exact(void **state)
{
    (void)state;
    char dir[] = "/tmp/sb_enc_exact_XXXXXX";
    assert_non_null(mkdtemp(dir));
    sb_buf script = SB_BUF_INIT;
    for (size_t i = 0; i < NPAYLOADS; i++) {
        sb_buf_puts(&script, "printf '%s' ");
        sb_enc_shell_arg(&script, payloads[i]);
        sb_buf_printf(&script, " > %zu.out\n", i);
    }
    assert_no_raw_controls(sb_buf_str(&script), "\n");
    assert_string_equal(sb_shell_interpreter(sb_buf_str(&script)), "/usr/bin/env bash");
    char path[256], cmd[512];
    snprintf(path, sizeof path, "%s/words.sh", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(sb_buf_str(&script), f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && bash words.sh", dir);
    assert_int_equal(system(cmd), 0);
    for (size_t i = 0; i < NPAYLOADS; i++) {
        char got[256] = "";
        snprintf(path, sizeof path, "%s/%zu.out", dir, i);
        f = fopen(path, "rb");
        assert_non_null(f);
        size_t n = fread(got, 1, sizeof got - 1, f);
        fclose(f);
        if (n != strlen(payloads[i]) || memcmp(got, payloads[i], n) != 0)
            fail_msg("payload %zu read back as %zu other bytes", i, n);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    sb_buf_free(&script);
    /* words in plain or single quotes leave the script sh's */
    sb_buf b = SB_BUF_INIT;
    sb_enc_shell_arg(&b, "--note=-x --calibration /etc/shadow it's");
    assert_string_equal(sb_buf_str(&b), "'--note=-x --calibration /etc/shadow it'\\''s'");
    assert_string_equal(sb_shell_interpreter(sb_buf_str(&b)), "/bin/sh");
    sb_buf_reset(&b);
    sb_enc_shell_arg(&b, "a\r\nb\x1b'\\\xe2\x80\xae");
    assert_string_equal(sb_buf_str(&b), "$'a\\r\\nb\\x1B\\'\\\\\\xE2\\x80\\xAE'");
    sb_buf_free(&b);
}

static char *render_gfm(const char *md)
{
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *p = cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
    cmark_parser_feed(p, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(p);
    /* CMARK_OPT_UNSAFE: raw HTML is passed through, as a permissive
     * renderer would, so any HTML that survived encoding shows up. */
    char *h = cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(p));
    cmark_node_free(doc);
    cmark_parser_free(p);
    return h;
}

static void assert_inert_html(const char *html, const char *md)
{
    if (strstr(html, "<img") || strstr(html, "<script") || strstr(html, "<h3") ||
        strstr(html, "<h2") || strstr(html, "href=\"javascript"))
        fail_msg("markup injected:\n%s\nfrom:\n%s", html, md);
}

static void test_markdown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPAYLOADS; i++) {
        /* a table whose cells hold the payload as text and as code */
        sb_buf md = SB_BUF_INIT;
        sb_buf_puts(&md, "# Title\n\n| a | b | c |\n| --- | --- | --- |\n| ");
        sb_enc_md_text(&md, payloads[i], 0);
        sb_buf_puts(&md, " | ");
        sb_enc_md_code_span(&md, payloads[i], 0);
        sb_buf_puts(&md, " | end |\n\n");
        sb_enc_md_text(&md, payloads[i], 0);
        sb_buf_puts(&md, "\n\n");
        sb_enc_md_fence(&md, "sh", payloads[i]);
        sb_buf_puts(&md, "\nafter the fence\n");
        assert_no_raw_controls(sb_buf_str(&md), "\n");
        char *html = render_gfm(sb_buf_str(&md));
        assert_inert_html(html, sb_buf_str(&md));
        /* one heading (the title), one table row of three cells, the
         * fence closed before the last paragraph */
        const char *h = strstr(html, "<h1>");
        assert_non_null(h);
        assert_null(strstr(h + 1, "<h1>"));
        const char *row = strstr(html, "<tbody>");
        assert_non_null(row);
        size_t cells = 0;
        for (const char *p = row; (p = strstr(p, "<td")); p++)
            cells++;
        if (cells != 3)
            fail_msg("%zu cells for payload %zu:\n%s", cells, i, html);
        assert_non_null(strstr(html, "<p>after the fence</p>"));
        free(html);
        sb_buf_free(&md);
    }
    sb_buf b = SB_BUF_INIT;
    sb_enc_md_code_span(&b, "a`b", 0);
    assert_string_equal(sb_buf_str(&b), "``a`b``");
    sb_buf_reset(&b);
    sb_enc_md_code_span(&b, "`x", 0);
    assert_string_equal(sb_buf_str(&b), "`` `x ``");
    sb_buf_reset(&b);
    sb_enc_md_fence(&b, "sh", "a ```` b\n");
    assert_string_equal(sb_buf_str(&b), "`````sh\na ```` b\n`````\n");
    sb_buf_reset(&b);
    sb_enc_md_text(&b, "a*b", 2);
    assert_string_equal(sb_buf_str(&b), "a\\*\xe2\x80\xa6");
    sb_buf_free(&b);
}

/* Strings that are markup or links only past an encoder's simple rules:
 * runs of backticks longer than a code span's delimiter can be, bare
 * URLs, www. names and e-mail addresses for GFM's autolinks, and the
 * starts of blocks. */
static char *long_tick_attack(size_t ticks)
{
    sb_buf b = SB_BUF_INIT;
    for (size_t i = 0; i < ticks; i++)
        sb_buf_putc(&b, '`');
    sb_buf_puts(&b, " <img src=x onerror=alert(1)><script>alert(1)</script>[l](https://evil.example) ");
    for (size_t i = 0; i < ticks; i++)
        sb_buf_putc(&b, '`');
    char *s = strdup(sb_buf_str(&b));
    sb_buf_free(&b);
    return s;
}

static const char *const link_attacks[] = {
    "see https://evil.example/x for more",
    "http://evil.example",
    "ftp://evil.example/f",
    "www.evil.example",
    "x WwW.evil.example/p",
    "mail me: a.b+c@evil.example",
    "mailto:a@evil.example",
    "xmpp:a@evil.example/r",
    "(www.evil.example)",
    "- list item",
    "-",
    "--",
    "=",
    "1. ordered",
    "123456789) ordered",
    "    indented code",
    "\n    indented after a newline",
    "---",
    "===",
    "> quote",
    "&lt;img src=x&gt;",
    "a\\|<img src=x onerror=1>",
};

/* Every tag in html is one the document wrote itself. */
static void assert_only_tags(const char *html, const char *allowed, const char *md)
{
    const char *stray = md_inert_stray_tag(html, allowed);
    if (stray)
        fail_msg("markup from data at \"%.60s\":\n%s\nfrom:\n%s", stray, html, md);
}

static void check_encoded(const char *s)
{
    /* a paragraph of the text alone, the text under a line of text (a
     * setext underline), and a table row of text and code span */
    sb_buf md = SB_BUF_INIT;
    char *html;
    static const char *const before[] = {"x ", "", "a line\n"};
    /* "-", a cell's "none", is a list item or underline at a line's start */
    for (size_t i = 0; i < (strcmp(s, "-") ? 3u : 1u); i++) {
        sb_buf_puts(&md, before[i]);
        sb_enc_md_text(&md, s, 0);
        html = md_inert_render(sb_buf_str(&md));
        assert_non_null(html);
        assert_only_tags(html, "p code", sb_buf_str(&md));
        free(html);
        sb_buf_reset(&md);
    }
    sb_buf_puts(&md, "| a | b |\n| --- | ---: |\n| ");
    sb_enc_md_text(&md, s, 0);
    sb_buf_puts(&md, " | ");
    sb_enc_md_code_span(&md, s, 0);
    sb_buf_puts(&md, " |\n");
    html = md_inert_render(sb_buf_str(&md));
    assert_only_tags(html, "p code table thead tbody tr th td", sb_buf_str(&md));
    size_t cells = 0;
    for (const char *p = html; (p = strstr(p, "<td")); p++)
        cells++;
    if (cells != 2)
        fail_msg("%zu cells:\n%s", cells, html);
    free(html);
    sb_buf_free(&md);
}

static void test_markdown_limits(void **state)
{
    (void)state;
    /* 90 backticks: a span would need 91, which cmark-gfm reads as text */
    size_t runs[] = {1, 79, 80, 90, 200};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        char *s = long_tick_attack(runs[i]);
        check_encoded(s);
        free(s);
    }
    for (size_t i = 0; i < sizeof link_attacks / sizeof *link_attacks; i++)
        check_encoded(link_attacks[i]);
    for (size_t i = 0; i < NPAYLOADS; i++)
        check_encoded(payloads[i]);
    /* a span up to the limit stays a span; past it, escaped text */
    char *s = long_tick_attack(79);
    sb_buf b = SB_BUF_INIT;
    sb_enc_md_code_span(&b, s, 0);
    assert_int_equal(strspn(sb_buf_str(&b), "`"), 80);
    free(s);
    sb_buf_reset(&b);
    s = long_tick_attack(90);
    sb_enc_md_code_span(&b, s, 0);
    assert_int_equal(strncmp(sb_buf_str(&b), "\\`\\`", 4), 0);
    free(s);
    sb_buf_reset(&b);
    sb_enc_md_text(&b, "www.x.org a@b.c", 0);
    assert_string_equal(sb_buf_str(&b), "www\\.x.org a`@`b.c");
    sb_buf_free(&b);
}

/* A repository URL stands in an href and a Markdown table cell as it is
 * only when nothing in it ends either: the site and the reports take and
 * refuse the same ones. */
static void test_url_link_safe(void **state)
{
    (void)state;
    assert_true(sb_url_link_safe("https://github.com/org/solbook"));
    assert_true(sb_url_link_safe("http://git.example/a-b_c.d~e/%20?x=1&y=2#z"));
    const char *bad[] = {"ftp://example/x", "javascript:alert(1)", "https://x/a b", "https://x/a|b",
                         "https://x/(a)", "https://x/\"q\"", "https://x/<b>", "https://x/`t`",
                         "https://x/a\\b", "https://x/\n", "HTTPS://x", "", NULL};
    for (size_t i = 0; bad[i]; i++)
        assert_false(sb_url_link_safe(bad[i]));
}

/* HTML and XML text keeps every character but those that reorder the
 * displayed text or end a line, which show as their escapes. */
static void test_xml_reordering(void **state)
{
    (void)state;
    sb_buf b = SB_BUF_INIT;
    sb_enc_xml_text(&b, "a\xe2\x80\xae"
                           "b\xc2\x9b"
                           "c\xd8\x9c"
                           "d\xe2\x81\xa6"
                           "e\xe2\x80\xa8<\xe2\x80\x94\xc3\xa9\xc2\xa0");
    assert_string_equal(sb_buf_str(&b),
                        "a\\u{202E}b\\u{009B}c\\u{061C}d\\u{2066}e\\u{2028}&lt;\xe2\x80\x94\xc3\xa9\xc2\xa0");
    sb_buf_reset(&b);
    /* a cut sequence is kept as it is: no read past the end */
    sb_enc_xml_text(&b, "x\xe2\x80");
    assert_string_equal(sb_buf_str(&b), "x\xe2\x80");
    sb_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terminal),
        cmocka_unit_test(test_csv_field),
        cmocka_unit_test(test_shell),
        cmocka_unit_test(test_shell_exact),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_markdown_limits),
        cmocka_unit_test(test_url_link_safe),
        cmocka_unit_test(test_xml_reordering),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
