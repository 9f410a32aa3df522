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

/* Opens the case, measures one provider, requires a pass. Returns 1 when
 * the provider skipped the case (why filled), 0 on a pass, SB_ERR else. */
static int probe(sb_ctx *ctx, const sb_op *op, const sb_op_config *cfg, const char *provider,
                 const sb_protocol_opts *proto, sb_measurement *m, char *why, size_t why_size, sb_error *err)
{
    sb_case *c;
    memset(m, 0, sizeof *m);
    int p = sb_op_provider_index(op, provider);
    if (p < 0)
        return sb_error_set(err, NULL, NULL, "%s has no provider %s", op->name, provider);
    if (sb_case_open(op, cfg, ctx, proto, &c, err) != SB_OK)
        return SB_ERR;
    int rc = sb_case_measure(c, p, proto, m, err);
    sb_case_close(c);
    if (rc != SB_OK)
        return SB_ERR;
    if (strcmp(m->status, "skipped") == 0) {
        snprintf(why, why_size, "%s", m->reason);
        return 1;
    }
    if (strcmp(m->status, "passed") != 0)
        return sb_error_set(err, NULL, NULL, "%s %s %s probe failed its correctness check: %s", op->name,
                            sb_dtype_name(cfg->dtype), provider, m->reason);
    return 0;
}

static json_t *with_stats(const sb_measurement *m, json_t *o)
{
    int n = m->iters * m->repeats;
    json_object_set_new(o, "median_ms", json_real(sb_measurement_median(m)));
    json_object_set_new(o, "stats", sb_stats_json(m->samples, n, m->repeats));
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
    json_object_set_new(cal, "protocol", proto);

    sb_protocol_opts pr = opts->proto;
    pr.warmup_ms = 0;
    pr.input_sets = 1; /* buffers far larger than L2 */
    json_t *bw = json_object();
    static const char *const kernels[] = {"copy", "scale", "add", "triad"};
    char why[512];
    for (int k = 0; k < 5; k++) {
        int memcpy_probe = k == 4;
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
        const char *provider = ctx->device_is_cpu ? "cpu" : memcpy_probe ? "cuda-memcpy" : "solbook-stream";
        int rc = probe(ctx, &sb_op_stream, &cfg, provider, &pr, &m, why, sizeof why, err);
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
        sb_measurement_free(&m);
    }
    json_object_set_new(cal, "bandwidth", bw);

    json_t *gp = json_object();
    static const sb_dtype dtypes[] = {SB_DTYPE_FP16, SB_DTYPE_BF16, SB_DTYPE_TF32, SB_DTYPE_FP32,
                                      SB_DTYPE_FP8E4M3};
    for (size_t d = 0; opts->gemm_size > 0 && d < sizeof dtypes / sizeof dtypes[0]; d++) {
        if (dtypes[d] == SB_DTYPE_FP8E4M3 && ctx->device_is_cpu)
            break; /* fp8 is a cuBLASLt probe only */
        sb_op_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.mode = "fwd";
        cfg.dtype = dtypes[d];
        cfg.seed = opts->seed;
        set_shape(&cfg.shape, "M", opts->gemm_size);
        set_shape(&cfg.shape, "N", opts->gemm_size);
        set_shape(&cfg.shape, "K", opts->gemm_size);
        set_param(&cfg.params, "transa", "n");
        set_param(&cfg.params, "transb", dtypes[d] == SB_DTYPE_FP8E4M3 ? "t" : "n");
        sb_measurement m;
        const char *provider = ctx->device_is_cpu ? "cpu" : "cublaslt";
        sb_protocol_opts gpr = pr;
        gpr.max_check_rows = 16;
        int rc = probe(ctx, &sb_op_gemm, &cfg, provider, &gpr, &m, why, sizeof why, err);
        if (rc == 1) {
            nl += (size_t)snprintf(notes + nl, nl < sizeof notes ? sizeof notes - nl : 0, "%s%s omitted: %s",
                                   nl ? "; " : "", sb_dtype_name(dtypes[d]), why);
            sb_measurement_free(&m);
            continue;
        }
        if (rc != 0) {
            sb_measurement_free(&m);
            json_decref(gp);
            json_decref(cal);
            return SB_ERR;
        }
        double med = sb_measurement_median(&m);
        json_t *o = json_object();
        json_object_set_new(o, "tflops", json_real(sb_op_gemm.model_flops(&cfg) / (med * 1e-3) / 1e12));
        json_object_set_new(o, "M", json_integer(opts->gemm_size));
        json_object_set_new(o, "N", json_integer(opts->gemm_size));
        json_object_set_new(o, "K", json_integer(opts->gemm_size));
        json_object_set_new(o, "provider", json_string(provider));
        json_object_set_new(gp, sb_dtype_name(dtypes[d]), with_stats(&m, o));
        sb_measurement_free(&m);
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
