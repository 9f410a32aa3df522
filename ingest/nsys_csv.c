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

static const char *const COLUMNS[C_COUNT] = {
    "Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)",
    "Min (ns)", "Max (ns)",        "StdDev (ns)", "Name",
};

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

/* Cell c of rec as a number, a time in ns read as ms (counts and shares
 * as written): SB_OK with *has set (0 for an empty cell of an optional
 * column), or the line refused. */
static int cell_number(const sb_csv_record *rec, const int *col, int c, int required,
                       const char *name, double *v, int *has, sb_error *err)
{
    *has = 0;
    if (col[c] < 0)
        return SB_OK;
    const char *cell = rec->fields[col[c]];
    if (!*cell && !required)
        return SB_OK;
    int shift = strstr(COLUMNS[c], "(ns)") ? -6 : 0;
    if (parse_number(cell, shift, v) != SB_OK)
        return sb_csv_line_error(err, name, rec->line, "\"%s\" %s is not a non-negative number",
                                 COLUMNS[c], *cell ? cell : "(empty)");
    *has = 1;
    return SB_OK;
}

static int build(const sb_csv_table *t, const char *name, sb_nsys_summary **out, sb_error *err)
{
    int col[C_COUNT];
    size_t h = 0;
    for (; h < t->n; h++) {
        const sb_csv_record *r = &t->records[h];
        size_t dup = sb_csv_find_columns(r->fields, r->n, COLUMNS, C_COUNT, col);
        if (col[C_TOTAL] >= 0 && col[C_NAME] >= 0) {
            if (dup != r->n)
                return sb_csv_line_error(err, name, r->line, "column \"%s\" appears twice in the header",
                                         r->fields[dup]);
            break;
        }
    }
    if (h == t->n)
        return sb_error_set(err, name, NULL,
                            "no cuda_gpu_kern_sum header (a row with \"Total Time (ns)\" and \"Name\"); "
                            "write it with 'nsys stats --report cuda_gpu_kern_sum --format csv'");
    const sb_csv_record *hdr = &t->records[h];
    if (col[C_INST] < 0)
        return sb_csv_line_error(err, name, hdr->line, "the header has no \"Instances\" column");
    if (h + 1 >= t->n)
        return sb_csv_line_error(err, name, hdr->line, "no kernel rows after the header");
    sb_nsys_summary *s = calloc(1, sizeof *s);
    if (!s || !(s->rows = calloc(t->n - h - 1, sizeof *s->rows))) {
        free(s);
        return sb_error_set(err, name, NULL, "out of memory");
    }
    for (size_t i = h + 1; i < t->n; i++) {
        const sb_csv_record *r = &t->records[i];
        sb_kernel_summary_row *k = &s->rows[s->n];
        if (r->n != hdr->n) {
            sb_csv_line_error(err, name, r->line, "%zu cells, the header has %zu", r->n, hdr->n);
            goto fail;
        }
        const char *kname = r->fields[col[C_NAME]];
        if (!*kname) {
            sb_csv_line_error(err, name, r->line, "empty \"Name\"");
            goto fail;
        }
        double pct = 0, total = 0, inst = 0, avg = 0, med = 0, mn = 0, mx = 0, sd = 0;
        int has_total, has_inst;
        if (cell_number(r, col, C_PCT, 0, name, &pct, &k->has_time_pct, err) != SB_OK ||
            cell_number(r, col, C_TOTAL, 1, name, &total, &has_total, err) != SB_OK ||
            cell_number(r, col, C_INST, 1, name, &inst, &has_inst, err) != SB_OK ||
            cell_number(r, col, C_AVG, 0, name, &avg, &k->has_avg, err) != SB_OK ||
            cell_number(r, col, C_MED, 0, name, &med, &k->has_med, err) != SB_OK ||
            cell_number(r, col, C_MIN, 0, name, &mn, &k->has_min, err) != SB_OK ||
            cell_number(r, col, C_MAX, 0, name, &mx, &k->has_max, err) != SB_OK ||
            cell_number(r, col, C_STDDEV, 0, name, &sd, &k->has_stddev, err) != SB_OK)
            goto fail;
        if (inst < 1 || inst != floor(inst) || inst > 9007199254740992.0) { /* 2^53 */
            sb_csv_line_error(err, name, r->line, "\"Instances\" %s is not a whole number of launches",
                              r->fields[col[C_INST]]);
            goto fail;
        }
        if (k->has_time_pct && pct > 100) {
            sb_csv_line_error(err, name, r->line, "\"Time (%%)\" %s is over 100", r->fields[col[C_PCT]]);
            goto fail;
        }
        if (k->has_min && k->has_max && mn > mx) {
            sb_csv_line_error(err, name, r->line, "\"Min (ns)\" %s is over \"Max (ns)\" %s",
                              r->fields[col[C_MIN]], r->fields[col[C_MAX]]);
            goto fail;
        }
        if (!(k->kernel_name = strdup(kname))) {
            sb_error_set(err, name, NULL, "out of memory");
            goto fail;
        }
        s->n++;
        k->instances = (long long)inst;
        k->time_pct = pct;
        k->total_ms = total;
        k->avg_ms = avg;
        k->med_ms = med;
        k->min_ms = mn;
        k->max_ms = mx;
        k->stddev_ms = sd;
    }
    *out = s;
    return SB_OK;
fail:
    sb_nsys_summary_free(s);
    return SB_ERR;
}

int sb_nsys_csv_parse_buffer(const char *buf, size_t len, const char *name, sb_nsys_summary **out,
                             sb_error *err)
{
    *out = NULL;
    sb_csv_options o = {0};
    o.skip_line = skip_message;
    sb_csv_table t = {0};
    int rc = sb_csv_read_table(buf, len, name, &o, &t, err);
    if (rc == SB_OK)
        rc = build(&t, name, out, err);
    sb_csv_table_free(&t);
    return rc;
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
