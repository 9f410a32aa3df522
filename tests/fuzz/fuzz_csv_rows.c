/* fuzz_csv_rows.c - the CSV record reader (core/csv_rows.h): any input
 * gives records or one error naming a line, never a crash or leak; record
 * lines never go back; and the records, written again with every field
 * quoted, read back the same. */
#include <stdint.h>
#include <stdlib.h>

#include "csv_rows.h"
#include "fuzz_assert.h"
#include "strbuf.h"

static void write_quoted(sb_buf *b, const sb_csv_table *t)
{
    for (size_t r = 0; r < t->n; r++) {
        for (size_t i = 0; i < t->records[r].n; i++) {
            if (i)
                sb_buf_putc(b, ',');
            sb_buf_putc(b, '"');
            for (const char *p = t->records[r].fields[i]; *p; p++) {
                if (*p == '"')
                    sb_buf_putc(b, '"');
                sb_buf_putc(b, *p);
            }
            sb_buf_putc(b, '"');
        }
        sb_buf_puts(b, "\r\n");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    sb_csv_table t;
    sb_error err;
    sb_error_clear(&err);
    if (sb_csv_read_table(text, size, "fuzz.csv", NULL, &t, &err) != SB_OK) {
        fuzz_assert_one_line_error(err);
        fuzz_assert(strcmp(err.file, "fuzz.csv") == 0);
        fuzz_assert(strncmp(err.where, "line ", 5) == 0);
        fuzz_assert(strtoul(err.where + 5, NULL, 10) >= 1 && strtoul(err.where + 5, NULL, 10) <= lines);
        sb_csv_table_free(&t);
        return 0;
    }
    for (size_t r = 0; r < t.n; r++) {
        fuzz_assert(t.records[r].n >= 1 && t.records[r].n <= SB_CSV_MAX_FIELDS);
        fuzz_assert(t.records[r].line >= 1 && t.records[r].line <= lines);
        fuzz_assert(r == 0 || t.records[r].line >= t.records[r - 1].line);
    }
    sb_buf again = SB_BUF_INIT;
    write_quoted(&again, &t);
    fuzz_assert(!sb_buf_failed(&again));
    sb_csv_table u;
    fuzz_assert(sb_csv_read_table(sb_buf_str(&again), again.len, "again.csv", NULL, &u, &err) == SB_OK);
    fuzz_assert(u.n == t.n);
    for (size_t r = 0; r < t.n; r++) {
        fuzz_assert(u.records[r].n == t.records[r].n);
        for (size_t i = 0; i < t.records[r].n; i++)
            fuzz_assert(strcmp(u.records[r].fields[i], t.records[r].fields[i]) == 0);
    }
    sb_csv_table_free(&u);
    sb_csv_table_free(&t);
    sb_buf_free(&again);
    return 0;
}
