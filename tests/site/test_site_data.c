/* test_site_data.c - the data files behind the contributions and roadmap
 * pages: the shipped files pass; each kind of bad file is refused with one
 * error naming the file and the record or JSON pointer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "home.h"
#include "encode.h"
#include "site.h"
#include "site_parts.h"
#include "strbuf.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sb_site_data.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_shipped_files(void **state)
{
    (void)state;
    char rp[4096], lp[4096];
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_data_path(rp, sizeof rp, "roadmap.json", &err), SB_OK);
    assert_int_equal(sb_data_path(lp, sizeof lp, "contributions.csv", &err), SB_OK);
    int rc = sb_site_check_roadmap(rp, &err);
    if (rc != SB_OK)
        fail_msg("%s: %s: %s", err.file, err.where, err.msg);
    rc = sb_site_check_ledger(lp, &err);
    if (rc != SB_OK)
        fail_msg("%s: %s: %s", err.file, err.where, err.msg);
}

#define ROADMAP_HEAD "{\"schema\": \"solbook.roadmap.v1\", \"weeks\": ["

static void expect_roadmap_error(const char *text, const char *where, const char *msg_part)
{
    const char *path = write_file("roadmap.json", text);
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_site_check_roadmap(path, &err), SB_ERR);
    assert_string_equal(err.file, path);
    if (where)
        assert_string_equal(err.where, where);
    if (!strstr(err.msg, msg_part))
        fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
}

static void test_roadmap_errors(void **state)
{
    (void)state;
    const char *good =
        ROADMAP_HEAD "{\"week\": \"2026-W47\", \"title\": \"t\", \"tasks\": "
                     "[{\"task\": \"a\", \"status\": \"done\", \"issue\": 7, \"notes\": \"n\"}]}]}";
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_site_check_roadmap(write_file("roadmap.json", good), &err), SB_OK);
    expect_roadmap_error(ROADMAP_HEAD "{\"week\": \"2026-W47\", \"title\": \"t\", \"tasks\": "
                                      "[{\"task\": \"a\", \"status\": \"finished\"}]}]}",
                         "/weeks/0/tasks/0/status", "done, in progress, planned, dropped");
    expect_roadmap_error(ROADMAP_HEAD "{\"week\": \"2026-W60\", \"title\": \"t\", \"tasks\": "
                                      "[{\"task\": \"a\", \"status\": \"done\"}]}]}",
                         "/weeks/0/week", "ISO week");
    expect_roadmap_error(ROADMAP_HEAD "{\"week\": \"2026-W48\", \"title\": \"t\", \"tasks\": "
                                      "[{\"task\": \"a\", \"status\": \"done\"}]},"
                                      "{\"week\": \"2026-W47\", \"title\": \"t\", \"tasks\": "
                                      "[{\"task\": \"a\", \"status\": \"done\"}]}]}",
                         "/weeks/1/week", "increasing order");
    expect_roadmap_error(ROADMAP_HEAD "{\"week\": \"2026-W47\", \"title\": \"t\", \"tasks\": "
                                      "[{\"task\": \"a\", \"status\": \"done\", \"owner\": \"x\"}]}]}",
                         "/weeks/0/tasks/0", "unknown member 'owner'");
    expect_roadmap_error(ROADMAP_HEAD "{\"week\": \"2026-W47\", \"title\": \"t\", \"tasks\": []}]}",
                         "/weeks/0/tasks", "non-empty array");
    expect_roadmap_error(ROADMAP_HEAD "{\"week\": \"2026-W47\", \"title\": \"t\", \"tasks\": "
                                      "[{\"task\": \"a\", \"status\": \"done\", \"issue\": 0}]}]}",
                         "/weeks/0/tasks/0/issue", "issue number");
    expect_roadmap_error("{\"schema\": \"solbook.roadmap.v2\", \"weeks\": []}", "/schema",
                         "solbook.roadmap.v1");
    /* strict JSON: duplicate keys refused by the loader, with line:column */
    expect_roadmap_error("{\"schema\": \"a\", \"schema\": \"b\"}", NULL, "duplicate");
}

#define LEDGER_HEAD "target,kind,title,status,link,packet,ops,runs,notes\n"

static void expect_ledger_error(const char *text, const char *where, const char *msg_part)
{
    const char *path = write_file("contributions.csv", text);
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_site_check_ledger(path, &err), SB_ERR);
    assert_string_equal(err.file, path);
    if (where)
        assert_string_equal(err.where, where);
    if (!strstr(err.msg, msg_part))
        fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
}

static void test_ledger_errors(void **state)
{
    (void)state;
    sb_error err;
    sb_error_clear(&err);
    const char *good = LEDGER_HEAD
        "Liger-Kernel,discussion,\"Timings, with a comma\",planned,,liger,rmsnorm swiglu,,\n"
        "vLLM,PR,Fix,merged,https://example.org/pr/1,,,0123456789abcdef0123,\"note, \"\"quoted\"\"\"\n";
    assert_int_equal(sb_site_check_ledger(write_file("contributions.csv", good), &err), SB_OK);
    assert_int_equal(sb_site_check_ledger(write_file("contributions.csv", LEDGER_HEAD), &err),
                     SB_OK);
    expect_ledger_error("target,kind,title,status,link,packet,runs,notes,extra\n", "record 1",
                        "header must be");
    expect_ledger_error(LEDGER_HEAD "x,forum,t,planned,,,,,\n", "record 2", "kind must be");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,planned,https://example.org/1,,,,\n", "record 2",
                        "planned or drafted entry has no link");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,posted,,,,,\n", "record 2", "needs its link");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,merged,http://example.org/1,,,,\n", "record 2",
                        "https://");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,planned,,nosuch,,,\n", "record 2",
                        "packet target");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,planned,,,gemm,,\n", "record 2",
                        "ops applies to a packet");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,planned,,,,run-12,\n", "record 2",
                        "content_sha256 prefixes");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,planned,,,\n", "record 2", "7 fields");
    expect_ledger_error(LEDGER_HEAD "x,issue,t,planned,,,,,,\n", "record 2", "10 fields, the header has 9");
    expect_ledger_error(LEDGER_HEAD "x,issue,\"unclosed,planned,,,,,\n", "line 2",
                        "malformed CSV: unterminated quoted field");
    expect_ledger_error("", NULL, "header");
}

/* The site's escaper gives what sb_enc_xml_text gives, reordering
 * characters (bidirectional and C1 controls) as visible escapes included. */
static void test_site_esc(void **state)
{
    (void)state;
    const char *texts[] = {"plain", "a<b>&\"'", "\xe2\x80\xae" "evil\xe2\x80\xac", "\xc2\x9b" "31m",
                           "\xe2\x80\x94 dash \xc3\xa9", "\xd8\x9c\xd8\xa7", "tab\tnl\n\x01", "cut\xe2\x80", ""};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        sb_buf a = SB_BUF_INIT, b = SB_BUF_INIT;
        site_esc(&a, texts[i]);
        sb_enc_xml_text(&b, texts[i]);
        assert_string_equal(sb_buf_str(&a), sb_buf_str(&b));
        assert_null(strstr(sb_buf_str(&a), "\xe2\x80\xae"));
        sb_buf_free(&a);
        sb_buf_free(&b);
    }
    sb_buf a = SB_BUF_INIT;
    site_esc(&a, "x\xe2\x80\xaey");
    assert_string_equal(sb_buf_str(&a), "x\\u{202E}y");
    sb_buf_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_files),
        cmocka_unit_test(test_roadmap_errors),
        cmocka_unit_test(test_ledger_errors),
        cmocka_unit_test(test_site_esc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
