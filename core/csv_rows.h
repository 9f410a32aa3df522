/* csv_rows.h - CSV records read with libcsv, one callback per record.
 *
 * Every CSV file solbook reads (data/skus.csv, data/import_op_names.csv,
 * data/contributions.csv, Liger-Kernel benchmark CSVs, Nsight Compute raw
 * CSVs) goes through here, so quoting, line numbers, limits and the wording
 * of a malformed file are the same everywhere. The parser is libcsv in
 * strict mode (CSV_STRICT | CSV_STRICT_FINI): a quote inside an unquoted
 * field, text after a closing quote and a quoted field still open at the end
 * of the file are errors. Fields are unquoted ("" is one quote), spaces and
 * tabs around an unquoted field are trimmed, records end at LF, CRLF or CR,
 * and blank lines are not records. A UTF-8 byte order mark at the start is
 * not part of the first field. A NUL byte anywhere is an error (fields are
 * handed out as C strings), and so is a byte that is not UTF-8 (fields
 * become JSON text, which must be UTF-8).
 *
 * Errors name the file and "line N" (the line the problem is on; for a
 * record, the line it starts on) in sb_error's where part, so the CLI prints
 * "FILE: line N: PROBLEM".
 */
#ifndef SOLBOOK_CORE_CSV_ROWS_H
#define SOLBOOK_CORE_CSV_ROWS_H

#include <stddef.h>

#include "error.h"

/* Limits unless the options say otherwise: fields in one record and bytes
 * in one field. */
#define SB_CSV_MAX_FIELDS 4096
#define SB_CSV_MAX_FIELD_BYTES (1024 * 1024)

typedef struct sb_csv_options {
    size_t first_line;       /* number of the buffer's first line; 0 means 1 */
    size_t max_fields;       /* 0 means SB_CSV_MAX_FIELDS */
    size_t max_field_bytes;  /* 0 means SB_CSV_MAX_FIELD_BYTES */
    /* When set, called with each physical line (its newline included)
     * before it is parsed, also inside a quoted field; nonzero leaves the
     * line out (it still counts for line numbers). Lets a reader drop
     * lines another program wrote into the same stream. */
    int (*skip_line)(const char *line, size_t len);
} sb_csv_options;

/* Called once per record, the header row included. fields[0..nfields) are
 * NUL-terminated and valid only during the call; line is the 1-based line
 * the record starts on. Return SB_OK to go on, or SB_ERR with err filled
 * (the file part may be left empty: the reader adds it) to stop reading. */
typedef int (*sb_csv_row_fn)(void *ctx, const char *const *fields, size_t nfields,
                             size_t line, sb_error *err);

/* Reads buf[0..len) record by record; name is the file named in errors.
 * opts may be NULL. Returns SB_OK, or SB_ERR with err filled: malformed CSV,
 * a limit passed, a NUL byte, a byte that is not UTF-8, out of memory, or
 * what row_fn returned. */
int sb_csv_read_buffer(const char *buf, size_t len, const char *name, const sb_csv_options *opts,
                       sb_csv_row_fn row_fn, void *ctx, sb_error *err);

/* The same for a whole file (sb_file_read_all's size limit applies). */
int sb_csv_read_file(const char *path, const sb_csv_options *opts, sb_csv_row_fn row_fn,
                     void *ctx, sb_error *err);

/* Fills err with "line N" as its where part, the form every CSV reader's
 * errors take, and returns SB_ERR. */
int sb_csv_line_error(sb_error *err, const char *file, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* All records of a buffer kept in memory, for readers that look at rows
 * more than once (a header and a units row before the data, rows grouped
 * by key). */
typedef struct sb_csv_record {
    const char **fields;   /* NUL-terminated */
    size_t n;
    size_t line;     /* the line the record starts on */
} sb_csv_record;

typedef struct sb_csv_table {
    sb_csv_record *records;
    size_t n, cap;
    size_t held; /* heap the records take, with the text read: at most SB_CSV_MAX_HELD */
} sb_csv_table;

/* Most heap a table of records may take with the text they come from: a
 * record of two empty fields takes 56 bytes held for its 2 bytes of text,
 * so the size of a file bounds nothing. */
#define SB_CSV_MAX_HELD ((size_t)384 << 20)

/* Reads every record of buf into *out (emptied first). A file whose
 * records would take more than SB_CSV_MAX_HELD held is refused at the
 * record that passes it. On SB_ERR *out keeps
 * the records before the one in error, so a caller can say which record
 * failed; free it with sb_csv_table_free either way. */
int sb_csv_read_table(const char *buf, size_t len, const char *name, const sb_csv_options *opts,
                      sb_csv_table *out, sb_error *err);
void sb_csv_table_free(sb_csv_table *t);

/* Looks names[0..n_names) up in a header row: col[k] is the index of the
 * field equal to names[k], or -1 when the header lacks it. Returns the index
 * of the first field that repeats one of names (col[k] keeps the first), or
 * nfields when none does. Fields naming none of names are left alone. */
size_t sb_csv_find_columns(const char *const *fields, size_t nfields, const char *const *names,
                           size_t n_names, int *col);

#endif
