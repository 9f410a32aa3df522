/* import_asv.c - airspeed velocity results, file version 2
 * (.asv/results/MACHINE/COMMIT-ENV.json, written by `asv run`).
 *
 * results{NAME: [columns...]} holds one list per benchmark in the order of
 * result_columns; a parameterised benchmark's "result" and "samples" hold
 * one entry per combination of its params (the product, first parameter
 * outermost). Each combination of a time_ benchmark becomes one run, its
 * samples (seconds, with --record-samples) the run's samples. A track_,
 * mem_ or peakmem_ benchmark measures no time: each combination becomes a
 * run without timing that keeps the value with its unit. The machine
 * file (machine.json, in the same folder) names the host; the parameters'
 * names are in results/benchmarks.json, one folder up. docs/IMPORT.md
 * says field by field what becomes what.
 */
#include "import_internal.h"
#include "json_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int column_of(json_t *columns, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(columns, i, c) {
        if (json_is_string(c) && strcmp(json_string_value(c), name) == 0)
            return (int)i;
    }
    return -1;
}

static json_t *column(json_t *entry, int col)
{
    return col >= 0 ? json_array_get(entry, (size_t)col) : NULL;
}

/* asv writes parameter values as Python reprs: "100", "'list'", "None". */
static json_t *param_value(const char *repr)
{
    long long ll;
    double d;
    size_t n = strlen(repr);
    if (n >= 2 && (repr[0] == '\'' || repr[0] == '"') && repr[n - 1] == repr[0])
        return json_stringn(repr + 1, n - 2);
    if (strspn(repr, "0123456789") == n && sb_import_parse_ll(repr, &ll) == SB_OK)
        return json_integer(ll);
    if (sb_import_parse_double(repr, &d) == SB_OK)
        return json_real(d);
    if (strcmp(repr, "True") == 0 || strcmp(repr, "False") == 0)
        return json_boolean(repr[0] == 'T');
    return json_string(repr);
}

static void ms_time(double ms, char *out, size_t size)
{
    time_t t = (time_t)(ms / 1000.0);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, size, "1970-01-01T00:00:00Z");
}

typedef struct asv_file {
    json_t *root, *machine, *columns;
    json_t *benchmarks; /* benchmarks.json above the machine's folder, or NULL */
    const char *sha;
    long not_known; /* benchmarks of a kind asv does not define by prefix */
} asv_file;

/* What asv measures, told as asv tells it, by the prefix of the benchmark's
 * own name: a time in seconds (time_, and timeraw_, timed in a fresh
 * interpreter), a value the benchmark returns (track_, in the unit it
 * declares), the size of the object it returns (mem_, bytes) or the peak
 * resident memory of the process while it runs (peakmem_, bytes). */
typedef enum { ASV_TIME, ASV_TRACK, ASV_MEM, ASV_PEAKMEM, ASV_OTHER } asv_kind;

static asv_kind kind_of(const char *name)
{
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    if (strncmp(last, "time_", 5) == 0 || strncmp(last, "timeraw_", 8) == 0)
        return ASV_TIME;
    if (strncmp(last, "track_", 6) == 0)
        return ASV_TRACK;
    if (strncmp(last, "mem_", 4) == 0)
        return ASV_MEM;
    if (strncmp(last, "peakmem_", 8) == 0)
        return ASV_PEAKMEM;
    return ASV_OTHER;
}

static json_t *host_device(const asv_file *a, json_t **host)
{
    json_t *m = a->machine;
    const char *cpu = json_string_value(json_object_get(m, "cpu"));
    long long ncpu = -1;
    const char *nc = json_string_value(json_object_get(m, "num_cpu"));
    if (nc)
        sb_import_parse_ll(nc, &ncpu);
    *host = json_pack("{s:s, s:s, s:s}", "hostname",
                      json_string_value(json_object_get(m, "machine")) ? json_string_value(json_object_get(m, "machine")) : "unknown",
                      "os", json_string_value(json_object_get(m, "os")) ? json_string_value(json_object_get(m, "os")) : "unknown",
                      "cpu", cpu ? cpu : "unknown");
    return sb_import_cpu_device(cpu, ncpu);
}

/* The benchmark's param_names from benchmarks.json when they describe these
 * results: as many names as params lists, each 1 to 64 characters without
 * control characters and none repeated, and the same benchmark version
 * (asv rewrites benchmarks.json on every run, so a changed benchmark's
 * names may belong to other params). NULL: name them by position. */
static json_t *param_names_of(const asv_file *a, const char *name, json_t *version, size_t np)
{
    json_t *b = json_object_get(a->benchmarks, name);
    json_t *names = json_object_get(b, "param_names");
    json_t *bver = json_object_get(b, "version");
    if (!json_is_array(names) || json_array_size(names) != np)
        return NULL;
    if (json_is_string(version) && (!json_is_string(bver) || !json_equal(version, bver)))
        return NULL;
    for (size_t i = 0; i < np; i++) {
        const char *n = json_string_value(json_array_get(names, i));
        size_t len = n ? strlen(n) : 0;
        if (len == 0 || len > 64)
            return NULL;
        for (size_t k = 0; k < len; k++)
            if ((unsigned char)n[k] < 0x20 || n[k] == 0x7f)
                return NULL;
        for (size_t j = 0; j < i; j++)
            if (strcmp(n, json_string_value(json_array_get(names, j))) == 0)
                return NULL;
    }
    return names;
}

/* The unit of a track_, mem_ or peakmem_ value: mem_ and peakmem_ are
 * bytes whatever a file says (asv measures them so); a track_ benchmark
 * declares its own unit (asv's default is "unit"), kept in benchmarks.json
 * for the benchmark version that made these results. "unknown" when that
 * file does not say it for this version. */
static void value_unit(const asv_file *a, const char *name, json_t *version, asv_kind kind, char *out, size_t size)
{
    snprintf(out, size, "%s", kind == ASV_TRACK ? "unknown" : "bytes");
    if (kind != ASV_TRACK)
        return;
    json_t *b = json_object_get(a->benchmarks, name);
    json_t *bver = json_object_get(b, "version");
    const char *u = json_string_value(json_object_get(b, "unit"));
    if (!u || (json_is_string(version) && (!json_is_string(bver) || !json_equal(version, bver))))
        return;
    size_t len = strlen(u);
    if (len == 0 || len >= size || len > 64)
        return;
    for (size_t k = 0; k < len; k++)
        if ((unsigned char)u[k] < 0x20 || u[k] == 0x7f)
            return;
    snprintf(out, size, "%s", u);
}

/* One combination of a track_, mem_ or peakmem_ benchmark: a run without
 * timing (result.v1's timing is a time in ms; reports must not rank a byte
 * count or a tracked value as one), status skipped with the reason saying
 * what the value is, the value and its unit in run_params, and a peak
 * resident memory also as memory.peak_absolute_bytes of the host device.
 * Steals config, protocol and prov. */
static int emit_value(sb_import_ctx *ctx, asv_kind kind, const char *unit, json_t *res, json_t *config,
                      json_t *protocol, json_t *prov, char *notes, size_t notes_size, int nn, long long row,
                      const char *where, size_t combo, sb_error *err)
{
    double v = json_number_value(res);
    if (!isfinite(v) || (kind != ASV_TRACK && (v < 0 || v != floor(v) || v > 9.0e15))) {
        json_decref(config);
        json_decref(protocol);
        json_decref(prov);
        return sb_error_set(err, ctx->path, where, "result/%zu %.17g is not %s", combo, v,
                            kind == ASV_TRACK ? "a finite number" : "a whole number of bytes");
    }
    static const char *const type_name[] = {[ASV_TRACK] = "track", [ASV_MEM] = "memory", [ASV_PEAKMEM] = "peakmemory"};
    json_t *run_params = json_object_get(config, "run_params");
    json_object_set_new(run_params, "asv_type", json_string(type_name[kind]));
    json_object_set_new(run_params, "value", kind == ASV_TRACK ? json_real(v) : json_integer((json_int_t)v));
    json_object_set_new(run_params, "value_unit", json_string(unit));
    json_t *memory = NULL;
    char reason[200];
    if (kind == ASV_TRACK) {
        snprintf(reason, sizeof reason, "imported: not a time: asv track_ benchmark, the value %.17g %s it returned",
                 v, unit);
    } else if (kind == ASV_MEM) {
        snprintf(reason, sizeof reason,
                 "imported: not a time: asv mem_ benchmark, the size of the object it returned, %.0f bytes", v);
    } else {
        snprintf(reason, sizeof reason,
                 "imported: not a time: asv peakmem_ benchmark, the peak resident memory of the process, %.0f bytes",
                 v);
        memory = json_pack("{s:I}", "peak_absolute_bytes", (json_int_t)v);
    }
    if (nn > 0 && (size_t)nn < notes_size)
        snprintf(notes + nn, notes_size - (size_t)nn,
                       "; asv measured no time here: the value and its unit are in config.run_params (value, "
                       "value_unit, asv_type), and the run has no timing%s",
                       kind == ASV_TRACK && strcmp(unit, "unknown") == 0
                           ? "; the unit is unknown: benchmarks.json (one folder up) is missing or does not name it "
                             "for this benchmark version"
                           : "");
    return sb_import_emit(ctx, "skipped", reason, config, protocol, NULL, NULL, memory, prov, notes, row, err);
}

static int convert_benchmark(sb_import_ctx *ctx, asv_file *a, const char *name, json_t *entry, long long *row,
                             sb_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "/results/%s", name);
    if (!json_is_array(entry))
        return sb_error_set(err, ctx->path, where, "benchmark entry is not a list of result_columns");
    asv_kind kind = kind_of(name);
    if (kind == ASV_OTHER)
        return SB_OK;
    json_t *result = column(entry, column_of(a->columns, "result"));
    json_t *params = column(entry, column_of(a->columns, "params"));
    json_t *samples = column(entry, column_of(a->columns, "samples"));
    json_t *number = column(entry, column_of(a->columns, "stats_number"));
    json_t *started = column(entry, column_of(a->columns, "started_at"));
    json_t *duration = column(entry, column_of(a->columns, "duration"));
    json_t *version = column(entry, column_of(a->columns, "version"));
    /* asv writes a null "result" when the benchmark failed for every
     * combination (its setup raised, or it timed out): each combination is
     * then a run without a result */
    if (!(json_is_array(result) || json_is_null(result)) || !json_is_array(params))
        return sb_error_set(err, ctx->path, where, "benchmark entry without \"result\" and \"params\" lists");
    /* the number of combinations: the product of the params' lengths */
    size_t combos = 1;
    size_t pi;
    json_t *pl;
    json_array_foreach(params, pi, pl) {
        if (!json_is_array(pl) || json_array_size(pl) == 0)
            return sb_error_set(err, ctx->path, where, "params/%zu is not a non-empty list", pi);
        combos *= json_array_size(pl);
    }
    if (json_is_array(result) && json_array_size(result) != combos)
        return sb_error_set(err, ctx->path, where, "%zu results for %zu parameter combinations",
                            json_array_size(result), combos);
    json_t *names = param_names_of(a, name, version, json_array_size(params));
    char unit[72];
    value_unit(a, name, version, kind, unit, sizeof unit);
    char when_start[40], when_end[40];
    double t0 = json_is_number(started) ? json_number_value(started)
                                        : json_number_value(json_object_get(a->root, "date"));
    ms_time(t0, when_start, sizeof when_start);
    ms_time(t0 + (json_is_number(duration) ? json_number_value(duration) * 1e3 : 0), when_end, sizeof when_end);
    /* benchmarks.TimeSum.time_sum -> op "time_sum" under class TimeSum */
    char op[64], provider[64], suite[64];
    const sb_import_op_name *opr = sb_import_op_named(ctx, name, op, sizeof op);
    sb_import_id(ctx->opts.provider ? ctx->opts.provider : "asv", provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "asv", suite, sizeof suite);

    for (size_t c = 0; c < combos; c++) {
        ctx->st->rows++;
        /* combination c: the last parameter varies fastest */
        json_t *given = json_object();
        size_t rest = c, np = json_array_size(params);
        for (size_t k = np; k-- > 0;) {
            json_t *list = json_array_get(params, k);
            size_t len = json_array_size(list);
            const char *repr = json_string_value(json_array_get(list, rest % len));
            rest /= len;
            /* by position (asv's own default names) when benchmarks.json
             * does not name them */
            char pname[72];
            if (names)
                snprintf(pname, sizeof pname, "%s", json_string_value(json_array_get(names, k)));
            else
                snprintf(pname, sizeof pname, "param%zu", k + 1);
            json_object_set_new(given, pname, repr ? param_value(repr) : json_null());
        }
        json_t *shape = json_object(), *cparams = json_object();
        const char *dtype = NULL;
        sb_import_case_params(given, shape, cparams, &dtype);
        json_decref(given);
        if (!dtype && ctx->opts.dtype)
            dtype = sb_import_dtype(ctx->opts.dtype);
        if (!dtype && opr && opr->default_dtype[0])
            dtype = sb_import_dtype(opr->default_dtype);
        json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", "fwd",
                                   "provider", provider, "backend", "python", "dtype", dtype ? dtype : "unknown",
                                   "shape", shape, "params", cparams);
        json_t *run_params = json_object();
        const char *env = json_string_value(json_object_get(a->root, "env_name"));
        if (env && strlen(env) < 256)
            json_object_set_new(run_params, "env", json_string(env));
        if (json_is_string(version))
            json_object_set(run_params, "benchmark_version", version);
        json_object_set_new(config, "run_params", run_params);
        json_t *host = NULL;
        json_t *device = host_device(a, &host);
        json_t *prov = sb_import_provenance("asv", NULL, NULL, device, when_start, when_end);
        json_object_set_new(prov, "host", host);
        if (a->sha)
            json_object_set_new(json_object_get(prov, "git"), "sha", json_string(a->sha));
        json_t *protocol = sb_import_protocol("unknown");
        json_t *nper = json_array_get(number, c);
        if (json_is_integer(nper) && json_integer_value(nper) >= 1)
            json_object_set(run_params, "calls_per_sample", nper);
        char notes[1200];
        int nn = snprintf(notes, sizeof notes, "asv benchmark \"%.*s\", parameter combination %zu of %zu",
                          sb_import_text_cut(name, 300), name,
                          c + 1, combos);
        json_t *res = json_array_get(result, c);
        json_t *smp = json_array_get(samples, c);
        if (kind != ASV_TIME && json_is_number(res)) {
            if (!names && json_array_size(params) > 0 && nn > 0 && (size_t)nn < sizeof notes)
                nn += snprintf(notes + nn, sizeof notes - (size_t)nn,
                               "; parameters named by position: benchmarks.json (one folder up) is missing or does "
                               "not name them for this benchmark version");
            if (emit_value(ctx, kind, unit, res, config, protocol, prov, notes, sizeof notes, nn, *row, where, c,
                           err) != SB_OK)
                return SB_ERR;
            (*row)++;
            continue;
        }
        if (!json_is_number(res)) {
            if (nn > 0 && (size_t)nn < sizeof notes)
                snprintf(notes + nn, sizeof notes - (size_t)nn, "; asv records no result: the benchmark failed or was skipped");
            if (sb_import_emit(ctx, "skipped", "imported: asv recorded no result for this parameter combination",
                               config, protocol, NULL, NULL, NULL, prov, notes, *row, err) != SB_OK)
                return SB_ERR;
            (*row)++;
            continue;
        }
        json_t *timing;
        double median_ms = 0;
        if (json_is_array(smp) && json_array_size(smp) > 0) {
            size_t n = json_array_size(smp);
            double *v = malloc(n * sizeof *v);
            for (size_t k = 0; v && k < n; k++) {
                json_t *x = json_array_get(smp, k);
                if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0) {
                    free(v);
                    json_decref(config);
                    json_decref(prov);
                    json_decref(protocol);
                    return sb_error_set(err, ctx->path, where, "samples/%zu/%zu is not a time in seconds", c, k);
                }
                v[k] = json_number_value(x);
            }
            timing = v ? sb_import_timing_seconds(v, n, &median_ms) : NULL;
            free(v);
            if (nn > 0 && (size_t)nn < sizeof notes)
                nn += snprintf(notes + nn, sizeof notes - (size_t)nn,
                               "; each sample is one repeat's time per call (run_params.calls_per_sample calls)");
        } else {
            double r = json_number_value(res);
            median_ms = r * 1e3;
            sb_summary_stats st = sb_summary_stats_none();
            st.median = median_ms;
            timing = sb_result_timing_summary(&st);
            if (nn > 0 && (size_t)nn < sizeof notes)
                nn += snprintf(notes + nn, sizeof notes - (size_t)nn,
                               "; the median only (run asv with --record-samples for the samples)");
        }
        if (nn > 0 && (size_t)nn < sizeof notes)
            nn += snprintf(notes + nn, sizeof notes - (size_t)nn, "; asv records the host, not any GPU the benchmark used");
        if (a->not_known > 0 && nn > 0 && (size_t)nn < sizeof notes)
            nn += snprintf(notes + nn, sizeof notes - (size_t)nn,
                           "; %ld benchmarks whose names asv does not define (time_, timeraw_, track_, mem_, "
                           "peakmem_) are not imported",
                           a->not_known);
        if (!names && json_array_size(params) > 0 && nn > 0 && (size_t)nn < sizeof notes)
            snprintf(notes + nn, sizeof notes - (size_t)nn,
                     "; parameters named by position: benchmarks.json (one folder up) is missing or does not "
                     "name them for this benchmark version");
        if (sb_import_emit(ctx, "passed", NULL, config, protocol, timing, sb_import_metrics(-1, median_ms), NULL, prov,
                           notes, *row, err) != SB_OK)
            return SB_ERR;
        (*row)++;
    }
    return SB_OK;
}

/* A benchmark whose "result" is null (it failed for every combination)
 * makes one run a combination with no entry of its own in the file, so
 * the runs of its product are not bounded by the file's size: 5 lists of
 * 1,000 short strings, 35 KB, name 10^15 of them (SB_IMPORT_FILE_RUNS_MAX
 * bounds them). */
#define ASV_MAX_COMBINATIONS SB_IMPORT_FILE_RUNS_MAX

/* The product of the lengths of a benchmark's params lists, or
 * ASV_MAX_COMBINATIONS + 1 once it passes that (no overflow); 0 for
 * params convert_benchmark refuses. */
static size_t combinations_of(const json_t *params)
{
    if (!json_is_array(params))
        return 0;
    size_t combos = 1;
    size_t i;
    const json_t *pl;
    json_array_foreach(params, i, pl) {
        size_t n = json_is_array(pl) ? json_array_size(pl) : 0;
        if (n == 0)
            return 0;
        if (combos > (ASV_MAX_COMBINATIONS + 1) / n)
            return ASV_MAX_COMBINATIONS + 1;
        combos *= n;
    }
    return combos > ASV_MAX_COMBINATIONS ? ASV_MAX_COMBINATIONS + 1 : combos;
}

int sb_import_asv_json(sb_import_ctx *ctx, json_t *root, sb_error *err)
{
    json_t *version = json_object_get(root, "version");
    if (!json_is_integer(version) || json_integer_value(version) != 2)
        return sb_error_set(err, ctx->path, "/version", "asv results file version is not 2; the importer reads version 2");
    asv_file a = {.root = root, .columns = json_object_get(root, "result_columns")};
    json_t *results = json_object_get(root, "results");
    if (!json_is_array(a.columns) || !json_is_object(results))
        return sb_error_set(err, ctx->path, "/results", "not an asv results file: no \"result_columns\" and \"results\"");
    const char *sha = json_string_value(json_object_get(root, "commit_hash"));
    if (sha && strlen(sha) == 40 && strspn(sha, "0123456789abcdef") == 40)
        a.sha = sha;
    /* the machine file asv keeps beside the results, else the copy of its
     * fields in "params" */
    char *text = NULL;
    size_t len = 0;
    if (sb_import_read_beside(ctx, "machine.json", "machine.json", 1 << 20, &text, &len, err) != SB_OK)
        return SB_ERR;
    json_t *machine = NULL;
    if (text) {
        sb_error jerr;
        sb_error_clear(&jerr);
        if (sb_json_load_buffer(text, len, "machine.json", &machine, &jerr) != SB_OK || !json_is_object(machine)) {
            free(text);
            json_decref(machine);
            return sb_error_set(err, ctx->path, "machine.json", "the machine file beside it is not a JSON object: %s", jerr.msg);
        }
        free(text);
    }
    a.machine = machine ? machine : json_incref(json_object_get(root, "params"));
    /* asv keeps the benchmarks' descriptions, parameter names among them,
     * in results/benchmarks.json above results/MACHINE/ */
    if (sb_import_read_above(ctx, "benchmarks.json", "benchmarks.json", 1 << 26, &text, &len, err) != SB_OK) {
        json_decref(a.machine);
        return SB_ERR;
    }
    if (text) {
        sb_error jerr;
        sb_error_clear(&jerr);
        if (sb_json_load_buffer(text, len, "benchmarks.json", &a.benchmarks, &jerr) != SB_OK ||
            !json_is_object(a.benchmarks)) {
            free(text);
            json_decref(a.benchmarks);
            json_decref(a.machine);
            return sb_error_set(err, ctx->path, "benchmarks.json",
                                "the benchmarks file one folder up is not a JSON object: %s", jerr.msg);
        }
        free(text);
    }
    long long row = 0;
    const char *name;
    json_t *entry;
    int rc = SB_OK;
    size_t combos = 0;
    json_object_foreach(results, name, entry) {
        if (kind_of(name) == ASV_OTHER) {
            a.not_known++;
            continue;
        }
        if (json_is_array(entry))
            combos += combinations_of(column(entry, column_of(a.columns, "params")));
        if (combos > ASV_MAX_COMBINATIONS) {
            json_decref(a.machine);
            json_decref(a.benchmarks);
            return sb_error_set(err, ctx->path, "/results",
                                "its benchmarks' parameters make more than %u combinations (runs) up to \"%.*s\": "
                                "refused",
                                ASV_MAX_COMBINATIONS, sb_import_text_cut(name, 200), name);
        }
    }
    json_object_foreach(results, name, entry) {
        if (convert_benchmark(ctx, &a, name, entry, &row, err) != SB_OK) {
            rc = SB_ERR;
            break;
        }
    }
    json_decref(a.machine);
    json_decref(a.benchmarks);
    return rc;
}
