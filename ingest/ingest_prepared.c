/* ingest_prepared.c - a solbook document made ready to store: schema,
 * counts, canonical form, digest, and the rows to write (as db/run_store.h
 * records), without touching the database, so a reader thread can do it
 * ahead of the thread that stores (ingest.c). */
#include "ingest_prepared.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "canonical_json.h"
#include "isoweek.h"
#include "json_schema.h"
#include "paired.h"
#include "sample_blob.h"
#include "shape_key.h"
#include "stats.h"

/* ---- reading values out of the document ---- */

static json_t *get(json_t *o, const char *k)
{
    return json_is_object(o) ? json_object_get(o, k) : NULL;
}

static json_t *get2(json_t *o, const char *a, const char *b)
{
    return get(get(o, a), b);
}

struct sb_string_block {
    sb_string_block *next;
    size_t used, cap;
    char text[];
};

#define STRING_BLOCK_BYTES 1024

/* A copy of string v in pp's blocks, or NULL when v is not a string. A
 * copy that cannot be made marks pp (the document is then refused). */
static const char *str_of(sb_ingest_prepared *pp, json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    size_t n = json_string_length(v) + 1;
    sb_string_block *b = pp->strings;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > STRING_BLOCK_BYTES ? n : STRING_BLOCK_BYTES;
        if (!(b = malloc(sizeof *b + cap))) {
            pp->strings_oom = 1;
            return NULL;
        }
        b->used = 0;
        b->cap = cap;
        b->next = pp->strings;
        pp->strings = b;
    }
    char *copy = b->text + b->used;
    memcpy(copy, json_string_value(v), n);
    b->used += n;
    return copy;
}

static void strings_free(sb_string_block *b)
{
    while (b) {
        sb_string_block *next = b->next;
        free(b);
        b = next;
    }
}

/* Integers and booleans (as 0/1); NULL for anything else. */
static sb_opt_int opt_int(json_t *v)
{
    sb_opt_int r = {0, 0};
    if (json_is_integer(v)) {
        r.set = 1;
        r.value = json_integer_value(v);
    } else if (json_is_boolean(v)) {
        r.set = 1;
        r.value = json_is_true(v);
    }
    return r;
}

/* A number, or NAN (stored as NULL). */
static double real(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Canonical JSON (sorted keys, compact, 17 significant digits). */
static char *canonical(const json_t *j)
{
    return sb_canonical_json(j, NULL);
}

/* ---- consistency checks the schema cannot express ---- */

static int check_counts(json_t *doc, int training, const char *file, sb_error *err)
{
    json_t *timing = get(doc, "timing");
    json_t *samples = get(timing, "samples");
    json_t *count = get2(timing, "stats", "count");
    if (!samples || !count)
        return SB_OK;
    json_int_t n = 0;
    if (training) {
        n = (json_int_t)json_array_size(samples);
    } else {
        size_t r;
        json_t *rep;
        json_array_foreach(samples, r, rep) n += (json_int_t)json_array_size(rep);
    }
    if (n != json_integer_value(count))
        return sb_error_set(err, file, "/timing/stats/count",
                            "stats.count is %" JSON_INTEGER_FORMAT " but timing.samples holds %" JSON_INTEGER_FORMAT
                            " samples",
                            json_integer_value(count), n);
    json_t *kernel = get(timing, "kernel");
    if (kernel) {
        json_int_t kn = 0;
        size_t r;
        json_t *rep;
        json_array_foreach(get(kernel, "samples"), r, rep) kn += (json_int_t)json_array_size(rep);
        json_t *kcount = get2(kernel, "stats", "count");
        if (json_is_integer(kcount) && kn != json_integer_value(kcount))
            return sb_error_set(err, file, "/timing/kernel/stats/count",
                                "kernel stats.count is %" JSON_INTEGER_FORMAT " but timing.kernel.samples holds %"
                                JSON_INTEGER_FORMAT " samples", json_integer_value(kcount), kn);
    }
    if (!training) {
        json_t *iters = get2(doc, "protocol", "iters"), *repeats = get2(doc, "protocol", "repeats");
        if (json_is_integer(repeats) && (json_int_t)json_array_size(samples) != json_integer_value(repeats))
            return sb_error_set(err, file, "/timing/samples",
                                "%zu repeats of samples but protocol.repeats is %" JSON_INTEGER_FORMAT,
                                json_array_size(samples), json_integer_value(repeats));
        if (json_is_integer(iters)) {
            size_t r;
            json_t *rep;
            json_array_foreach(samples, r, rep) {
                if ((json_int_t)json_array_size(rep) != json_integer_value(iters)) {
                    char where[64];
                    snprintf(where, sizeof where, "/timing/samples/%zu", r);
                    return sb_error_set(err, file, where,
                                        "repeat %zu has %zu samples but protocol.iters is %" JSON_INTEGER_FORMAT,
                                        r, json_array_size(rep), json_integer_value(iters));
                }
            }
        }
    }
    return SB_OK;
}

/* Appends the numbers of samples (flat, or an array of repeats when nested)
 * to v; 0, or -1 when out of memory. */
static int flatten_samples(json_t *samples, int nested, double **v, size_t *n)
{
    size_t total = 0, r, i;
    json_t *rep, *x;
    if (nested)
        json_array_foreach(samples, r, rep) total += json_array_size(rep);
    else
        total = json_array_size(samples);
    *n = 0;
    *v = malloc((total ? total : 1) * sizeof **v);
    if (!*v)
        return -1;
    if (!nested) {
        json_array_foreach(samples, i, x) (*v)[(*n)++] = json_number_value(x);
        return 0;
    }
    json_array_foreach(samples, r, rep) {
        json_array_foreach(rep, i, x) (*v)[(*n)++] = json_number_value(x);
    }
    return 0;
}

/* stats.median lies between the two middle samples (the middle one for an
 * odd count), whatever median its producer computes, to the precision it
 * printed: every table reads the median while the tests on a run read its
 * samples, so a summary that disagrees with its own samples would give a
 * run two different times. */
static int check_one_median(json_t *stats, json_t *samples, int nested, const char *file,
                            const char *where, sb_error *err)
{
    json_t *median = get(stats, "median");
    if (!json_is_number(median) || !json_is_array(samples))
        return SB_OK;
    double *v;
    size_t n;
    if (flatten_samples(samples, nested, &v, &n) != 0)
        return sb_error_set(err, file, NULL, "out of memory");
    if (n == 0) {
        free(v);
        return SB_OK;
    }
    double lo, hi, m = json_number_value(median);
    sb_middle_values(v, n, &lo, &hi);
    free(v);
    double slack = 1e-6 * fmax(fabs(lo), fabs(hi));
    if (m >= lo - slack && m <= hi + slack)
        return SB_OK;
    if (lo == hi)
        return sb_error_set(err, file, where, "%.17g is not the median of its %zu samples (%.17g)", m, n, lo);
    return sb_error_set(err, file, where, "%.17g is not the median of its %zu samples (between %.17g and %.17g)",
                        m, n, lo, hi);
}

static int check_medians(json_t *doc, int training, const char *file, sb_error *err)
{
    json_t *timing = get(doc, "timing");
    if (check_one_median(get(timing, "stats"), get(timing, "samples"), !training, file, "/timing/stats/median",
                         err) != SB_OK)
        return SB_ERR;
    json_t *kernel = get(timing, "kernel");
    return check_one_median(get(kernel, "stats"), get(kernel, "samples"), 1, file, "/timing/kernel/stats/median",
                            err);
}

/* A run of a measuring session is paired with the session's other runs
 * round by round, by each round's median (model/paired.h): a round whose
 * median cannot be paired (0, or so small or large that a ratio overflows)
 * would stop every report that reads the session, so it is refused here,
 * naming the samples. */
static int check_session_rounds(json_t *doc, const char *file, sb_error *err)
{
    if (!get(doc, "session"))
        return SB_OK;
    json_t *timing = get(doc, "timing");
    const char *where[] = {"/timing/samples", "/timing/kernel/samples"};
    json_t *arrays[] = {get(timing, "samples"), get2(timing, "kernel", "samples")};
    for (size_t i = 0; i < 2; i++) {
        if (!arrays[i])
            continue;
        char *text = json_dumps(arrays[i], JSON_COMPACT);
        if (!text)
            return sb_error_set(err, file, where[i], "out of memory");
        double *med = NULL;
        size_t n = 0;
        sb_error e;
        int rc = sb_round_medians(text, &med, &n, &e);
        free(text);
        free(med);
        if (rc != SB_OK)
            return sb_error_set(err, file, where[i], "%s: a session's rounds are paired by their medians", e.msg);
    }
    return SB_OK;
}

/* timing.sample_sm_clock_mhz is parallel to timing.samples: as many
 * repeats, each as long as its repeat of samples. */
static int check_sample_clocks(json_t *doc, const char *file, sb_error *err)
{
    json_t *timing = get(doc, "timing");
    json_t *clocks = get(timing, "sample_sm_clock_mhz");
    if (!clocks)
        return SB_OK;
    json_t *samples = get(timing, "samples");
    if (!samples)
        return sb_error_set(err, file, "/timing/sample_sm_clock_mhz", "sample clocks but no timing.samples");
    if (json_array_size(clocks) != json_array_size(samples))
        return sb_error_set(err, file, "/timing/sample_sm_clock_mhz",
                            "%zu repeats of sample clocks but %zu of samples", json_array_size(clocks),
                            json_array_size(samples));
    size_t r;
    json_t *rep;
    json_array_foreach(clocks, r, rep) {
        size_t n = json_array_size(json_array_get(samples, r));
        if (json_array_size(rep) != n) {
            char where[64];
            snprintf(where, sizeof where, "/timing/sample_sm_clock_mhz/%zu", r);
            return sb_error_set(err, file, where, "repeat %zu has %zu sample clocks but %zu samples", r,
                                json_array_size(rep), n);
        }
    }
    return SB_OK;
}

/* The schema's pattern takes any digits ("2026-13-45T25:61:61Z"); a run
 * stored with a time no calendar has would fall in no week and no window,
 * so it is refused here, in the words of the one parser reports use. */
static int check_times(json_t *doc, const char *file, sb_error *err)
{
    static const char *const names[] = {"started_at", "finished_at"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *t = json_string_value(get2(doc, "provenance", names[i]));
        long long epoch;
        if (t && sb_rfc3339_parse(t, &epoch) != 0) {
            char where[64];
            snprintf(where, sizeof where, "/provenance/%s", names[i]);
            return sb_error_set(err, file, where, "\"%s\" is not a date and time of the calendar", t);
        }
    }
    return SB_OK;
}

/* ---- the rows of a document ---- */

static int fill_provenance(sb_ingest_prepared *pp, json_t *p)
{
    sb_provenance_row *r = &pp->rec.provenance;
    json_t *dev = get(p, "device");
    r->git_sha = str_of(pp, get2(p, "git", "sha"));
    r->git_dirty = opt_int(get2(p, "git", "dirty"));
    r->tool_name = str_of(pp, get2(p, "tool", "name"));
    r->tool_version = str_of(pp, get2(p, "tool", "version"));
    r->hostname = str_of(pp, get2(p, "host", "hostname"));
    r->os = str_of(pp, get2(p, "host", "os"));
    r->cpu = str_of(pp, get2(p, "host", "cpu"));
    r->driver_version = str_of(pp, get2(p, "software", "driver_version"));
    r->cuda_runtime_version = str_of(pp, get2(p, "software", "cuda_runtime_version"));
    r->cublas_version = str_of(pp, get2(p, "software", "cublas_version"));
    r->device_kind = str_of(pp, get(dev, "kind"));
    r->device_index = opt_int(get(dev, "index"));
    r->gpu_name = str_of(pp, get(dev, "name"));
    r->arch = str_of(pp, get(dev, "arch"));
    r->sku = str_of(pp, get(dev, "sku"));
    r->compute_capability = str_of(pp, get(dev, "compute_capability"));
    r->sm_count = opt_int(get(dev, "sm_count"));
    r->memory_bytes = opt_int(get(dev, "memory_bytes"));
    r->pci_device_id = str_of(pp, get(dev, "pci_device_id"));
    r->board_part_number = str_of(pp, get(dev, "board_part_number"));
    r->sm_clock_mhz = opt_int(get2(dev, "clocks", "sm_mhz"));
    r->mem_clock_mhz = opt_int(get2(dev, "clocks", "mem_mhz"));
    r->power_limit_w = real(get(dev, "power_limit_w"));
    r->ecc = opt_int(get(dev, "ecc"));
    r->mig = opt_int(get(dev, "mig"));
    r->started_at = str_of(pp, get(p, "started_at"));
    r->finished_at = str_of(pp, get(p, "finished_at"));
    json_t *packages = get2(p, "software", "packages");
    if (packages && !(pp->packages_json = canonical(packages)))
        return SB_ERR;
    r->packages_json = pp->packages_json ? pp->packages_json : "{}";
    r->scheduler = str_of(pp, get2(p, "scheduler", "engine"));
    r->scheduler_job_id = str_of(pp, get2(p, "scheduler", "job_id"));
    r->scheduler_array_task_id = opt_int(get2(p, "scheduler", "array_task_id"));
    r->git_branch = str_of(pp, get2(p, "git", "branch"));
    return SB_OK;
}

/* The samples, flattened: a result's repeats in order, or a training
 * run's steps as one repeat. */
static int fill_samples(sb_ingest_prepared *pp, json_t *samples, int one_repeat)
{
    size_t n_reps = one_repeat ? 1 : json_array_size(samples), total = 0;
    if (!samples || !n_reps)
        return SB_OK;
    if (one_repeat) {
        total = json_array_size(samples);
    } else {
        for (size_t r = 0; r < n_reps; r++)
            total += json_array_size(json_array_get(samples, r));
    }
    pp->rep_len = malloc(n_reps * sizeof *pp->rep_len);
    pp->samples = malloc((total ? total : 1) * sizeof *pp->samples);
    if (!pp->rep_len || !pp->samples)
        return SB_ERR;
    size_t k = 0;
    for (size_t r = 0; r < n_reps; r++) {
        json_t *rep = one_repeat ? samples : json_array_get(samples, r);
        size_t n = json_array_size(rep);
        for (size_t i = 0; i < n; i++)
            pp->samples[k++] = json_number_value(json_array_get(rep, i));
        pp->rep_len[r] = n;
    }
    pp->rec.samples = pp->samples;
    pp->rec.rep_len = pp->rep_len;
    pp->rec.n_reps = n_reps;
    return SB_OK;
}

static sb_opt_int peak_bytes(json_t *memory)
{
    json_t *b = get(memory, "peak_device_bytes"), *mb = get(memory, "peak_device_mb");
    sb_opt_int r = {0, 0};
    if (json_is_integer(b)) {
        r.set = 1;
        r.value = json_integer_value(b);
    } else if (json_is_number(mb)) {
        r.set = 1;
        r.value = llround(json_number_value(mb) * 1e6);
    }
    return r;
}

/* The kernel time of a result: timing.kernel when the producer measured it
 * apart, else the call time itself when every launch was queued behind a
 * blocking kernel (solbench --hold), where the samples are GPU time already.
 * NULL stats: the run has no kernel time. */
static json_t *kernel_stats(sb_ingest_prepared *pp, json_t *timing, json_t *proto,
                            const char **method)
{
    json_t *k = get(timing, "kernel");
    if (k) {
        *method = str_of(pp, get(k, "method"));
        return get(k, "stats");
    }
    const char *hold = json_string_value(get(proto, "launch_hold"));
    if (hold && strcmp(hold, "blocking-kernel") == 0 && !json_is_true(get(timing, "quantiles_only"))) {
        *method = "held-launch";
        return get(timing, "stats");
    }
    *method = NULL;
    return NULL;
}

/* metrics row from timing.stats (+ derived metrics and memory for results;
 * proto is NULL for training runs). */
static void fill_metrics(sb_ingest_prepared *pp, json_t *timing, json_t *proto, json_t *m,
                         json_t *memory)
{
    sb_metrics_row *r = &pp->metrics;
    json_t *s = get(timing, "stats");
    r->sample_count = opt_int(get(s, "count"));
    r->quantiles_only = json_is_true(get(timing, "quantiles_only"));
    r->min_ms = real(get(s, "min"));
    r->p20_ms = real(get(s, "p20"));
    r->median_ms = real(get(s, "median"));
    r->p80_ms = real(get(s, "p80"));
    r->max_ms = real(get(s, "max"));
    r->mean_ms = real(get(s, "mean"));
    r->stdev_ms = real(get(s, "stdev"));
    r->rel_noise = real(get(s, "rel_noise"));
    r->repeat_spread = real(get(s, "repeat_median_rel_spread"));
    r->flops = real(get(m, "flops"));
    r->bytes = real(get(m, "bytes"));
    r->tflops = real(get(m, "tflops"));
    r->gbps = real(get(m, "gbps"));
    r->bound = str_of(pp, get(m, "bound"));
    r->pct_datasheet_peak = real(get(m, "pct_datasheet_peak"));
    r->datasheet_peak_name = str_of(pp, get(m, "datasheet_peak_name"));
    r->pct_measured_ceiling = real(get(m, "pct_measured_ceiling"));
    r->measured_ceiling_name = str_of(pp, get(m, "measured_ceiling_name"));
    r->peak_device_bytes = peak_bytes(memory);
    const char *method = NULL;
    json_t *ks = proto ? kernel_stats(pp, timing, proto, &method) : NULL;
    r->kernel_median_ms = real(get(ks, "median"));
    r->kernel_p20_ms = real(get(ks, "p20"));
    r->kernel_p80_ms = real(get(ks, "p80"));
    r->kernel_sample_count = opt_int(get(ks, "count"));
    r->kernel_method = ks ? method : NULL;
    pp->rec.metrics = r;
}

/* The name a provider is stored under. torch_ops.py wrote the unmodified
 * Hugging Face code as "torch-eager"; Liger-Kernel's benchmarks, and the
 * maintainers who read ours, call that baseline "huggingface" (migration 002
 * renames the rows stored before). */
static const char *canonical_provider(const char *provider)
{
    if (provider && strcmp(provider, "torch-eager") == 0)
        return "huggingface";
    return provider;
}

/* The profiler a result was timed under: protocol.profiler, else "ncu"
 * for the presets run under Nsight Compute (suite NAME-ncu, written before
 * solbench recorded the field); NULL for a plain timing. */
static const char *profiler_of(sb_ingest_prepared *pp, json_t *cfg, json_t *proto)
{
    json_t *named = get(proto, "profiler");
    if (json_is_string(named))
        return str_of(pp, named);
    const char *suite = json_string_value(get(cfg, "suite"));
    size_t n = suite ? strlen(suite) : 0;
    if (n >= 4 && strcmp(suite + n - 4, "-ncu") == 0)
        return "ncu";
    return NULL;
}

static int fill_result(sb_ingest_prepared *pp, json_t *doc)
{
    json_t *cfg = get(doc, "config"), *proto = get(doc, "protocol");
    json_t *shape = get(cfg, "shape"), *params = get(cfg, "params");
    pp->shape_key = sb_shape_key(shape);
    pp->shape_json = canonical(shape);
    pp->params_json = params ? canonical(params) : strdup("{}");
    if (!pp->shape_key || !pp->shape_json || !pp->params_json)
        return SB_ERR;
    /* The case: what was computed. The suite (the preset that ran it) is a
     * label beside it, so one case measured by two presets meets itself. */
    const char *parts[] = {str_of(pp, get(cfg, "op")), str_of(pp, get(cfg, "mode")),
                           str_of(pp, get(cfg, "dtype")), pp->shape_key, pp->params_json};
    size_t len = 1;
    for (int k = 0; k < 5; k++)
        len += strlen(parts[k]) + 1;
    if (!(pp->case_key = malloc(len)))
        return SB_ERR;
    snprintf(pp->case_key, len, "%s|%s|%s|%s|%s", parts[0], parts[1], parts[2], parts[3], parts[4]);

    sb_config_row *c = &pp->config;
    c->suite = str_of(pp, get(cfg, "suite"));
    c->op = parts[0];
    c->mode = parts[1];
    c->provider = canonical_provider(str_of(pp, get(cfg, "provider")));
    c->backend = str_of(pp, get(cfg, "backend"));
    c->dtype = parts[2];
    c->shape_key = pp->shape_key;
    c->shape_json = pp->shape_json;
    c->params_json = pp->params_json;
    c->case_key = pp->case_key;
    c->timer = str_of(pp, get(proto, "timer"));
    c->warmup_iters = opt_int(get(proto, "warmup_iters"));
    c->warmup_ms = real(get(proto, "warmup_ms"));
    c->iters = opt_int(get(proto, "iters"));
    c->repeats = opt_int(get(proto, "repeats"));
    c->l2 = str_of(pp, get(proto, "l2"));
    c->input_sets = opt_int(get(proto, "input_sets"));
    c->graph = opt_int(get(proto, "graph"));
    c->profiler = profiler_of(pp, cfg, proto);
    pp->rec.config = c;

    json_t *timing = get(doc, "timing"), *metrics = get(doc, "metrics"), *memory = get(doc, "memory");
    if (fill_samples(pp, get(timing, "samples"), 0) != SB_OK)
        return SB_ERR;
    if (timing || metrics || memory)
        fill_metrics(pp, timing, proto, metrics, memory);

    json_t *k = get(doc, "correctness"), *d = get(doc, "determinism");
    sb_correctness_row *r = &pp->correctness;
    r->reference = str_of(pp, get(k, "reference"));
    r->checked_elements = opt_int(get(k, "checked_elements"));
    r->max_abs_err = real(get(k, "max_abs_err"));
    r->max_rel_err = real(get(k, "max_rel_err"));
    r->rel_l2_err = real(get(k, "rel_l2_err"));
    r->atol = real(get(k, "atol"));
    r->rtol = real(get(k, "rtol"));
    r->unwritten = opt_int(get(k, "unwritten"));
    r->finite = opt_int(get(k, "finite"));
    r->passed = opt_int(get(k, "passed"));
    r->output_checksum = str_of(pp, get(k, "output_checksum"));
    r->bitwise_repeatable = opt_int(get(d, "bitwise_repeatable"));
    r->batch_invariant = opt_int(get(d, "batch_invariant"));
    pp->rec.correctness = r;
    return SB_OK;
}

static int fill_training(sb_ingest_prepared *pp, json_t *doc)
{
    json_t *model = get(doc, "model"), *par = get(doc, "parallelism"), *patch = get(doc, "patch");
    json_t *timing = get(doc, "timing"), *memory = get(doc, "memory");
    if (!(pp->patch_kernels_json = canonical(get(patch, "kernels"))))
        return SB_ERR;
    sb_training_row *t = &pp->training;
    t->model_name = str_of(pp, get(model, "name"));
    t->seq_len = opt_int(get(model, "seq_len"));
    t->micro_batch_size = opt_int(get(model, "micro_batch_size"));
    t->dtype = str_of(pp, get(model, "dtype"));
    t->world_size = opt_int(get(par, "world_size"));
    t->strategy = str_of(pp, get(par, "strategy"));
    t->patch_name = str_of(pp, get(patch, "name"));
    t->patch_kernels_json = pp->patch_kernels_json;
    t->tokens_per_s = real(get2(doc, "throughput", "tokens_per_s"));
    t->median_step_ms = real(get2(timing, "stats", "median"));
    t->peak_device_bytes = peak_bytes(memory);
    pp->rec.training = t;
    if (timing) {
        if (fill_samples(pp, get(timing, "samples"), 1) != SB_OK)
            return SB_ERR;
        fill_metrics(pp, timing, NULL, NULL, memory);
    }
    return SB_OK;
}

/* Ceilings: bw.NAME in GB/s for each bandwidth test, gemm.DTYPE in TFLOP/s. */
static int fill_calibration(sb_ingest_prepared *pp, json_t *doc)
{
    json_t *bw = get(doc, "bandwidth"), *gemm = get(doc, "gemm_peak");
    size_t n = json_object_size(bw) + json_object_size(gemm), i = 0;
    if (!n)
        return SB_OK;
    pp->ceilings = malloc(n * sizeof *pp->ceilings);
    pp->ceiling_names = malloc(n * SB_CEILING_NAME_MAX);
    if (!pp->ceilings || !pp->ceiling_names)
        return SB_ERR;
    const char *k;
    json_t *v;
    json_object_foreach(bw, k, v) {
        char *name = pp->ceiling_names + i * SB_CEILING_NAME_MAX;
        snprintf(name, SB_CEILING_NAME_MAX, "bw.%s", k);
        pp->ceilings[i++] = (sb_ceiling_row){name, "GB/s", json_number_value(get(v, "gbps"))};
    }
    json_object_foreach(gemm, k, v) {
        char *name = pp->ceiling_names + i * SB_CEILING_NAME_MAX;
        snprintf(name, SB_CEILING_NAME_MAX, "gemm.%s", k);
        pp->ceilings[i++] = (sb_ceiling_row){name, "TFLOP/s", json_number_value(get(v, "tflops"))};
    }
    pp->rec.ceilings = pp->ceilings;
    pp->rec.n_ceilings = i;
    return SB_OK;
}

enum { KIND_RESULT = 1, KIND_TRAINING, KIND_CALIBRATION };

/* A result's canonical JSON without timing.samples, which run_samples
 * holds (db/sample_blob.h), taken out of whole, where [from, to) is the
 * member's text: *at is where the member was cut, *cut the text (NULL
 * and -1 when the samples stay: not all reals, since a whole number would
 * come back as a real, or none). The text without one member and a comma
 * beside it is the canonical text of the document without that member,
 * so the document is not written a second time. */
static int cut_samples(const json_t *samples, const char *whole, size_t whole_len, size_t from, size_t to,
                       char **cut, size_t *cut_len, long long *at)
{
    *cut = NULL;
    *at = -1;
    size_t total = 0;
    for (size_t r = 0; r < json_array_size(samples); r++) {
        json_t *rep = json_array_get(samples, r);
        if (!json_is_array(rep))
            return SB_OK;
        for (size_t i = 0; i < json_array_size(rep); i++)
            if (!json_is_real(json_array_get(rep, i)))
                return SB_OK;
        total += json_array_size(rep);
    }
    if (!total || from >= to || to > whole_len)
        return SB_OK;
    if (from > 0 && whole[from - 1] == ',')
        from--;
    else if (to < whole_len && whole[to] == ',')
        to++;
    *cut_len = whole_len - (to - from);
    if (!(*cut = malloc(*cut_len + 1)))
        return SB_ERR;
    memcpy(*cut, whole, from);
    memcpy(*cut + from, whole + to, whole_len - to);
    (*cut)[*cut_len] = 0;
    *at = sb_raw_json_cut_at(whole, whole_len, *cut, *cut_len);
    if (*at < 0) {
        free(*cut);
        *cut = NULL;
    }
    return SB_OK;
}

int sb_ingest_prepare(const sb_schema_set *schemas, json_t *doc, const char *source,
                      sb_ingest_prepared *p, sb_error *err)
{
    memset(p, 0, sizeof *p);
    if (!json_is_object(doc))
        return sb_error_set(err, source, "", "not a JSON object: cannot tell which schema applies");
    json_t *sid = json_object_get(doc, "schema");
    if (!sid)
        return sb_error_set(err, source, "/schema",
                            "missing \"schema\" field: cannot tell which schema applies "
                            "(solbook.result.v1, solbook.training.v1 or solbook.calibration.v1)");
    if (!json_is_string(sid))
        return sb_error_set(err, source, "/schema", "\"schema\" must be a string naming the schema");
    const char *schema_id = json_string_value(sid);
    const sb_schema *schema = sb_schema_set_find(schemas, schema_id);
    if (!schema)
        return sb_error_set(err, source, "/schema",
                            "unknown schema \"%s\" (known: solbook.result.v1, solbook.training.v1, "
                            "solbook.calibration.v1)",
                            schema_id);
    if (sb_schema_check(schema, doc, source, err) != SB_OK)
        return SB_ERR;
    int kind = strcmp(schema_id, "solbook.result.v1") == 0        ? KIND_RESULT
               : strcmp(schema_id, "solbook.training.v1") == 0    ? KIND_TRAINING
               : strcmp(schema_id, "solbook.calibration.v1") == 0 ? KIND_CALIBRATION
                                                                  : 0;
    if (!kind)
        return sb_error_set(err, source, "/schema", "schema \"%s\" has no storage in the database", schema_id);
    if (check_counts(doc, kind == KIND_TRAINING, source, err) != SB_OK ||
        check_medians(doc, kind == KIND_TRAINING, source, err) != SB_OK ||
        check_sample_clocks(doc, source, err) != SB_OK ||
        check_session_rounds(doc, source, err) != SB_OK ||
        check_times(doc, source, err) != SB_OK)
        return SB_ERR;
    size_t raw_len, from, to;
    const json_t *samples = json_object_get(json_object_get(doc, "timing"), "samples");
    char *raw = sb_canonical_json_member(doc, samples, &raw_len, &from, &to);
    if (!raw)
        return sb_error_set(err, source, NULL, "out of memory");
    if (sb_sha256_hex(raw, raw_len, p->sha256, err) != SB_OK) {
        sb_error_set_file(err, source);
        free(raw);
        return SB_ERR;
    }
    long long at = -1;
    if (kind == KIND_RESULT) {
        char *cut;
        size_t cut_len;
        if (cut_samples(samples, raw, raw_len, from, to, &cut, &cut_len, &at) != SB_OK) {
            free(raw);
            return sb_error_set(err, source, NULL, "out of memory");
        }
        if (cut) {
            free(raw);
            raw = cut;
            raw_len = cut_len;
        }
    }
    p->raw = raw;
    p->raw_len = raw_len;
    p->kind = kind;

    sb_run_row *r = &p->rec.run;
    r->content_sha256 = p->sha256;
    r->schema = str_of(p, sid);
    r->run_uuid = str_of(p, get(doc, "run_uuid"));
    r->status = kind == KIND_CALIBRATION ? "passed" : str_of(p, get(doc, "status"));
    r->reason = str_of(p, get(doc, "reason"));
    r->notes = str_of(p, get(doc, "notes"));
    r->raw_json = raw;
    r->raw_json_len = raw_len;
    r->samples_at = (sb_opt_int){at >= 0, at};
    int rc = fill_provenance(p, get(doc, "provenance"));
    if (rc == SB_OK && kind == KIND_RESULT)
        rc = fill_result(p, doc);
    if (rc == SB_OK && kind == KIND_TRAINING)
        rc = fill_training(p, doc);
    if (rc == SB_OK && kind == KIND_CALIBRATION)
        rc = fill_calibration(p, doc);
    if (rc != SB_OK || p->strings_oom) {
        sb_ingest_prepared_free(p);
        return sb_error_set(err, source, NULL, "out of memory");
    }
    return SB_OK;
}

void sb_ingest_prepared_free(sb_ingest_prepared *p)
{
    strings_free(p->strings);
    free(p->raw);
    free(p->packages_json);
    free(p->shape_key);
    free(p->shape_json);
    free(p->params_json);
    free(p->case_key);
    free(p->patch_kernels_json);
    free(p->samples);
    free(p->rep_len);
    free(p->ceilings);
    free(p->ceiling_names);
    memset(p, 0, sizeof *p);
}
