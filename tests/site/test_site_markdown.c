/* test_site_markdown.c - run ids in rendered Markdown become links to
 * their run pages (site/site_markdown.c): the cells of run columns, lists
 * of ids under "runs", and "run N" in text; never a count, a figure, a
 * number inside code or a link, or anything that was not digits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "markdown.h"
#include "site_parts.h"

/* Markdown through cmark-gfm, as the weekly pages render it, then the
 * links; the caller frees. */
static char *linked(const char *md)
{
    char *html = NULL;
    sb_error err;
    assert_int_equal(sb_markdown_to_html(md, strlen(md), &html, &err), SB_OK);
    sb_buf out = SB_BUF_INIT;
    site_link_runs(html, "../", &out);
    free(html);
    return sb_buf_take(&out);
}

static void test_table_columns(void **state)
{
    (void)state;
    char *h = linked("| SKU | commits | runs | old run | new run | runs |\n"
                     "| --- | ---: | ---: | ---: | ---: | --- |\n"
                     "| h100 | 15 | 3048 | 3925 | 2517 | 2517, 3834 |\n");
    /* a "runs" count stays text; the ids and the list are links */
    assert_non_null(strstr(h, "<td align=\"right\">3048</td>"));
    assert_non_null(strstr(h, "<td align=\"right\"><a href=\"../runs/39.html#r3925\">3925</a></td>"));
    assert_non_null(strstr(h, "<td align=\"right\"><a href=\"../runs/25.html#r2517\">2517</a></td>"));
    assert_non_null(strstr(h, "<td><a href=\"../runs/25.html#r2517\">2517</a>, "
                              "<a href=\"../runs/38.html#r3834\">3834</a></td>"));
    assert_non_null(strstr(h, "<td align=\"right\">15</td>"));
    free(h);
    /* a second table's heads are its own */
    h = linked("| old run |\n| --- |\n| 7 |\n\n| x |\n| --- |\n| 8 |\n");
    assert_non_null(strstr(h, "<a href=\"../runs/0.html#r7\">7</a>"));
    assert_non_null(strstr(h, "<td>8</td>"));
    free(h);
}

static void test_text(void **state)
{
    (void)state;
    char *h = linked("Improved (run 7493 to 5938); calibration run 3477, above. "
                     "A run 12.5 ms, run 40% of it, rerun 55, run 9x, `run 77`, 100 runs.\n");
    assert_non_null(strstr(h, "(run <a href=\"../runs/74.html#r7493\">7493</a> to "
                              "<a href=\"../runs/59.html#r5938\">5938</a>);"));
    assert_non_null(strstr(h, "calibration run <a href=\"../runs/34.html#r3477\">3477</a>, above"));
    assert_non_null(strstr(h, "A run 12.5 ms, run 40% of it, rerun 55, run 9x, <code>run 77</code>, 100 runs."));
    /* exactly the three links */
    size_t n = 0;
    for (const char *p = h; (p = strstr(p, "<a ")) != NULL; p++)
        n++;
    assert_int_equal(n, 3);
    free(h);
    /* inside a link, text stays as it is */
    h = linked("[run 5](x.html)\n");
    assert_non_null(strstr(h, "<a href=\"x.html\">run 5</a>"));
    free(h);
}

static void test_markup_stays_text(void **state)
{
    (void)state;
    /* raw HTML is left out by cmark; escaped text keeps its entities */
    char *h = linked("| run |\n| --- |\n| <b>12</b> |\n| 1&lt;2 |\n\nrun <i>4</i> and run 5<script>\n");
    assert_null(strstr(h, "<b>"));
    assert_null(strstr(h, "<script>"));
    assert_null(strstr(h, "#r12\""));
    assert_non_null(strstr(h, "1&lt;2"));
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_columns),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_markup_stays_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
