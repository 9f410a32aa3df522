/* roofline.c - measured ceilings for solbook.calibration.v1. */
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "op.h"
#include "provenance.h"
#include "result.h"

extern const sb_op sb_op_gemm;
extern const sb_op sb_op_stream;

static void set_shape(sb_shape *s, const char *name, int64_t v)
{
    snprintf(s->name[s->count], SB_NAME_MAX, "%s", name);
    s->value[s->count++] = v;
}

static void set_param(sb_params *p, const char *name, const char *v)
{
    snprintf(p->name[p->count], SB_NAME_MAX, "%s", name);
    snprintf(p->value[p->count++], sizeof p->value[0], "%s", v);
}

/* Opens the case once and measures each of the providers (a
 * comma-separated list); every one that runs must pass. *m receives the
 * fastest (lowest median) and *best its name. Returns 1 when every
 * provider skipped the case (why filled), 0 otherwise, SB_ERR on errors. */
static int probe(sb_ctx *ctx, const sb_op *op, const sb_op_config *cfg, const char *providers,
                 const sb_protocol_opts *proto, sb_measurement *m, const char **best, char *why, size_t why_size,
                 sb_error *err)
{
    sb_case *c;
    memset(m, 0, sizeof *m);
    *best = NULL;
    if (sb_case_open(op, cfg, ctx, proto, &c, err) != SB_OK)
        return SB_ERR;
    char list[128];
    snprintf(list, sizeof list, "%s", providers);
    int rc = 1;
    double best_med = INFINITY;
    for (char *save, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int p = sb_op_provider_index(op, name);
        if (p < 0) {
            rc = sb_error_set(err, NULL, NULL, "%s has no provider %s", op->name, name);
            break;
        }
        sb_measurement cur;
        if (sb_case_measure(c, p, proto, &cur, err) != SB_OK) {
            sb_measurement_free(&cur);
            rc = SB_ERR;
            break;
        }
        if (strcmp(cur.status, "skipped") == 0) {
            if (rc == 1)
                snprintf(why, why_size, "%s", cur.reason);
            sb_measurement_free(&cur);
            continue;
        }
        if (strcmp(cur.status, "passed") != 0) {
            rc = sb_error_set(err, NULL, NULL, "%s %s %s probe failed its correctness check: %.600s", op->name,
                              sb_dtype_name(cfg->dtype), name, cur.reason);
            sb_measurement_free(&cur);
            break;
        }
        if (cur.hold_timeouts > 0) { /* a ceiling must not carry the host's submit time */
            rc = sb_error_set(err, NULL, NULL,
                              "%s %s %s probe: %d held repeat(s) let go before the host had queued them; "
                              "rerun without --hold or with fewer --iters", op->name, sb_dtype_name(cfg->dtype),
                              name, cur.hold_timeouts);
            sb_measurement_free(&cur);
            break;
        }
        double med = sb_measurement_median(&cur);
        if (med < best_med) {
            sb_measurement_free(m);
            *m = cur;
            best_med = med;
            *best = op->providers[p].name;
        } else {
            sb_measurement_free(&cur);
        }
        rc = 0;
    }
    sb_case_close(c);
    return rc;
}

static json_t *with_stats(const sb_measurement *m, json_t *o)
{
    sb_sample_stats st;
    if (sb_measurement_stats(m, &st) == 0) {
        json_object_set_new(o, "median_ms", json_real(st.median));
        json_object_set_new(o, "stats", sb_result_stats_json(&st));
    }
    return o;
}

int sb_roofline_run(sb_ctx *ctx, const sb_roofline_opts *opts, const json_t *prov, json_t **out, sb_error *err)
{
    *out = NULL;
    int64_t n = opts->buffer_bytes / 4 / 1024 * 1024;
    if (n < 1024)
        return sb_error_set(err, NULL, NULL, "--bytes %lld is too small (at least 4096)",
                            (long long)opts->buffer_bytes);
    json_t *cal = json_object();
    char uuid[33], notes[2048] = "";
    size_t nl = 0;
    sb_random_uuid(uuid);
    json_object_set_new(cal, "schema", json_string("solbook.calibration.v1"));
    json_object_set_new(cal, "run_uuid", json_string(uuid));
    json_t *proto = json_object();
    json_object_set_new(proto, "buffer_bytes", json_integer(n * 4));
    json_object_set_new(proto, "warmup_iters", json_integer(opts->proto.warmup_iters));
    json_object_set_new(proto, "iters", json_integer(opts->proto.iters));
    json_object_set_new(proto, "repeats", json_integer(opts->proto.repeats));
    json_object_set_new(proto, "timer", json_string(ctx->device_is_cpu ? "host-monotonic" : "cuda-event"));
    if (!ctx->device_is_cpu) /* how the harness queued the timed repeats */
        json_object_set_new(proto, "launch_hold", json_string(opts->proto.launch_hold ? "blocking-kernel" : "none"));
    json_object_set_new(cal, "protocol", proto);

    sb_protocol_opts pr = opts->proto;
    pr.warmup_ms = 0;
    pr.input_sets = 1; /* buffers far larger than L2 */
    json_t *bw = json_object();
    static const char *const kernels[] = {"copy", "scale", "add", "triad", "read"};
    enum { STREAM_KERNELS = sizeof kernels / sizeof kernels[0] };
    char why[512];
    for (int k = 0; k <= STREAM_KERNELS; k++) {
        int memcpy_probe = k == STREAM_KERNELS;
        if (memcpy_probe && ctx->device_is_cpu)
            break;
        sb_op_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.mode = "fwd";
        cfg.dtype = SB_DTYPE_FP32;
        cfg.seed = opts->seed;
        set_shape(&cfg.shape, "N", n);
        set_param(&cfg.params, "kernel", memcpy_probe ? "copy" : kernels[k]);
        sb_measurement m;
        const char *provider = ctx->device_is_cpu ? "cpu" : memcpy_probe ? "cuda-memcpy"
                                                                   : "solbook-stream,solbook-stream-tiled,"
                                                                     "solbook-stream-flat1,solbook-stream-flat4";
        const char *used;
        int rc = probe(ctx, &sb_op_stream, &cfg, provider, &pr, &m, &used, why, sizeof why, err);
        if (rc != 0) {
            sb_measurement_free(&m);
            json_decref(bw);
            json_decref(cal);
            return rc == 1 ? sb_error_set(err, NULL, NULL, "stream probe skipped: %s", why) : SB_ERR;
        }
        double bytes = sb_op_stream.model_bytes(&cfg), med = sb_measurement_median(&m);
        json_t *o = json_object();
        json_object_set_new(o, "gbps", json_real(bytes / (med * 1e-3) / 1e9));
        json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
        json_object_set_new(bw, memcpy_probe ? "memcpy_d2d" : kernels[k], with_stats(&m, o));
        if (!memcpy_probe && !ctx->device_is_cpu && nl < sizeof notes)
            nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "%s%s by %s", nl ? "; " : "", kernels[k], used);
        sb_measurement_free(&m);
    }
    json_object_set_new(cal, "bandwidth", bw);

    json_t *gp = json_object();
    static const sb_dtype dtypes[] = {SB_DTYPE_FP16, SB_DTYPE_BF16, SB_DTYPE_TF32, SB_DTYPE_FP32,
                                      SB_DTYPE_FP8E4M3};
    /* GEMM peaks: the best of cuBLASLt and cuBLAS at N^3 and (N/2)^3. Long
     * products at the largest size can run into the power cap and clock
     * down, so the smaller size often gives the higher sustained rate. */
    for (size_t d = 0; opts->gemm_size > 0 && d < sizeof dtypes / sizeof dtypes[0]; d++) {
        if (dtypes[d] == SB_DTYPE_FP8E4M3 && ctx->device_is_cpu)
            break; /* fp8 is a cuBLASLt probe only */
        int64_t sizes[2] = {opts->gemm_size, opts->gemm_size / 2};
        int nsizes = ctx->device_is_cpu || opts->gemm_size / 2 < 512 ? 1 : 2;
        const char *providers = ctx->device_is_cpu                    ? "cpu"
                                : dtypes[d] == SB_DTYPE_FP8E4M3 ? "cublaslt"
                                                                : "cublaslt,cublas";
        sb_measurement best;
        memset(&best, 0, sizeof best);
        const char *best_provider = NULL;
        int64_t best_size = 0;
        double best_tflops = -1;
        char last_why[512] = "";
        for (int si = 0; si < nsizes; si++) {
            sb_op_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.mode = "fwd";
            cfg.dtype = dtypes[d];
            cfg.seed = opts->seed;
            set_shape(&cfg.shape, "M", sizes[si]);
            set_shape(&cfg.shape, "N", sizes[si]);
            set_shape(&cfg.shape, "K", sizes[si]);
            set_param(&cfg.params, "transa", "n");
            set_param(&cfg.params, "transb", dtypes[d] == SB_DTYPE_FP8E4M3 ? "t" : "n");
            sb_measurement m;
            const char *used = NULL;
            sb_protocol_opts gpr = pr;
            gpr.max_check_rows = 16;
            int rc = probe(ctx, &sb_op_gemm, &cfg, providers, &gpr, &m, &used, why, sizeof why, err);
            if (rc == 1) {
                snprintf(last_why, sizeof last_why, "%s", why);
                sb_measurement_free(&m);
                continue;
            }
            if (rc != 0) {
                sb_measurement_free(&m);
                sb_measurement_free(&best);
                json_decref(gp);
                json_decref(cal);
                return SB_ERR;
            }
            double tf = sb_op_gemm.model_flops(&cfg) / (sb_measurement_median(&m) * 1e-3) / 1e12;
            if (tf > best_tflops) {
                sb_measurement_free(&best);
                best = m;
                best_tflops = tf;
                best_provider = used;
                best_size = sizes[si];
            } else {
                sb_measurement_free(&m);
            }
        }
        if (!best_provider) {
            nl += (size_t)snprintf(notes + nl, nl < sizeof notes ? sizeof notes - nl : 0, "%s%s omitted: %s",
                                   nl ? "; " : "", sb_dtype_name(dtypes[d]), last_why);
            continue;
        }
        json_t *o = json_object();
        json_object_set_new(o, "tflops", json_real(best_tflops));
        json_object_set_new(o, "M", json_integer(best_size));
        json_object_set_new(o, "N", json_integer(best_size));
        json_object_set_new(o, "K", json_integer(best_size));
        json_object_set_new(o, "provider", json_string(best_provider));
        json_object_set_new(gp, sb_dtype_name(dtypes[d]), with_stats(&best, o));
        sb_measurement_free(&best);
    }
    json_object_set_new(cal, "gemm_peak", gp);
    if (nl)
        json_object_set_new(cal, "notes", json_string(notes));
    json_t *p = json_deep_copy(prov);
    sb_provenance_finish(p, err);
    json_object_set_new(cal, "provenance", p);
    *out = cal;
    return SB_OK;
}
