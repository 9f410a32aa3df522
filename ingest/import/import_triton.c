/* import_triton.c - the CSV triton.testing.perf_report writes (save_path).
 *
 * perf_report runs the benchmark function for each x value and each line
 * (provider) and keeps one figure per pair: the function's first return
 * value (do_bench's median with quantiles=[0.5, 0.2, 0.8], its mean
 * without). The CSV holds the x column(s) first, then one column per
 * provider, a row per x value, the figures written with a fixed number of
 * decimals. It never says what statistic the figures are, so the caller
 * does (--y-stat); newer Triton names each provider column "LINE
 * (YLABEL)", and a YLABEL that is a time unit gives the unit, else the
 * caller does (--y-unit). The x columns are the first --x-cols. Each
 * (row, provider) figure becomes one quantiles_only run whose notes say
 * what the format lost. docs/IMPORT.md gives the mapping.
 */
#include "import_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_rows.h"
#include "decimal.h"

/* A figure as written (sb_decimal_scaled) times 10^shift. *decimals: the
 * digits written after the point. An empty cell or "nan" (pandas'
 * missing value) is SB_OK with *missing set. */
static int parse_figure(const char *cell, int shift, double *out, int *decimals, int *missing)
{
    *missing = 0;
    *decimals = 0;
    if (!*cell || strcmp(cell, "nan") == 0 || strcmp(cell, "NaN") == 0) {
        *missing = 1;
        return SB_OK;
    }
    return sb_decimal_scaled(cell, shift, out, decimals) == 0 ? SB_OK : SB_ERR;
}

/* --y-unit as a power of ten to ms. */
static int unit_shift(const char *unit, int *shift)
{
    static const struct {
        const char *name;
        int shift;
    } units[] = {{"ms", 0}, {"us", -3}, {"s", 3}, {"ns", -6}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (unit && strcmp(unit, units[i].name) == 0) {
            *shift = units[i].shift;
            return SB_OK;
        }
    return SB_ERR;
}

/* Where the " (LABEL)" at the end of a column name starts: the last ')'
 * and its matching '(' preceded by a space ("Triton (Runtime (ms))" gives
 * "Runtime (ms)"); NULL when the name does not end so. */
static const char *label_start(const char *name)
{
    size_t n = strlen(name);
    if (n < 4 || name[n - 1] != ')')
        return NULL;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (name[i] == ')')
            depth++;
        else if (name[i] == '(' && --depth == 0)
            return i >= 2 && name[i - 1] == ' ' && i + 2 < n ? name + i - 1 : NULL;
    }
    return NULL;
}

/* The ylabel newer Triton puts after every provider column's name
 * (f"{line_name} ({ylabel})"): set when all of them end in the same " (LABEL)",
 * its text (without the parentheses) in label; 0 and "" otherwise. */
static int header_label(const sb_csv_record *hdr, size_t xcols, char *label, size_t size)
{
    label[0] = '\0';
    const char *first = label_start(hdr->fields[xcols]);
    if (!first || strlen(first) - 3 >= size)
        return 0;
    for (size_t c = xcols + 1; c < hdr->n; c++) {
        const char *l = label_start(hdr->fields[c]);
        if (!l || strcmp(l, first) != 0)
            return 0;
    }
    snprintf(label, size, "%.*s", (int)strlen(first) - 3, first + 2);
    return 1;
}

/* The time unit a ylabel names: the whole label ("ms") or its last
 * parenthesised part ("Runtime (ms)"); NULL when it names none. */
static const char *label_unit(const char *label)
{
    static const char *const units[][2] = {{"ms", "ms"}, {"us", "us"}, {"\xc2\xb5s", "us"}, {"\xce\xbcs", "us"},
                                           {"s", "s"},   {"ns", "ns"}};
    const char *l = label_start(label);
    char inner[64];
    snprintf(inner, sizeof inner, "%.*s", l ? (int)strlen(l) - 3 : (int)strlen(label), l ? l + 2 : label);
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(inner, units[i][0]) == 0)
            return units[i][1];
    return NULL;
}

/* A label of a rate (GB/s, TFLOPS, as Triton's tutorials plot): such
 * figures are not times. */
static int label_is_rate(const char *label)
{
    for (const char *p = label; *p; p++)
        if ((p[0] == '/' && p[1] == 's') || strncasecmp(p, "flop", 4) == 0)
            return 1;
    return 0;
}

/* The x columns of one row into shape (whole numbers >= 0, "4096.0"
 * included) or params (anything else). */
static void put_x(json_t *shape, json_t *params, const char *name, const char *value)
{
    char key[128];
    sb_import_key(name, key, sizeof key);
    if (!key[0])
        snprintf(key, sizeof key, "x");
    long long xi;
    double xd;
    if (sb_import_parse_ll(value, &xi) == SB_OK && xi >= 0)
        json_object_set_new(shape, key, json_integer(xi));
    else if (sb_import_parse_double(value, &xd) == SB_OK && xd >= 0 && xd < 9.0e15 && xd == floor(xd))
        json_object_set_new(shape, key, json_integer((json_int_t)xd));
    else if (sb_import_parse_double(value, &xd) == SB_OK && isfinite(xd))
        json_object_set_new(params, name[0] ? name : "x", json_real(xd));
    else
        json_object_set_new(params, name[0] ? name : "x", json_string(value));
}

/* The plot's name: the file's base name without ".csv" (perf_report
 * names the file after plot_name). */
static void plot_name(const char *base, char *out, size_t size)
{
    snprintf(out, size, "%s", base);
    size_t n = strlen(out);
    if (n > 4 && strcmp(out + n - 4, ".csv") == 0)
        out[n - 4] = '\0';
}

/* How the figures of one file are read: the unit (from the header's
 * label or --y-unit) and the label, "" when the header has none. */
typedef struct figure_reading {
    const char *unit;
    int unit_from_label;
    char label[128];
} figure_reading;

static int emit_figure(sb_import_ctx *ctx, const sb_csv_record *hdr, const sb_csv_record *rec, size_t xcols,
                       size_t c, double ms, int decimals, const char *when, const figure_reading *fr,
                       sb_error *err)
{
    char name[256], op[64], provider[64], suite[64], line[256];
    plot_name(ctx->base, name, sizeof name);
    const sb_import_op_name *opr = sb_import_op_named(ctx, name, op, sizeof op);
    /* the line's name without the " (LABEL)" Triton adds to it */
    snprintf(line, sizeof line, "%.*s",
             (int)(fr->label[0] ? strlen(hdr->fields[c]) - strlen(fr->label) - 3 : strlen(hdr->fields[c])),
             hdr->fields[c]);
    if (ctx->opts.provider)
        sb_import_id(ctx->opts.provider, provider, sizeof provider);
    else
        sb_import_id(line, provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "triton-perf-report", suite, sizeof suite);
    if (!op[0])
        return sb_csv_line_error(err, ctx->path, hdr->line, "the file name \"%s\" has no letters or digits to name the op",
                                 ctx->base);
    if (!provider[0])
        return sb_csv_line_error(err, ctx->path, hdr->line, "column \"%s\" has no letters or digits to name a provider",
                                 hdr->fields[c]);
    json_t *shape = json_object(), *params = json_object();
    for (size_t k = 0; k < xcols; k++)
        put_x(shape, params, hdr->fields[k], rec->fields[k]);
    if (json_object_size(shape) == 0) {
        json_decref(shape);
        json_decref(params);
        return sb_csv_line_error(err, ctx->path, rec->line,
                                 "no whole number >= 0 among the x values: a run needs a shape");
    }
    if (ctx->opts.provider)
        json_object_set_new(params, "line", json_string(line));
    const char *dtype = ctx->opts.dtype ? sb_import_dtype(ctx->opts.dtype) : NULL;
    if (!dtype && opr && opr->default_dtype[0])
        dtype = sb_import_dtype(opr->default_dtype);
    json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", "fwd",
                               "provider", provider, "backend", "triton", "dtype", dtype ? dtype : "unknown",
                               "shape", shape, "params", params);
    sb_summary_stats st = sb_summary_stats_none();
    if (strcmp(ctx->opts.y_stat, "mean") == 0)
        st.mean = ms;
    else
        st.median = ms;
    json_t *timing = sb_result_timing_summary(&st);
    json_t *device = sb_import_gpu_device(ctx, "unknown", 0, -1, -1, NULL);
    json_t *prov = sb_import_provenance("triton-perf-report", NULL, NULL, device, when, when);
    char notes[1200];
    snprintf(notes, sizeof notes,
             "triton.testing.perf_report CSV, line %zu, column \"%.*s\": lossy import. The file keeps one figure "
             "per case, read as the %s in %s (%s); no samples, no other "
             "statistics (perf_report drops the min and max it measured); written rounded to %d decimal%s "
             "(perf_report's float format), so the figure is known to half a unit in its last place only; no GPU, "
             "dtype, commit, host, Triton version or time of day recorded",
             rec->line, sb_import_text_cut(hdr->fields[c], 200), hdr->fields[c], ctx->opts.y_stat, fr->unit,
             fr->unit_from_label ? "--y-stat: the file does not say which statistic; the unit from the columns' label"
                                 : "--y-stat, --y-unit: the file says neither",
             decimals,
             decimals == 1 ? "" : "s");
    return sb_import_emit(ctx, "passed", NULL, config, sb_import_protocol("unknown"), timing,
                          sb_import_metrics(-1, ms), NULL, prov,
                          notes, (long long)rec->line, err);
}

int sb_import_triton_perf_csv(sb_import_ctx *ctx, const char *buf, size_t len, sb_error *err)
{
    int shift = 0;
    if (ctx->opts.y_unit && unit_shift(ctx->opts.y_unit, &shift) != SB_OK)
        return sb_error_set(err, ctx->path, NULL, "--y-unit \"%s\" is not ms, us, s or ns", ctx->opts.y_unit);
    size_t xcols = ctx->opts.x_cols > 0 ? (size_t)ctx->opts.x_cols : 1;
    sb_csv_table t = {0};
    if (sb_csv_read_table(buf, len, ctx->path, NULL, &t, err) != SB_OK) {
        sb_csv_table_free(&t);
        return SB_ERR;
    }
    int rc = SB_OK;
    char when[40];
    if (t.n == 0) {
        rc = sb_error_set(err, ctx->path, NULL, "empty file: no perf_report header");
        goto out;
    }
    const sb_csv_record *hdr = &t.records[0];
    if (hdr->n <= xcols) {
        rc = sb_csv_line_error(err, ctx->path, hdr->line,
                               "%zu column%s: the %zu x column%s and no provider column (--x-cols)", hdr->n,
                               hdr->n == 1 ? "" : "s", xcols, xcols == 1 ? "" : "s");
        goto out;
    }
    for (size_t c = 0; c < hdr->n; c++)
        for (size_t d = 0; d < c; d++)
            if (strcmp(hdr->fields[c], hdr->fields[d]) == 0) {
                rc = sb_csv_line_error(err, ctx->path, hdr->line, "column \"%s\" appears twice in the header",
                                       hdr->fields[c]);
                goto out;
            }
    figure_reading fr = {.unit = ctx->opts.y_unit};
    if (header_label(hdr, xcols, fr.label, sizeof fr.label)) {
        const char *u = label_unit(fr.label);
        if (label_is_rate(fr.label)) {
            rc = sb_csv_line_error(err, ctx->path, hdr->line,
                                   "the columns are labelled \"%s\", a rate, not a time: cannot be imported", fr.label);
            goto out;
        }
        if (u && ctx->opts.y_unit && strcmp(u, ctx->opts.y_unit) != 0) {
            rc = sb_csv_line_error(err, ctx->path, hdr->line, "the columns are labelled \"%s\" but --y-unit is %s",
                                   fr.label, ctx->opts.y_unit);
            goto out;
        }
        if (u) {
            fr.unit = u;
            fr.unit_from_label = 1;
            unit_shift(u, &shift);
        }
    }
    if (!fr.unit) {
        rc = sb_error_set(err, ctx->path, NULL,
                          "give --y-unit ms, us, s or ns: the header does not say what unit its figures are in%s%s%s",
                          fr.label[0] ? " (its label \"" : "", fr.label, fr.label[0] ? "\" names none)" : "");
        goto out;
    }
    if (!ctx->opts.y_stat || (strcmp(ctx->opts.y_stat, "median") != 0 && strcmp(ctx->opts.y_stat, "mean") != 0)) {
        rc = sb_error_set(err, ctx->path, NULL,
                          "give --y-stat median or mean: a perf_report CSV does not say which statistic its figures "
                          "are (do_bench with quantiles=[0.5, ...] gives the median, without them the mean)");
        goto out;
    }
    /* Each figure is a run, so a short CSV of many columns makes runs
     * by the million for two bytes each ("1,"): past the bound the file
     * is refused before the first run is made. */
    size_t figures_max = SB_IMPORT_FILE_RUNS_MAX / (hdr->n - xcols);
    if (t.n - 1 > figures_max) {
        rc = sb_error_set(err, ctx->path, NULL,
                          "%zu rows of %zu provider columns make more than %u runs from one file: refused "
                          "(split it)",
                          t.n - 1, hdr->n - xcols, SB_IMPORT_FILE_RUNS_MAX);
        goto out;
    }
    if ((rc = sb_import_file_time(ctx, when, sizeof when, err)) != SB_OK)
        goto out;
    /* Every row is checked before the first run is made. */
    for (int pass = 0; pass < 2 && rc == SB_OK; pass++) {
        for (size_t i = 1; i < t.n && rc == SB_OK; i++) {
            const sb_csv_record *rec = &t.records[i];
            if (rec->n != hdr->n) {
                rc = sb_csv_line_error(err, ctx->path, rec->line, "%zu field%s, the header has %zu", rec->n,
                                       rec->n == 1 ? "" : "s", hdr->n);
                break;
            }
            if (pass == 1)
                ctx->st->rows++;
            for (size_t k = 0; k < xcols && rc == SB_OK; k++)
                if (!*rec->fields[k])
                    rc = sb_csv_line_error(err, ctx->path, rec->line, "x value \"%s\" is empty", hdr->fields[k]);
            for (size_t c = xcols; c < hdr->n && rc == SB_OK; c++) {
                double ms;
                int decimals, missing;
                if (parse_figure(rec->fields[c], shift, &ms, &decimals, &missing) != SB_OK) {
                    rc = sb_csv_line_error(err, ctx->path, rec->line, "\"%s\" %s is not a non-negative number",
                                           hdr->fields[c], rec->fields[c]);
                } else if (pass == 1 && !missing) {
                    rc = emit_figure(ctx, hdr, rec, xcols, c, ms, decimals, when, &fr, err);
                }
            }
        }
    }
out:
    sb_csv_table_free(&t);
    return rc;
}
