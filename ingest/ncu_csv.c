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

static char *dup_or_null(const char *s, int *oom)
{
    char *d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static int build(const sb_csv_table *r, const char *name, sb_ncu_profile **out, sb_error *err)
{
    char where[128];
    size_t h = 0;
    while (h < r->n && !(r->records[h].n > 1 && strcmp(r->records[h].fields[0], "ID") == 0))
        h++;
    if (h == r->n)
        return sb_error_set(err, name, NULL,
                            "no ncu raw CSV header (a row starting with \"ID\"); write it with "
                            "'ncu --csv --page raw'");
    const sb_csv_record *hdr = &r->records[h];
    long kname_col = -1, id_col = 0;
    size_t n_metric_cols = 0;
    for (size_t c = 0; c < hdr->n; c++) {
        if (strcmp(hdr->fields[c], "Kernel Name") == 0)
            kname_col = (long)c;
        if (is_metric_name(hdr->fields[c]))
            n_metric_cols++;
        for (size_t d = 0; d < c; d++)
            if (hdr->fields[c][0] && strcmp(hdr->fields[c], hdr->fields[d]) == 0) {
                snprintf(where, sizeof where, "line %zu", hdr->line);
                return sb_error_set(err, name, where, "column \"%s\" appears twice in the header",
                                    hdr->fields[c]);
            }
    }
    snprintf(where, sizeof where, "line %zu", hdr->line);
    if (kname_col < 0)
        return sb_error_set(err, name, where, "the header has no \"Kernel Name\" column");
    if (n_metric_cols == 0)
        return sb_error_set(err, name, where,
                            "the header has no metric columns (names like gpu__time_duration.sum)");

    size_t first = h + 1;
    const sb_csv_record *units = NULL;
    if (first < r->n && r->records[first].fields[0][0] == '\0') {
        units = &r->records[first];
        if (units->n != hdr->n) {
            snprintf(where, sizeof where, "line %zu (row %zu)", units->line, first + 1);
            return sb_error_set(err, name, where, "units row has %zu cells, the header has %zu",
                                units->n, hdr->n);
        }
        first++;
    }
    if (first >= r->n)
        return sb_error_set(err, name, where, "no kernel rows after the header");

    sb_ncu_profile *p = calloc(1, sizeof *p);
    int oom = !p;
    size_t n_k = r->n - first;
    if (p) {
        p->kernel_names = calloc(n_k, sizeof *p->kernel_names);
        p->kernel_ids = calloc(n_k, sizeof *p->kernel_ids);
        p->metric_names = calloc(n_metric_cols, sizeof *p->metric_names);
        p->metric_units = calloc(n_metric_cols, sizeof *p->metric_units);
        p->values = calloc(n_k * n_metric_cols, sizeof *p->values);
        oom = !p->kernel_names || !p->kernel_ids || !p->metric_names || !p->metric_units ||
              !p->values;
    }
    size_t *col_metric = calloc(hdr->n, sizeof *col_metric);
    if (oom || !col_metric) {
        free(col_metric);
        sb_ncu_profile_free(p);
        return sb_error_set(err, name, NULL, "out of memory");
    }
    for (size_t c = 0; c < hdr->n && !oom; c++) {
        col_metric[c] = (size_t)-1;
        if (!is_metric_name(hdr->fields[c]))
            continue;
        col_metric[c] = p->n_metrics;
        p->metric_names[p->n_metrics] = dup_or_null(hdr->fields[c], &oom);
        p->metric_units[p->n_metrics] = dup_or_null(units ? units->fields[c] : "", &oom);
        p->n_metrics++;
    }
    int rc = SB_OK;
    for (size_t i = first; i < r->n && rc == SB_OK && !oom; i++) {
        const sb_csv_record *w = &r->records[i];
        snprintf(where, sizeof where, "line %zu (row %zu)", w->line, i + 1);
        if (w->n != hdr->n) {
            rc = sb_error_set(err, name, where, "%zu cells, the header has %zu", w->n, hdr->n);
            break;
        }
        char *end;
        errno = 0;
        long long id = strtoll(w->fields[id_col], &end, 10);
        if (!w->fields[id_col][0] || *end || errno) {
            rc = sb_error_set(err, name, where, "ID \"%s\" is not an integer", w->fields[id_col]);
            break;
        }
        if (!w->fields[kname_col][0]) {
            rc = sb_error_set(err, name, where, "empty Kernel Name");
            break;
        }
        size_t k = p->n_kernels++;
        p->kernel_ids[k] = id;
        p->kernel_names[k] = dup_or_null(w->fields[kname_col], &oom);
        for (size_t c = 0; c < w->n; c++) {
            if (col_metric[c] == (size_t)-1 || no_value(w->fields[c]))
                continue;
            double v;
            if (sb_ncu_parse_number(w->fields[c], &v) != SB_OK) {
                if (!is_sol_metric(hdr->fields[c]))
                    continue;
                rc = sb_error_set(err, name, where, "%s: \"%s\" is not a number", hdr->fields[c],
                                  w->fields[c]);
                break;
            }
            p->values[p->n_values].kernel = k;
            p->values[p->n_values].metric = col_metric[c];
            p->values[p->n_values].value = v;
            p->n_values++;
        }
    }
    free(col_metric);
    if (oom && rc == SB_OK)
        rc = sb_error_set(err, name, NULL, "out of memory");
    if (rc != SB_OK) {
        sb_ncu_profile_free(p);
        return SB_ERR;
    }
    *out = p;
    return SB_OK;
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

int sb_ncu_csv_parse_buffer(const char *buf, size_t len, const char *name,
                            sb_ncu_profile **out, sb_error *err)
{
    *out = NULL;
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
    sb_csv_table t;
    int rc = sb_csv_read_table(buf + pos, len - pos, name, &opts, &t, err);
    if (rc != SB_OK && err && err->where[0]) {
        /* rows count from the header, as in the errors build() gives */
        char row[32];
        snprintf(row, sizeof row, " (row %zu)", t.n + 1);
        strncat(err->where, row, sizeof err->where - strlen(err->where) - 1);
    }
    if (rc == SB_OK && t.n == 0)
        rc = sb_error_set(err, name, NULL, "empty file: no ncu CSV rows");
    if (rc == SB_OK)
        rc = build(&t, name, out, err);
    sb_csv_table_free(&t);
    return rc;
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
