/* test_core.c - strict JSON reading, files read into a kept buffer and
 * within a bound, files opened only where a listing judged them, atomic
 * writing, and in-place writes into a byte buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "decimal.h"
#include "file_name.h"
#include "json_file.h"
#include "strbuf.h"

static void expect_refused(const char *text, const char *needle)
{
    json_t *j = NULL;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_json_load_buffer(text, strlen(text), "t.json", &j, &err), SB_ERR);
    assert_null(j);
    assert_string_equal(err.file, "t.json");
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' does not mention '%s'", err.msg, needle);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refused("", "empty file");
    expect_refused("  \n", "only whitespace");
    expect_refused("{\"a\":1,\"a\":2}", "duplicate");
    expect_refused("{\"a\": NaN}", "NaN and Infinity");
    expect_refused("{\"a\": Infinity}", "NaN and Infinity");
    expect_refused("{\"a\": 9223372036854775808}", "too big");
    expect_refused("{\"a\": [1, 2", "invalid JSON");
    expect_refused("{\"a\": \"\xff\xfe\"}", "invalid JSON");
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    json_t *j = NULL;
    sb_error err;
    assert_int_equal(sb_json_load_buffer(deep, 200, "deep.json", &j, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "nested deeper"));
}

static void test_int64_exact(void **state)
{
    (void)state;
    const char *text = "{\"big\": 9223372036854775807, \"neg\": -9223372036854775808}";
    json_t *j = NULL;
    sb_error err;
    assert_int_equal(sb_json_load_buffer(text, strlen(text), "t", &j, &err), SB_OK);
    assert_true(json_integer_value(json_object_get(j, "big")) == INT64_MAX);
    assert_true(json_integer_value(json_object_get(j, "neg")) == INT64_MIN);
    json_decref(j);
}

static void test_error_line_column(void **state)
{
    (void)state;
    const char *text = "{\n  \"a\": 1,\n  \"b\": tru\n}";
    json_t *j = NULL;
    sb_error err;
    char line[4096];
    assert_int_equal(sb_json_load_buffer(text, strlen(text), "x.json", &j, &err), SB_ERR);
    assert_non_null(strstr(err.where, "line 3"));
    sb_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "x.json: line 3, column"));
    assert_null(strchr(line, '\n'));
}

static void test_atomic_write_roundtrip(void **state)
{
    (void)state;
    char dir[] = "/tmp/sbcoreXXXXXX", path[256];
    sb_error err;
    json_t *j = json_pack("{s:i, s:s}", "x", 7, "y", "z"), *back = NULL;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.json", dir);
    assert_int_equal(sb_json_write_file(path, j, &err), SB_OK);
    assert_int_equal(sb_json_load_file(path, &back, &err), SB_OK);
    assert_true(json_equal(j, back));
    /* No temporary file is left behind. */
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0);
    json_decref(j);
    json_decref(back);
    unlink(path);
    rmdir(dir);
}

static void test_unreadable(void **state)
{
    (void)state;
    json_t *j = NULL;
    sb_error err;
    assert_int_equal(sb_json_load_file("/nonexistent/x.json", &j, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent/x.json");
    assert_non_null(strstr(err.msg, "cannot open"));
    assert_int_equal(sb_json_load_file("/tmp", &j, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "directory"));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* One buffer for many files: grown for a larger one, kept (not shrunk)
 * for a smaller one, NUL-terminated each time; errors leave it usable. */
static void test_read_into_kept_buffer(void **state)
{
    (void)state;
    char path[] = "/tmp/sb_read_into_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char *buf = NULL;
    size_t cap = 0, len = 0;
    sb_error err;
    sb_error_clear(&err);
    write_text(path, "{\"a\": 12345678901234567890}");
    assert_int_equal(sb_file_read_into(path, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, 27);
    assert_string_equal(buf, "{\"a\": 12345678901234567890}");
    size_t first_cap = cap;
    char *first = buf;
    write_text(path, "[]");
    assert_int_equal(sb_file_read_into(path, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, 2);
    assert_string_equal(buf, "[]");
    assert_true(buf == first && cap == first_cap);
    assert_int_equal(sb_file_read_into("/nonexistent/x.json", &buf, &cap, &len, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent/x.json");
    assert_int_equal(sb_file_read_into("/tmp", &buf, &cap, &len, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "directory"));
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    write_text(path, big);
    assert_int_equal(sb_file_read_into(path, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, sizeof big - 1);
    assert_true(cap >= sizeof big);
    assert_string_equal(buf, big);
    free(buf);
    unlink(path);
}

/* Writes n bytes of 'x' into the FIFO path from a child process, which
 * ignores SIGPIPE so that a reader closing early ends it quietly. */
static pid_t fifo_writer(const char *path, size_t n)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        int fd = open(path, O_WRONLY);
        if (fd < 0)
            _exit(1);
        char chunk[4096];
        memset(chunk, 'x', sizeof chunk);
        while (n > 0) {
            size_t k = n < sizeof chunk ? n : sizeof chunk;
            ssize_t w = write(fd, chunk, k);
            if (w <= 0)
                _exit(0);
            n -= (size_t)w;
        }
        close(fd);
        _exit(0);
    }
    return pid;
}

/* The bound holds on what is read, not on what the size says: a FIFO
 * says 0 bytes, and one that carries far more than max gives max + 1
 * bytes and no more, in a buffer never grown past them; one within max
 * is read whole. A regular file of max bytes is read, one of max + 1 is
 * told apart. */
static void test_read_into_max_bounded(void **state)
{
    (void)state;
    enum { MAX = 4096 };
    char dir[] = "/tmp/sb_read_max_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    char *buf = NULL;
    size_t cap = 0, len = 0;
    sb_error err;
    sb_error_clear(&err);

    char text[MAX + 2];
    memset(text, 'y', sizeof text - 1);
    text[MAX] = 0;
    snprintf(path, sizeof path, "%s/exact.json", dir);
    write_text(path, text);
    assert_int_equal(sb_file_read_into_max(path, MAX, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, MAX);
    assert_string_equal(buf, text);
    text[MAX] = 'y';
    text[MAX + 1] = 0;
    write_text(path, text);
    assert_int_equal(sb_file_read_into_max(path, MAX, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, MAX + 1);
    unlink(path);
    free(buf);
    buf = NULL;
    cap = 0;

    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fifo_writer(path, (size_t)1 << 20);
    assert_int_equal(sb_file_read_into_max(path, MAX, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, MAX + 1);
    assert_true(cap <= MAX + 2);
    assert_int_equal(buf[0], 'x');
    assert_int_equal(buf[MAX], 'x');
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    pid = fifo_writer(path, 3000);
    assert_int_equal(sb_file_read_into_max(path, MAX, &buf, &cap, &len, &err), SB_OK);
    assert_int_equal(len, 3000);
    assert_int_equal(strspn(buf, "x"), 3000);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(buf);
    unlink(path);
    rmdir(dir);
}

/* sb_file_open_inside judges the file opened, not its name: a link that
 * leads out of the folder, a folder on the way swapped for a link out, a
 * FIFO (refused at once, never waited on), a directory, and under plain a
 * link at the last name and a hard link to a file outside are refused; a
 * file of the folder, and a link within it, are read. */
static void expect_open_refused(const char *path, const char *inside, int plain, const char *needle)
{
    int fd = -2;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_file_open_inside(path, inside, plain, &fd, &err), SB_ERR);
    assert_int_equal(fd, -1);
    assert_string_equal(err.file, path);
    if (!strstr(err.msg, needle))
        fail_msg("%s: error '%s' does not mention '%s'", path, err.msg, needle);
}

static void test_open_inside(void **state)
{
    (void)state;
    char top[] = "/tmp/sb_open_inside_XXXXXX";
    assert_non_null(mkdtemp(top));
    char in[128], out[128], p[192], q[192];
    snprintf(in, sizeof in, "%s/in", top);
    snprintf(out, sizeof out, "%s/out", top);
    assert_int_equal(mkdir(in, 0700), 0);
    assert_int_equal(mkdir(out, 0700), 0);
    char *inside = realpath(in, NULL);
    assert_non_null(inside);
    snprintf(p, sizeof p, "%s/secret.json", out);
    write_text(p, "{\"secret\": 1}");
    snprintf(p, sizeof p, "%s/own.json", in);
    write_text(p, "{\"own\": 1}");

    int fd = -1;
    sb_error err;
    sb_error_clear(&err);
    char *buf = NULL;
    size_t cap = 0, len = 0;
    for (int plain = 0; plain < 2; plain++) {
        assert_int_equal(sb_file_open_inside(p, inside, plain, &fd, &err), SB_OK);
        assert_int_equal(sb_file_read_fd_max(fd, p, 100, &buf, &cap, &len, &err), SB_OK);
        assert_string_equal(buf, "{\"own\": 1}");
    }
    free(buf);

    /* a link within the folder is followed; one out of it is not */
    snprintf(p, sizeof p, "%s/again.json", in);
    assert_int_equal(symlink("own.json", p), 0);
    assert_int_equal(sb_file_open_inside(p, inside, 0, &fd, &err), SB_OK);
    close(fd);
    expect_open_refused(p, inside, 1, "a symbolic link");
    snprintf(p, sizeof p, "%s/link.json", in);
    snprintf(q, sizeof q, "%s/secret.json", out);
    assert_int_equal(symlink(q, p), 0);
    expect_open_refused(p, inside, 0, "leads out of the folder given");
    expect_open_refused(p, inside, 1, "a symbolic link");
    /* a name given itself (inside NULL) is the caller's to follow */
    assert_int_equal(sb_file_open_inside(p, NULL, 0, &fd, &err), SB_OK);
    close(fd);

    /* a folder on the way that became a link out */
    snprintf(p, sizeof p, "%s/sub", in);
    assert_int_equal(symlink(out, p), 0);
    snprintf(p, sizeof p, "%s/sub/secret.json", in);
    expect_open_refused(p, inside, 0, "leads out of the folder given");
    expect_open_refused(p, inside, 1, "leads out of the folder given");

    /* a hard link to a file outside */
    snprintf(p, sizeof p, "%s/hard.ncu.csv", in);
    assert_int_equal(link(q, p), 0);
    expect_open_refused(p, inside, 1, "a hard link (2 names)");

    /* a FIFO is refused at once: no writer is waited for */
    snprintf(p, sizeof p, "%s/fifo.json", in);
    assert_int_equal(mkfifo(p, 0600), 0);
    expect_open_refused(p, inside, 0, "not a regular file");
    expect_open_refused(p, NULL, 1, "not a regular file");
    snprintf(p, sizeof p, "%s/dir.json", in);
    assert_int_equal(mkdir(p, 0700), 0);
    expect_open_refused(p, inside, 0, "is a directory");

    free(inside);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    assert_int_equal(system(cmd), 0);
}

/* A text whose tree would take more than SB_JSON_MAX_PARSED is refused
 * before jansson builds it: "{}," repeated takes about 78 times its bytes
 * parsed (3.4 MB of it would take 270 MB). */
static void test_parse_bound(void **state)
{
    (void)state;
    size_t n = 1200000, len = 1 + 3 * n;
    char *text = malloc(len + 1);
    assert_non_null(text);
    text[0] = '[';
    for (size_t i = 0; i < n; i++)
        memcpy(text + 1 + 3 * i, "{},", 3);
    text[len - 1] = ']';
    text[len] = '\0';
    json_t *j = NULL;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_json_load_buffer(text, len, "objs.json", &j, &err), SB_ERR);
    assert_null(j);
    assert_string_equal(err.file, "objs.json");
    if (!strstr(err.msg, "parsed, more than 384 MiB: refused unparsed"))
        fail_msg("error '%s'", err.msg);
    /* a tenth of it is parsed */
    n /= 10;
    len = 1 + 3 * n;
    text[len - 1] = ']';
    assert_int_equal(sb_json_load_buffer(text, len, "objs.json", &j, &err), SB_OK);
    assert_int_equal(json_array_size(j), n);
    json_decref(j);
    free(text);
}

/* One long string costs its text, jansson's copy, and the lexer's buffer
 * of the token, grown by doubling: a 190 MB string took 564 MB parsed.
 * A 100 MB one (counted 200 MB without the lexer's buffer) is refused
 * unparsed; a 1 MB one is parsed. */
static void test_parse_bound_long_string(void **state)
{
    (void)state;
    size_t n = (size_t)100 << 20, len = n + 4;
    char *text = malloc(len + 1);
    assert_non_null(text);
    memcpy(text, "[\"", 2);
    memset(text + 2, 'A', n);
    memcpy(text + 2 + n, "\"]", 2);
    text[len] = '\0';
    json_t *j = NULL;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_json_load_buffer(text, len, "long.json", &j, &err), SB_ERR);
    assert_null(j);
    if (!strstr(err.msg, "parsed, more than 384 MiB: refused unparsed"))
        fail_msg("error '%s'", err.msg);
    n = (size_t)1 << 20;
    len = n + 4;
    memcpy(text, "[\"", 2);
    memset(text + 2, 'A', n);
    memcpy(text + 2 + n, "\"]", 2);
    assert_int_equal(sb_json_load_buffer(text, len, "long.json", &j, &err), SB_OK);
    assert_int_equal(json_string_length(json_array_get(j, 0)), n);
    json_decref(j);
    free(text);
}

static void test_buf_in_place(void **state)
{
    (void)state;
    sb_buf b = SB_BUF_INIT;
    sb_buf_puts(&b, "ab");
    char *at = sb_buf_room(&b, 10);
    assert_non_null(at);
    memcpy(at, "cdef", 4);
    sb_buf_grew(&b, 4);
    sb_buf_putc(&b, 'g');
    assert_string_equal(sb_buf_str(&b), "abcdefg");
    assert_int_equal(b.len, 7);
    /* more than was asked for is not taken */
    at = sb_buf_room(&b, 1);
    assert_non_null(at);
    sb_buf_grew(&b, b.cap);
    assert_string_equal(sb_buf_str(&b), "abcdefg");
    assert_false(sb_buf_failed(&b));
    sb_buf_free(&b);
}

static void test_pointer_escaping(void **state)
{
    (void)state;
    char p[64] = "";
    sb_json_pointer_append(p, sizeof p, "a/b");
    sb_json_pointer_append(p, sizeof p, "m~n");
    sb_json_pointer_append_index(p, sizeof p, 3);
    assert_string_equal(p, "/a~1b/m~0n/3");
}

static void test_name_ends_with(void **state)
{
    (void)state;
    assert_true(sb_name_ends_with("run.json", ".json"));
    assert_true(sb_name_ends_with("a/b.tar.gz", ".tar.gz"));
    assert_true(sb_name_ends_with(".json", ".json"));
    assert_true(sb_name_ends_with("x", ""));
    assert_false(sb_name_ends_with("json", ".json"));
    assert_false(sb_name_ends_with("run.json.bak", ".json"));
    assert_false(sb_name_ends_with("", ".json"));
}

/* Adversarial names: a SKU named like another SKU's second page, an op
 * named like another op's escaped or hashed id, "index", case folding,
 * long names that share a prefix. Every id and paged id is distinct. */
static void test_page_ids_never_collide(void **state)
{
    (void)state;
    char a[SB_PAGE_ID_SIZE], b[SB_PAGE_ID_SIZE];
    sb_page_id_paged("h100-sxm5-80gb", 2, a);
    sb_page_id_paged("h100-sxm5-80gb-p2", 1, b);
    assert_string_equal(a, "h100-sxm5-80gb~p2");
    assert_string_equal(b, "h100-sxm5-80gb-p2");
    sb_page_id("a b", a);
    assert_string_equal(a, "a~20b");
    sb_page_id("a~20b", b);
    assert_string_equal(b, "a~7e20b");
    sb_page_id("index", a);
    assert_string_equal(a, "~69ndex");
    sb_page_id("Gemm", a);
    sb_page_id("gemm", b);
    assert_string_not_equal(a, b);
    sb_page_id(".hidden", a);
    assert_int_equal(a[0], '~');
    sb_page_id("", a);
    assert_string_equal(a, "~-");

    char longa[400], longb[400];
    memset(longa, 'x', 300);
    longa[300] = 0;
    memcpy(longb, longa, 301);
    longb[299] = 'y';
    sb_page_id(longa, a);
    sb_page_id(longb, b);
    assert_true(strlen(a) <= SB_PAGE_ID_MAX && strlen(b) <= SB_PAGE_ID_MAX);
    assert_string_not_equal(a, b);
    assert_non_null(strstr(a, "~h"));

    /* ordinary names keep their names */
    const char *plain[] = {"gemm", "cross_entropy", "h100-sxm5-80gb", "h200-sxm-141gb", "attn.v2",
                           "gemm.html.bak", "x.htm"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        sb_page_id(plain[i], a);
        assert_string_equal(a, plain[i]);
    }
    /* a value named like another's page: the folder ops/gemm.html/ of op
     * "gemm.html" would be the page ops/gemm.html of op "gemm" */
    sb_page_id("gemm.html", a);
    assert_string_equal(a, "gemm~2ehtml");
    sb_page_id_paged("h100-sxm5-80gb.html", 1, a);
    assert_string_equal(a, "h100-sxm5-80gb~2ehtml");
    sb_page_id_paged("h100-sxm5-80gb~p2.html", 1, a);
    assert_string_equal(a, "h100-sxm5-80gb~7ep2~2ehtml");
    sb_page_id(".html", a);
    assert_string_equal(a, "~2ehtml");

    /* every pair of a set of hostile names and pages stays apart, and no
     * id ends in ".html", so none is the page ID.html beside the folder
     * another id names */
    char names[][64] = {"h100", "h100-p2", "h100~p2", "h100~70~32", "index", "index~p2",
                        "~69ndex", "a b", "a~20b", "a-b", "A b", "", "~-", "x/y", "x~2fy",
                        "gemm", "gemm.html", "gemm.html.html", "gemm~2ehtml", "gemm.HTML",
                        "h100-sxm5-80gb", "h100-sxm5-80gb.html", "h100-sxm5-80gb~p2.html",
                        "h100-sxm5-80gb-p2", "h100-sxm5-80gb-p2.html", "index.html", ".html"};
    size_t n = sizeof names / sizeof names[0];
    char ids[3 * 27][SB_PAGE_ID_SIZE];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t page = 1; page <= 3; page++)
            sb_page_id_paged(names[i], page, ids[k++]);
    for (size_t i = 0; i < k; i++) {
        assert_null(strchr(ids[i], '/'));
        assert_false(sb_name_ends_with(ids[i], ".html"));
        for (size_t j = i + 1; j < k; j++)
            if (strcmp(ids[i], ids[j]) == 0)
                fail_msg("ids %zu and %zu are both '%s'", i, j, ids[i]);
    }
}

static void test_decimal_scaled(void **state)
{
    (void)state;
    double v;
    int d;
    assert_int_equal(sb_decimal_scaled("20012.1", -6, &v, &d), 0);
    assert_true(v == 0.0200121);
    assert_int_equal(d, 1);
    assert_int_equal(sb_decimal_scaled("1.5e3", 0, &v, NULL), 0);
    assert_true(v == 1500.0);
    assert_int_equal(sb_decimal_scaled(".25", 1, &v, &d), 0);
    assert_true(v == 2.5 && d == 2);
    const char *bad[] = {"", ".", "1.2.3", "-1", "+1", "1e", "1e+", "1x", "nan", "1e999999", "1e400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(sb_decimal_scaled(bad[i], 0, &v, NULL), -1);
}

static void test_name_resuffixed(void **state)
{
    (void)state;
    char *s = sb_name_resuffixed("a.tar.gz:run.json", ".json", ".ncu.csv");
    assert_string_equal(s, "a.tar.gz:run.ncu.csv");
    free(s);
    s = sb_name_resuffixed(".json", ".json", ".ncu.csv");
    assert_string_equal(s, ".ncu.csv");
    free(s);
    assert_null(sb_name_resuffixed("run.json.bak", ".json", ".ncu.csv"));
    assert_null(sb_name_resuffixed("json", ".json", ".ncu.csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_int64_exact),
        cmocka_unit_test(test_error_line_column),
        cmocka_unit_test(test_atomic_write_roundtrip),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_open_inside),
        cmocka_unit_test(test_parse_bound),
        cmocka_unit_test(test_parse_bound_long_string),
        cmocka_unit_test(test_pointer_escaping),
        cmocka_unit_test(test_read_into_kept_buffer),
        cmocka_unit_test(test_read_into_max_bounded),
        cmocka_unit_test(test_buf_in_place),
        cmocka_unit_test(test_name_ends_with),
        cmocka_unit_test(test_name_resuffixed),
        cmocka_unit_test(test_decimal_scaled),
        cmocka_unit_test(test_page_ids_never_collide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
