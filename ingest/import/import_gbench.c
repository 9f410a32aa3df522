/* import_gbench.c - Google Benchmark JSON (--benchmark_format=json or
 * --benchmark_out_format=json).
 *
 * The entries of one run_name become one run: each "iteration" entry (one
 * per repetition) gives one sample, the per-iteration real time of that
 * repetition; when the file holds only aggregates (mean, median, stddev,
 * cv), they become summary statistics. The device is the CPU.
 *
 * Google Benchmark turns SetBytesProcessed/SetItemsProcessed totals into
 * rates by dividing by the time its iteration count was chosen on: the CPU
 * time, or the real (manual) time with UseRealTime (UseManualTime). The
 * amount one call processes is therefore the rate times that time per
 * iteration, which the file also holds.
 */
#include "import_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

typedef struct gb_run {
    const char *run_name;      /* the tree's string, or run_name_copy */
    char *run_name_copy;       /* owned: a name cut or taken from a longer one */
    size_t first;              /* index of its first entry */
    json_t **iters;            /* iteration entries (borrowed) */
    size_t n_iters, cap_iters;
    double agg_mean, agg_median, agg_stddev, agg_cv;
    unsigned char has_mean, has_median, has_stddev, has_cv;
    json_t *agg_median_entry;  /* the median aggregate (borrowed) */
    long long agg_reps;
    const char *error;         /* error/skip message of an entry, if any */
    const char *time_unit;
} gb_run;

static int unit_to_ms(const char *unit, double *scale)
{
    if (!unit || strcmp(unit, "ns") == 0)
        *scale = 1e-6;
    else if (strcmp(unit, "us") == 0)
        *scale = 1e-3;
    else if (strcmp(unit, "ms") == 0)
        *scale = 1.0;
    else if (strcmp(unit, "s") == 0)
        *scale = 1e3;
    else
        return SB_ERR;
    return SB_OK;
}

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int entry_error(sb_import_ctx *ctx, size_t i, sb_error *err, const char *msg)
{
    char where[64];
    snprintf(where, sizeof where, "/benchmarks/%zu", i);
    return sb_error_set(err, ctx->path, where, "%s", msg);
}

/* Length of the family name: up to the first '/' outside a template
 * argument list ("BM_copy<float, 2>/1024" -> "BM_copy<float, 2>"). */
static size_t family_length(const char *name)
{
    int depth = 0;
    const char *p = name;
    for (; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (*p == '/' && depth == 0)
            break;
    }
    return (size_t)(p - name);
}

/* Splits "BM_name<T>/1024/M:64/real_time" into op, dtype, shape, params. */
static int parse_name(sb_import_ctx *ctx, const char *run_name, long long threads, char *op, size_t op_size,
                      const char **dtype, json_t *shape, json_t *params, char *msg, size_t msg_size)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", run_name);
    char *p = buf + family_length(buf);
    char *rest = *p ? p + 1 : NULL;
    *p = '\0';
    char *family = buf;
    char *targs = strchr(family, '<');
    if (targs) {
        *targs++ = '\0';
        char *close = strrchr(targs, '>');
        if (close)
            *close = '\0';
        json_object_set_new(params, "template", json_string(targs));
        char tcopy[512];
        snprintf(tcopy, sizeof tcopy, "%s", targs);
        for (char *save = NULL, *t = strtok_r(tcopy, ",", &save); t && !*dtype; t = strtok_r(NULL, ",", &save)) {
            while (*t == ' ')
                t++;
            char *e = t + strlen(t);
            while (e > t && e[-1] == ' ')
                *--e = '\0';
            *dtype = sb_import_dtype(t);
        }
    }
    const char *bare = strncmp(family, "BM_", 3) == 0 ? family + 3 : family;
    const sb_import_op_name *row = sb_import_op_lookup(ctx, family);
    if (row)
        snprintf(op, op_size, "%s", row->op);
    else
        sb_import_id(bare, op, op_size);
    if (!*dtype && ctx->opts.dtype)
        *dtype = sb_import_dtype(ctx->opts.dtype);
    if (!*dtype && row && row->default_dtype[0])
        *dtype = sb_import_dtype(row->default_dtype);

    int positional = 0;
    for (char *save = NULL, *t = rest ? strtok_r(rest, "/", &save) : NULL; t; t = strtok_r(NULL, "/", &save)) {
        static const char *const options[] = {"iterations", "repeats", "threads", "min_time", "min_warmup_time"};
        char *colon = strchr(t, ':');
        long long ll;
        double d;
        if (colon) {
            *colon = '\0';
            const char *k = t, *v = colon + 1;
            int is_option = 0;
            for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
                is_option |= strcmp(k, options[i]) == 0;
            char key[128];
            sb_import_key(k, key, sizeof key);
            if (!is_option && key[0] && sb_import_parse_ll(v, &ll) == SB_OK && ll >= 0)
                json_object_set_new(shape, key, json_integer(ll));
            else if (sb_import_parse_ll(v, &ll) == SB_OK)
                json_object_set_new(params, k, json_integer(ll));
            else if (sb_import_parse_double(v, &d) == SB_OK)
                json_object_set_new(params, k, json_real(d));
            else
                json_object_set_new(params, k, json_string(v));
        } else if (strcmp(t, "real_time") == 0 || strcmp(t, "manual_time") == 0 || strcmp(t, "process_time") == 0) {
            json_object_set_new(params, "timing", json_string(t));
        } else {
            char key[32];
            snprintf(key, sizeof key, "arg%d", positional++);
            if (sb_import_parse_ll(t, &ll) == SB_OK && ll >= 0)
                json_object_set_new(shape, key, json_integer(ll));
            else if (sb_import_parse_ll(t, &ll) == SB_OK)
                json_object_set_new(params, key, json_integer(ll));
            else
                json_object_set_new(params, key, json_string(t));
        }
    }
    if (json_object_size(shape) == 0 && threads >= 1)
        json_object_set_new(shape, "threads", json_integer(threads));
    if (!op[0]) {
        snprintf(msg, msg_size, "benchmark name \"%.300s\" has no letters or digits to name the op", run_name);
        return SB_ERR;
    }
    /* Most CPU benchmarks have no element type; a guess would put runs into
     * the wrong case, and providers of one benchmark still pair on it. */
    if (!*dtype)
        *dtype = "unknown";
    if (json_object_size(shape) == 0) {
        snprintf(msg, msg_size, "benchmark \"%.300s\" has no integer argument and no thread count: a run needs a shape",
                 run_name);
        return SB_ERR;
    }
    return SB_OK;
}

static json_t *cpu_device(json_t *context)
{
    json_t *d = json_object();
    json_object_set_new(d, "kind", json_string("cpu"));
    json_object_set_new(d, "index", json_null());
    json_object_set_new(d, "name", json_string("cpu"));
    json_object_set_new(d, "arch", json_string("cpu"));
    json_object_set_new(d, "sku", json_string("cpu"));
    json_object_set_new(d, "compute_capability", json_string("unknown"));
    json_t *ncpu = json_object_get(context, "num_cpus");
    json_object_set_new(d, "sm_count", json_is_integer(ncpu) && json_integer_value(ncpu) >= 0 ? json_integer(json_integer_value(ncpu)) : json_null());
    json_object_set_new(d, "memory_bytes", json_null());
    json_t *l2 = json_null();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(context, "caches"), i, c) {
        json_t *level = json_object_get(c, "level"), *size = json_object_get(c, "size");
        const char *type = str(c, "type");
        if (json_is_integer(level) && json_integer_value(level) == 2 && json_is_integer(size) &&
            json_integer_value(size) >= 0 && (!type || strcmp(type, "Instruction") != 0)) {
            json_decref(l2);
            l2 = json_integer(json_integer_value(size));
            break;
        }
    }
    json_object_set_new(d, "l2_bytes", l2);
    return d;
}

/* What one call processed: the rate (bytes_per_second, items_per_second)
 * times the time per iteration it was computed over (cpu_time, or
 * real_time for real/manual time), in seconds; -1 when the entry has no
 * such rate. */
static double per_call(json_t *entry, const char *rate_key, const char *rate_time, double scale_ms)
{
    json_t *rate = json_object_get(entry, rate_key);
    json_t *t = json_object_get(entry, strcmp(rate_time, "real") == 0 ? "real_time" : "cpu_time");
    if (!json_is_number(rate) || json_number_value(rate) < 0 || !json_is_number(t) || json_number_value(t) < 0)
        return -1;
    return sb_import_count(json_number_value(rate) * json_number_value(t) * scale_ms * 1e-3);
}

static int emit_run(sb_import_ctx *ctx, json_t *root, const gb_run *r, int complexity_fit, const char *when,
                    sb_error *err)
{
    json_t *context = json_object_get(root, "context");
    json_t *shape = json_object(), *params = json_object();
    const char *dtype = NULL;
    char op[64], provider[64], suite[64], msg[900];
    json_t *any = r->n_iters ? r->iters[0] : json_array_get(json_object_get(root, "benchmarks"), r->first);
    json_t *threads = json_object_get(any, "threads");
    if (parse_name(ctx, r->run_name, json_is_integer(threads) ? json_integer_value(threads) : 0, op, sizeof op,
                   &dtype, shape, params, msg, sizeof msg) != SB_OK) {
        json_decref(shape);
        json_decref(params);
        return entry_error(ctx, r->first, err, msg);
    }
    sb_import_id(ctx->opts.provider ? ctx->opts.provider : "gbench", provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "gbench", suite, sizeof suite);
    json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", "fwd",
                               "provider", provider, "backend", "cpu", "dtype", dtype, "shape", shape,
                               "params", params);
    json_t *prov = sb_import_provenance("google-benchmark", str(context, "library_version"), str(context, "host_name"),
                                        cpu_device(context), when, when);
    json_t *protocol = sb_import_protocol("unknown");
    if (r->error) {
        char reason[700];
        snprintf(reason, sizeof reason, "skipped by Google Benchmark: %s", r->error);
        return sb_import_emit(ctx, "skipped", reason, config, protocol, NULL, NULL, NULL, prov, NULL, (long long)r->first,
                              err);
    }
    double scale = 1;
    unit_to_ms(r->time_unit, &scale);
    json_t *timing;
    double median_ms = 0, bytes = -1, items = -1;
    char notes[900];
    /* The time gbench divided the processed totals by (see the top). */
    const char *timing_kind = json_string_value(json_object_get(json_object_get(config, "params"), "timing"));
    const char *rate_time = timing_kind && (strcmp(timing_kind, "real_time") == 0 || strcmp(timing_kind, "manual_time") == 0)
                                ? "real" : "cpu";
    if (r->n_iters > 0) {
        double *v = malloc(r->n_iters * sizeof *v);
        size_t *per = malloc(r->n_iters * sizeof *per);
        if (!v || !per) {
            free(v);
            free(per);
            json_decref(config);
            json_decref(prov);
            json_decref(protocol);
            return sb_error_set(err, ctx->path, NULL, "out of memory");
        }
        long long iterations = 0;
        for (size_t i = 0; i < r->n_iters; i++) {
            v[i] = json_number_value(json_object_get(r->iters[i], "real_time")) * scale;
            per[i] = 1;
            if (json_is_integer(json_object_get(r->iters[i], "iterations")))
                iterations = json_integer_value(json_object_get(r->iters[i], "iterations"));
        }
        timing = sb_result_timing(v, per, r->n_iters, &median_ms);
        bytes = per_call(r->iters[0], "bytes_per_second", rate_time, scale);
        items = per_call(r->iters[0], "items_per_second", rate_time, scale);
        free(v);
        free(per);
        json_object_set_new(protocol, "repeats", json_integer((json_int_t)r->n_iters));
        snprintf(notes, sizeof notes, "Google Benchmark run \"%s\": one sample per repetition, each the mean real "
                 "time per iteration over that repetition's iterations (%lld in the last)", r->run_name, iterations);
    } else {
        sb_summary_stats st = sb_summary_stats_none();
        if (r->agg_reps >= 1)
            st.count = r->agg_reps;
        if (r->has_mean)
            st.mean = r->agg_mean * scale;
        if (r->has_median) {
            st.median = r->agg_median * scale;
            median_ms = r->agg_median * scale;
        }
        if (r->has_stddev)
            st.stdev = r->agg_stddev * scale;
        if (r->has_cv)
            st.rel_noise = r->agg_cv;
        timing = sb_result_timing_summary(&st);
        snprintf(notes, sizeof notes, "Google Benchmark run \"%s\": aggregates only (mean, median, stddev, cv of "
                 "the repetitions), no per-repetition entries", r->run_name);
        /* The median repetition's rate and time belong together (an odd
         * count of repetitions makes it one repetition). */
        if (r->agg_median_entry) {
            bytes = per_call(r->agg_median_entry, "bytes_per_second", rate_time, scale);
            items = per_call(r->agg_median_entry, "items_per_second", rate_time, scale);
        }
    }
    if (items >= 0) {
        json_object_set_new(json_object_get(config, "params"), "items_per_call",
                            items == floor(items) && items < 9e15 ? json_integer((json_int_t)items) : json_real(items));
        size_t n = strlen(notes);
        snprintf(notes + n, sizeof notes - n, "; params.items_per_call is items_per_second times the %s time per "
                 "iteration", rate_time);
    }
    if (complexity_fit) {
        size_t n = strlen(notes);
        snprintf(notes + n, sizeof notes - n, "; the file's complexity fit of this family (BigO, RMS) is not "
                 "imported: it is a fitted coefficient, not a time");
    }
    return sb_import_emit(ctx, "passed", NULL, config, protocol, timing, sb_import_metrics(bytes, median_ms), NULL,
                          prov, notes, (long long)r->first, err);
}

static int is_aggregate_suffix(const char *name, const char **suffix)
{
    static const char *const suffixes[] = {"_mean", "_median", "_stddev", "_cv"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && strcmp(name + n - m, suffixes[i]) == 0) {
            *suffix = suffixes[i] + 1;
            return (int)(n - m);
        }
    }
    return 0;
}

/* The runs met so far by name: open addressing over runs[], each slot a
 * run's index plus one (0 is free). A jansson object keyed by name took
 * about 120 bytes a run; this takes 16 at most. The names come from the
 * file, so the hash starts from a seed drawn for each import (as
 * jansson's does): a file cannot be made of names that all land in one
 * run of slots, which would make every lookup walk them all. */
typedef struct run_index {
    size_t *slots;
    size_t mask;
    uint64_t seed;
} run_index;

static size_t name_hash(const run_index *ix, const char *s)
{
    uint64_t h = ix->seed ^ 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    /* mix the high bits into the low ones the mask keeps */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h;
}

static int run_index_init(run_index *ix, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    if (getrandom(&ix->seed, sizeof ix->seed, GRND_NONBLOCK) != (ssize_t)sizeof ix->seed)
        ix->seed = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)ix;
    ix->slots = calloc(cap, sizeof *ix->slots);
    ix->mask = cap - 1;
    return ix->slots ? 0 : -1;
}

/* The slot of name: holding its run's index plus one, or free (0). */
static size_t *run_index_slot(const run_index *ix, const gb_run *runs, const char *name)
{
    size_t i = name_hash(ix, name) & ix->mask;
    while (ix->slots[i] && strcmp(runs[ix->slots[i] - 1].run_name, name) != 0)
        i = (i + 1) & ix->mask;
    return &ix->slots[i];
}

int sb_import_gbench_json(sb_import_ctx *ctx, json_t *root, sb_error *err)
{
    json_t *context = json_object_get(root, "context");
    json_t *benches = json_object_get(root, "benchmarks");
    if (!json_is_object(context) || !json_is_array(benches))
        return sb_error_set(err, ctx->path, NULL, "not a Google Benchmark JSON file: needs \"context\" and \"benchmarks\"");
    const char *date = str(context, "date");
    char when[40];
    if (!date || sb_import_time_utc(date, when, sizeof when) != SB_OK)
        return sb_error_set(err, ctx->path, "/context/date", "\"%s\" is not a date and time", date ? date : "(missing)");
    size_t n = json_array_size(benches);
    /* A run's name is the tree's string where it is whole, a copy only
     * where it was cut: a table of fixed-size names for every entry up
     * front took 512 bytes an entry, 128 MB for a 25 MB file of 250,000
     * entries, and what is held per run counts beside the parsed tree
     * against the importer's memory bound. */
    gb_run *runs = calloc(n ? n : 1, sizeof *runs);
    run_index index = {0};
    json_t *fits = json_object();
    size_t nr = 0;
    int rc = SB_ERR;
    if (!runs || run_index_init(&index, n) != 0 || !fits) {
        sb_error_set(err, ctx->path, NULL, "out of memory");
        goto out;
    }
    size_t i;
    json_t *b;
    json_array_foreach(benches, i, b) {
        ctx->st->rows++;
        if (!json_is_object(b) || !json_is_string(json_object_get(b, "name"))) {
            entry_error(ctx, i, err, "entry is not an object with a \"name\"");
            goto out;
        }
        const char *name = str(b, "name");
        const char *run_type = str(b, "run_type");
        const char *agg = str(b, "aggregate_name");
        /* Files from before run_type marked aggregates only by a suffix. */
        const char *suffix = NULL;
        int stem = 0;
        if (!run_type && (stem = is_aggregate_suffix(name, &suffix)) > 0) {
            run_type = "aggregate";
            agg = suffix;
        }
        int aggregate = run_type && strcmp(run_type, "aggregate") == 0;
        if (run_type && !aggregate && strcmp(run_type, "iteration") != 0) {
            entry_error(ctx, i, err, "run_type is neither \"iteration\" nor \"aggregate\"");
            goto out;
        }
        char run_name[512];
        const char *name_in_tree = json_is_string(json_object_get(b, "run_name")) ? str(b, "run_name") : name;
        if (json_is_string(json_object_get(b, "run_name")))
            snprintf(run_name, sizeof run_name, "%s", str(b, "run_name"));
        else if (stem > 0)
            snprintf(run_name, sizeof run_name, "%.*s", stem, name);
        else
            snprintf(run_name, sizeof run_name, "%s", name);
        /* Complexity fits (BigO, RMS) are not timings; their family's runs
         * say so in their notes. Their run_name is the family name. */
        if (aggregate && agg && (strcmp(agg, "BigO") == 0 || strcmp(agg, "RMS") == 0)) {
            json_object_set_new(fits, run_name, json_true());
            continue;
        }
        size_t *slot = run_index_slot(&index, runs, run_name);
        gb_run *r;
        if (*slot) {
            r = &runs[*slot - 1];
        } else {
            r = &runs[nr];
            if (strcmp(run_name, name_in_tree) == 0) {
                r->run_name = name_in_tree;
            } else {
                r->run_name_copy = strdup(run_name);
                if (!r->run_name_copy) {
                    sb_error_set(err, ctx->path, NULL, "out of memory");
                    goto out;
                }
                r->run_name = r->run_name_copy;
            }
            r->first = i;
            *slot = nr + 1;
            nr++;
        }
        const char *unit = str(b, "time_unit");
        double scale;
        if (unit && unit_to_ms(unit, &scale) != SB_OK) {
            entry_error(ctx, i, err, "time_unit is not ns, us, ms or s");
            goto out;
        }
        if (r->time_unit && unit && strcmp(r->time_unit, unit) != 0) {
            entry_error(ctx, i, err, "time_unit differs from the earlier entries of the same run");
            goto out;
        }
        if (unit)
            r->time_unit = unit;
        json_t *eo = json_object_get(b, "error_occurred"), *sk = json_object_get(b, "skipped");
        if (json_is_true(eo) || json_is_true(sk) || (json_is_integer(sk) && json_integer_value(sk) != 0)) {
            const char *m = str(b, "error_message");
            if (!m)
                m = str(b, "skip_message");
            r->error = m && *m ? m : "no message given";
            continue;
        }
        json_t *rt = json_object_get(b, "real_time");
        if (!json_is_number(rt) || json_number_value(rt) < 0) {
            entry_error(ctx, i, err, "real_time is missing or negative");
            goto out;
        }
        if (!aggregate) {
            if (r->n_iters == r->cap_iters) {
                size_t cap = r->cap_iters ? r->cap_iters * 2 : 1; /* most runs have one */
                json_t **g = realloc(r->iters, cap * sizeof *g);
                if (!g) {
                    sb_error_set(err, ctx->path, NULL, "out of memory");
                    goto out;
                }
                r->iters = g;
                r->cap_iters = cap;
            }
            r->iters[r->n_iters++] = b;
            continue;
        }
        double v = json_number_value(rt);
        json_t *reps = json_object_get(b, "repetitions");
        if (json_is_integer(reps))
            r->agg_reps = json_integer_value(reps);
        if (!agg) {
            entry_error(ctx, i, err, "aggregate without an aggregate_name");
            goto out;
        }
        if (strcmp(agg, "mean") == 0)
            r->agg_mean = v, r->has_mean = 1;
        else if (strcmp(agg, "median") == 0)
            r->agg_median = v, r->has_median = 1, r->agg_median_entry = b;
        else if (strcmp(agg, "stddev") == 0)
            r->agg_stddev = v, r->has_stddev = 1;
        else if (strcmp(agg, "cv") == 0)
            r->agg_cv = v, r->has_cv = 1;
        /* Other user-defined aggregates are not timings solbook keeps. */
    }
    for (size_t k = 0; k < nr; k++) {
        gb_run *r = &runs[k];
        if (!r->error && r->n_iters == 0 && !r->has_mean && !r->has_median) {
            entry_error(ctx, r->first, err, "run has neither iteration entries nor a mean or median aggregate");
            goto out;
        }
        char family[512];
        snprintf(family, sizeof family, "%s", r->run_name);
        family[family_length(family)] = '\0';
        if (emit_run(ctx, root, r, json_object_get(fits, family) != NULL, when, err) != SB_OK)
            goto out;
    }
    rc = SB_OK;
out:
    for (size_t k = 0; runs && k < nr; k++) {
        free(runs[k].iters);
        free(runs[k].run_name_copy);
    }
    free(runs);
    free(index.slots);
    json_decref(fits);
    return rc;
}
