/* ncu_csv.c - Nsight Compute raw CSV into a profile (records from csv_rows.h). */
#include "ncu_csv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rows.h"
#include "json_file.h"

const char *const SB_NCU_SOL_METRICS[] = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "gpu__time_duration.sum",
};

void sb_ncu_profile_free(sb_ncu_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_kernels; i++)
        free(p->kernel_names[i]);
    for (size_t i = 0; i < p->n_metrics; i++) {
        free(p->metric_names[i]);
        free(p->metric_units[i]);
    }
    free(p->kernel_names);
    free(p->kernel_ids);
    free(p->metric_names);
    free(p->metric_units);
    free(p->values);
    free(p);
}

int sb_ncu_parse_number(const char *cell, double *out)
{
    char buf[128];
    size_t n = 0;
    const char *s = cell;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '+' || *s == '-')
        buf[n++] = *s++;
    /* Integer part: digits, optionally grouped by commas in threes. */
    size_t digits = 0, group = 0;
    int grouped = 0;
    for (; *s; s++) {
        if (isdigit((unsigned char)*s)) {
            if (n + 1 >= sizeof buf)
                return SB_ERR;
            buf[n++] = *s;
            digits++;
            group++;
        } else if (*s == ',') {
            if (digits == 0 || (grouped && group != 3) || (!grouped && group > 3))
                return SB_ERR;
            grouped = 1;
            group = 0;
        } else {
            break;
        }
    }
    if (grouped && group != 3)
        return SB_ERR;
    /* The rest (fraction, exponent) must not contain separators. */
    for (; *s && !isspace((unsigned char)*s); s++) {
        if (!(isdigit((unsigned char)*s) || *s == '.' || *s == 'e' || *s == 'E' || *s == '+' ||
              *s == '-'))
            return SB_ERR;
        if (n + 1 >= sizeof buf)
            return SB_ERR;
        buf[n++] = *s;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s)
        return SB_ERR;
    buf[n] = '\0';
    if (n == 0 || (n == 1 && (buf[0] == '+' || buf[0] == '-')))
        return SB_ERR;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || end == buf || errno == ERANGE || !isfinite(v))
        return SB_ERR;
    *out = v;
    return SB_OK;
}

static int is_metric_name(const char *name)
{
    const char *u = strstr(name, "__");
    if (!u || u == name || !u[2])
        return 0;
    for (const char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
            return 0;
    return 1;
}

static int is_sol_metric(const char *name)
{
    for (int i = 0; i < SB_NCU_SOL_METRIC_COUNT; i++)
        if (strcmp(name, SB_NCU_SOL_METRICS[i]) == 0)
            return 1;
    return 0;
}

static int no_value(const char *cell)
{
    while (isspace((unsigned char)*cell))
        cell++;
    return *cell == '\0' || strcmp(cell, "n/a") == 0 || strcmp(cell, "N/A") == 0;
}

/* The reading of one CSV, record by record: the header, the units row
 * when there is one, then each kernel row handed to fn with its values. */
typedef struct reader {
    const char *name;
    sb_ncu_row_fn fn;
    void *ctx;
    size_t records;      /* records seen, the header's included */
    size_t header_line;
    int row_failed;      /* the error is a record's, not the CSV's */
    int state;           /* 0: before the header, 1: after it, 2: in the kernel rows */
    size_t ncols;        /* the header's cells */
    long kname_col;
    char **col_name;     /* the header's cells */
    size_t *col_metric;  /* column -> metric index, (size_t)-1 for other columns */
    size_t n_metrics;
    const char **metric_names, **metric_units; /* into col_name and units */
    char **units;        /* the units row's cells, or NULL */
    size_t n_kernels;
    sb_ncu_value *values; /* one kernel row's, n_metrics at most */
} reader;

static void reader_free(reader *r)
{
    for (size_t c = 0; c < r->ncols; c++) {
        free(r->col_name ? r->col_name[c] : NULL);
        free(r->units ? r->units[c] : NULL);
    }
    free(r->col_name);
    free(r->units);
    free(r->col_metric);
    free(r->metric_names);
    free(r->metric_units);
    free(r->values);
}

static int oom(const reader *r, sb_error *err)
{
    return sb_error_set(err, r->name, NULL, "out of memory");
}

static int take_header(reader *r, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    char where[128];
    snprintf(where, sizeof where, "line %zu", line);
    r->kname_col = -1;
    for (size_t c = 0; c < n; c++) {
        if (strcmp(fields[c], "Kernel Name") == 0)
            r->kname_col = (long)c;
        if (is_metric_name(fields[c]))
            r->n_metrics++;
        for (size_t d = 0; d < c; d++)
            if (fields[c][0] && strcmp(fields[c], fields[d]) == 0)
                return sb_error_set(err, r->name, where, "column \"%s\" appears twice in the header", fields[c]);
    }
    if (r->kname_col < 0)
        return sb_error_set(err, r->name, where, "the header has no \"Kernel Name\" column");
    if (r->n_metrics == 0)
        return sb_error_set(err, r->name, where,
                            "the header has no metric columns (names like gpu__time_duration.sum)");
    r->ncols = n;
    r->col_name = calloc(n, sizeof *r->col_name);
    r->col_metric = calloc(n, sizeof *r->col_metric);
    r->metric_names = calloc(r->n_metrics, sizeof *r->metric_names);
    r->metric_units = calloc(r->n_metrics, sizeof *r->metric_units);
    r->values = calloc(r->n_metrics, sizeof *r->values);
    if (!r->col_name || !r->col_metric || !r->metric_names || !r->metric_units || !r->values)
        return oom(r, err);
    size_t m = 0;
    for (size_t c = 0; c < n; c++) {
        if (!(r->col_name[c] = strdup(fields[c])))
            return oom(r, err);
        r->col_metric[c] = (size_t)-1;
        if (!is_metric_name(fields[c]))
            continue;
        r->col_metric[c] = m;
        r->metric_names[m] = r->col_name[c];
        r->metric_units[m++] = "";
    }
    r->state = 1;
    r->header_line = line;
    return SB_OK;
}

static int take_units(reader *r, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    if (n != r->ncols) {
        char where[128];
        snprintf(where, sizeof where, "line %zu (row %zu)", line, r->records);
        return sb_error_set(err, r->name, where, "units row has %zu cells, the header has %zu", n, r->ncols);
    }
    if (!(r->units = calloc(n, sizeof *r->units)))
        return oom(r, err);
    for (size_t c = 0; c < n; c++) {
        if (!(r->units[c] = strdup(fields[c])))
            return oom(r, err);
        if (r->col_metric[c] != (size_t)-1)
            r->metric_units[r->col_metric[c]] = r->units[c];
    }
    return SB_OK;
}

static int take_kernel(reader *r, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    char where[128];
    snprintf(where, sizeof where, "line %zu (row %zu)", line, r->records);
    if (n != r->ncols)
        return sb_error_set(err, r->name, where, "%zu cells, the header has %zu", n, r->ncols);
    char *end;
    errno = 0;
    long long id = strtoll(fields[0], &end, 10);
    if (!fields[0][0] || *end || errno)
        return sb_error_set(err, r->name, where, "ID \"%s\" is not an integer", fields[0]);
    if (!fields[r->kname_col][0])
        return sb_error_set(err, r->name, where, "empty Kernel Name");
    size_t k = r->n_kernels++, nv = 0;
    for (size_t c = 0; c < n; c++) {
        if (r->col_metric[c] == (size_t)-1 || no_value(fields[c]))
            continue;
        double v;
        if (sb_ncu_parse_number(fields[c], &v) != SB_OK) {
            if (!is_sol_metric(r->col_name[c]))
                continue;
            return sb_error_set(err, r->name, where, "%s: \"%s\" is not a number", r->col_name[c], fields[c]);
        }
        r->values[nv++] = (sb_ncu_value){k, r->col_metric[c], v};
    }
    sb_ncu_row row = {k,        id,        fields[r->kname_col], r->n_metrics, r->metric_names, r->metric_units,
                      nv,       r->values};
    return r->fn(r->ctx, &row, err);
}

static int take_record(reader *r, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    if (r->state == 0)
        return n > 1 && strcmp(fields[0], "ID") == 0 ? take_header(r, fields, n, line, err) : SB_OK;
    if (r->state == 1) {
        r->state = 2;
        if (fields[0][0] == '\0')
            return take_units(r, fields, n, line, err);
    }
    return take_kernel(r, fields, n, line, err);
}

static int on_record(void *ctx, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    reader *r = ctx;
    r->records++;
    int rc = take_record(r, fields, n, line, err);
    r->row_failed = rc != SB_OK;
    return rc;
}

/* ncu's own messages ("==PROF== Disconnected from process 1", "==WARNING== ...")
 * share stdout with the CSV; they are not rows. */
static int is_tool_message(const char *line, size_t n)
{
    if (n < 4 || line[0] != '=' || line[1] != '=')
        return 0;
    size_t i = 2;
    while (i < n && isupper((unsigned char)line[i]))
        i++;
    return i > 2 && i + 1 < n && line[i] == '=' && line[i + 1] == '=';
}

int sb_ncu_csv_each(const char *buf, size_t len, const char *name, sb_ncu_row_fn fn, void *ctx, sb_error *err)
{
    /* A UTF-8 byte order mark is not part of the first cell. */
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        buf += 3;
        len -= 3;
    }
    if (memchr(buf, '\0', len))
        return sb_error_set(err, name, NULL, "contains NUL bytes: not a CSV text file");
    /* Skip what comes before the header line: ncu's ==PROF== messages and
     * the application's own output share stdout with the CSV. */
    size_t pos = 0, skipped = 0;
    while (pos < len) {
        const char *at = buf + pos;
        size_t rest = len - pos;
        if ((rest >= 5 && memcmp(at, "\"ID\",", 5) == 0) || (rest >= 3 && memcmp(at, "ID,", 3) == 0))
            break;
        const char *nl = memchr(at, '\n', rest);
        if (!nl) {
            pos = len;
            break;
        }
        pos += (size_t)(nl - at) + 1;
        skipped++;
    }
    if (pos >= len)
        return sb_error_set(err, name, NULL,
                            "no ncu raw CSV header (a line starting with \"ID\"); write it with "
                            "'ncu --csv --page raw'");
    sb_csv_options opts = {.first_line = skipped + 1, .skip_line = is_tool_message};
    reader r = {.name = name, .fn = fn, .ctx = ctx};
    int rc = sb_csv_read_buffer(buf + pos, len - pos, name, &opts, on_record, &r, err);
    if (rc != SB_OK && !r.row_failed && err && err->where[0]) {
        /* rows count from the header, as the errors of the rows do */
        char row[32];
        snprintf(row, sizeof row, " (row %zu)", r.records + 1);
        strncat(err->where, row, sizeof err->where - strlen(err->where) - 1);
    }
    if (rc == SB_OK && r.records == 0)
        rc = sb_error_set(err, name, NULL, "empty file: no ncu CSV rows");
    else if (rc == SB_OK && r.state == 0)
        rc = sb_error_set(err, name, NULL,
                          "no ncu raw CSV header (a row starting with \"ID\"); write it with "
                          "'ncu --csv --page raw'");
    else if (rc == SB_OK && r.n_kernels == 0) {
        char where[64];
        snprintf(where, sizeof where, "line %zu", r.header_line);
        rc = sb_error_set(err, name, where, "no kernel rows after the header");
    }
    reader_free(&r);
    return rc;
}

/* Collects the rows into a profile. */
static int collect(void *ctx, const sb_ncu_row *row, sb_error *err)
{
    sb_ncu_profile *p = ctx;
    if (!p->metric_names) {
        p->metric_names = calloc(row->n_metrics, sizeof *p->metric_names);
        p->metric_units = calloc(row->n_metrics, sizeof *p->metric_units);
        if (!p->metric_names || !p->metric_units)
            return sb_error_set(err, NULL, NULL, "out of memory");
        for (; p->n_metrics < row->n_metrics; p->n_metrics++) {
            p->metric_names[p->n_metrics] = strdup(row->metric_names[p->n_metrics]);
            p->metric_units[p->n_metrics] = strdup(row->metric_units[p->n_metrics]);
            if (!p->metric_names[p->n_metrics] || !p->metric_units[p->n_metrics]) {
                p->n_metrics++;
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
        }
    }
    if ((row->kernel & (row->kernel - 1)) == 0) { /* 0, 1, 2, 4, ...: room for twice as many */
        size_t cap = row->kernel ? 2 * row->kernel : 1;
        char **kn = realloc(p->kernel_names, cap * sizeof *kn);
        if (kn)
            p->kernel_names = kn;
        long long *ki = realloc(p->kernel_ids, cap * sizeof *ki);
        if (ki)
            p->kernel_ids = ki;
        if (!kn || !ki)
            return sb_error_set(err, NULL, NULL, "out of memory");
    }
    if (!(p->kernel_names[p->n_kernels] = strdup(row->kernel_name)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    p->kernel_ids[p->n_kernels++] = row->kernel_id;
    /* values grow to powers of two: the room there is, is the power of
     * two at or above n_values */
    size_t need = p->n_values + row->n_values, room = p->n_values ? 1 : 0, cap = 1;
    while (room && room < p->n_values)
        room *= 2;
    while (cap < need)
        cap *= 2;
    if (need > room) {
        sb_ncu_value *v = realloc(p->values, cap * sizeof *v);
        if (!v)
            return sb_error_set(err, NULL, NULL, "out of memory");
        p->values = v;
    }
    if (row->n_values) { /* a kernel of no values leaves values NULL: no pointer arithmetic on it */
        memcpy(p->values + p->n_values, row->values, row->n_values * sizeof *row->values);
        p->n_values += row->n_values;
    }
    return SB_OK;
}

int sb_ncu_csv_parse_buffer(const char *buf, size_t len, const char *name,
                            sb_ncu_profile **out, sb_error *err)
{
    *out = NULL;
    sb_ncu_profile *p = calloc(1, sizeof *p);
    if (!p)
        return sb_error_set(err, name, NULL, "out of memory");
    if (sb_ncu_csv_each(buf, len, name, collect, p, err) != SB_OK) {
        sb_ncu_profile_free(p);
        return SB_ERR;
    }
    *out = p;
    return SB_OK;
}

int sb_ncu_csv_parse_file(const char *path, sb_ncu_profile **out, sb_error *err)
{
    char *buf;
    size_t len;
    *out = NULL;
    if (sb_file_read_all(path, &buf, &len, err) != SB_OK)
        return SB_ERR;
    int rc = sb_ncu_csv_parse_buffer(buf, len, path, out, err);
    free(buf);
    return rc;
}

const sb_ncu_value *sb_ncu_profile_find(const sb_ncu_profile *p, size_t kernel,
                                        const char *metric)
{
    for (size_t i = 0; i < p->n_values; i++)
        if (p->values[i].kernel == kernel &&
            strcmp(p->metric_names[p->values[i].metric], metric) == 0)
            return &p->values[i];
    return NULL;
}
