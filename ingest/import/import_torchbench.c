/* import_torchbench.c - torch.utils.benchmark Measurements and Triton
 * do_bench times, as bench/scripts/torch_benchmark_dump.py writes them
 * ("format": "solbook.import.torch-benchmark.v1").
 *
 * Each measurements[] entry becomes one run. A Measurement ("kind":
 * "torch.utils.benchmark") gives raw_times (seconds, each the total of
 * number_per_run calls): a sample is raw_time / number_per_run, the time
 * per call torch itself reports (Measurement.times). A do_bench entry
 * ("kind": "triton.testing.do_bench") gives times in ms, one per call.
 * docs/IMPORT.md says field by field what becomes what.
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

static int entry_error(sb_import_ctx *ctx, size_t i, const char *msg, sb_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "/measurements/%zu", i);
    return sb_error_set(err, ctx->path, where, "%s", msg);
}

static int convert_measurement(sb_import_ctx *ctx, json_t *root, json_t *m, size_t i, const char *when,
                               sb_error *err)
{
    const char *kind = str(m, "kind");
    int torch = kind && strcmp(kind, "torch.utils.benchmark") == 0;
    int triton = kind && strcmp(kind, "triton.testing.do_bench") == 0;
    if (!torch && !triton)
        return entry_error(ctx, i, "\"kind\" is neither \"torch.utils.benchmark\" nor \"triton.testing.do_bench\"", err);
    const char *label = str(m, "label");
    if (!label || !*label)
        return entry_error(ctx, i, "measurement without a \"label\"", err);
    json_t *times = json_object_get(m, torch ? "raw_times" : "times_ms");
    size_t n = json_array_size(times);
    if (!json_is_array(times) || n == 0)
        return entry_error(ctx, i, torch ? "measurement without \"raw_times\"" : "do_bench entry without \"times_ms\"", err);
    double per_run = 1;
    json_t *npr = json_object_get(m, "number_per_run");
    if (torch) {
        if (!json_is_integer(npr) || json_integer_value(npr) < 1)
            return entry_error(ctx, i, "\"number_per_run\" is not an integer >= 1", err);
        per_run = (double)json_integer_value(npr);
    }
    double *sec = malloc(n * sizeof *sec);
    if (!sec)
        return sb_error_set(err, ctx->path, NULL, "out of memory");
    for (size_t k = 0; k < n; k++) {
        json_t *x = json_array_get(times, k);
        if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0) {
            free(sec);
            char msg[96];
            snprintf(msg, sizeof msg, "%s[%zu] is not a time (a number >= 0)", torch ? "raw_times" : "times_ms", k);
            return entry_error(ctx, i, msg, err);
        }
        /* torch: seconds per block of calls -> seconds per call; triton: ms */
        sec[k] = torch ? json_number_value(x) / per_run : json_number_value(x) / 1e3;
    }
    double median_ms = 0;
    json_t *timing;
    if (triton) {
        /* the ms do_bench gave, as they are, not through seconds */
        double *ms = malloc(n * sizeof *ms);
        for (size_t k = 0; ms && k < n; k++)
            ms[k] = json_number_value(json_array_get(times, k));
        size_t per[1] = {n};
        timing = ms ? sb_result_timing(ms, per, 1, &median_ms) : NULL;
        free(ms);
    } else {
        timing = sb_import_timing_seconds(sec, n, &median_ms);
    }
    free(sec);

    char op[64], provider[64], suite[64];
    const sb_import_op_name *opr = sb_import_op_named(ctx, label, op, sizeof op);
    const char *given_provider = ctx->opts.provider ? ctx->opts.provider : str(m, "provider");
    sb_import_id(given_provider ? given_provider : (torch ? "torch" : "triton"), provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "torch-benchmark", suite, sizeof suite);
    if (!op[0] || !provider[0]) {
        json_decref(timing);
        return entry_error(ctx, i, "label or provider has no letters or digits to make an id", err);
    }
    json_t *shape = json_object(), *params = json_object();
    const char *dtype = NULL;
    if (json_is_object(json_object_get(m, "shape")))
        sb_import_case_params(json_object_get(m, "shape"), shape, params, &dtype);
    if (json_is_object(json_object_get(m, "params")))
        sb_import_case_params(json_object_get(m, "params"), shape, params, &dtype);
    if (str(m, "dtype"))
        dtype = sb_import_dtype(str(m, "dtype"));
    if (!dtype && ctx->opts.dtype)
        dtype = sb_import_dtype(ctx->opts.dtype);
    if (!dtype && opr && opr->default_dtype[0])
        dtype = sb_import_dtype(opr->default_dtype);
    const char *sub = str(m, "sub_label"), *desc = str(m, "description");
    if (sub && *sub)
        json_object_set_new(params, "sub_label", json_string(sub));
    if (desc && *desc)
        json_object_set_new(params, "description", json_string(desc));
    const char *mode = str(m, "mode");
    if (!mode || (strcmp(mode, "fwd") != 0 && strcmp(mode, "bwd") != 0 && strcmp(mode, "full") != 0))
        mode = "fwd";
    json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", mode,
                               "provider", provider, "backend", torch ? "torch" : "triton", "dtype",
                               dtype ? dtype : "unknown", "shape", shape, "params", params);
    json_t *run_params = json_object();
    const char *stmt = str(m, "stmt");
    if (stmt && strlen(stmt) < 256)
        json_object_set_new(run_params, "stmt", json_string(stmt));
    json_t *threads = json_object_get(m, "num_threads");
    if (json_is_integer(threads))
        json_object_set(run_params, "num_threads", threads);
    json_object_set_new(config, "run_params", run_params);

    json_t *protocol = sb_import_protocol("unknown");
    if (torch)
        json_object_set_new(run_params, "calls_per_sample", json_integer((json_int_t)per_run));

    json_t *dev = json_object_get(root, "device");
    const char *dname = str(dev, "name");
    json_t *device;
    int gpu = dname && json_is_true(json_object_get(dev, "cuda"));
    if (gpu) {
        json_t *mem = json_object_get(dev, "memory_bytes"), *sms = json_object_get(dev, "sm_count");
        device = sb_import_gpu_device(ctx, dname, json_is_integer(mem) ? json_integer_value(mem) : 0,
                                      json_is_integer(sms) ? json_integer_value(sms) : -1, -1,
                                      str(dev, "compute_capability"));
    } else {
        device = sb_import_cpu_device(dname, -1);
    }
    json_t *prov = sb_import_provenance(torch ? "torch.utils.benchmark" : "triton.testing.do_bench",
                                        str(root, torch ? "torch_version" : "triton_version"), str(root, "hostname"),
                                        device, when, when);
    const char *cuda = str(root, "cuda_version");
    if (cuda)
        json_object_set_new(json_object_get(prov, "software"), "cuda_runtime_version", json_string(cuda));
    char notes[1000];
    if (torch)
        snprintf(notes, sizeof notes,
                 "torch.utils.benchmark Measurement \"%.*s\": %zu blocks of %.0f calls; each sample is a block's time "
                 "over its calls (Measurement.times); the shim records no commit%s",
                 sb_import_text_cut(label, 200), label, n, per_run, gpu ? "" : " and no GPU (the device is the host)");
    else
        snprintf(notes, sizeof notes,
                 "triton.testing.do_bench(return_mode=\"all\") \"%.*s\": %zu times in ms, one per call; the shim "
                 "records no commit%s",
                 sb_import_text_cut(label, 200), label, n, gpu ? "" : " and no GPU");
    return sb_import_emit(ctx, "passed", NULL, config, protocol, timing, sb_import_metrics(-1, median_ms), NULL, prov,
                          notes, (long long)i, err);
}

int sb_import_torch_benchmark_json(sb_import_ctx *ctx, json_t *root, sb_error *err)
{
    const char *format = str(root, "format");
    if (!format || strcmp(format, SB_IMPORT_TORCH_FORMAT) != 0)
        return sb_error_set(err, ctx->path, "/format", "not a file of bench/scripts/torch_benchmark_dump.py "
                            "(\"format\": \"%s\")", SB_IMPORT_TORCH_FORMAT);
    json_t *ms = json_object_get(root, "measurements");
    if (!json_is_array(ms))
        return sb_error_set(err, ctx->path, "/measurements", "no \"measurements\" array");
    char when[40];
    const char *created = str(root, "created_at");
    if (!created || sb_import_time_utc(created, when, sizeof when) != SB_OK)
        return sb_error_set(err, ctx->path, "/created_at", "\"created_at\" is not a date and time");
    size_t i;
    json_t *m;
    json_array_foreach(ms, i, m) {
        ctx->st->rows++;
        if (!json_is_object(m))
            return entry_error(ctx, i, "measurement is not an object", err);
        if (convert_measurement(ctx, root, m, i, when, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}
