/* import_liger.c - Liger-Kernel benchmark CSV (benchmark/data/ in its repository).
 *
 * One row is one (kernel, provider, mode, metric, x) measurement with the
 * 20/50/80 % quantiles. The speed and memory rows of one case (kernel,
 * provider, mode, x, extra config, GPU) become one run; docs/IMPORT.md
 * gives the field mapping.
 */
#include "import_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rows.h"
#include "json_file.h"

enum {
    C_KERNEL, C_PROVIDER, C_MODE, C_METRIC, C_UNIT, C_XNAME, C_XLABEL, C_XVALUE,
    C_Y50, C_Y20, C_Y80, C_CONFIG, C_GPU, C_TIME, C_VERSION, C_COUNT
};
static const char *const column_names[C_COUNT] = {
    "kernel_name", "kernel_provider", "kernel_operation_mode", "metric_name", "metric_unit",
    "x_name", "x_label", "x_value", "y_value_50", "y_value_20", "y_value_80",
    "extra_benchmark_config_str", "gpu_name", "timestamp", "liger_version"};
/* Columns a row cannot do without; the others may be absent from the header. */
static const int required_columns[] = {C_KERNEL, C_PROVIDER, C_MODE, C_METRIC, C_XNAME,
                                       C_XVALUE, C_Y50, C_GPU, C_TIME};

/* One case: the speed and memory rows that share kernel, provider, mode, x,
 * config and GPU. Fields point into the records. */
typedef struct group {
    const sb_csv_record *speed, *memory;
    const sb_csv_record *first;
    char started[40], finished[40];
} group;

static const char *cell(const sb_csv_record *rec, const int *col, int c)
{
    return col[c] >= 0 && (size_t)col[c] < rec->n ? rec->fields[col[c]] : "";
}

/* "line N: " + message; the values a message quotes are cut to keep it one
 * readable line. */
__attribute__((format(printf, 4, 5)))
static int row_error(sb_error *err, const char *path, size_t line, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sb_error_set(err, path, NULL, "line %zu: %s", line, msg);
}

/* Same metric value text in y_value_50/20/80. */
static int same_values(const sb_csv_record *a, const sb_csv_record *b, const int *col)
{
    return strcmp(cell(a, col, C_Y50), cell(b, col, C_Y50)) == 0 &&
           strcmp(cell(a, col, C_Y20), cell(b, col, C_Y20)) == 0 &&
           strcmp(cell(a, col, C_Y80), cell(b, col, C_Y80)) == 0 &&
           strcmp(cell(a, col, C_UNIT), cell(b, col, C_UNIT)) == 0;
}

/* Optional quantile: empty is absent; otherwise a non-negative number. */
static int quantile(const char *text, double *v, int *present)
{
    *present = 0;
    if (!text || !*text)
        return SB_OK;
    if (sb_import_parse_double(text, v) != SB_OK || *v < 0)
        return SB_ERR;
    *present = 1;
    return SB_OK;
}

/* Puts one extra_benchmark_config value into shape or params. */
static void put_value(json_t *shape, json_t *params, const char *key, json_t *v)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        char k[128];
        sb_import_key(key, k, sizeof k);
        if (k[0])
            json_object_set(shape, k, v);
    } else if (json_is_string(v) || json_is_number(v) || json_is_boolean(v) || json_is_null(v)) {
        json_object_set(params, key, v);
    } else {
        char *dump = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        if (dump) {
            json_object_set_new(params, key, json_string(dump));
            free(dump);
        }
    }
}

static int make_config(sb_import_ctx *ctx, const sb_csv_record *rec, const int *col, json_t **out, sb_error *err)
{
    const char *kernel = cell(rec, col, C_KERNEL);
    const char *mode_text = cell(rec, col, C_MODE);
    const char *xname = cell(rec, col, C_XNAME);
    const char *xvalue = cell(rec, col, C_XVALUE);
    const char *cfg_text = cell(rec, col, C_CONFIG);
    json_t *cfg = NULL;
    if (*cfg_text) {
        sb_error jerr;
        sb_error_clear(&jerr);
        if (sb_json_load_buffer(cfg_text, strlen(cfg_text), "extra_benchmark_config_str", &cfg, &jerr) != SB_OK)
            return sb_error_set(err, ctx->path, NULL, "line %zu: extra_benchmark_config_str is not valid JSON (%s%s%s)",
                                rec->line, jerr.where, jerr.where[0] ? ": " : "", jerr.msg);
        if (!json_is_object(cfg)) {
            json_decref(cfg);
            return sb_error_set(err, ctx->path, NULL, "line %zu: extra_benchmark_config_str is JSON but not an object",
                                rec->line);
        }
    } else {
        cfg = json_object();
    }

    const char *mode = NULL;
    int no_grad = 0;
    if (strcmp(mode_text, "forward") == 0)
        mode = "fwd";
    else if (strcmp(mode_text, "backward") == 0)
        mode = "bwd";
    else if (strcmp(mode_text, "full") == 0)
        mode = "full";
    else if (strcmp(mode_text, "no-grad-forward") == 0)
        mode = "fwd", no_grad = 1;
    if (!mode) {
        json_decref(cfg);
        return row_error(err, ctx->path, rec->line,
                         "kernel_operation_mode \"%s\" is not forward, backward, full or no-grad-forward",
                         mode_text);
    }

    json_t *shape = json_object(), *params = json_object();
    const char *dtype = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(cfg, key, v) {
        if (strcmp(key, "dtype") == 0 && json_is_string(v)) {
            dtype = sb_import_dtype(json_string_value(v));
            if (!dtype) {
                char text[200];
                snprintf(text, sizeof text, "%s", json_string_value(v));
                json_decref(cfg);
                json_decref(shape);
                json_decref(params);
                return row_error(err, ctx->path, rec->line, "dtype \"%s\" in extra_benchmark_config_str is not a known dtype",
                                 text);
            }
            continue;
        }
        /* A per-x table (e.g. model_configs keyed by the x value): take the
         * entry of this row's x. */
        json_t *per_x = json_is_object(v) ? json_object_get(v, xvalue) : NULL;
        if (json_is_object(per_x)) {
            const char *k2;
            json_t *v2;
            json_object_foreach(per_x, k2, v2) put_value(shape, params, k2, v2);
            continue;
        }
        put_value(shape, params, key, v);
    }
    json_decref(cfg);

    long long xi;
    double xd;
    char xkey[128];
    sb_import_key(xname, xkey, sizeof xkey);
    if (!xkey[0])
        snprintf(xkey, sizeof xkey, "x");
    if (sb_import_parse_ll(xvalue, &xi) == SB_OK && xi >= 0)
        json_object_set_new(shape, xkey, json_integer(xi));
    else if (sb_import_parse_double(xvalue, &xd) == SB_OK && xd >= 0 && xd < 9.0e15 && xd == floor(xd))
        json_object_set_new(shape, xkey, json_integer((json_int_t)xd)); /* "4096.0" */
    else if (sb_import_parse_double(xvalue, &xd) == SB_OK)
        json_object_set_new(params, xname[0] ? xname : "x", json_real(xd));
    else
        json_object_set_new(params, xname[0] ? xname : "x", json_string(xvalue));
    if (no_grad)
        json_object_set_new(params, "no_grad", json_true());

    const sb_import_op_name *row = sb_import_op_lookup(ctx, kernel);
    if (!dtype && ctx->opts.dtype)
        dtype = sb_import_dtype(ctx->opts.dtype);
    if (!dtype && row && row->default_dtype[0])
        dtype = sb_import_dtype(row->default_dtype);
    /* Liger's config names no dtype for some kernels: record that it is not
     * known rather than guess (--dtype or data/import_op_names.csv can say). */
    if (!dtype)
        dtype = "unknown";
    if (json_object_size(shape) == 0) {
        json_decref(shape);
        json_decref(params);
        return row_error(err, ctx->path, rec->line,
                         "no integer size in x_value or extra_benchmark_config_str (x_name \"%s\"): a run needs a shape",
                         xname);
    }
    char op[64], provider[64], suite[64];
    if (row)
        snprintf(op, sizeof op, "%s", row->op);
    else
        sb_import_id(kernel, op, sizeof op);
    sb_import_id(cell(rec, col, C_PROVIDER), provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "liger-bench", suite, sizeof suite);
    if (!op[0] || !provider[0] || !suite[0]) {
        json_decref(shape);
        json_decref(params);
        return row_error(err, ctx->path, rec->line, "kernel_name \"%s\" / kernel_provider \"%s\" has no letters or digits",
                         kernel, cell(rec, col, C_PROVIDER));
    }
    *out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", mode,
                     "provider", provider, "backend", strncmp(provider, "liger", 5) == 0 ? "triton" : "torch",
                     "dtype", dtype, "shape", shape, "params", params);
    return *out ? SB_OK : sb_error_set(err, ctx->path, NULL, "out of memory");
}

static int emit_group(sb_import_ctx *ctx, const group *g, const int *col, sb_error *err)
{
    json_t *config = NULL;
    if (make_config(ctx, g->first, col, &config, err) != SB_OK)
        return SB_ERR;
    const sb_csv_record *first = g->first;
    json_t *timing = NULL, *memory = NULL;
    char notes[600];
    if (g->speed) {
        double p50, p20, p80;
        int has50, has20, has80;
        quantile(cell(g->speed, col, C_Y50), &p50, &has50);
        quantile(cell(g->speed, col, C_Y20), &p20, &has20);
        quantile(cell(g->speed, col, C_Y80), &p80, &has80);
        sb_summary_stats st = sb_summary_stats_none();
        st.median = p50;
        if (has20)
            st.p20 = p20;
        if (has80)
            st.p80 = p80;
        timing = sb_result_timing_summary(&st);
    }
    if (g->memory) {
        double mib;
        int has;
        quantile(cell(g->memory, col, C_Y50), &mib, &has);
        double bytes = mib * 1048576.0;
        memory = json_object();
        if (bytes == floor(bytes) && bytes < 9.0e15)
            json_object_set_new(memory, "peak_device_bytes", json_integer((json_int_t)bytes));
        else
            json_object_set_new(memory, "peak_device_bytes", json_null());
        json_object_set_new(memory, "peak_device_mb", json_real(bytes / 1e6));
    }
    if (g->speed && g->memory)
        snprintf(notes, sizeof notes, "Liger-Kernel benchmark rows at lines %zu (speed) and %zu (memory): "
                 "speed is Liger's 20/50/80 %% quantiles; memory is its peak allocation in MiB, converted",
                 g->speed->line, g->memory->line);
    else if (g->speed)
        snprintf(notes, sizeof notes, "Liger-Kernel benchmark row at line %zu (speed): Liger's 20/50/80 %% quantiles",
                 g->speed->line);
    else
        snprintf(notes, sizeof notes, "Liger-Kernel benchmark row at line %zu (memory): peak allocation in MiB, converted",
                 g->memory->line);

    json_t *device = sb_import_gpu_device(ctx, cell(first, col, C_GPU), 0, -1, -1, NULL);
    json_t *prov = sb_import_provenance("liger-kernel", cell(first, col, C_VERSION), NULL, device,
                                        g->started, g->finished);
    const char *status = g->speed ? "passed" : "skipped";
    const char *reason = g->speed ? NULL : "imported: the file has a memory row but no speed row for this case";
    return sb_import_emit(ctx, status, reason, config, sb_import_protocol("unknown"), timing, NULL,
                          memory, prov, notes, first->line, err);
}

static int check_row(sb_import_ctx *ctx, const sb_csv_record *rec, const int *col, size_t ncols, sb_error *err)
{
    if (rec->n != ncols)
        return sb_error_set(err, ctx->path, NULL, "line %zu: %zu field%s, the header has %zu", rec->line, rec->n,
                            rec->n == 1 ? "" : "s", ncols);
    static const int nonempty[] = {C_KERNEL, C_PROVIDER, C_MODE, C_METRIC, C_XVALUE, C_GPU, C_TIME};
    for (size_t i = 0; i < sizeof nonempty / sizeof nonempty[0]; i++)
        if (!*cell(rec, col, nonempty[i]))
            return row_error(err, ctx->path, rec->line, "%s is empty", column_names[nonempty[i]]);
    const char *metric = cell(rec, col, C_METRIC);
    const char *unit = cell(rec, col, C_UNIT);
    if (strcmp(metric, "speed") == 0) {
        if (col[C_UNIT] >= 0 && strcmp(unit, "ms") != 0)
            return row_error(err, ctx->path, rec->line, "speed row with metric_unit \"%s\"; only ms is known", unit);
    } else if (strcmp(metric, "memory") == 0) {
        if (col[C_UNIT] >= 0 && strcmp(unit, "MB") != 0)
            return row_error(err, ctx->path, rec->line, "memory row with metric_unit \"%s\"; only MB is known", unit);
    } else {
        return row_error(err, ctx->path, rec->line, "metric_name \"%s\" is neither speed nor memory", metric);
    }
    double v;
    int has;
    if (quantile(cell(rec, col, C_Y50), &v, &has) != SB_OK || !has)
        return row_error(err, ctx->path, rec->line, "y_value_50 \"%s\" is not a non-negative number",
                         cell(rec, col, C_Y50));
    if (quantile(cell(rec, col, C_Y20), &v, &has) != SB_OK)
        return row_error(err, ctx->path, rec->line, "y_value_20 \"%s\" is not a non-negative number",
                         cell(rec, col, C_Y20));
    if (quantile(cell(rec, col, C_Y80), &v, &has) != SB_OK)
        return row_error(err, ctx->path, rec->line, "y_value_80 \"%s\" is not a non-negative number",
                         cell(rec, col, C_Y80));
    char when[40];
    if (sb_import_time_utc(cell(rec, col, C_TIME), when, sizeof when) != SB_OK)
        return row_error(err, ctx->path, rec->line, "timestamp \"%s\" is not a date and time (YYYY-MM-DD HH:MM:SS)",
                         cell(rec, col, C_TIME));
    return SB_OK;
}

int sb_import_liger_csv(sb_import_ctx *ctx, const char *buf, size_t len, sb_error *err)
{
    sb_csv_table r = {0};
    group *groups = NULL;
    json_t *index = json_object();
    int rc = SB_ERR;
    if (!index) {
        sb_error_set(err, ctx->path, NULL, "out of memory");
        goto out;
    }
    if (sb_csv_read_table(buf, len, ctx->path, NULL, &r, err) != SB_OK)
        goto out;
    if (r.n == 0) {
        sb_error_set(err, ctx->path, NULL, "empty file: no header and no rows");
        goto out;
    }
    int col[C_COUNT];
    const sb_csv_record *hdr = &r.records[0];
    size_t repeated = sb_csv_find_columns(hdr->fields, hdr->n, column_names, C_COUNT, col);
    if (repeated < hdr->n) {
        sb_error_set(err, ctx->path, NULL, "line %zu: column %s appears twice in the header", hdr->line,
                     hdr->fields[repeated]);
        goto out;
    }
    for (size_t i = 0; i < sizeof required_columns / sizeof required_columns[0]; i++)
        if (col[required_columns[i]] < 0) {
            sb_error_set(err, ctx->path, NULL, "line %zu: the header has no %s column (a Liger-Kernel benchmark CSV has "
                         "kernel_name, kernel_provider, kernel_operation_mode, metric_name, metric_unit, x_name, x_label, "
                         "x_value, y_value_50, y_value_20, y_value_80, extra_benchmark_config_str, gpu_name, timestamp, "
                         "liger_version)", hdr->line, column_names[required_columns[i]]);
            goto out;
        }
    if (r.n == 1) {
        sb_error_set(err, ctx->path, NULL, "no benchmark rows after the header");
        goto out;
    }
    groups = calloc(r.n, sizeof *groups);
    if (!groups) {
        sb_error_set(err, ctx->path, NULL, "out of memory");
        goto out;
    }
    size_t ng = 0;
    for (size_t i = 1; i < r.n; i++) {
        const sb_csv_record *rec = &r.records[i];
        ctx->st->rows++;
        if (check_row(ctx, rec, col, hdr->n, err) != SB_OK)
            goto out;
        /* The case key: every column that names the case, joined by a byte
         * CSV text cannot hold unquoted and Liger never writes. */
        static const int key_cols[] = {C_KERNEL, C_PROVIDER, C_MODE, C_XNAME, C_XVALUE, C_CONFIG, C_GPU};
        size_t klen = 1;
        for (size_t k = 0; k < sizeof key_cols / sizeof key_cols[0]; k++)
            klen += strlen(cell(rec, col, key_cols[k])) + 1;
        char *key = malloc(klen);
        if (!key) {
            sb_error_set(err, ctx->path, NULL, "out of memory");
            goto out;
        }
        key[0] = '\0';
        for (size_t k = 0; k < sizeof key_cols / sizeof key_cols[0]; k++) {
            strcat(key, cell(rec, col, key_cols[k]));
            strcat(key, "\x1f");
        }
        json_t *slot = json_object_get(index, key);
        group *g;
        if (slot) {
            g = &groups[json_integer_value(slot)];
        } else {
            g = &groups[ng];
            json_object_set_new(index, key, json_integer((json_int_t)ng));
            ng++;
            g->first = rec;
        }
        free(key);
        int is_speed = strcmp(cell(rec, col, C_METRIC), "speed") == 0;
        const sb_csv_record **have = is_speed ? &g->speed : &g->memory;
        if (*have) {
            if (same_values(*have, rec, col)) {
                ctx->st->duplicate_rows++;
                continue;
            }
            sb_error_set(err, ctx->path, NULL, "line %zu: repeats the case of line %zu (same kernel, provider, mode, "
                         "metric, x, config and GPU) with different values", rec->line, (*have)->line);
            goto out;
        }
        *have = rec;
        char when[40];
        sb_import_time_utc(cell(rec, col, C_TIME), when, sizeof when);
        if (!g->started[0] || strcmp(when, g->started) < 0)
            snprintf(g->started, sizeof g->started, "%s", when);
        if (!g->finished[0] || strcmp(when, g->finished) > 0)
            snprintf(g->finished, sizeof g->finished, "%s", when);
    }
    for (size_t i = 0; i < ng; i++)
        if (emit_group(ctx, &groups[i], col, err) != SB_OK)
            goto out;
    rc = SB_OK;
out:
    free(groups);
    json_decref(index);
    sb_csv_table_free(&r);
    return rc;
}
