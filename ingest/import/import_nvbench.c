/* import_nvbench.c - NVIDIA nvbench JSON (--json FILE).
 *
 * benchmarks[].states[] each become one run: axis values give shape,
 * params and dtype (every axis type: int64, float64, string, type; a
 * benchmark without axes too); the cold GPU-time summaries give the
 * statistics, and when nvbench also wrote the per-sample binary file
 * (FILE-bin/N.bin, little-endian float32 seconds) next to the JSON, the
 * samples themselves. The format is nvbench's json_printer (JSON file
 * version 1); docs/IMPORT.md says field by field what becomes what.
 */
#include "import_internal.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A named value as nvbench writes it: {"name", "type", "value"} with the
 * value as a string (int64/float64 written as text) or, in old files, a
 * number. */
static int value_double(json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return SB_OK;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "inf") == 0 || strcmp(s, "nan") == 0 || strcmp(s, "-nan") == 0) {
            *out = INFINITY;
            return SB_OK;
        }
        return sb_import_parse_double(s, out);
    }
    return SB_ERR;
}

/* The "data"/"values" list of a summary. */
static json_t *summary_list(json_t *summ)
{
    json_t *d = json_object_get(summ, "data");
    return json_is_array(d) ? d : json_object_get(summ, "values");
}

static json_t *find_summary(json_t *summaries, const char *tag)
{
    if (json_is_object(summaries))
        return json_object_get(summaries, tag);
    size_t i;
    json_t *s;
    json_array_foreach(summaries, i, s) {
        if (json_is_string(json_object_get(s, "tag")) && strcmp(json_string_value(json_object_get(s, "tag")), tag) == 0)
            return s;
    }
    return NULL;
}

static json_t *summary_item(json_t *summ, const char *name)
{
    size_t i;
    json_t *it;
    json_array_foreach(summary_list(summ), i, it) {
        json_t *n = json_object_get(it, "name");
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0)
            return json_object_get(it, "value");
    }
    return NULL;
}

/* 1 and *v when the summary exists with a finite "value". */
static int summary_value(json_t *summaries, const char *tag, double *v)
{
    json_t *s = find_summary(summaries, tag);
    if (!s)
        return 0;
    double d;
    if (value_double(summary_item(s, "value"), &d) != SB_OK || !isfinite(d))
        return 0;
    *v = d;
    return 1;
}

/* The most values read from one sample file. A value read costs about
 * 140 bytes at the peak of its way to the database (the float, the double,
 * its JSON node and text, with the clock file beside it: 4 million took
 * 571 MB, and the 100 million that a 400 MB file of zeros declares, sparse
 * and costing no disk, 5 GB), so one million keep a state near 150 MB.
 * That is far above the cold samples nvbench's stopping rules gather. A
 * file recorded with more is not read: the run keeps its summaries and its
 * notes say why. */
#define SB_NVBENCH_BIN_VALUES_MAX 1000000

/* Reads one of the per-sample files nvbench names in a state's summaries
 * (tag nv/json/bin:nv/cold/sample_times, FILE-bin/N.bin, or
 * nv/json/freqs-bin:nv/cold/sample_freqs, FILE-freqs-bin/N.bin): little-
 * endian float32 values, one per cold sample. It is looked for next to the
 * JSON, its folder + the last two parts of the recorded name, and read only
 * inside that folder (sb_import_read_beside refuses "..", links and other
 * than regular files). want: the number of samples the file must hold
 * (0: any); the recorded size and the file's length must both match it.
 * SB_OK with *out NULL when the state names no such file, or the file is
 * missing or has another size: why says which, for the notes. SB_ERR when
 * the name is refused. *out holds the values as written. */
static int read_bin(const sb_import_ctx *ctx, json_t *summaries, const char *tag, const char *what,
                    const char *where, size_t want, double **out, size_t *n_out, char *used, size_t used_size,
                    char *why, size_t why_size, sb_error *err)
{
    *out = NULL;
    *n_out = 0;
    snprintf(why, why_size, "no %s file named", what);
    json_t *s = find_summary(summaries, tag);
    const char *name = s ? json_string_value(summary_item(s, "filename")) : NULL;
    double size_d = 0;
    if (!name || value_double(summary_item(s, "size"), &size_d) != SB_OK || size_d < 1)
        return SB_OK;
    if (size_d > SB_NVBENCH_BIN_VALUES_MAX) {
        snprintf(why, why_size, "%s file is recorded with %.0f values, more than the %d read", what, size_d,
                 SB_NVBENCH_BIN_VALUES_MAX);
        return SB_OK;
    }
    /* "out/results.json-bin/0.bin" -> "results.json-bin/0.bin" */
    const char *last = strrchr(name, '/');
    const char *tail = name;
    if (last) {
        const char *q = last;
        while (q > name && q[-1] != '/')
            q--;
        tail = q;
    }
    size_t tl = strlen(tail);
    if (tl < 4 || strcmp(tail + tl - 4, ".bin") != 0)
        return sb_error_set(err, ctx->path, where, "%s file \"%s\" is not an nvbench .bin file: refused", what, name);
    size_t n = (size_t)size_d;
    char *raw = NULL;
    size_t len = 0;
    if (sb_import_read_beside(ctx, tail, where, n * 4, &raw, &len, err) != SB_OK) {
        /* name what nvbench recorded, not only the part looked for */
        if (strcmp(tail, name) != 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s file \"%s\": %.900s", what, name, err->msg);
            memcpy(err->msg, msg, sizeof msg);
        }
        return SB_ERR;
    }
    if (!raw) {
        snprintf(why, why_size, "%s file %s not found next to the JSON", what, tail);
        return SB_OK;
    }
    if (want && n != want) {
        free(raw);
        snprintf(why, why_size, "%s file %s is recorded with %zu values, the state has %zu samples", what, tail, n, want);
        return SB_OK;
    }
    if (len != n * 4) {
        free(raw);
        snprintf(why, why_size, "%s file %s holds %zu bytes, not 4 x %zu", what, tail, len, n);
        return SB_OK;
    }
    double *v = malloc(n * sizeof *v);
    if (!v) {
        free(raw);
        return sb_error_set(err, ctx->path, where, "out of memory reading %s", tail);
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char *b = (const unsigned char *)raw + 4 * i;
        unsigned int bits = (unsigned int)b[0] | (unsigned int)b[1] << 8 | (unsigned int)b[2] << 16 |
                            (unsigned int)b[3] << 24;
        float fv;
        memcpy(&fv, &bits, 4);
        v[i] = (double)fv;
    }
    free(raw);
    snprintf(used, used_size, "%s", tail);
    *out = v;
    *n_out = n;
    return SB_OK;
}

/* The cold sample times (seconds in the file) in ms; want as read_bin. */
static int read_samples(const sb_import_ctx *ctx, json_t *summaries, const char *where, size_t want, double **out,
                        size_t *n_out, char *used, size_t used_size, char *why, size_t why_size, sb_error *err)
{
    if (read_bin(ctx, summaries, "nv/json/bin:nv/cold/sample_times", "sample", where, want, out, n_out, used,
                 used_size, why, why_size, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; *out && i < *n_out; i++) {
        if (!isfinite((*out)[i]) || (*out)[i] < 0) {
            free(*out);
            *out = NULL;
            return sb_error_set(err, ctx->path, where, "sample file %s holds a value that is not a time in seconds",
                                used);
        }
        (*out)[i] *= 1e3;
    }
    return SB_OK;
}

/* The SM clock of each cold sample (Hz in the file), as many as the
 * samples read, into timing.sample_sm_clock_mhz (one repeat, parallel to
 * timing.samples): a sample that ran throttled shows there, which the
 * mean clock hides. */
static int read_clocks(const sb_import_ctx *ctx, json_t *summaries, const char *where, size_t n_samples,
                       json_t *timing, char *note, size_t note_size, sb_error *err)
{
    double *hz = NULL;
    size_t n = 0;
    char used[600] = "", why[700] = "";
    if (read_bin(ctx, summaries, "nv/json/freqs-bin:nv/cold/sample_freqs", "clock", where, n_samples, &hz, &n,
                 used, sizeof used, why, sizeof why, err) != SB_OK)
        return SB_ERR;
    if (!hz) {
        snprintf(note, note_size, "; per-sample SM clocks not read: %s", why);
        return SB_OK;
    }
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(hz[i]) || hz[i] <= 0) {
            free(hz);
            return sb_error_set(err, ctx->path, where, "clock file %s holds a value that is not a clock rate in Hz",
                                used);
        }
        lo = hz[i] < lo ? hz[i] : lo;
        hi = hz[i] > hi ? hz[i] : hi;
    }
    double med = sb_median(hz, n);
    for (size_t i = 0; i < n; i++)
        hz[i] /= 1e6;
    int rc = sb_result_timing_add_clocks(timing, hz, &n, 1);
    free(hz);
    if (rc != 0)
        return sb_error_set(err, ctx->path, where, "out of memory");
    snprintf(note, note_size, "; SM clock of each sample from %s: %.0f to %.0f MHz, median %.0f", used, lo / 1e6,
             hi / 1e6, med / 1e6);
    return SB_OK;
}

/* Bytes the benchmark declared with add_global_memory_reads/writes under a
 * column name (nv/gmem/reads/NAME, nv/gmem/writes/NAME); -1 when none. */
static double declared_bytes(json_t *summaries)
{
    double total = 0;
    int found = 0;
    size_t i;
    json_t *s;
    json_array_foreach(summaries, i, s) {
        const char *tag = json_string_value(json_object_get(s, "tag"));
        double v;
        if (tag && (strncmp(tag, "nv/gmem/reads/", 14) == 0 || strncmp(tag, "nv/gmem/writes/", 15) == 0) &&
            value_double(summary_item(s, "value"), &v) == SB_OK && isfinite(v) && v >= 0) {
            total += v;
            found = 1;
        }
    }
    return found ? total : -1;
}

static json_t *find_device(json_t *root, json_int_t id)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(root, "devices"), i, d) {
        if (json_is_integer(json_object_get(d, "id")) && json_integer_value(json_object_get(d, "id")) == id)
            return d;
    }
    return NULL;
}

static long long int_or(json_t *o, const char *k, long long dflt)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

/* The benchmark's axis of that name: "axes" is a list of {name, type, ...}
 * (an object keyed by name in early printers). */
static json_t *find_axis(json_t *bench, const char *name)
{
    json_t *axes = json_object_get(bench, "axes");
    if (json_is_object(axes))
        return json_object_get(axes, name);
    size_t i;
    json_t *a;
    json_array_foreach(axes, i, a) {
        json_t *n = json_object_get(a, "name");
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0)
            return a;
    }
    return NULL;
}

/* Type axes are written into a state's axis_values as strings ("F32"); the
 * benchmark's axis list says which ones are types. */
static int is_type_axis(json_t *bench, const char *name)
{
    json_t *type = json_object_get(find_axis(bench, name), "type");
    return json_is_string(type) && strcmp(json_string_value(type), "type") == 0;
}

/* Element counts the benchmark declared under a column name
 * (add_element_count(n, "NAME") -> summary nv/element_count/NAME): the
 * size of a benchmark that has no int64 axis. */
static void element_counts(json_t *summaries, json_t *shape)
{
    size_t i;
    json_t *s;
    json_array_foreach(summaries, i, s) {
        const char *tag = json_string_value(json_object_get(s, "tag"));
        double v;
        char key[128];
        if (!tag || strncmp(tag, "nv/element_count/", 17) != 0 ||
            value_double(summary_item(s, "value"), &v) != SB_OK || !(v >= 0) || v != floor(v) || v > 9e15)
            continue;
        sb_import_key(tag + 17, key, sizeof key);
        if (key[0])
            json_object_set_new(shape, key, json_integer((json_int_t)v));
    }
}

static int state_error(sb_import_ctx *ctx, size_t bi, size_t si, sb_error *err, const char *msg)
{
    char where[96];
    snprintf(where, sizeof where, "/benchmarks/%zu/states/%zu", bi, si);
    return sb_error_set(err, ctx->path, where, "%s", msg);
}

static int convert_state(sb_import_ctx *ctx, json_t *root, json_t *bench, size_t bi, json_t *state,
                         size_t si, long long row, const char *when, sb_error *err)
{
    char msg[700];
    const char *bname = json_string_value(json_object_get(bench, "name"));
    json_t *dev_id = json_object_get(state, "device");
    json_t *dev = json_is_integer(dev_id) ? find_device(root, json_integer_value(dev_id)) : NULL;
    if (!dev || !json_is_string(json_object_get(dev, "name"))) {
        snprintf(msg, sizeof msg, "state's \"device\" is not an id listed in \"devices\" with a name");
        return state_error(ctx, bi, si, err, msg);
    }

    json_t *shape = json_object(), *params = json_object();
    const char *dtype = NULL;
    int type_seen = 0;
    size_t i;
    json_t *av;
    json_array_foreach(json_object_get(state, "axis_values"), i, av) {
        const char *name = json_string_value(json_object_get(av, "name"));
        const char *type = json_string_value(json_object_get(av, "type"));
        json_t *value = json_object_get(av, "value");
        if (!name || !type || !value) {
            json_decref(shape);
            json_decref(params);
            snprintf(msg, sizeof msg, "axis_values/%zu lacks name, type or value", i);
            return state_error(ctx, bi, si, err, msg);
        }
        double d;
        long long ll;
        if (strcmp(type, "int64") == 0) {
            int ok = json_is_integer(value) ? (ll = json_integer_value(value), 1)
                                            : json_is_string(value) && sb_import_parse_ll(json_string_value(value), &ll) == SB_OK;
            if (!ok) {
                json_decref(shape);
                json_decref(params);
                snprintf(msg, sizeof msg, "axis \"%s\" is int64 but its value is not an integer", name);
                return state_error(ctx, bi, si, err, msg);
            }
            char key[128];
            sb_import_key(name, key, sizeof key);
            if (ll >= 0 && key[0])
                json_object_set_new(shape, key, json_integer(ll));
            else
                json_object_set_new(params, name, json_integer(ll));
        } else if (strcmp(type, "float64") == 0) {
            if (value_double(value, &d) != SB_OK || !isfinite(d)) {
                json_decref(shape);
                json_decref(params);
                snprintf(msg, sizeof msg, "axis \"%s\" is float64 but its value is not a finite number", name);
                return state_error(ctx, bi, si, err, msg);
            }
            json_object_set_new(params, name, json_real(d));
        } else if (json_is_string(value)) {
            const char *text = json_string_value(value);
            /* The first type axis alone names the dtype: where its type
             * has none (In=I16 of a conversion to Out=F32), a later axis
             * must not give the run the output's dtype while In=I8 runs
             * get the input's. */
            if (is_type_axis(bench, name) && !type_seen) {
                type_seen = 1;
                dtype = sb_import_dtype(text);
            }
            json_object_set_new(params, name, json_string(text));
        } else {
            json_decref(shape);
            json_decref(params);
            snprintf(msg, sizeof msg, "axis \"%s\" has type \"%s\" and a value that is not a string", name, type);
            return state_error(ctx, bi, si, err, msg);
        }
    }
    const sb_import_op_name *opr = sb_import_op_lookup(ctx, bname);
    if (!dtype && ctx->opts.dtype)
        dtype = sb_import_dtype(ctx->opts.dtype);
    if (!dtype && opr && opr->default_dtype[0])
        dtype = sb_import_dtype(opr->default_dtype);
    /* No type axis and nothing else naming one: never guessed. */
    if (!dtype)
        dtype = "unknown";
    /* Without an int64 axis, the element counts it declared are its size;
     * a benchmark with neither has an empty shape (docs/SCHEMAS.md). */
    if (json_object_size(shape) == 0)
        element_counts(json_object_get(state, "summaries"), shape);
    char op[64], provider[64], suite[64];
    if (opr)
        snprintf(op, sizeof op, "%s", opr->op);
    else
        sb_import_id(bname, op, sizeof op);
    sb_import_id(ctx->opts.provider ? ctx->opts.provider : "nvbench", provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "nvbench", suite, sizeof suite);
    if (!op[0] || !provider[0] || !suite[0]) {
        json_decref(shape);
        json_decref(params);
        snprintf(msg, sizeof msg, "benchmark name \"%s\" has no letters or digits to name the op", bname);
        return state_error(ctx, bi, si, err, msg);
    }
    json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", "fwd",
                               "provider", provider, "backend", "cuda", "dtype", dtype, "shape", shape,
                               "params", params);

    long long sm_version = int_or(dev, "sm_version", -1);
    char cc[48];
    if (sm_version > 0)
        snprintf(cc, sizeof cc, "%lld.%lld", sm_version / 100, (sm_version % 100) / 10);
    json_t *device = sb_import_gpu_device(ctx, json_string_value(json_object_get(dev, "name")),
                                          int_or(dev, "global_memory_size", 0), int_or(dev, "number_of_sms", -1),
                                          int_or(dev, "l2_cache_size", -1), sm_version > 0 ? cc : NULL);
    json_object_set_new(device, "index", json_integer(json_integer_value(dev_id)));
    long long clock = int_or(dev, "sm_default_clock_rate", -1); /* Hz: the card's peak SM clock */
    if (clock > 0)
        json_object_set_new(device, "clocks", json_pack("{s:I}", "sm_max_mhz", (json_int_t)((clock + 500000) / 1000000)));
    json_t *ecc = json_object_get(dev, "ecc_state");
    if (json_is_boolean(ecc))
        json_object_set(device, "ecc", ecc);
    json_t *nvb = json_object_get(json_object_get(json_object_get(root, "meta"), "version"), "nvbench");
    const char *version = json_string_value(json_object_get(nvb, "string"));
    json_t *prov = sb_import_provenance("nvbench", version, NULL, device, when, when);

    json_t *skipped = json_object_get(state, "is_skipped");
    if (json_is_true(skipped)) {
        const char *why = json_string_value(json_object_get(state, "skip_reason"));
        char reason[600];
        snprintf(reason, sizeof reason, "skipped by nvbench: %s", why && *why ? why : "no reason given");
        return sb_import_emit(ctx, "skipped", reason, config, sb_import_protocol("cold"), NULL, NULL, NULL, prov,
                              NULL, row, err);
    }

    json_t *summaries = json_object_get(state, "summaries");
    double mean_s = 0, rel = 0, min_s = 0, max_s = 0, count = 0, bw = 0;
    int cold = summary_value(summaries, "nv/cold/time/gpu/mean", &mean_s);
    const char *l2 = "cold";
    if (!cold) {
        if (!summary_value(summaries, "nv/batch/time/gpu/mean", &mean_s)) {
            json_decref(config);
            json_decref(prov);
            snprintf(msg, sizeof msg, "state is not skipped but has neither nv/cold/time/gpu/mean nor "
                     "nv/batch/time/gpu/mean");
            return state_error(ctx, bi, si, err, msg);
        }
        l2 = "warm";
    }
    if (mean_s < 0) {
        json_decref(config);
        json_decref(prov);
        return state_error(ctx, bi, si, err, "negative GPU time");
    }
    double median_s = 0, stdev_s = 0;
    int has_median = cold && summary_value(summaries, "nv/cold/time/gpu/median", &median_s) && median_s >= 0;
    int has_stdev = cold && summary_value(summaries, "nv/cold/time/gpu/stdev/absolute", &stdev_s) && stdev_s >= 0;
    int has_rel = cold && summary_value(summaries, "nv/cold/time/gpu/stdev/relative", &rel) && rel >= 0;
    int has_min = cold && summary_value(summaries, "nv/cold/time/gpu/min", &min_s) && min_s >= 0;
    int has_max = cold && summary_value(summaries, "nv/cold/time/gpu/max", &max_s) && max_s >= 0;
    int has_count = summary_value(summaries, cold ? "nv/cold/sample_size" : "nv/batch/sample_size", &count) && count >= 1;
    int has_bw = cold && summary_value(summaries, "nv/cold/bw/global/bytes_per_second", &bw) && bw >= 0;

    size_t n_samples = 0;
    char used[600] = "", why[700] = "";
    double *samples = NULL;
    if (cold) {
        char where[96];
        snprintf(where, sizeof where, "/benchmarks/%zu/states/%zu", bi, si);
        if (read_samples(ctx, summaries, where, has_count ? (size_t)count : 0, &samples, &n_samples, used,
                         sizeof used, why, sizeof why, err) != SB_OK) {
            json_decref(config);
            json_decref(prov);
            return SB_ERR;
        }
    }
    json_t *timing;
    double median_ms = 0;
    char notes[1600];
    if (samples) {
        size_t per[1] = {n_samples};
        timing = sb_result_timing(samples, per, 1, &median_ms);
        snprintf(notes, sizeof notes, "nvbench state \"%s\" of benchmark \"%s\": cold GPU times, %zu samples from %s",
                 json_string_value(json_object_get(state, "name")) ? json_string_value(json_object_get(state, "name")) : "",
                 bname, n_samples, used);
        free(samples);
    } else {
        sb_summary_stats st = sb_summary_stats_none();
        if (has_count)
            st.count = (long long)count;
        st.mean = mean_s * 1e3;
        if (has_median) {
            st.median = median_s * 1e3;
            median_ms = median_s * 1e3;
        }
        if (has_min)
            st.min = min_s * 1e3;
        if (has_max)
            st.max = max_s * 1e3;
        if (has_stdev)
            st.stdev = stdev_s * 1e3;
        else if (has_rel && isfinite(rel))
            st.stdev = rel * mean_s * 1e3;
        if (has_rel && isfinite(rel))
            st.rel_noise = rel;
        timing = sb_result_timing_summary(&st);
        snprintf(notes, sizeof notes, "nvbench state \"%s\" of benchmark \"%s\": %s GPU time summaries only (%s); %s",
                 json_string_value(json_object_get(state, "name")) ? json_string_value(json_object_get(state, "name")) : "",
                 bname, cold ? "cold" : "batch (hot)", has_median ? "mean, median" : "mean, no median",
                 cold ? why : "batch times have no sample file");
    }
    /* The SM clock nvbench measured over the cold samples (Hz) and its
     * share of the default clock: the schema's clock fields are NVML
     * readings in whole MHz at set moments, so the figures go, as nvbench
     * wrote them, to run_params (how the run ran, not part of the case),
     * and the clock in MHz to the notes. */
    double clock_hz = 0, scaling = 0;
    size_t nl = strlen(notes);
    json_t *run_params = json_object();
    if (cold && summary_value(summaries, "nv/cold/sm_clock_rate/mean", &clock_hz) && clock_hz > 0) {
        json_object_set_new(run_params, "sm_clock_rate_mean_hz", json_real(clock_hz));
        if (nl < sizeof notes)
            nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; mean SM clock over the samples %.0f MHz",
                                   clock_hz / 1e6);
    }
    if (cold && summary_value(summaries, "nv/cold/sm_clock_rate/scaling/percent", &scaling) && scaling > 0)
        json_object_set_new(run_params, "sm_clock_rate_scaling", json_real(scaling));
    if (n_samples > 0) {
        char where[96], clocks[800];
        snprintf(where, sizeof where, "/benchmarks/%zu/states/%zu", bi, si);
        if (read_clocks(ctx, summaries, where, n_samples, timing, clocks, sizeof clocks, err) != SB_OK) {
            json_decref(run_params);
            json_decref(config);
            json_decref(prov);
            json_decref(timing);
            return SB_ERR;
        }
        if (nl < sizeof notes)
            nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "%s", clocks);
    }
    if (json_object_size(run_params) > 0)
        json_object_set_new(config, "run_params", run_params);
    else
        json_decref(run_params);
    if (nl < sizeof notes)
        snprintf(notes + nl, sizeof notes - nl, "; nvbench records no commit, host, driver or time of day");
    /* nvbench's bandwidth is every byte the benchmark declared read or
     * written (named or not) over the mean GPU time, so bandwidth times
     * mean gives them back. The named reads and writes alone may leave
     * some out. */
    double bytes = -1;
    if (has_bw && mean_s > 0)
        bytes = sb_import_count(bw * mean_s);
    else
        bytes = declared_bytes(summaries);
    json_t *metrics = sb_import_metrics(bytes, median_ms);
    return sb_import_emit(ctx, "passed", NULL, config, sb_import_protocol(l2), timing, metrics, NULL, prov, notes,
                          row, err);
}

int sb_import_nvbench_json(sb_import_ctx *ctx, json_t *root, sb_error *err)
{
    json_t *benches = json_object_get(root, "benchmarks");
    if (!json_is_array(benches))
        return sb_error_set(err, ctx->path, "/benchmarks", "not an nvbench JSON file: no \"benchmarks\" array");
    json_t *jv = json_object_get(json_object_get(json_object_get(root, "meta"), "version"), "json");
    json_t *major = json_object_get(jv, "major");
    if (major && (!json_is_integer(major) || json_integer_value(major) != 1))
        return sb_error_set(err, ctx->path, "/meta/version/json/major",
                            "nvbench JSON file version %s; the importer reads version 1",
                            json_is_string(json_object_get(jv, "string")) ? json_string_value(json_object_get(jv, "string"))
                                                                           : "other than 1");
    if (!json_is_array(json_object_get(root, "devices")))
        return sb_error_set(err, ctx->path, "/devices", "not an nvbench JSON file: no \"devices\" array");
    /* nvbench records no time: the file's modification time stands for
     * when the run finished, kept stable across re-imports by the store
     * (time_from_mtime; docs/IMPORT.md). */
    ctx->time_from_mtime = 1;
    struct stat sbuf;
    char when[40];
    if (stat(ctx->path, &sbuf) != 0)
        return sb_error_set(err, ctx->path, NULL, "cannot stat the file");
    struct tm tm;
    time_t mt = sbuf.st_mtime;
    if (!gmtime_r(&mt, &tm) || strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return sb_error_set(err, ctx->path, NULL, "cannot format the file's modification time");
    long long row = 0;
    size_t bi;
    json_t *bench;
    json_array_foreach(benches, bi, bench) {
        char where[64];
        snprintf(where, sizeof where, "/benchmarks/%zu", bi);
        if (!json_is_string(json_object_get(bench, "name")) || !json_is_array(json_object_get(bench, "states")))
            return sb_error_set(err, ctx->path, where, "benchmark without a \"name\" string or a \"states\" array");
        size_t si;
        json_t *state;
        json_array_foreach(json_object_get(bench, "states"), si, state) {
            ctx->st->rows++;
            if (!json_is_object(state)) {
                snprintf(where, sizeof where, "/benchmarks/%zu/states/%zu", bi, si);
                return sb_error_set(err, ctx->path, where, "state is not an object");
            }
            if (convert_state(ctx, root, bench, bi, state, si, row++, when, err) != SB_OK)
                return SB_ERR;
        }
    }
    return SB_OK;
}
