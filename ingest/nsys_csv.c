/* nsys_csv.c - Nsight Systems cuda_gpu_kern_sum CSV into kernel summary rows. */
#include "nsys_csv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rows.h"
#include "decimal.h"
#include "json_file.h"

enum { C_PCT, C_TOTAL, C_INST, C_AVG, C_MED, C_MIN, C_MAX, C_STDDEV, C_NAME, C_COUNT };

/* The column names of each nsys version's kernel summary, newest first
 * (docs/IMPORT.md cites where each set was seen); NULL where that version
 * has no such column. Every time column is in ns, the unitless "Average",
 * "Minimum" and "Maximum" of the oldest set included: its report states
 * "All time values given in nanoseconds". */
typedef struct header_set {
    const char *names[C_COUNT];
} header_set;

static const header_set SETS[] = {
    /* cuda_gpu_kern_sum, the report's current name */
    {{"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
      "Name"}},
    /* gpukernsum of earlier versions, with units in the names */
    {{"Time(%)", "Total Time (ns)", "Instances", "Average (ns)", NULL, "Minimum (ns)", "Maximum (ns)", "StdDev (ns)",
      "Name"}},
    /* gpukernsum in its first form */
    {{"Time(%)", "Total Time (ns)", "Instances", "Average", NULL, "Minimum", "Maximum", NULL, "Name"}},
};
enum { N_SETS = sizeof SETS / sizeof *SETS };

void sb_nsys_summary_free(sb_nsys_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free((char *)s->rows[i].kernel_name);
    free(s->rows);
    free(s);
}

/* nsys's own messages, written to the same stream before the CSV. */
static int skip_message(const char *line, size_t len)
{
    static const char *const prefixes[] = {"Processing [", "** ", "NOTICE:", "Generating "};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]);
        if (len >= n && memcmp(line, prefixes[i], n) == 0)
            return 1;
    }
    return 0;
}

/* A plain non-negative decimal number, as nsys writes them (a digit
 * first), times 10^shift, read exactly (sb_decimal_scaled). */
static int parse_number(const char *cell, int shift, double *out)
{
    if (!isdigit((unsigned char)*cell))
        return SB_ERR;
    return sb_decimal_scaled(cell, shift, out, NULL) == 0 ? SB_OK : SB_ERR;
}

/* Cell c of a record as a number, a time in ns read as ms (counts and
 * shares as written): SB_OK with *has set (0 for an empty cell of an
 * optional column), or the line refused. */
static int cell_number(const char *const *fields, size_t line, const int *col, const header_set *set, int c,
                       int required, const char *name, double *v, int *has, sb_error *err)
{
    *has = 0;
    if (col[c] < 0)
        return SB_OK;
    const char *cell = fields[col[c]];
    if (!*cell && !required)
        return SB_OK;
    int shift = c >= C_TOTAL && c <= C_STDDEV && c != C_INST ? -6 : 0;
    if (parse_number(cell, shift, v) != SB_OK)
        return sb_csv_line_error(err, name, line, "\"%s\" %s is not a non-negative number", set->names[c],
                                 *cell ? cell : "(empty)");
    *has = 1;
    return SB_OK;
}

/* The reading of one CSV, record by record: lines before the header are
 * passed over, then each kernel row is handed to fn. */
typedef struct reader {
    const char *name;
    sb_nsys_row_fn fn;
    void *ctx;
    int col[C_COUNT];
    const header_set *set; /* the version whose header was found */
    size_t ncols;       /* the header's cells; 0 before the header */
    size_t header_line;
    size_t rows;
} reader;

/* Looks one version's names up in a header row: col as
 * sb_csv_find_columns, and the number of them found. */
static size_t find_set(const header_set *set, const char *const *fields, size_t n, int *col, size_t *dup)
{
    const char *names[C_COUNT];
    int where[C_COUNT], found[C_COUNT];
    size_t k = 0, hits = 0;
    for (int c = 0; c < C_COUNT; c++) {
        col[c] = -1;
        if (set->names[c]) {
            where[k] = c;
            names[k++] = set->names[c];
        }
    }
    *dup = sb_csv_find_columns(fields, n, names, k, found);
    for (size_t i = 0; i < k; i++)
        if ((col[where[i]] = found[i]) >= 0)
            hits++;
    return hits;
}

/* The header is the first row with "Total Time (ns)" and "Name"; every
 * version names those two alike, so the version is the one whose names
 * the row holds most of (a row of only those two reads as the newest). */
static int take_header(reader *r, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    size_t best = 0, dup = n;
    for (size_t s = 0; s < N_SETS; s++) {
        int col[C_COUNT];
        size_t d, hits = find_set(&SETS[s], fields, n, col, &d);
        if (col[C_TOTAL] < 0 || col[C_NAME] < 0 || hits <= best)
            continue;
        best = hits;
        dup = d;
        r->set = &SETS[s];
        memcpy(r->col, col, sizeof col);
    }
    if (!best) {
        /* the header of a report written with another --timeunit */
        for (size_t i = 0; i < n; i++)
            if (strncmp(fields[i], "Total Time (", 12) == 0 && strcmp(fields[i], "Total Time (ns)") != 0)
                return sb_csv_line_error(err, r->name, line,
                                         "\"%s\": times in another unit than ns; write them with "
                                         "'nsys stats --timeunit nsec'", fields[i]);
        return SB_OK; /* not the header yet */
    }
    if (dup != n)
        return sb_csv_line_error(err, r->name, line, "column \"%s\" appears twice in the header", fields[dup]);
    if (r->col[C_INST] < 0)
        return sb_csv_line_error(err, r->name, line, "the header has no \"Instances\" column");
    r->ncols = n;
    r->header_line = line;
    return SB_OK;
}

static int take_kernel(reader *r, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    const char *name = r->name;
    const int *col = r->col;
    if (n != r->ncols)
        return sb_csv_line_error(err, name, line, "%zu cells, the header has %zu", n, r->ncols);
    const char *kname = fields[col[C_NAME]];
    if (!*kname)
        return sb_csv_line_error(err, name, line, "empty \"Name\"");
    sb_kernel_summary_row k = {0};
    double pct = 0, total = 0, inst = 0, avg = 0, med = 0, mn = 0, mx = 0, sd = 0;
    int has_total, has_inst;
    if (cell_number(fields, line, col, r->set, C_PCT, 0, name, &pct, &k.has_time_pct, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_TOTAL, 1, name, &total, &has_total, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_INST, 1, name, &inst, &has_inst, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_AVG, 0, name, &avg, &k.has_avg, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_MED, 0, name, &med, &k.has_med, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_MIN, 0, name, &mn, &k.has_min, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_MAX, 0, name, &mx, &k.has_max, err) != SB_OK ||
        cell_number(fields, line, col, r->set, C_STDDEV, 0, name, &sd, &k.has_stddev, err) != SB_OK)
        return SB_ERR;
    if (inst < 1 || inst != floor(inst) || inst > 9007199254740992.0) /* 2^53 */
        return sb_csv_line_error(err, name, line, "\"Instances\" %s is not a whole number of launches",
                                 fields[col[C_INST]]);
    if (k.has_time_pct && pct > 100)
        return sb_csv_line_error(err, name, line, "\"%s\" %s is over 100", r->set->names[C_PCT], fields[col[C_PCT]]);
    if (k.has_min && k.has_max && mn > mx)
        return sb_csv_line_error(err, name, line, "\"%s\" %s is over \"%s\" %s", r->set->names[C_MIN],
                                 fields[col[C_MIN]], r->set->names[C_MAX], fields[col[C_MAX]]);
    k.kernel_name = kname;
    k.instances = (long long)inst;
    k.time_pct = pct;
    k.total_ms = total;
    k.avg_ms = avg;
    k.med_ms = med;
    k.min_ms = mn;
    k.max_ms = mx;
    k.stddev_ms = sd;
    return r->fn(r->ctx, r->rows++, &k, err);
}

static int on_record(void *ctx, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    reader *r = ctx;
    return r->ncols ? take_kernel(r, fields, n, line, err) : take_header(r, fields, n, line, err);
}

int sb_nsys_csv_each(const char *buf, size_t len, const char *name, sb_nsys_row_fn fn, void *ctx, sb_error *err)
{
    sb_csv_options o = {0};
    o.skip_line = skip_message;
    reader r = {.name = name, .fn = fn, .ctx = ctx};
    if (sb_csv_read_buffer(buf, len, name, &o, on_record, &r, err) != SB_OK)
        return SB_ERR;
    if (!r.ncols)
        return sb_error_set(err, name, NULL,
                            "no cuda_gpu_kern_sum header (a row with \"Total Time (ns)\" and \"Name\"); "
                            "write it with 'nsys stats --report cuda_gpu_kern_sum --format csv'");
    if (!r.rows)
        return sb_csv_line_error(err, name, r.header_line, "no kernel rows after the header");
    return SB_OK;
}

/* Collects the rows into a summary, whose room grows to powers of two. */
static int collect(void *ctx, size_t index, const sb_kernel_summary_row *row, sb_error *err)
{
    sb_nsys_summary *s = ctx;
    if ((index & (index - 1)) == 0) {
        sb_kernel_summary_row *v = realloc(s->rows, (index ? 2 * index : 1) * sizeof *v);
        if (!v)
            return sb_error_set(err, NULL, NULL, "out of memory");
        s->rows = v;
    }
    s->rows[s->n] = *row;
    if (!(s->rows[s->n].kernel_name = strdup(row->kernel_name)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    s->n++;
    return SB_OK;
}

int sb_nsys_csv_parse_buffer(const char *buf, size_t len, const char *name, sb_nsys_summary **out,
                             sb_error *err)
{
    *out = NULL;
    sb_nsys_summary *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, name, NULL, "out of memory");
    if (sb_nsys_csv_each(buf, len, name, collect, s, err) != SB_OK) {
        sb_nsys_summary_free(s);
        return SB_ERR;
    }
    *out = s;
    return SB_OK;
}

int sb_nsys_csv_parse_file(const char *path, sb_nsys_summary **out, sb_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    if (sb_file_read_all(path, &buf, &len, err) != SB_OK)
        return SB_ERR;
    int rc = sb_nsys_csv_parse_buffer(buf, len, path, out, err);
    free(buf);
    return rc;
}
