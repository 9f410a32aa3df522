/* import_pybench.c - pytest-benchmark JSON (pytest --benchmark-json FILE).
 *
 * Each benchmarks[] entry becomes one run: the test function is the op,
 * its params the shape and params; with --benchmark-save-data the entry's
 * stats.data (one time per round, in seconds: the round's time over its
 * iterations) are the samples, else the summary statistics it gives.
 * machine_info names the host, commit_info the commit. docs/IMPORT.md says
 * field by field what becomes what.
 */
#include "import_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* 1 and *v when o[k] is a finite number >= 0. */
static int num(json_t *o, const char *k, double *v)
{
    json_t *x = json_object_get(o, k);
    if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0)
        return 0;
    *v = json_number_value(x);
    return 1;
}

static int is_sha(const char *s)
{
    if (!s || strlen(s) != 40)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

/* The test function's name without "test_" and the parametrize suffix:
 * "test_sum[100]" -> "sum". */
static void op_name(const char *name, char *out, size_t size)
{
    size_t n = strcspn(name, "[");
    const char *p = name;
    if (n > 5 && strncmp(p, "test_", 5) == 0) {
        p += 5;
        n -= 5;
    }
    snprintf(out, size, "%.*s", (int)n, p);
}

static int entry_error(sb_import_ctx *ctx, size_t i, const char *msg, sb_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "/benchmarks/%zu", i);
    return sb_error_set(err, ctx->path, where, "%s", msg);
}

static int convert_entry(sb_import_ctx *ctx, json_t *root, json_t *b, size_t i, const char *when, sb_error *err)
{
    const char *name = str(b, "name");
    json_t *stats = json_object_get(b, "stats");
    if (!name || !json_is_object(stats))
        return entry_error(ctx, i, "benchmark without a \"name\" string or a \"stats\" object", err);
    char tool_name[256], op[64], provider[64], suite[64];
    op_name(name, tool_name, sizeof tool_name);
    const sb_import_op_name *opr = sb_import_op_named(ctx, tool_name, op, sizeof op);
    sb_import_id(ctx->opts.provider ? ctx->opts.provider : "pytest-benchmark", provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "pytest-benchmark", suite, sizeof suite);
    if (!op[0])
        return entry_error(ctx, i, "benchmark name has no letters or digits to name the op", err);

    json_t *shape = json_object(), *params = json_object();
    const char *dtype = NULL;
    json_t *given = json_object_get(b, "params");
    if (json_is_object(given))
        sb_import_case_params(given, shape, params, &dtype);
    else if (given && !json_is_null(given)) {
        json_decref(shape);
        json_decref(params);
        return entry_error(ctx, i, "\"params\" is neither an object nor null", err);
    }
    const char *group = str(b, "group");
    if (group)
        json_object_set_new(params, "group", json_string(group));
    if (!dtype && ctx->opts.dtype)
        dtype = sb_import_dtype(ctx->opts.dtype);
    if (!dtype && opr && opr->default_dtype[0])
        dtype = sb_import_dtype(opr->default_dtype);
    json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", "fwd",
                               "provider", provider, "backend", "python", "dtype", dtype ? dtype : "unknown",
                               "shape", shape, "params", params);
    json_t *options = json_object_get(b, "options");
    json_t *run_params = json_object();
    const char *timer = str(options, "timer");
    if (timer)
        json_object_set_new(run_params, "timer", json_string(timer));
    json_t *gc = json_object_get(options, "disable_gc");
    if (json_is_boolean(gc))
        json_object_set(run_params, "disable_gc", gc);
    json_object_set_new(config, "run_params", run_params);

    /* host: machine_info.node and cpu.brand (or brand_raw); no GPU */
    json_t *mi = json_object_get(root, "machine_info");
    json_t *cpu = json_object_get(mi, "cpu");
    const char *brand = str(cpu, "brand_raw") ? str(cpu, "brand_raw") : str(cpu, "brand");
    json_t *ncpu = json_object_get(cpu, "count");
    json_t *prov = sb_import_provenance("pytest-benchmark", str(root, "version"), str(mi, "node"),
                                        sb_import_cpu_device(brand, json_is_integer(ncpu) ? json_integer_value(ncpu) : -1),
                                        when, when);
    json_t *host = json_object_get(prov, "host");
    if (brand)
        json_object_set_new(host, "cpu", json_string(brand));
    if (str(mi, "system") && str(mi, "release")) {
        char os[256];
        snprintf(os, sizeof os, "%s %s", str(mi, "system"), str(mi, "release"));
        json_object_set_new(host, "os", json_string(os));
    }
    json_t *ci = json_object_get(root, "commit_info");
    json_t *git = json_object_get(prov, "git");
    if (is_sha(str(ci, "id"))) {
        json_object_set_new(git, "sha", json_string(str(ci, "id")));
        json_t *dirty = json_object_get(ci, "dirty");
        if (json_is_boolean(dirty))
            json_object_set(git, "dirty", dirty);
        const char *branch = str(ci, "branch");
        if (branch && *branch && strcmp(branch, "(unknown)") != 0)
            json_object_set_new(git, "branch", json_string(branch));
    }

    json_t *protocol = sb_import_protocol("unknown");
    double iterations = 0;
    if (num(stats, "iterations", &iterations) && iterations >= 1 && iterations == floor(iterations))
        json_object_set_new(json_object_get(config, "run_params"), "calls_per_sample", json_integer((json_int_t)iterations));
    json_t *data = json_object_get(stats, "data");
    json_t *timing = NULL;
    double median_ms = 0;
    char notes[1200];
    int n_chars;
    if (json_is_array(data) && json_array_size(data) > 0) {
        size_t n = json_array_size(data);
        double *v = malloc(n * sizeof *v);
        if (!v) {
            json_decref(config);
            json_decref(prov);
            json_decref(protocol);
            return sb_error_set(err, ctx->path, NULL, "out of memory");
        }
        for (size_t k = 0; k < n; k++) {
            json_t *x = json_array_get(data, k);
            if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0) {
                free(v);
                json_decref(config);
                json_decref(prov);
                json_decref(protocol);
                char msg[160];
                snprintf(msg, sizeof msg, "stats.data[%zu] is not a time in seconds (a number >= 0)", k);
                return entry_error(ctx, i, msg, err);
            }
            v[k] = json_number_value(x);
        }
        timing = sb_import_timing_seconds(v, n, &median_ms);
        free(v);
        n_chars = snprintf(notes, sizeof notes,
                           "pytest-benchmark entry \"%s\": %zu rounds of %.0f iterations; each sample is one round's "
                           "time over its iterations (stats.data)", name, n, iterations);
    } else {
        double mean = 0, median = 0, mn = 0, mx = 0, sd = 0, rounds = 0;
        int has_mean = num(stats, "mean", &mean), has_median = num(stats, "median", &median);
        if (!has_mean && !has_median) {
            json_decref(config);
            json_decref(prov);
            json_decref(protocol);
            return entry_error(ctx, i, "stats has neither \"data\" nor a \"mean\" or \"median\"", err);
        }
        sb_summary_stats st = sb_summary_stats_none();
        if (has_mean)
            st.mean = mean * 1e3;
        if (has_median) {
            st.median = median * 1e3;
            median_ms = median * 1e3;
        }
        if (num(stats, "min", &mn))
            st.min = mn * 1e3;
        if (num(stats, "max", &mx))
            st.max = mx * 1e3;
        if (num(stats, "stddev", &sd)) {
            st.stdev = sd * 1e3;
            if (has_mean && mean > 0)
                st.rel_noise = sd / mean;
        }
        if (num(stats, "rounds", &rounds) && rounds >= 1 && rounds == floor(rounds))
            st.count = (long long)rounds;
        timing = sb_result_timing_summary(&st);
        n_chars = snprintf(notes, sizeof notes,
                           "pytest-benchmark entry \"%s\": summary statistics only (the file has no stats.data: "
                           "run with --benchmark-save-data for the samples)", name);
    }
    if (n_chars > 0 && (size_t)n_chars < sizeof notes)
        snprintf(notes + n_chars, sizeof notes - (size_t)n_chars,
                 "; pytest-benchmark records the host, not the GPU a benchmark may use%s",
                 is_sha(str(ci, "id")) ? "" : ", and commit_info names no commit");
    return sb_import_emit(ctx, "passed", NULL, config, protocol, timing, sb_import_metrics(-1, median_ms), NULL,
                          prov, notes, (long long)i, err);
}

int sb_import_pytest_benchmark_json(sb_import_ctx *ctx, json_t *root, sb_error *err)
{
    json_t *benches = json_object_get(root, "benchmarks");
    if (!json_is_array(benches))
        return sb_error_set(err, ctx->path, "/benchmarks", "not a pytest-benchmark JSON file: no \"benchmarks\" array");
    char when[40];
    const char *dt = str(root, "datetime");
    if (!dt || sb_import_time_utc(dt, when, sizeof when) != SB_OK)
        return sb_error_set(err, ctx->path, "/datetime", "\"datetime\" is not a date and time");
    size_t i;
    json_t *b;
    json_array_foreach(benches, i, b) {
        ctx->st->rows++;
        if (!json_is_object(b))
            return entry_error(ctx, i, "benchmark is not an object", err);
        if (convert_entry(ctx, root, b, i, when, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}
