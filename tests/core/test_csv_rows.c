/* test_csv_rows.c - CSV records (core/csv_rows.h): quoting, line numbers,
 * limits, callback errors, and the one-line refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "csv_rows.h"
#include "strbuf.h"

/* Writes each record as "LINE:field|field|...\n"; stops at stop_at_line. */
typedef struct collect {
    sb_buf out;
    size_t stop_at_line;
    size_t calls;
} collect;

static int add_row(void *ctx, const char *const *fields, size_t nfields, size_t line, sb_error *err)
{
    collect *c = ctx;
    c->calls++;
    if (c->stop_at_line && line == c->stop_at_line)
        return sb_error_set(err, NULL, "line 99", "refused by the caller");
    sb_buf_printf(&c->out, "%zu:", line);
    for (size_t i = 0; i < nfields; i++) {
        if (i)
            sb_buf_putc(&c->out, '|');
        sb_buf_puts(&c->out, fields[i]);
    }
    sb_buf_putc(&c->out, '\n');
    return SB_OK;
}

/* Reads text and returns what the records made ("" when none); *rc gets
 * the reader's result and err its error. */
static char *read_text(const char *text, const sb_csv_options *opts, size_t stop_at_line, int *rc,
                       sb_error *err)
{
    collect c = {SB_BUF_INIT, stop_at_line, 0};
    sb_error_clear(err);
    *rc = sb_csv_read_buffer(text, strlen(text), "t.csv", opts, add_row, &c, err);
    sb_buf_puts(&c.out, "");
    return sb_buf_take(&c.out);
}

static void expect_rows(const char *text, const char *rows)
{
    sb_error err;
    int rc;
    char *got = read_text(text, NULL, 0, &rc, &err);
    if (rc != SB_OK)
        fail_msg("'%s' refused: %s: %s", text, err.where, err.msg);
    assert_string_equal(got, rows);
    free(got);
}

/* Refused with the file, where and a message part; the records before the
 * bad one were handed out (rows_before). */
static void expect_refused(const char *text, const char *where, const char *msg_part,
                           const char *rows_before)
{
    sb_error err;
    int rc;
    char *got = read_text(text, NULL, 0, &rc, &err);
    assert_int_equal(rc, SB_ERR);
    assert_string_equal(err.file, "t.csv");
    assert_string_equal(err.where, where);
    if (!strstr(err.msg, msg_part))
        fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
    assert_null(strchr(err.msg, '\n'));
    assert_string_equal(got, rows_before);
    free(got);
}

static void test_quoted_fields(void **state)
{
    (void)state;
    expect_rows("a,b,c\n1,2,3\n", "1:a|b|c\n2:1|2|3\n");
    /* commas, doubled quotes and newlines inside quotes */
    expect_rows("name,note\n\"x, y\",\"say \"\"hi\"\"\"\n", "1:name|note\n2:x, y|say \"hi\"\n");
    expect_rows("k,v\n\"two\nlines\",\"three\n\nlines\"\nnext,row\n",
                "1:k|v\n2:two\nlines|three\n\nlines\n6:next|row\n");
    /* empty fields, quoted and not, and spaces around unquoted fields */
    expect_rows("a,,\"\",d\n ,x , \" y \"\n", "1:a|||d\n2:|x| y \n");
    /* the last line needs no newline */
    expect_rows("a,b\n1,2", "1:a|b\n2:1|2\n");
}

static void test_line_ends_and_blank_lines(void **state)
{
    (void)state;
    expect_rows("a,b\r\n1,2\r\n\"3\r\n4\",5\r\n", "1:a|b\n2:1|2\n3:3\r\n4|5\n");
    expect_rows("a,b\n\n\n1,2\n  \n3,4\n", "1:a|b\n4:1|2\n6:3|4\n");
    /* a byte order mark is not part of the first field */
    expect_rows("\xEF\xBB\xBFsku,arch\nx,y\n", "1:sku|arch\n2:x|y\n");
}

static void test_multi_line_record_lines(void **state)
{
    (void)state;
    /* a record is numbered by the line it starts on, also when its first
     * field is the one that spans lines */
    expect_rows("h\n\"a\nb\nc\",d\ne\n\"f\ng\"\n", "1:h\n2:a\nb\nc|d\n5:e\n6:f\ng\n");
}

static void test_malformed_refused(void **state)
{
    (void)state;
    expect_refused("a,b\n1,2\nx\"y,3\n", "line 3",
                   "malformed CSV: a quote inside an unquoted field", "1:a|b\n2:1|2\n");
    expect_refused("a,b\n\"x\"y,3\n", "line 2", "text after a closing quote", "1:a|b\n");
    /* an open quote is reported on the line its record starts on */
    expect_refused("a,b\n1,2\n\n3,\"open\nmore\nend\n", "line 4", "unterminated quoted field",
                   "1:a|b\n2:1|2\n");
}

static void test_nul_in_buffer(void **state)
{
    (void)state;
    static const char text[] = "a,b\n1,2\n3,\0\n";
    collect c = {SB_BUF_INIT, 0, 0};
    sb_error err;
    assert_int_equal(sb_csv_read_buffer(text, sizeof text - 1, "t.csv", NULL, add_row, &c, &err),
                     SB_ERR);
    assert_string_equal(err.where, "line 3");
    assert_string_equal(err.msg, "NUL byte: not a text CSV file");
    assert_string_equal(sb_buf_str(&c.out), "1:a|b\n2:1|2\n");
    sb_buf_free(&c.out);
}

/* Bytes that are not UTF-8 (an overlong '<', a lone 0xFF, an encoded
 * surrogate, a sequence cut short) refuse the file at their line and
 * column: fields become JSON text, which must be UTF-8. */
static void test_not_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"a,b\n1,x\xc0\xbcy\n", "byte 0xC0 at column 4 is not UTF-8: not a UTF-8 text CSV file"},
        {"a,b\n1,\xff\n", "byte 0xFF at column 3 is not UTF-8: not a UTF-8 text CSV file"},
        {"a,b\n1,\xed\xa0\x80\n", "byte 0xED at column 3 is not UTF-8: not a UTF-8 text CSV file"},
        {"a,b\n1,\xe2\x80", "byte 0xE2 at column 3 is not UTF-8: not a UTF-8 text CSV file"},
        {"a,b\n1,\"q\n\xf4\x90\x80\x80\"\n", "byte 0xF4 at column 1 is not UTF-8: not a UTF-8 text CSV file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        collect c = {SB_BUF_INIT, 0, 0};
        sb_error err;
        sb_error_clear(&err);
        assert_int_equal(sb_csv_read_buffer(cases[i].text, strlen(cases[i].text), "t.csv", NULL, add_row, &c, &err),
                         SB_ERR);
        assert_string_equal(err.msg, cases[i].msg);
        assert_string_equal(sb_buf_str(&c.out), "1:a|b\n");
        sb_buf_free(&c.out);
    }
    /* every form of valid UTF-8 passes: 2, 3 and 4 bytes, the largest */
    static const char ok[] = "a,b\n\xc2\xb5s,\xe2\x80\xae\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\n";
    collect c = {SB_BUF_INIT, 0, 0};
    sb_error err;
    assert_int_equal(sb_csv_read_buffer(ok, strlen(ok), "t.csv", NULL, add_row, &c, &err), SB_OK);
    assert_int_equal(c.calls, 2);
    sb_buf_free(&c.out);
}

static void test_callback_error_stops(void **state)
{
    (void)state;
    sb_error err;
    int rc;
    collect c = {SB_BUF_INIT, 2, 0};
    const char *text = "a\nb\nc\nd\n";
    sb_error_clear(&err);
    rc = sb_csv_read_buffer(text, strlen(text), "t.csv", NULL, add_row, &c, &err);
    assert_int_equal(rc, SB_ERR);
    assert_int_equal(c.calls, 2);  /* no record after the refused one */
    assert_string_equal(sb_buf_str(&c.out), "1:a\n");
    assert_string_equal(err.file, "t.csv");  /* added by the reader */
    assert_string_equal(err.where, "line 99");
    assert_string_equal(err.msg, "refused by the caller");
    sb_buf_free(&c.out);
    /* records on one line (CR line ends) stop too */
    c = (collect){SB_BUF_INIT, 1, 0};
    rc = sb_csv_read_buffer("a\rb\rc\r", 6, "t.csv", NULL, add_row, &c, &err);
    assert_int_equal(rc, SB_ERR);
    assert_int_equal(c.calls, 1);
    sb_buf_free(&c.out);
}

static void test_limits(void **state)
{
    (void)state;
    sb_error err;
    int rc;
    sb_csv_options opts = {.max_fields = 3, .max_field_bytes = 5};
    char *got = read_text("a,b,c\n1,2,3,4,5\n", &opts, 0, &rc, &err);
    assert_int_equal(rc, SB_ERR);
    assert_string_equal(err.where, "line 2");
    assert_string_equal(err.msg, "a record with more than 3 fields");
    assert_string_equal(got, "1:a|b|c\n");
    free(got);
    got = read_text("a,b\n\"x\ny\",123456\n", &opts, 0, &rc, &err);
    assert_int_equal(rc, SB_ERR);
    assert_string_equal(err.where, "line 2");
    assert_string_equal(err.msg, "field 2 is longer than 5 bytes");
    free(got);

    /* the default limit on fields */
    sb_buf big = SB_BUF_INIT;
    for (int i = 0; i <= SB_CSV_MAX_FIELDS; i++)
        sb_buf_puts(&big, i ? ",x" : "x");
    sb_buf_putc(&big, '\n');
    got = read_text(sb_buf_str(&big), NULL, 0, &rc, &err);
    assert_int_equal(rc, SB_ERR);
    assert_string_equal(err.where, "line 1");
    assert_string_equal(err.msg, "a record with more than 4096 fields");
    free(got);
    sb_buf_free(&big);
}

static int is_noise(const char *line, size_t len)
{
    return len >= 2 && line[0] == '=' && line[1] == '=';
}

static void test_skip_line_and_first_line(void **state)
{
    (void)state;
    sb_error err;
    int rc;
    sb_csv_options opts = {.first_line = 10, .skip_line = is_noise};
    char *got = read_text("a,b\n==PROF== hello\n1,\"x\n==inside\ny\"\n==PROF== bye\n", &opts, 0, &rc,
                          &err);
    assert_int_equal(rc, SB_OK);
    assert_string_equal(got, "10:a|b\n12:1|x\ny\n");
    free(got);
}

static void test_table(void **state)
{
    (void)state;
    sb_error err;
    sb_csv_table t;
    const char *text = "ID,Kernel Name\n1,\"k<1>, x\"\n2,k2\n";
    assert_int_equal(sb_csv_read_table(text, strlen(text), "t.csv", NULL, &t, &err), SB_OK);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.records[1].n, 2);
    assert_string_equal(t.records[1].fields[1], "k<1>, x");
    assert_int_equal(t.records[2].line, 3);
    assert_string_equal(t.records[2].fields[0], "2");
    sb_csv_table_free(&t);
    assert_int_equal(t.n, 0);
    /* on an error the records before the bad one stay, to be freed */
    text = "a\nb\n\"c\n";
    assert_int_equal(sb_csv_read_table(text, strlen(text), "t.csv", NULL, &t, &err), SB_ERR);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.records[1].fields[0], "b");
    assert_string_equal(err.where, "line 3");
    sb_csv_table_free(&t);
}

/* A table whose records would take more than SB_CSV_MAX_HELD with their
 * text is refused at the record that passes it: "," lines take about 28
 * times their bytes kept as records. */
static void test_table_bound(void **state)
{
    (void)state;
    size_t n = 5000000, len = 2 * n;
    char *text = malloc(len + 1);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        memcpy(text + 2 * i, ",\n", 2);
    text[len] = '\0';
    sb_error err;
    sb_error_clear(&err);
    sb_csv_table t;
    assert_int_equal(sb_csv_read_table(text, len, "rows.csv", NULL, &t, &err), SB_ERR);
    assert_string_equal(err.file, "rows.csv");
    if (!strstr(err.msg, "would take more than 384 MiB held"))
        fail_msg("error '%s'", err.msg);
    assert_true(t.n > 1000000 && t.n < n);
    sb_csv_table_free(&t);
    /* a fifth of it is read whole */
    assert_int_equal(sb_csv_read_table(text, len / 5, "rows.csv", NULL, &t, &err), SB_OK);
    assert_int_equal(t.n, n / 5);
    sb_csv_table_free(&t);
    free(text);
}

static void test_find_columns(void **state)
{
    (void)state;
    static const char *const names[] = {"sku", "arch", "memory_gb"};
    const char *header[] = {"arch", "other", "sku", "other"};
    int col[3];
    assert_int_equal(sb_csv_find_columns(header, 4, names, 3, col), 4);  /* "other" twice is not theirs */
    assert_int_equal(col[0], 2);
    assert_int_equal(col[1], 0);
    assert_int_equal(col[2], -1);
    const char *twice[] = {"sku", "arch", "x", "arch", "sku"};
    assert_int_equal(sb_csv_find_columns(twice, 5, names, 3, col), 3);
    assert_int_equal(col[1], 1);
}

static void test_missing_file(void **state)
{
    (void)state;
    sb_error err;
    collect c = {SB_BUF_INIT, 0, 0};
    sb_error_clear(&err);
    assert_int_equal(sb_csv_read_file("/nonexistent/dir/none.csv", NULL, add_row, &c, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent/dir/none.csv");
    assert_non_null(strstr(err.msg, "No such file"));
    assert_int_equal(c.calls, 0);

    char path[] = "/tmp/test_csv_rows_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("x,y\n1,2\n", f);
    fclose(f);
    assert_int_equal(sb_csv_read_file(path, NULL, add_row, &c, &err), SB_OK);
    assert_string_equal(sb_buf_str(&c.out), "1:x|y\n2:1|2\n");
    remove(path);
    sb_buf_free(&c.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoted_fields),
        cmocka_unit_test(test_line_ends_and_blank_lines),
        cmocka_unit_test(test_multi_line_record_lines),
        cmocka_unit_test(test_malformed_refused),
        cmocka_unit_test(test_nul_in_buffer),
        cmocka_unit_test(test_callback_error_stops),
        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_skip_line_and_first_line),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_table_bound),
        cmocka_unit_test(test_find_columns),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
