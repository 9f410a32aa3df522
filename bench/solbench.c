/* solbench.c - the benchmark program: `solbench OP ...`, `solbench suite`,
 * `solbench roofline`, `solbench list`. See docs/BENCH.md. */
#include <cublas_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "json_file.h"
#include "nvml.h"
#include "op.h"
#include "parse_options.h"
#include "presets.h"
#include "provenance.h"
#include "result.h"
#include "roofline.h"
#include "sku.h"

#ifndef SOLBOOK_VERSION
#define SOLBOOK_VERSION "0.0.0"
#endif
#ifndef SOLBENCH_NVCC_VERSION
#define SOLBENCH_NVCC_VERSION "unknown"
#endif

#define EXIT_PROBLEMS 1
#define EXIT_USAGE 2

static void fail_line(const sb_error *e)
{
    char buf[2600];
    sb_error_format(e, buf, sizeof buf);
    fprintf(stderr, "solbench: %s\n", buf);
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "solbench: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see solbench --help)\n");
    return EXIT_USAGE;
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_bytes(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0)
        return -1;
    double mul = 1;
    if (!strcmp(end, "K") || !strcmp(end, "KiB"))
        mul = 1024.0;
    else if (!strcmp(end, "M") || !strcmp(end, "MiB"))
        mul = 1024.0 * 1024;
    else if (!strcmp(end, "G") || !strcmp(end, "GiB"))
        mul = 1024.0 * 1024 * 1024;
    else if (*end)
        return -1;
    v *= mul;
    if (v > 9.0e18)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* ------------------------------------------------------------ common run */
typedef struct run_env {
    sb_ctx ctx;
    int ctx_open;
    sb_nvml *nvml;
    int nvml_index;            /* NVML index of the CUDA device, -1 unknown */
    sb_sku_table *skus;
    json_t *prov;
    json_t *calibration;
    sb_result_env renv;
} run_env;

static void cublas_version(char *buf, size_t size)
{
    int ma = 0, mi = 0, pa = 0;
    if (cublasGetProperty(MAJOR_VERSION, &ma) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(MINOR_VERSION, &mi) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(PATCH_LEVEL, &pa) != CUBLAS_STATUS_SUCCESS)
        snprintf(buf, size, "unknown");
    else
        snprintf(buf, size, "%d.%d.%d", ma, mi, pa);
}

static void run_env_close(run_env *e)
{
    json_decref(e->prov);
    json_decref(e->calibration);
    sb_sku_table_free(e->skus);
    sb_nvml_close(e->nvml);
    if (e->ctx_open)
        sb_ctx_close(&e->ctx);
    memset(e, 0, sizeof *e);
}

/* Opens the device, collects provenance, finds the SKU, loads the
 * calibration. */
static int run_env_open(run_env *e, int device_is_cpu, int device_index, const char *calibration,
                        const char *suite, sb_error *err)
{
    memset(e, 0, sizeof *e);
    if (sb_ctx_open(&e->ctx, device_is_cpu, device_index, err) != SB_OK)
        return SB_ERR;
    e->ctx_open = 1;
    sb_error ignored;
    e->nvml_index = -1;
    if (!device_is_cpu && sb_nvml_open(&e->nvml, &ignored) != SB_OK)
        e->nvml = NULL;
    /* NVML numbers devices by PCI order, CUDA by its own order and
     * CUDA_VISIBLE_DEVICES: find the NVML index by UUID. Without a match
     * NVML is not used, rather than describing another GPU. */
    if (e->nvml) {
        char uuid[64];
        sb_ctx_device_uuid(&e->ctx, uuid, sizeof uuid);
        for (int i = 0; i < 256 && e->nvml_index < 0; i++) {
            json_t *d = json_object();
            int rc = sb_nvml_device_identity(e->nvml, i, d, &ignored);
            const char *u = json_string_value(json_object_get(d, "uuid"));
            if (rc == SB_OK && u && strcasecmp(u, uuid) == 0)
                e->nvml_index = i;
            json_decref(d);
            if (rc != SB_OK)
                break;
        }
        if (e->nvml_index < 0 && !getenv("CUDA_VISIBLE_DEVICES")) {
            /* No UUID match (a driver that formats it otherwise): without
             * CUDA_VISIBLE_DEVICES the orders agree when the names do. */
            char name[256];
            sb_ctx_device_name(&e->ctx, name, sizeof name);
            json_t *d = json_object();
            const char *n = NULL;
            if (sb_nvml_device_identity(e->nvml, device_index, d, &ignored) == SB_OK)
                n = json_string_value(json_object_get(d, "name"));
            if (n && strcmp(n, name) == 0)
                e->nvml_index = device_index;
            json_decref(d);
        }
        if (e->nvml_index < 0) {
            sb_nvml_close(e->nvml);
            e->nvml = NULL;
        }
    }
    sb_provenance_opts po = {
        .tool_name = "solbench",
        .tool_version = SOLBOOK_VERSION,
        .git_dir = NULL,
        .device_is_cpu = device_is_cpu,
        .device_index = e->nvml_index >= 0 ? e->nvml_index : device_index,
        .skus_csv = NULL,
    };
#ifdef SOLBOOK_SOURCE_DIR
    struct stat st;
    char gitdir[1200];
    snprintf(gitdir, sizeof gitdir, "%s/.git", SOLBOOK_SOURCE_DIR);
    if (stat(gitdir, &st) == 0)
        po.git_dir = SOLBOOK_SOURCE_DIR;
#endif
    if (sb_provenance_collect_nvml(&po, e->nvml, &e->prov, err) != SB_OK)
        return SB_ERR;
    if (sb_sku_table_load(NULL, &e->skus, err) != SB_OK)
        return SB_ERR;
    json_t *dev = json_object_get(e->prov, "device");
    json_t *sw = json_object_get(e->prov, "software");
    char buf[256];
    snprintf(buf, sizeof buf, "nvcc %s / gcc %s", SOLBENCH_NVCC_VERSION, __VERSION__);
    json_object_set_new(sw, "compiler", json_string(buf));
    if (!device_is_cpu) {
        sb_cuda_runtime_version(buf, sizeof buf);
        json_object_set_new(sw, "cuda_runtime_version", json_string(buf));
        cublas_version(buf, sizeof buf);
        json_object_set_new(sw, "cublas_version", json_string(buf));
        /* What the CUDA runtime knows fills what NVML could not. */
        const char *name = json_string_value(json_object_get(dev, "name"));
        if (!name || !strcmp(name, "unknown")) {
            sb_ctx_device_name(&e->ctx, buf, sizeof buf);
            json_object_set_new(dev, "name", json_string(buf));
        }
        snprintf(buf, sizeof buf, "%d.%d", e->ctx.cc_major, e->ctx.cc_minor);
        json_object_set_new(dev, "compute_capability", json_string(buf));
        json_object_set_new(dev, "index", json_integer(device_index));
        json_object_set_new(dev, "sm_count", json_integer(e->ctx.sm_count));
        json_object_set_new(dev, "l2_bytes", json_integer(e->ctx.l2_bytes));
        if (!json_is_integer(json_object_get(dev, "memory_bytes")))
            json_object_set_new(dev, "memory_bytes", json_integer(sb_ctx_total_memory(&e->ctx)));
        const char *sku = json_string_value(json_object_get(dev, "sku"));
        if (!sku || !strncmp(sku, "unknown", 7)) {
            char uid[96], uarch[32];
            const char *pci = json_string_value(json_object_get(dev, "pci_device_id"));
            const sb_sku *s = sb_sku_identify(e->skus, json_string_value(json_object_get(dev, "name")), pci,
                                              sb_ctx_total_memory(&e->ctx), uid, sizeof uid, uarch, sizeof uarch);
            json_object_set_new(dev, "sku", json_string(s ? s->id : uid));
            json_object_set_new(dev, "arch", json_string(s ? s->arch : uarch));
        }
    }
    const char *sku = json_string_value(json_object_get(dev, "sku"));
    e->renv.sku = sku ? sb_sku_find(e->skus, sku) : NULL;
    e->renv.provenance = e->prov;
    e->renv.suite = suite;
    if (calibration) {
        if (sb_calibration_load(calibration, sku, &e->calibration, e->renv.calibration_sha256, err) != SB_OK)
            return SB_ERR;
        e->renv.calibration = e->calibration;
    }
    return SB_OK;
}

static void print_summary(const sb_op *op, const sb_op_config *cfg, int provider, const json_t *r)
{
    char shape[128] = "";
    size_t n = 0;
    for (int i = 0; i < cfg->shape.count && n < sizeof shape; i++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%s=%lld", i ? "," : "", cfg->shape.name[i],
                              (long long)cfg->shape.value[i]);
    const char *status = json_string_value(json_object_get(r, "status"));
    printf("%s %s %s %s: %s", op->name, sb_dtype_name(cfg->dtype), shape, op->providers[provider].name, status);
    json_t *stats = json_object_get(json_object_get(r, "timing"), "stats");
    json_t *met = json_object_get(r, "metrics");
    if (stats) {
        printf(", median %.4f ms, noise %.2f%%", json_number_value(json_object_get(stats, "median")),
               100.0 * json_number_value(json_object_get(stats, "rel_noise")));
        json_t *tf = json_object_get(met, "tflops");
        if (json_is_number(tf))
            printf(", %.4g TFLOP/s", json_number_value(tf));
        json_t *gb = json_object_get(met, "gbps");
        if (json_is_number(gb))
            printf(", %.4g GB/s", json_number_value(gb));
        json_t *pct = json_object_get(met, "pct_datasheet_peak");
        if (json_is_number(pct))
            printf(", %.1f%% of %s", json_number_value(pct),
                   json_string_value(json_object_get(met, "datasheet_peak_name")));
    } else {
        const char *reason = json_string_value(json_object_get(r, "reason"));
        if (reason)
            printf(" (%s)", reason);
    }
    printf("\n");
    fflush(stdout);
}

/* -------------------------------------------------------- op command */
typedef struct common_opts {
    sb_protocol_opts proto;
    int device_is_cpu, device_index;
    const char *calibration, *out, *suite, *provider;
    uint64_t seed;
    int protocol_given;
} common_opts;

/* Sets the value of a shared option (opt->value is the common_opts). */
static int common_value(const sb_option *opt, const char *arg, sb_error *err)
{
    common_opts *o = opt->value;
    const char *name = opt->long_name;
    int64_t v;
    if (!strcmp(name, "provider")) {
        o->provider = arg;
    } else if (!strcmp(name, "warmup")) {
        if (parse_i64(arg, 0, 1000000, &v))
            return sb_error_set(err, NULL, NULL, "expected a count from 0 to 1000000, got '%s'", arg);
        o->proto.warmup_iters = (int)v;
        o->proto.warmup_ms = 0;
        o->protocol_given = 1;
    } else if (!strcmp(name, "warmup-ms") || !strcmp(name, "settle-ms")) {
        int warmup = name[0] == 'w';
        char *end;
        double d = strtod(arg, &end);
        if (end == arg || *end || !(warmup ? d > 0 : d >= 0) || d > 600000)
            return sb_error_set(err, NULL, NULL, "expected milliseconds %s 600000, got '%s'",
                                warmup ? "above 0, at most" : "from 0 to", arg);
        *(warmup ? &o->proto.warmup_ms : &o->proto.settle_ms) = d;
        o->protocol_given = 1;
    } else if (!strcmp(name, "iters") || !strcmp(name, "repeats")) {
        int iters = name[0] == 'i';
        int64_t hi = iters ? 100000 : 1000;
        if (parse_i64(arg, 1, hi, &v))
            return sb_error_set(err, NULL, NULL, "expected a count from 1 to %lld, got '%s'", (long long)hi, arg);
        *(iters ? &o->proto.iters : &o->proto.repeats) = (int)v;
        o->protocol_given = 1;
    } else if (!strcmp(name, "hold")) {
        o->proto.launch_hold = 1; /* how the repeats are queued, not their counts: --spec takes it */
    } else if (!strcmp(name, "l2")) {
        if (strcmp(arg, "cold") && strcmp(arg, "warm"))
            return sb_error_set(err, NULL, NULL, "expected cold or warm, got '%s'", arg);
        o->proto.l2_cold = !strcmp(arg, "cold");
        o->protocol_given = 1;
    } else if (!strcmp(name, "input-sets")) {
        if (!strcmp(arg, "auto"))
            v = 0;
        else if (parse_i64(arg, 1, 1024, &v))
            return sb_error_set(err, NULL, NULL, "expected auto or a count from 1 to 1024, got '%s'", arg);
        o->proto.input_sets = (int)v;
    } else if (!strcmp(name, "check-rows")) {
        if (parse_i64(arg, 1, 1 << 30, &v))
            return sb_error_set(err, NULL, NULL, "expected a positive count, got '%s'", arg);
        o->proto.max_check_rows = v;
    } else if (!strcmp(name, "device")) {
        if (!strcmp(arg, "cpu")) {
            o->device_is_cpu = 1;
            return SB_OK;
        }
        if (parse_i64(arg, 0, 1024, &v))
            return sb_error_set(err, NULL, NULL, "expected cpu or a CUDA ordinal, got '%s'", arg);
        o->device_is_cpu = 0;
        o->device_index = (int)v;
    } else if (!strcmp(name, "calibration")) {
        o->calibration = arg;
    } else if (!strcmp(name, "out")) {
        o->out = arg;
    } else if (!strcmp(name, "suite")) {
        if (!*arg || strlen(arg) > 64)
            return sb_error_set(err, NULL, NULL, "expected a name like gemm-spec, got '%s'", arg);
        for (const char *p = arg; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                  (p != arg && (*p == '.' || *p == '_' || *p == '+' || *p == '-'))))
                return sb_error_set(err, NULL, NULL, "use lower-case letters, digits and . _ + -, not '%s'", arg);
        o->suite = arg;
    } else if (!strcmp(name, "seed")) {
        if (parse_i64(arg, 0, INT64_MAX, &v))
            return sb_error_set(err, NULL, NULL, "expected a non-negative integer, got '%s'", arg);
        o->seed = (uint64_t)v;
    } else if (!strcmp(name, "test-corrupt-output")) {
        o->proto.test_corrupt_output = 1;
    }
    return SB_OK;
}

/* Appends the options of more (up to its SB_OPT_END) to out[*n..cap). */
static void add_options(sb_option *out, size_t *n, size_t cap, const sb_option *more)
{
    for (; more->kind != SB_OPT_KIND_END && *n + 1 < cap; more++)
        out[(*n)++] = *more;
}

/* The protocol and output options every command shares, declared once,
 * appended to out[*n..cap). */
static void add_common_options(common_opts *o, sb_option *out, size_t *n, size_t cap)
{
    const sb_option common[] = {
        SB_OPT_CALLBACK(0, "provider", o, "NAME|all", "which implementation (default all that suit the device)",
                        common_value),
        SB_OPT_CALLBACK(0, "warmup", o, "n", "warm-up launches (default 10)", common_value),
        SB_OPT_CALLBACK(0, "warmup-ms", o, "x", "warm up for at least X ms instead", common_value),
        SB_OPT_CALLBACK(0, "settle-ms", o, "x",
                        "before the warm-up, run back to back for X ms so the clocks\n"
                        "settle at what the card holds under this load (default 0)",
                        common_value),
        SB_OPT_CALLBACK(0, "iters", o, "n", "timed launches per repeat (default 50)", common_value),
        SB_OPT_CALLBACK(0, "repeats", o, "n", "repeats (default 5); samples = iters x repeats", common_value),
        SB_OPT_CALLBACK(0, "l2", o, "cold|warm", "cold: write a 2 x L2 buffer before every sample (default warm)",
                        common_value),
        SB_OPT_CALLBACK_NOARG(0, "hold", o,
                              "queue each repeat behind a kernel that holds the stream until\n"
                              "all its launches are queued, the next repeat while one runs:\n"
                              "back-to-back GPU time, no submit time, no idle between repeats",
                              common_value),
        SB_OPT_CALLBACK(0, "input-sets", o, "auto|N",
                        "input copies rotated across samples (auto: enough to exceed L2)", common_value),
        SB_OPT_CALLBACK(0, "check-rows", o, "n",
                        "at most N sampled output rows checked against float64 (default 256)", common_value),
        SB_OPT_CALLBACK(0, "device", o, "cpu|N", "the CPU path, or CUDA device N (default 0)", common_value),
        SB_OPT_CALLBACK(0, "calibration", o, "file", "solbook.calibration.v1 file for pct_measured_ceiling",
                        common_value),
        SB_OPT_CALLBACK(0, "out", o, "FILE|DIR", "write result JSON (a directory for several providers)",
                        common_value),
        SB_OPT_CALLBACK(0, "suite", o, "name", "config.suite (default adhoc)", common_value),
        SB_OPT_CALLBACK(0, "seed", o, "s", "input seed (default 42)", common_value),
        SB_OPT_CALLBACK_NOARG(0, "test-corrupt-output", o,
                              "test only: perturb the checked output so correctness fails", common_value),
        SB_OPT_END(),
    };
    add_options(out, n, cap, common);
}

/* Parses a command's argv (argv[0] its name): the options of own (NULL
 * for none), then the shared ones of o, those not in takes (NULL: all)
 * refused as not applying. --help prints the help made from usage and
 * them. Returns 0 to go on, or -1 with *status set: 0 after the help,
 * EXIT_USAGE after one error line. */
static int parse_command(int argc, char **argv, const char *command, const sb_option *own, common_opts *o,
                         const char *const *takes, const char *const *usage, int *status)
{
    enum { CAP = 128 };
    sb_option all[CAP], options[CAP];
    size_t n = 0;
    if (own)
        add_options(all, &n, CAP, own);
    add_common_options(o, all, &n, CAP);
    all[n] = (sb_option)SB_OPT_END();
    sb_options_only(all, takes, options, CAP);
    sb_error err;
    sb_error_clear(&err);
    int operands = sb_parse_options(argc, argv, options, 0, &err);
    if (operands == SB_PARSE_HELP) {
        *status = sb_usage_write(stdout, usage, options) == SB_OK ? 0 : EXIT_USAGE;
        return -1;
    }
    if (operands != 0) {
        if (operands > 0)
            sb_error_set(&err, NULL, NULL, "unexpected argument %s", argv[0]);
        fprintf(stderr, "solbench: %s (see solbench %s --help)\n", err.msg, command);
        *status = EXIT_USAGE;
        return -1;
    }
    return 0;
}

static void common_defaults(common_opts *o)
{
    memset(o, 0, sizeof *o);
    sb_protocol_defaults(&o->proto);
    o->seed = 42;
    o->provider = "all";
}

/* Checks --out before any work: DIR must exist (or end in / and be
 * creatable); FILE's folder must exist. */
static int prepare_out(const char *out, int many, int *is_dir)
{
    struct stat st;
    size_t len = strlen(out);
    *is_dir = 0;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        *is_dir = 1;
        return 0;
    }
    if (len && out[len - 1] == '/') {
        if (mkdir(out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "solbench: %s: cannot create directory: %s\n", out, strerror(errno));
            return -1;
        }
        *is_dir = 1;
        return 0;
    }
    if (many) {
        fprintf(stderr, "solbench: --out %s: several providers give several files; give a directory "
                        "(an existing one, or a path ending in /)\n", out);
        return -1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash) {
        if (slash == dir)
            slash[1] = 0;
        else
            *slash = 0;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "solbench: %s: directory %s does not exist\n", out, dir);
            return -1;
        }
    }
    return 0;
}

/* Providers of op that suit the device, by --provider. */
static int select_providers(const sb_op *op, const char *want, int device_is_cpu, int *list, int *n)
{
    *n = 0;
    sb_backend b = device_is_cpu ? SB_BACKEND_CPU : SB_BACKEND_CUDA;
    if (!strcmp(want, "all")) {
        for (int i = 0; op->providers[i].name && *n < 16; i++)
            if (op->providers[i].backend == b)
                list[(*n)++] = i;
        if (*n == 0) {
            fprintf(stderr, "solbench: %s has no provider for the %s\n", op->name, device_is_cpu ? "CPU" : "GPU");
            return -1;
        }
        return 0;
    }
    int p = sb_op_provider_index(op, want);
    if (p < 0) {
        fprintf(stderr, "solbench: %s has no provider %s (providers:", op->name, want);
        for (int i = 0; op->providers[i].name; i++)
            fprintf(stderr, " %s", op->providers[i].name);
        fprintf(stderr, ")\n");
        return -1;
    }
    if (op->providers[p].backend != b) {
        fprintf(stderr, "solbench: provider %s runs on the %s; %s\n", want,
                b == SB_BACKEND_CPU ? "GPU" : "CPU",
                device_is_cpu ? "--device cpu runs the cpu provider" : "give --device cpu for it");
        return -1;
    }
    list[(*n)++] = p;
    return 0;
}

/* Fills cfg from textual shape/params ("M=1,N=2"), over the op defaults. */
static int config_defaults(const sb_op *op, sb_op_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = op->modes[0];
    for (int i = 0; op->shape_names[i] && i < SB_MAX_DIMS; i++) {
        snprintf(cfg->shape.name[i], SB_NAME_MAX, "%s", op->shape_names[i]);
        cfg->shape.value[i] = op->shape_defaults[i];
        cfg->shape.count++;
    }
    for (int i = 0; op->params && op->params[i].name && i < SB_MAX_PARAMS; i++) {
        snprintf(cfg->params.name[i], SB_NAME_MAX, "%s", op->params[i].name);
        snprintf(cfg->params.value[i], sizeof cfg->params.value[i], "%s", op->params[i].default_value);
        cfg->params.count++;
    }
    for (int d = 0; d < SB_DTYPE_COUNT; d++)
        if (op->dtypes & SB_DTYPE_BIT(d)) {
            cfg->dtype = (sb_dtype)d;
            if (d == SB_DTYPE_FP16)
                break;
        }
    return 0;
}

static int set_mode(const sb_op *op, sb_op_config *cfg, const char *mode)
{
    for (int i = 0; op->modes[i]; i++)
        if (!strcmp(op->modes[i], mode)) {
            cfg->mode = op->modes[i];
            return 0;
        }
    return -1;
}

static int set_dtype(const sb_op *op, sb_op_config *cfg, const char *name)
{
    int d = sb_dtype_parse(name);
    if (d < 0 || !(op->dtypes & SB_DTYPE_BIT(d)))
        return -1;
    cfg->dtype = (sb_dtype)d;
    return 0;
}

static int set_param_value(const sb_op *op, sb_op_config *cfg, int idx, const char *value)
{
    const sb_param_spec *ps = &op->params[idx];
    if (strlen(value) >= sizeof cfg->params.value[0])
        return -1;
    if (ps->choices) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", ps->choices);
        int ok = 0;
        for (char *save, *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save))
            if (!strcmp(t, value))
                ok = 1;
        if (!ok)
            return -1;
    }
    char *end;
    if (ps->kind == SB_PARAM_INT) {
        (void)strtoll(value, &end, 10);
        if (end == value || *end)
            return -1;
    } else if (ps->kind == SB_PARAM_FLOAT) {
        (void)strtod(value, &end);
        if (end == value || *end)
            return -1;
    } else if (ps->kind == SB_PARAM_BOOL && strcmp(value, "true") && strcmp(value, "false")) {
        return -1;
    }
    snprintf(cfg->params.value[idx], sizeof cfg->params.value[idx], "%s", value);
    return 0;
}

typedef struct pending {
    json_t *doc;
    char path[4400];
    const sb_op *op;
    sb_op_config cfg;
    int provider;
} pending;

static void print_pending(const pending *p, int n)
{
    for (int i = 0; i < n; i++)
        print_summary(p[i].op, &p[i].cfg, p[i].provider, p[i].doc);
}

/* Measures every selected provider of one case; results appended to
 * out[]. Returns SB_OK, or SB_ERR (err filled). *any_failed set when a
 * correctness check failed. A case that does not fit in device memory is
 * reported as skipped when skip_oom. */
static int run_case(run_env *e, const sb_op *op, const sb_op_config *cfg, const int *providers, int np,
                    const common_opts *o, int skip_oom, const char *dir, pending *out, int *nout, int *any_failed,
                    sb_error *err)
{
    sb_case *c = NULL;
    sb_protocol_opts proto = o->proto;
    proto.nvml = e->nvml;
    proto.nvml_index = e->nvml_index;
    int64_t live = e->ctx.live_bytes;
    if (sb_case_open(op, cfg, &e->ctx, &proto, &c, err) != SB_OK) {
        if (!skip_oom || strncmp(err->msg, "out of device memory", 20) != 0)
            return SB_ERR;
        e->ctx.live_bytes = live;
        for (int i = 0; i < np; i++) {
            sb_measurement m;
            memset(&m, 0, sizeof m);
            snprintf(m.status, sizeof m.status, "skipped");
            snprintf(m.reason, sizeof m.reason, "does not fit in device memory: %.400s", err->msg);
            m.timer = e->ctx.device_is_cpu ? "host-monotonic" : "cuda-event";
            m.iters = proto.iters;
            m.repeats = proto.repeats;
            m.input_sets = 1;
            m.l2_cold = proto.l2_cold;
            m.bitwise_repeatable = m.batch_invariant = -1;
            m.peak_device_bytes = -1;
            pending *p = &out[(*nout)++];
            p->op = op;
            p->cfg = *cfg;
            p->provider = providers[i];
            p->doc = sb_result_build(&e->renv, op, cfg, providers[i], &m);
            char name[1024];
            sb_result_file_name(op, cfg, providers[i], name, sizeof name);
            snprintf(p->path, sizeof p->path, "%s/%s", dir ? dir : ".", name);
        }
        sb_error_clear(err);
        return SB_OK;
    }
    for (int i = 0; i < np; i++) {
        sb_measurement m;
        if (sb_case_measure(c, providers[i], &proto, &m, err) != SB_OK) {
            char what[160];
            snprintf(what, sizeof what, "%s %s: ", op->name, op->providers[providers[i]].name);
            size_t wl = strlen(what), ml = strlen(err->msg);
            if (wl + ml < sizeof err->msg) {
                memmove(err->msg + wl, err->msg, ml + 1);
                memcpy(err->msg, what, wl);
            }
            sb_measurement_free(&m);
            sb_case_close(c);
            return SB_ERR;
        }
        if (!strcmp(m.status, "failed"))
            *any_failed = 1;
        pending *p = &out[(*nout)++];
        p->op = op;
        p->cfg = *sb_case_config(c);
        p->provider = providers[i];
        p->doc = sb_result_build(&e->renv, op, sb_case_config(c), providers[i], &m);
        char name[1024];
        sb_result_file_name(op, sb_case_config(c), providers[i], name, sizeof name);
        snprintf(p->path, sizeof p->path, "%s/%s", dir ? dir : ".", name);
        sb_measurement_free(&m);
    }
    sb_case_close(c);
    return SB_OK;
}

static int write_pending(pending *p, int n, sb_error *err)
{
    for (int i = 0; i < n; i++)
        if (p[i].doc && sb_json_write_file(p[i].path, p[i].doc, err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

static void free_pending(pending *p, int n)
{
    for (int i = 0; i < n; i++)
        json_decref(p[i].doc);
}

/* What an op command's own options set. */
typedef struct op_args {
    const sb_op *op;
    sb_op_config *cfg;
    int spec, shape_given, dtype_given, shape_set[SB_MAX_DIMS];
} op_args;

/* One shape dimension or param of an op: which one, and where it goes. */
typedef struct op_arg_ref {
    op_args *a;
    int index;
} op_arg_ref;

static int shape_value(const sb_option *opt, const char *arg, sb_error *err)
{
    const op_arg_ref *r = opt->value;
    int64_t v;
    if (parse_i64(arg, 1, (int64_t)1 << 40, &v))
        return sb_error_set(err, NULL, NULL, "expected a positive integer, got '%s'", arg);
    r->a->shape_given = 1;
    r->a->shape_set[r->index] = 1;
    r->a->cfg->shape.value[r->index] = v;
    return SB_OK;
}

static int param_value(const sb_option *opt, const char *arg, sb_error *err)
{
    const op_arg_ref *r = opt->value;
    const sb_param_spec *ps = &r->a->op->params[r->index];
    if (set_param_value(r->a->op, r->a->cfg, r->index, arg))
        return sb_error_set(err, NULL, NULL, "expected %s, got '%s'",
                            ps->choices                  ? ps->choices
                            : ps->kind == SB_PARAM_INT   ? "an integer"
                            : ps->kind == SB_PARAM_FLOAT ? "a number"
                            : ps->kind == SB_PARAM_BOOL  ? "true or false"
                                                         : "a value",
                            arg);
    return SB_OK;
}

/* A value a provider records; this run records its own. */
static int recorded_value(const sb_option *opt, const char *arg, sb_error *err)
{
    (void)opt, (void)arg, (void)err;
    return SB_OK;
}

static int dtype_value(const sb_option *opt, const char *arg, sb_error *err)
{
    op_args *a = opt->value;
    a->dtype_given = 1;
    if (set_dtype(a->op, a->cfg, arg))
        return sb_error_set(err, NULL, NULL, "not a dtype %s accepts: '%s'", a->op->name, arg);
    return SB_OK;
}

static int mode_value(const sb_option *opt, const char *arg, sb_error *err)
{
    op_args *a = opt->value;
    if (set_mode(a->op, a->cfg, arg))
        return sb_error_set(err, NULL, NULL, "not a mode of %s: '%s'", a->op->name, arg);
    return SB_OK;
}

/* An op command's help and options, made from the op's table: text
 * holds the lines the help strings point into. */
typedef struct op_options {
    sb_option opt[112];
    op_arg_ref ref[SB_MAX_DIMS + SB_MAX_PARAMS];
    char text[SB_MAX_DIMS + SB_MAX_PARAMS + 48][200];
    const char *usage[48];
} op_options;

static void op_options_build(op_options *t, op_args *a)
{
    const sb_op *op = a->op;
    size_t n = 0, k = 0, u = 0, cap = sizeof t->opt / sizeof t->opt[0];
    snprintf(t->text[k], sizeof t->text[0], "solbench %s [<options>]", op->name);
    t->usage[u++] = t->text[k++];
    t->usage[u++] = "";
    t->usage[u++] = op->summary;
    t->usage[u++] = "";
    t->usage[u++] = "providers:";
    for (int i = 0; op->providers[i].name && u + 8 < sizeof t->usage / sizeof t->usage[0]; i++) {
        snprintf(t->text[k], sizeof t->text[0], "  %-18s %s: %s", op->providers[i].name,
                 op->providers[i].backend == SB_BACKEND_CPU ? "cpu" : "cuda", op->providers[i].description);
        t->usage[u++] = t->text[k++];
    }
    t->usage[u] = NULL;

    t->opt[n++] = (sb_option)SB_OPT_GROUP("shape:");
    for (int i = 0; op->shape_names[i] && i < SB_MAX_DIMS; i++) {
        int len = snprintf(t->text[k], sizeof t->text[0], "(default %lld", (long long)op->shape_defaults[i]);
        if (op->cpu_shape_defaults)
            len += snprintf(t->text[k] + len, sizeof t->text[0] - (size_t)len, "; %lld with --device cpu",
                            (long long)op->cpu_shape_defaults[i]);
        snprintf(t->text[k] + len, sizeof t->text[0] - (size_t)len, ")");
        t->ref[i] = (op_arg_ref){a, i};
        t->opt[n++] = (sb_option)SB_OPT_CALLBACK(0, op->shape_names[i], &t->ref[i], "n", t->text[k++], shape_value);
    }
    t->opt[n++] = (sb_option)SB_OPT_GROUP("parameters:");
    for (int i = 0; op->params && op->params[i].name && i < SB_MAX_PARAMS; i++) {
        const sb_param_spec *ps = &op->params[i];
        snprintf(t->text[k], sizeof t->text[0], "%s (default %s)", ps->help, ps->default_value);
        t->ref[SB_MAX_DIMS + i] = (op_arg_ref){a, i};
        t->opt[n++] = (sb_option)SB_OPT_CALLBACK(0, ps->name, &t->ref[SB_MAX_DIMS + i],
                                                 ps->choices ? ps->choices : "value", t->text[k++], param_value);
    }
    int len = snprintf(t->text[k], sizeof t->text[0], "one of:");
    for (int d = 0; d < SB_DTYPE_COUNT; d++)
        if (op->dtypes & SB_DTYPE_BIT(d) && len < (int)sizeof t->text[0])
            len += snprintf(t->text[k] + len, sizeof t->text[0] - (size_t)len, " %s", sb_dtype_name((sb_dtype)d));
    t->opt[n++] = (sb_option)SB_OPT_CALLBACK(0, "dtype", a, "d", t->text[k++], dtype_value);
    len = snprintf(t->text[k], sizeof t->text[0], "one of:");
    for (int i = 0; op->modes[i] && len < (int)sizeof t->text[0]; i++)
        len += snprintf(t->text[k] + len, sizeof t->text[0] - (size_t)len, " %s", op->modes[i]);
    t->opt[n++] = (sb_option)SB_OPT_CALLBACK(0, "mode", a, "m", t->text[k++], mode_value);
    if (!strcmp(op->name, "gemm"))
        t->opt[n++] = (sb_option)SB_OPT_BOOL(0, "spec", &a->spec,
                                             "the frozen reference: 4096^3 fp16, 2000 ms settle, 10 warm-up\n"
                                             "+ 50 x 5, suite gemm-spec");
    if (op->recorded_params) {
        t->opt[n++] = (sb_option)SB_OPT_GROUP("recorded by providers (accepted and ignored, so stored commands rerun):");
        for (int i = 0; op->recorded_params[i] && n + 24 < cap; i++)
            t->opt[n++] = (sb_option)SB_OPT_CALLBACK(0, op->recorded_params[i], NULL, "value", NULL, recorded_value);
    }
    t->opt[n++] = (sb_option)SB_OPT_GROUP("protocol and output:");
    t->opt[n] = (sb_option)SB_OPT_END();
}

static int cmd_op(const sb_op *op, int argc, char **argv)
{
    common_opts o;
    common_defaults(&o);
    sb_op_config cfg;
    config_defaults(op, &cfg);
    op_args a = {.op = op, .cfg = &cfg};
    op_options *t = malloc(sizeof *t);
    if (!t) {
        fprintf(stderr, "solbench: out of memory\n");
        return EXIT_USAGE;
    }
    op_options_build(t, &a);
    int status;
    int parsed = parse_command(argc, argv, op->name, t->opt, &o, NULL, t->usage, &status);
    free(t);
    if (parsed < 0)
        return status;
    int spec = a.spec, shape_given = a.shape_given, dtype_given = a.dtype_given;
    const int *shape_set = a.shape_set;
    if (o.device_is_cpu && op->cpu_shape_defaults && !spec)
        for (int i = 0; i < cfg.shape.count; i++)
            if (!shape_set[i])
                cfg.shape.value[i] = op->cpu_shape_defaults[i];
    if (spec) {
        if (shape_given || dtype_given || o.protocol_given)
            return usage_error("--spec fixes shape, dtype and protocol; drop the other flags%s%s", "", "");
        for (int i = 0; i < cfg.shape.count; i++)
            cfg.shape.value[i] = 4096;
        cfg.dtype = SB_DTYPE_FP16;
        o.proto.warmup_iters = 10;
        o.proto.warmup_ms = 0;
        o.proto.settle_ms = SB_SPEC_SETTLE_MS;
        o.proto.iters = 50;
        o.proto.repeats = 5;
        o.proto.l2_cold = 0;
        if (!o.suite)
            o.suite = "gemm-spec";
    }
    if (!o.suite)
        o.suite = "adhoc";
    cfg.seed = o.seed;
    sb_error err;
    sb_error_clear(&err);
    if (op->validate && op->validate(&cfg, &err) != SB_OK) {
        fail_line(&err);
        return EXIT_USAGE;
    }
    int providers[16], np;
    if (select_providers(op, o.provider, o.device_is_cpu, providers, &np))
        return EXIT_USAGE;
    /* The device first: without one, the "no CUDA device" line is the
     * answer whatever else is asked. */
    run_env e;
    if (run_env_open(&e, o.device_is_cpu, o.device_index, o.calibration, o.suite, &err) != SB_OK) {
        fail_line(&err);
        run_env_close(&e);
        return EXIT_USAGE;
    }
    int is_dir = 0;
    if (o.out && prepare_out(o.out, np > 1, &is_dir)) {
        run_env_close(&e);
        return EXIT_USAGE;
    }
    pending res[16];
    int nres = 0, any_failed = 0;
    int rc = run_case(&e, op, &cfg, providers, np, &o, 0, is_dir ? o.out : NULL, res, &nres, &any_failed, &err);
    /* Every provider refused the case (dtype or shape it does not take on
     * this device): that is an error of the request, not a result. */
    int ran = 0;
    for (int i = 0; i < nres; i++)
        if (strcmp(json_string_value(json_object_get(res[i].doc, "status")), "skipped") != 0)
            ran = 1;
    if (rc == SB_OK && !ran && nres > 0) {
        char msg[sizeof err.msg] = "";
        size_t ml = 0;
        for (int i = 0; i < nres && ml < sizeof msg; i++)
            ml += (size_t)snprintf(msg + ml, sizeof msg - ml, "%s%s", i ? "; " : "",
                                   json_string_value(json_object_get(res[i].doc, "reason")));
        sb_error_set(&err, NULL, NULL, "%s", msg);
        rc = SB_ERR;
    }
    if (rc == SB_OK && o.out && !is_dir && nres == 1)
        snprintf(res[0].path, sizeof res[0].path, "%s", o.out);
    if (rc == SB_OK)
        print_pending(res, nres);
    if (rc == SB_OK && o.out)
        rc = write_pending(res, nres, &err);
    free_pending(res, nres);
    run_env_close(&e);
    if (rc != SB_OK) {
        fail_line(&err);
        return EXIT_USAGE;
    }
    return any_failed ? EXIT_PROBLEMS : 0;
}

/* -------------------------------------------------------------- suite */
/* Whether a case's op and mode are in the --only list ("op" or "op:mode",
 * comma-separated; NULL: every case). */
static int case_selected(const char *only, const sb_preset_case *pc)
{
    if (!only)
        return 1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", only);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(t, ':');
        if (colon)
            *colon = '\0';
        if (strcmp(t, pc->op) == 0 && (!colon || (pc->mode && strcmp(colon + 1, pc->mode) == 0)))
            return 1;
    }
    return 0;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_kv(const char *text, char names[][SB_NAME_MAX], char values[][64], int max, int *n)
{
    *n = 0;
    if (!text || !*text)
        return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq || *n >= max)
            return -1;
        *eq = 0;
        snprintf(names[*n], SB_NAME_MAX, "%s", t);
        snprintf(values[*n], 64, "%s", eq + 1);
        (*n)++;
    }
    return 0;
}

/* Turns a preset case into a config; SB_ERR names the bad field. */
static int preset_config(const sb_preset *pr, size_t idx, const sb_op **opp, sb_op_config *cfg, uint64_t seed,
                         sb_error *err)
{
    const sb_preset_case *pc = &pr->cases[idx];
    const sb_op *op = sb_op_find(pc->op);
    if (!op)
        return sb_error_set(err, NULL, NULL, "preset %s case %zu: no op %s in this build", pr->name, idx + 1, pc->op);
    config_defaults(op, cfg);
    cfg->seed = seed;
    if (pc->mode && set_mode(op, cfg, pc->mode))
        return sb_error_set(err, NULL, NULL, "preset %s case %zu: %s has no mode %s", pr->name, idx + 1, op->name,
                            pc->mode);
    if (set_dtype(op, cfg, pc->dtype))
        return sb_error_set(err, NULL, NULL, "preset %s case %zu: %s does not accept dtype %s", pr->name, idx + 1,
                            op->name, pc->dtype);
    char names[SB_MAX_PARAMS][SB_NAME_MAX], values[SB_MAX_PARAMS][64];
    int n;
    if (parse_kv(pc->shape, names, values, SB_MAX_PARAMS, &n))
        return sb_error_set(err, NULL, NULL, "preset %s case %zu: bad shape text %s", pr->name, idx + 1, pc->shape);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int d = 0; d < cfg->shape.count; d++)
            if (!strcmp(cfg->shape.name[d], names[i])) {
                int64_t v;
                if (parse_i64(values[i], 1, (int64_t)1 << 40, &v))
                    return sb_error_set(err, NULL, NULL, "preset %s case %zu: %s=%s is not a positive integer",
                                        pr->name, idx + 1, names[i], values[i]);
                cfg->shape.value[d] = v;
                found = 1;
            }
        if (!found)
            return sb_error_set(err, NULL, NULL, "preset %s case %zu: %s has no shape name %s", pr->name, idx + 1,
                                op->name, names[i]);
    }
    if (parse_kv(pc->params, names, values, SB_MAX_PARAMS, &n))
        return sb_error_set(err, NULL, NULL, "preset %s case %zu: bad params text %s", pr->name, idx + 1,
                            pc->params);
    for (int i = 0; i < n; i++) {
        int found = -1;
        for (int p = 0; op->params && op->params[p].name; p++)
            if (!strcmp(op->params[p].name, names[i]))
                found = p;
        if (found < 0 || set_param_value(op, cfg, found, values[i]))
            return sb_error_set(err, NULL, NULL, "preset %s case %zu: bad param %s=%s for %s", pr->name, idx + 1,
                                names[i], values[i], op->name);
    }
    if (op->validate && op->validate(cfg, err) != SB_OK)
        return SB_ERR;
    *opp = op;
    return SB_OK;
}

/* Finds solbench-spread the way git finds git-foo: $SOLBENCH_SPREAD, then
 * next to this program, then in the build tree's fleet/, then on PATH. */
static void find_spread(const char *self, char *path, size_t size)
{
    const char *env = getenv("SOLBENCH_SPREAD");
    if (env && *env) {
        snprintf(path, size, "%s", env);
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        static const char *const rel[] = {"solbench-spread", "../fleet/solbench-spread"};
        for (size_t i = 0; i < 2; i++) {
            if ((size_t)snprintf(path, size, "%s/%s", dir, rel[i]) < size && access(path, X_OK) == 0)
                return;
        }
    }
    snprintf(path, size, "solbench-spread");
}

/* `solbench suite ... --gpus all|0,1`: the cases are spread over the host's
 * GPUs by solbench-spread (fleet/gpu_spread.h), one solbench process per
 * GPU, each result tagged with its device index. This process only hands
 * over: --preset, --out and --gpus become solbench-spread's, every other
 * option goes to each per-case solbench. */
static int suite_over_gpus(int argc, char **argv, const char *gpus)
{
    char self[4096], spread[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return usage_error("--gpus: cannot find this program's path (/proc/self/exe)%s%s", "", "");
    self[n] = '\0';
    find_spread(self, spread, sizeof spread);
    const char **av = calloc((size_t)argc + 8, sizeof *av);
    if (!av) {
        fprintf(stderr, "solbench: out of memory\n");
        return EXIT_USAGE;
    }
    size_t k = 0, rest = 0;
    char **tail = calloc((size_t)argc + 1, sizeof *tail);
    if (!tail) {
        free(av);
        fprintf(stderr, "solbench: out of memory\n");
        return EXIT_USAGE;
    }
    av[k++] = spread;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--gpus")) {
            i++;
        } else if (!strncmp(a, "--gpus=", 7)) {
            continue;
        } else if ((!strcmp(a, "--preset") || !strcmp(a, "--out")) && i + 1 < argc) {
            av[k++] = argv[i];
            av[k++] = argv[++i];
        } else if (!strncmp(a, "--preset=", 9) || !strncmp(a, "--out=", 6)) {
            av[k++] = argv[i];
        } else {
            tail[rest++] = argv[i];
        }
    }
    av[k++] = "--gpus";
    av[k++] = gpus;
    av[k++] = "--solbench";
    av[k++] = self;
    av[k++] = "--";
    for (size_t i = 0; i < rest; i++)
        av[k++] = tail[i];
    av[k] = NULL;
    fflush(NULL);
    /* execvp's char *const[] predates const in C; it writes neither the
     * pointers nor the strings. */
    execvp(spread, (char *const *)av);
    fprintf(stderr, "solbench: --gpus needs solbench-spread (built in fleet/): %s: %s\n", spread, strerror(errno));
    free(av);
    free(tail);
    return EXIT_USAGE;
}

/* --cases FROM-TO, 1-based, FROM <= TO; TO may be left out. */
typedef struct case_range {
    int64_t first, last;
} case_range;

static int cases_value(const sb_option *opt, const char *arg, sb_error *err)
{
    case_range *r = opt->value;
    const char *dash = strchr(arg, '-');
    char from[32] = "", to[32] = "";
    if (dash && (size_t)(dash - arg) < sizeof from && strlen(dash + 1) < sizeof to) {
        memcpy(from, arg, (size_t)(dash - arg));
        snprintf(to, sizeof to, "%s", dash + 1);
    }
    r->last = 0;
    if (!dash || parse_i64(from, 1, (int64_t)1 << 30, &r->first) ||
        (to[0] && parse_i64(to, r->first, (int64_t)1 << 30, &r->last)))
        return sb_error_set(err, NULL, NULL, "expected FROM-TO, 1-based, FROM <= TO (TO may be left out), got '%s'",
                            arg);
    return SB_OK;
}

static int cmd_suite(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gpus")) {
            if (i + 1 >= argc)
                return usage_error("--gpus needs a value (all or 0,1,...)%s%s", "", "");
            return suite_over_gpus(argc, argv, argv[i + 1]);
        }
        if (!strncmp(argv[i], "--gpus=", 7))
            return suite_over_gpus(argc, argv, argv[i] + 7);
    }
    common_opts o;
    common_defaults(&o);
    const char *preset = NULL, *gpus = NULL;
    case_range cases = {1, 0}; /* --cases FROM-TO, 1-based; last 0: to the end */
    const char *only = NULL;   /* --only op[:mode],... */
    int list = 0;              /* --list: print the cases, run nothing */
    char lines[64][160];
    const char *usage[80];
    size_t u = 0;
    usage[u++] = "solbench suite --preset NAME --out DIR [--cases FROM-TO] [--gpus all|0,1,...] [<options>]";
    usage[u++] = "";
    static const char *const about[] = {
        "Runs every case of a preset with every provider that suits the device and writes one",
        "result per (case, provider) into a new folder DIR/NAME-YYYYMMDDTHHMMSSZ.",
        "--cases runs only cases FROM to TO (1-based, inclusive; TO may be left out), to split",
        "a long preset over several shorter runs; --only OP[:MODE],... only the cases of those ops",
        "(and modes), to measure again what a kernel change touched. --list prints the cases",
        "that would run, one OP:MODE:DTYPE:SHAPE[:PARAMS] a line, and runs nothing (no --out",
        "needed): bench/scripts/torch_ops.py --preset reads it.",
        "--gpus spreads the cases over this host's GPUs, one solbench process per GPU, each",
        "result tagged with its device index (through solbench-spread, fleet/).",
        "",
        "presets:",
        NULL,
    };
    for (size_t i = 0; about[i]; i++)
        usage[u++] = about[i];
    for (size_t i = 0; sb_preset_table[i].name && i < sizeof lines / sizeof lines[0] && u + 1 < 80; i++) {
        snprintf(lines[i], sizeof lines[i], "  %-16s %s (%zu cases)", sb_preset_table[i].name,
                 sb_preset_table[i].description, sb_preset_table[i].case_count);
        usage[u++] = lines[i];
    }
    usage[u] = NULL;
    const sb_option own[] = {
        SB_OPT_STRING(0, "preset", &preset, "name", "the preset to run (listed above)"),
        SB_OPT_CALLBACK(0, "cases", &cases, "FROM-TO", "only cases FROM to TO, 1-based", cases_value),
        SB_OPT_STRING(0, "only", &only, "OP[:MODE],...", "only the cases of these ops (and modes)"),
        SB_OPT_BOOL(0, "list", &list, "print the cases that would run; run nothing"),
        SB_OPT_STRING(0, "gpus", &gpus, "all|0,1,...", "spread the cases over this host's GPUs"),
        SB_OPT_END(),
    };
    int status;
    if (parse_command(argc, argv, "suite", own, &o, NULL, usage, &status) < 0)
        return status;
    if (only && strlen(only) >= 256)
        return usage_error("--only: the list is too long%s%s", "", "");
    int64_t first = cases.first, last = cases.last;
    if (!preset)
        return usage_error("suite needs --preset NAME%s%s", "", "");
    const sb_preset *pr = sb_preset_find(preset);
    if (!pr)
        return usage_error("no preset %s (solbench suite --help lists them)%s", preset, "");
    if (!o.out && !list)
        return usage_error("suite needs --out DIR%s%s", "", "");
    if (first > (int64_t)pr->case_count) {
        char count[32];
        snprintf(count, sizeof count, "%zu", pr->case_count);
        return usage_error("--cases: preset %s has only %s cases", pr->name, count);
    }
    size_t from = (size_t)first - 1, to = last > 0 && (size_t)last < pr->case_count ? (size_t)last : pr->case_count;
    size_t chosen = 0;
    for (size_t i = from; i < to; i++)
        chosen += (size_t)case_selected(only, &pr->cases[i]);
    if (chosen == 0)
        return usage_error("--only %s: no case of the preset (in the --cases range) has that op or mode", only ? only : "",
                           "");
    if (list) {
        for (size_t i = from; i < to; i++) {
            const sb_preset_case *pc = &pr->cases[i];
            if (case_selected(only, pc))
                printf("%s:%s:%s:%s%s%s\n", pc->op, pc->mode ? pc->mode : "", pc->dtype, pc->shape,
                       pc->params ? ":" : "", pc->params ? pc->params : "");
        }
        return 0;
    }
    struct stat st;
    if (stat(o.out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "solbench: --out %s: not an existing directory\n", o.out);
        return EXIT_USAGE;
    }
    sb_error err;
    sb_error_clear(&err);
    /* Every case must make sense before anything runs. */
    for (size_t i = 0; i < pr->case_count; i++) {
        const sb_op *op;
        sb_op_config cfg;
        if (preset_config(pr, i, &op, &cfg, o.seed, &err) != SB_OK) {
            fail_line(&err);
            return EXIT_USAGE;
        }
    }
    run_env e;
    if (run_env_open(&e, o.device_is_cpu, o.device_index, o.calibration, o.suite ? o.suite : pr->name, &err) !=
        SB_OK) {
        fail_line(&err);
        run_env_close(&e);
        return EXIT_USAGE;
    }
    char stamp[32], dir[4200];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(dir, sizeof dir, "%s/%s-%s", o.out, pr->name, stamp);
    for (int k = 2; mkdir(dir, 0777) != 0; k++) {
        if (errno != EEXIST || k > 99) {
            fprintf(stderr, "solbench: %s: cannot create directory: %s\n", dir, strerror(errno));
            run_env_close(&e);
            return EXIT_USAGE;
        }
        snprintf(dir, sizeof dir, "%s/%s-%s-%d", o.out, pr->name, stamp, k);
    }
    int any_failed = 0, rc = SB_OK, written = 0;
    for (size_t i = from; i < to && rc == SB_OK; i++) {
        const sb_op *op;
        sb_op_config cfg;
        double t0 = wall_seconds();
        if (!case_selected(only, &pr->cases[i]))
            continue;
        preset_config(pr, i, &op, &cfg, o.seed, &err);
        int providers[16], np;
        if (select_providers(op, o.provider, o.device_is_cpu, providers, &np)) {
            rc = SB_ERR;
            snprintf(err.msg, sizeof err.msg, "preset %s: provider %s does not suit op %s", pr->name, o.provider,
                     op->name);
            break;
        }
        pending res[16];
        int nres = 0;
        rc = run_case(&e, op, &cfg, providers, np, &o, 1, dir, res, &nres, &any_failed, &err);
        if (rc == SB_OK) {
            print_pending(res, nres);
            rc = write_pending(res, nres, &err);
            printf("  (case %zu of %zu, %.1f s with setup and checks)\n", i + 1, pr->case_count,
                   wall_seconds() - t0);
            fflush(stdout);
        }
        if (rc == SB_OK)
            written += nres;
        free_pending(res, nres);
    }
    run_env_close(&e);
    if (rc != SB_OK) {
        fail_line(&err);
        fprintf(stderr, "solbench: %d result files were written to %s before the error\n", written, dir);
        return EXIT_USAGE;
    }
    printf("%d result files in %s\n", written, dir);
    return any_failed ? EXIT_PROBLEMS : 0;
}

/* ----------------------------------------------------------- roofline */
static int bytes_value(const sb_option *opt, const char *arg, sb_error *err)
{
    if (parse_bytes(arg, opt->value) || *(int64_t *)opt->value < 4096)
        return sb_error_set(err, NULL, NULL, "expected a size of at least 4096 (suffix K, M or G), got '%s'", arg);
    return SB_OK;
}

/* The stream probes' buffer when --bytes is not given. On a GPU, 8 GiB: one
 * launch's ramp and tail are a share of its time, and on an H200 a 1 GiB
 * read (about 0.24 ms) measured 2.2% under an 8 GiB one (copy 0.9%), so a
 * small buffer understates the ceiling that long-running ops reach. add and
 * triad hold three buffers beside cuBLAS's workspace, hence at most a
 * quarter of the card's memory each, in whole GiB, never under 1 GiB. */
static int64_t default_stream_bytes(const sb_ctx *ctx, int is_cpu)
{
    const int64_t gib = (int64_t)1 << 30;
    if (is_cpu)
        return (int64_t)64 << 20;
    int64_t quarter = sb_ctx_total_memory(ctx) / 4 / gib * gib;
    if (quarter > 8 * gib)
        return 8 * gib;
    return quarter > gib ? quarter : gib;
}

static int cmd_roofline(int argc, char **argv)
{
    common_opts o;
    common_defaults(&o);
    int64_t bytes = 0, gemm_size = -1;
    int gemm_size_arg = -1;
    static const char *const usage[] = {
        "solbench roofline [--bytes N] [--gemm-size N] [--device cpu|N] --out FILE",
        "",
        "Measures the card's ceilings and writes solbook.calibration.v1: STREAM copy, scale, add,",
        "triad (16-byte loads, grid-stride; bytes = read + written), cudaMemcpy device to device,",
        "and a cuBLASLt GEMM peak for fp16, bf16, tf32, fp32 and fp8e4m3 where supported.",
        NULL,
    };
    static const char *const takes[] = {"bytes", "gemm-size", "warmup", "settle-ms", "iters", "repeats", "hold",
                                        "check-rows", "device", "out", "seed", "test-corrupt-output", NULL};
    const sb_option own[] = {
        SB_OPT_CALLBACK(0, "bytes", &bytes, "n",
                        "bytes per stream buffer, suffix K, M, G allowed (default 8G on a GPU,\n"
                        "at most a quarter of its memory; 64M on the CPU)",
                        bytes_value),
        SB_OPT_INT(0, "gemm-size", &gemm_size_arg, "n", 0, 65536,
                   "M = N = K of the GEMM probes (default 8192 on a GPU, 256 on the CPU;\n0 = none)"),
        SB_OPT_END(),
    };
    int status;
    if (parse_command(argc, argv, "roofline", own, &o, takes, usage, &status) < 0)
        return status;
    if (gemm_size_arg >= 0)
        gemm_size = gemm_size_arg;
    if (!o.out)
        return usage_error("roofline needs --out FILE%s%s", "", "");
    int is_dir;
    if (prepare_out(o.out, 0, &is_dir))
        return EXIT_USAGE;
    if (is_dir)
        return usage_error("--out %s: roofline writes one file; give a file name%s", o.out, "");
    sb_error err;
    sb_error_clear(&err);
    run_env e;
    if (run_env_open(&e, o.device_is_cpu, o.device_index, NULL, "roofline", &err) != SB_OK) {
        fail_line(&err);
        run_env_close(&e);
        return EXIT_USAGE;
    }
    sb_roofline_opts ro;
    ro.buffer_bytes = bytes ? bytes : default_stream_bytes(&e.ctx, o.device_is_cpu);
    ro.gemm_size = gemm_size >= 0 ? gemm_size : o.device_is_cpu ? 256 : 8192;
    ro.seed = o.seed;
    ro.proto = o.proto;
    ro.proto.nvml = e.nvml;
    ro.proto.nvml_index = e.nvml_index;
    json_t *cal = NULL;
    int rc = sb_roofline_run(&e.ctx, &ro, e.prov, &cal, &err);
    if (rc == SB_OK)
        rc = sb_json_write_file(o.out, cal, &err);
    if (rc == SB_OK) {
        json_t *bw = json_object_get(cal, "bandwidth");
        const char *k;
        json_t *v;
        json_object_foreach(bw, k, v)
            printf("%-10s %9.1f GB/s\n", k, json_number_value(json_object_get(v, "gbps")));
        json_object_foreach(json_object_get(cal, "gemm_peak"), k, v)
            printf("gemm %-6s %10.4g TFLOP/s\n", k, json_number_value(json_object_get(v, "tflops")));
        const char *notes = json_string_value(json_object_get(cal, "notes"));
        if (notes)
            printf("notes: %s\n", notes);
    }
    json_decref(cal);
    run_env_close(&e);
    if (rc != SB_OK) {
        fail_line(&err);
        return EXIT_USAGE;
    }
    return 0;
}

/* --------------------------------------------- tolerances, provenance */
/* The tolerance table as JSON, so scripts (scripts/torch_gemm.py) check
 * with the same numbers. */
static int cmd_tolerances(void)
{
    json_t *t = json_object();
    for (int d = 0; d < SB_DTYPE_COUNT; d++) {
        double atol, rtol;
        sb_tolerance((sb_dtype)d, &atol, &rtol);
        json_object_set_new(t, sb_dtype_name((sb_dtype)d), json_pack("{s:f,s:f}", "atol", atol, "rtol", rtol));
    }
    char *s = json_dumps(t, JSON_SORT_KEYS | JSON_INDENT(2));
    json_decref(t);
    if (!s)
        return EXIT_USAGE;
    printf("%s\n", s);
    free(s);
    return 0;
}

/* This machine's provenance block as solbench records it, for scripts
 * that write results of their own (scripts/torch_gemm.py). */
static int cmd_provenance(int argc, char **argv)
{
    common_opts o;
    common_defaults(&o);
    static const char *const usage[] = {
        "solbench provenance [--device cpu|N]",
        "",
        "Prints the provenance JSON object solbench records for this machine and device.",
        NULL,
    };
    static const char *const takes[] = {"device", NULL};
    int status;
    if (parse_command(argc, argv, "provenance", NULL, &o, takes, usage, &status) < 0)
        return status;
    sb_error err;
    sb_error_clear(&err);
    run_env e;
    if (run_env_open(&e, o.device_is_cpu, o.device_index, NULL, "adhoc", &err) != SB_OK) {
        fail_line(&err);
        run_env_close(&e);
        return EXIT_USAGE;
    }
    char *s = json_dumps(e.prov, JSON_SORT_KEYS | JSON_INDENT(2));
    run_env_close(&e);
    if (!s)
        return EXIT_USAGE;
    printf("%s\n", s);
    free(s);
    return 0;
}

/* --------------------------------------------------------------- main */
static void main_help(void)
{
    printf("usage: solbench COMMAND [options]   (solbench COMMAND --help for its options)\n\ncommands:\n");
    for (size_t i = 0; sb_op_table[i]; i++)
        printf("  %-12s %s\n", sb_op_table[i]->name, sb_op_table[i]->summary);
    printf("  %-12s %s\n", "suite", "run a preset's cases into a new timestamped folder");
    printf("  %-12s %s\n", "roofline", "measure the card's ceilings (solbook.calibration.v1)");
    printf("  %-12s %s\n", "list", "list ops, providers and presets");
    printf("  %-12s %s\n", "tolerances", "print the per-dtype tolerance table as JSON");
    printf("  %-12s %s\n", "provenance", "print this machine's provenance block as JSON");
    printf("\nExit status: 0 ok, 1 a correctness check failed, 2 usage or system error.\n");
}

static int cmd_list(void)
{
    for (size_t i = 0; sb_op_table[i]; i++) {
        const sb_op *op = sb_op_table[i];
        printf("op %s:", op->name);
        for (int p = 0; op->providers[p].name; p++)
            printf(" %s", op->providers[p].name);
        printf("\n");
    }
    for (size_t i = 0; sb_preset_table[i].name; i++)
        printf("preset %s: %zu cases\n", sb_preset_table[i].name, sb_preset_table[i].case_count);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        main_help();
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        main_help();
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("solbench %s\n", SOLBOOK_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "list"))
        return cmd_list();
    if (!strcmp(cmd, "tolerances"))
        return cmd_tolerances();
    if (!strcmp(cmd, "provenance"))
        return cmd_provenance(argc - 1, argv + 1);
    if (!strcmp(cmd, "suite"))
        return cmd_suite(argc - 1, argv + 1);
    if (!strcmp(cmd, "roofline"))
        return cmd_roofline(argc - 1, argv + 1);
    const sb_op *op = sb_op_find(cmd);
    if (op)
        return cmd_op(op, argc - 1, argv + 1);
    fprintf(stderr, "solbench: unknown command %s (see solbench --help)\n", cmd);
    return EXIT_USAGE;
}
