/* result.c - measurement -> solbook.result.v1 JSON, with derived metrics. */
#include "result.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_file.h"
#include "output_scan.h"
#include "provenance.h"
#include "sha256.h"

void sb_random_uuid(char out[33])
{
    unsigned char b[16];
    int ok = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ok = read(fd, b, sizeof b) == (ssize_t)sizeof b;
        close(fd);
    }
    if (!ok) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, y = (uint64_t)getpid();
        for (int i = 0; i < 16; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b[i] = (unsigned char)((x ^ (y * 0x9e3779b97f4a7c15ull)) >> (i % 8 * 8));
        }
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *tri(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

/* The per_repeat layout of sb_sample_stats_of: iters samples a repeat
 * (malloc'd); NULL when the measurement holds none or memory runs out. */
static size_t *repeat_layout(const sb_measurement *m)
{
    if (!m->samples || m->iters < 1 || m->repeats < 1)
        return NULL;
    size_t *per = malloc((size_t)m->repeats * sizeof *per);
    for (int r = 0; per && r < m->repeats; r++)
        per[r] = (size_t)m->iters;
    return per;
}

int sb_measurement_stats(const sb_measurement *m, sb_sample_stats *st)
{
    size_t *per = repeat_layout(m);
    int rc = per ? sb_sample_stats_of(m->samples, per, (size_t)m->repeats, st) : -1;
    free(per);
    return rc;
}

json_t *sb_measurement_timing(const sb_measurement *m, double *median_ms)
{
    size_t *per = repeat_layout(m);
    json_t *timing = per ? sb_result_timing(m->samples, per, (size_t)m->repeats, median_ms) : NULL;
    free(per);
    return timing;
}

double sb_measurement_median(const sb_measurement *m)
{
    sb_sample_stats st;
    return sb_measurement_stats(m, &st) == 0 ? st.median : NAN;
}

int sb_calibration_load(const char *path, const char *prov_sku, json_t **out, char sha256[65],
                        sb_error *err)
{
    *out = NULL;
    json_t *j;
    if (sb_json_load_file(path, &j, err) != SB_OK)
        return SB_ERR;
    const char *schema = json_string_value(json_object_get(j, "schema"));
    if (!schema || strcmp(schema, "solbook.calibration.v1") != 0) {
        json_decref(j);
        return sb_error_set(err, path, "/schema", "not a solbook.calibration.v1 file");
    }
    if (!json_is_object(json_object_get(j, "bandwidth")) || !json_is_object(json_object_get(j, "gemm_peak"))) {
        json_decref(j);
        return sb_error_set(err, path, "", "calibration without bandwidth and gemm_peak objects");
    }
    const char *csku = json_string_value(
        json_object_get(json_object_get(json_object_get(j, "provenance"), "device"), "sku"));
    if (prov_sku && csku && strcmp(csku, prov_sku) != 0) {
        sb_error_set(err, path, "/provenance/device/sku",
                     "calibration was measured on %s, this run is on %s", csku, prov_sku);
        json_decref(j);
        return SB_ERR;
    }
    if (sb_sha256_file_hex(path, sha256, err) != SB_OK) {
        json_decref(j);
        return SB_ERR;
    }
    *out = j;
    return SB_OK;
}

static void set_param(json_t *params, const sb_param_spec *spec, const char *name, const char *value)
{
    sb_param_kind kind = SB_PARAM_STRING;
    if (spec) {
        for (int i = 0; spec[i].name; i++)
            if (strcmp(spec[i].name, name) == 0)
                kind = spec[i].kind;
    }
    char *end;
    switch (kind) {
    case SB_PARAM_INT: {
        long long v = strtoll(value, &end, 10);
        json_object_set_new(params, name, *end == 0 && end != value ? json_integer(v) : json_string(value));
        return;
    }
    case SB_PARAM_FLOAT: {
        double v = strtod(value, &end);
        json_object_set_new(params, name,
                            *end == 0 && end != value && isfinite(v) ? json_real(v) : json_string(value));
        return;
    }
    case SB_PARAM_BOOL:
        json_object_set_new(params, name, json_boolean(strcmp(value, "true") == 0 || strcmp(value, "1") == 0));
        return;
    default: json_object_set_new(params, name, json_string(value));
    }
}

/* Datasheet peak for the bound resource. */
static void add_metrics(json_t *metrics, const sb_result_env *env, const sb_op_config *cfg, double flops,
                        double bytes, double median_ms)
{
    double secs = median_ms * 1e-3;
    double tflops = flops > 0 && secs > 0 ? flops / secs / 1e12 : NAN;
    double gbps = bytes > 0 && secs > 0 ? bytes / secs / 1e9 : NAN;
    json_object_set_new(metrics, "flops", flops > 0 ? json_real(flops) : json_real(0));
    json_object_set_new(metrics, "bytes", bytes > 0 ? json_real(bytes) : json_null());
    json_object_set_new(metrics, "tflops", flops > 0 ? num_or_null(tflops) : json_null());
    json_object_set_new(metrics, "gbps", num_or_null(gbps));

    const char *dt = sb_dtype_name(cfg->dtype);
    double ds_tflops = env->sku ? sb_sku_peak_tflops(env->sku, dt) : 0;
    double ds_gbps = env->sku ? env->sku->hbm_tbps * 1000.0 : 0;
    /* Measured ceilings: the dtype's GEMM peak, and the best of the
     * bandwidth probes (copy, scale, add, triad, memcpy_d2d). */
    double cal_tflops = 0, cal_gbps = 0;
    const char *cal_bw_name = NULL;
    if (env->calibration) {
        json_t *g = json_object_get(json_object_get(env->calibration, "gemm_peak"), dt);
        cal_tflops = json_number_value(json_object_get(g, "tflops"));
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(env->calibration, "bandwidth"), k, v) {
            double gb = json_number_value(json_object_get(v, "gbps"));
            if (gb > cal_gbps) {
                cal_gbps = gb;
                cal_bw_name = k;
            }
        }
    }
    /* Which floor is higher: flops / peak_flops against bytes / peak_bw,
     * from the datasheet, else from the calibration. */
    double pf = ds_tflops > 0 ? ds_tflops : cal_tflops, pb = ds_gbps > 0 ? ds_gbps : cal_gbps;
    const char *bound = "unknown";
    if (flops <= 0 && bytes > 0)
        bound = "memory";
    else if (pf > 0 && pb > 0)
        bound = flops / (pf * 1e12) >= bytes / (pb * 1e9) ? "compute" : "memory";
    json_object_set_new(metrics, "bound", json_string(bound));
    int compute = strcmp(bound, "compute") == 0, memory = strcmp(bound, "memory") == 0;
    if (compute && ds_tflops > 0 && isfinite(tflops)) {
        char name[48];
        snprintf(name, sizeof name, "%s_dense_tflops", cfg->dtype == SB_DTYPE_FP8E4M3 ? "fp8" : dt);
        json_object_set_new(metrics, "pct_datasheet_peak", json_real(100.0 * tflops / ds_tflops));
        json_object_set_new(metrics, "datasheet_peak_name", json_string(name));
    } else if (memory && ds_gbps > 0 && isfinite(gbps)) {
        json_object_set_new(metrics, "pct_datasheet_peak", json_real(100.0 * gbps / ds_gbps));
        json_object_set_new(metrics, "datasheet_peak_name", json_string("hbm_tbps"));
    } else {
        json_object_set_new(metrics, "pct_datasheet_peak", json_null());
    }
    if (env->calibration) {
        char name[48];
        if (compute && cal_tflops > 0 && isfinite(tflops)) {
            snprintf(name, sizeof name, "gemm.%s", dt);
            json_object_set_new(metrics, "pct_measured_ceiling", json_real(100.0 * tflops / cal_tflops));
            json_object_set_new(metrics, "measured_ceiling_name", json_string(name));
        } else if (memory && cal_gbps > 0 && isfinite(gbps)) {
            json_object_set_new(metrics, "pct_measured_ceiling", json_real(100.0 * gbps / cal_gbps));
            json_object_set_new(metrics, "measured_ceiling_name", json_string(cal_bw_name));
        } else {
            json_object_set_new(metrics, "pct_measured_ceiling", json_null());
        }
        json_object_set_new(metrics, "calibration_sha256", json_string(env->calibration_sha256));
    } else {
        json_object_set_new(metrics, "pct_measured_ceiling", json_null());
    }
}

json_t *sb_result_build(const sb_result_env *env, const sb_op *op, const sb_op_config *cfg, int provider,
                        const sb_measurement *m)
{
    char uuid[33];
    sb_random_uuid(uuid);
    sb_result_doc d = {.run_uuid = uuid, .status = m->status};
    if (strcmp(m->status, "passed") != 0)
        d.reason = m->reason[0] ? m->reason : m->status;

    const sb_provider *pv = &op->providers[provider];
    json_t *config = json_object();
    json_object_set_new(config, "suite", json_string(env->suite));
    json_object_set_new(config, "op", json_string(op->name));
    json_object_set_new(config, "mode", json_string(cfg->mode));
    json_object_set_new(config, "provider", json_string(pv->name));
    json_object_set_new(config, "backend", json_string(pv->backend == SB_BACKEND_CPU ? "cpu" : "cuda"));
    json_object_set_new(config, "dtype", json_string(sb_dtype_name(cfg->dtype)));
    json_t *shape = json_object();
    for (int i = 0; i < cfg->shape.count; i++)
        json_object_set_new(shape, cfg->shape.name[i], json_integer(cfg->shape.value[i]));
    json_object_set_new(config, "shape", shape);
    json_t *params = json_object();
    for (int i = 0; i < cfg->params.count; i++)
        set_param(params, op->params, cfg->params.name[i], cfg->params.value[i]);
    json_object_set_new(config, "params", params);
    /* How this provider ran, not what it computed: the seed of the random
     * inputs and what the provider reports of itself (workspace, scratch,
     * chunking). Kept out of params so that providers of one case pair. */
    json_t *run_params = json_object();
    for (int i = 0; i < m->extra_params.count; i++) {
        /* provider params are byte counts and such: integers when they parse */
        char *end;
        long long v = strtoll(m->extra_params.value[i], &end, 10);
        if (*end == 0 && end != m->extra_params.value[i])
            json_object_set_new(run_params, m->extra_params.name[i], json_integer(v));
        else
            json_object_set_new(run_params, m->extra_params.name[i], json_string(m->extra_params.value[i]));
    }
    json_object_set_new(run_params, "seed", json_integer((json_int_t)cfg->seed));
    json_object_set_new(config, "run_params", run_params);
    d.config = config;

    json_t *proto = json_object();
    json_object_set_new(proto, "timer", json_string(m->timer));
    int timed = strcmp(m->status, "passed") == 0;
    json_object_set_new(proto, "warmup_iters", timed ? json_integer(m->warmup_iters_done) : json_null());
    json_object_set_new(proto, "warmup_ms", m->warmup_ms > 0 ? json_real(m->warmup_ms) : json_null());
    if (timed && m->settle_ms > 0) {
        json_object_set_new(proto, "settle_ms", json_real(m->settle_ms));
        json_object_set_new(proto, "settle_launches", json_integer(m->settle_launches));
    }
    json_object_set_new(proto, "iters", json_integer(m->iters));
    json_object_set_new(proto, "repeats", json_integer(m->repeats));
    json_object_set_new(proto, "l2", json_string(m->l2_cold ? "cold" : "warm"));
    json_object_set_new(proto, "input_sets", json_integer(m->input_sets > 0 ? m->input_sets : 1));
    json_object_set_new(proto, "graph", json_false());
    if (timed && m->launch_hold)
        json_object_set_new(proto, "launch_hold", json_string(m->launch_hold));
    if (m->profiler)
        json_object_set_new(proto, "profiler", json_string(m->profiler));
    d.protocol = proto;

    double median_ms = NAN;
    json_t *timing = timed ? sb_measurement_timing(m, &median_ms) : NULL;
    if (timing) {
        if (m->clocks_before)
            json_object_set(timing, "clocks_before", m->clocks_before);
        if (m->clocks_after)
            json_object_set(timing, "clocks_after", m->clocks_after);
        if (m->repeat_clocks)
            json_object_set(timing, "repeat_clocks", m->repeat_clocks);
        if (m->launch_hold && strcmp(m->launch_hold, "none") != 0)
            json_object_set_new(timing, "hold_timeouts", json_integer(m->hold_timeouts));
        d.timing = timing;

        json_t *metrics = json_object();
        add_metrics(metrics, env, cfg, op->model_flops ? op->model_flops(cfg) : 0,
                    op->model_bytes ? op->model_bytes(cfg) : 0, median_ms);
        d.metrics = metrics;
    }

    if (m->peak_device_bytes >= 0) {
        json_t *mem = json_object();
        json_object_set_new(mem, "peak_device_bytes", json_integer(m->peak_device_bytes));
        json_object_set_new(mem, "peak_device_mb", json_real((double)m->peak_device_bytes / 1e6));
        d.memory = mem;
    }

    json_t *corr = json_object();
    int skipped = strcmp(m->status, "skipped") == 0;
    json_object_set_new(corr, "reference", json_string(skipped ? "none" : m->reference));
    if (skipped) {
        json_object_set_new(corr, "passed", json_null());
    } else {
        json_object_set_new(corr, "checked_elements", json_integer(m->checked_elements));
        json_object_set_new(corr, "max_abs_err", num_or_null(m->max_abs_err));
        json_object_set_new(corr, "max_rel_err", num_or_null(m->max_rel_err));
        json_object_set_new(corr, "rel_l2_err", num_or_null(m->rel_l2_err));
        json_object_set_new(corr, "atol", json_real(m->atol));
        json_object_set_new(corr, "rtol", json_real(m->rtol));
        json_object_set_new(corr, "unwritten", json_integer(m->unwritten));
        json_object_set_new(corr, "finite", json_boolean(m->nonfinite == 0));
        json_object_set_new(corr, "passed", json_boolean(m->passed));
        json_object_set_new(corr, "output_checksum", json_string(m->checksum));
        if (strcmp(m->checksum, "unknown") != 0)
            json_object_set_new(corr, "checksum_algorithm", json_string(SB_CHECKSUM_ALGORITHM));
    }
    d.correctness = corr;

    json_t *det = json_object();
    json_object_set_new(det, "bitwise_repeatable", tri(m->bitwise_repeatable));
    json_object_set_new(det, "batch_invariant", tri(m->batch_invariant));
    d.determinism = det;

    json_t *prov = json_deep_copy(env->provenance);
    sb_error e;
    sb_provenance_finish(prov, &e);
    d.provenance = prov;
    return sb_result_doc_json(&d);
}

void sb_result_file_name(const sb_op *op, const sb_op_config *cfg, int provider, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s-%s-%s", op->name, sb_dtype_name(cfg->dtype), cfg->mode);
    for (int i = 0; i < cfg->shape.count && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? "x" : "-", (long long)cfg->shape.value[i]);
    if (cfg->params.count && n < size)
        n += (size_t)snprintf(buf + n, size - n, "-");
    for (int i = 0; i < cfg->params.count && n < size; i++) {
        for (const char *c = cfg->params.value[i]; *c && n + 1 < size; c++)
            buf[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                               *c == '.'
                           ? *c
                           : '_';
        buf[n < size ? n : size - 1] = 0;
    }
    if (n < size)
        snprintf(buf + n, size - n, "-%s.json", op->providers[provider].name);
}
