/* import_hyperfine.c - hyperfine JSON (hyperfine --export-json FILE).
 *
 * Each results[] entry (one command, one set of parameter values) becomes
 * one run: times[] (seconds, one per run of the command) are the samples,
 * parameters the shape and params, exit_codes and the user and system
 * times are recorded with the run. hyperfine records no host, commit or
 * time: the notes say so. docs/IMPORT.md says field by field what becomes
 * what.
 */
#include "import_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int entry_error(sb_import_ctx *ctx, size_t i, const char *msg, sb_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "/results/%zu", i);
    return sb_error_set(err, ctx->path, where, "%s", msg);
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

static int convert_result(sb_import_ctx *ctx, json_t *r, size_t i, const char *when, sb_error *err)
{
    const char *command = json_string_value(json_object_get(r, "command"));
    if (!command)
        return entry_error(ctx, i, "result without a \"command\" string", err);
    /* --command-name gives the command a name of its own */
    const char *cname = json_string_value(json_object_get(r, "command_name"));
    const char *tool_name = cname && *cname ? cname : command;
    char op[64], provider[64], suite[64];
    const sb_import_op_name *opr = sb_import_op_named(ctx, tool_name, op, sizeof op);
    if (!op[0])
        return entry_error(ctx, i, "command has no letters or digits to name the op", err);
    sb_import_id(ctx->opts.provider ? ctx->opts.provider : "hyperfine", provider, sizeof provider);
    sb_import_id(ctx->opts.suite ? ctx->opts.suite : "hyperfine", suite, sizeof suite);

    /* hyperfine writes every parameter value as a string; an integer one
     * is a size */
    json_t *shape = json_object(), *params = json_object(), *given = json_object();
    const char *pname;
    json_t *pv;
    json_object_foreach(json_object_get(r, "parameters"), pname, pv) {
        long long ll;
        if (json_is_string(pv) && sb_import_parse_ll(json_string_value(pv), &ll) == SB_OK &&
            strspn(json_string_value(pv), "0123456789") == strlen(json_string_value(pv)))
            json_object_set_new(given, pname, json_integer(ll));
        else
            json_object_set(given, pname, pv);
    }
    const char *dtype = NULL;
    sb_import_case_params(given, shape, params, &dtype);
    json_decref(given);
    if (cname && *cname && strlen(command) < 256)
        json_object_set_new(params, "command", json_string(command));
    if (!dtype && ctx->opts.dtype)
        dtype = sb_import_dtype(ctx->opts.dtype);
    if (!dtype && opr && opr->default_dtype[0])
        dtype = sb_import_dtype(opr->default_dtype);
    json_t *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "suite", suite, "op", op, "mode", "fwd",
                               "provider", provider, "backend", "process", "dtype", dtype ? dtype : "unknown",
                               "shape", shape, "params", params);

    json_t *times = json_object_get(r, "times");
    size_t n = json_array_size(times);
    if (!json_is_array(times) || n == 0) {
        json_decref(config);
        return entry_error(ctx, i, "result without \"times\" (hyperfine 1.9 and later write them)", err);
    }
    double *v = malloc(n * sizeof *v);
    if (!v) {
        json_decref(config);
        return sb_error_set(err, ctx->path, NULL, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        json_t *x = json_array_get(times, k);
        if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0) {
            free(v);
            json_decref(config);
            char msg[128];
            snprintf(msg, sizeof msg, "times[%zu] is not a time in seconds (a number >= 0)", k);
            return entry_error(ctx, i, msg, err);
        }
        v[k] = json_number_value(x);
    }
    double median_ms = 0;
    json_t *timing = sb_import_timing_seconds(v, n, &median_ms);
    free(v);

    /* exit codes: all equal is one number; otherwise the list as text */
    json_t *codes = json_object_get(r, "exit_codes");
    json_t *run_params = json_object();
    long nonzero = 0;
    size_t k;
    json_t *c;
    int same = 1;
    json_array_foreach(codes, k, c) {
        if (!json_is_integer(c) || json_integer_value(c) != json_integer_value(json_array_get(codes, 0)))
            same = 0;
        if (!json_is_integer(c) || json_integer_value(c) != 0)
            nonzero++;
    }
    if (json_is_array(codes) && json_array_size(codes) > 0) {
        if (same) {
            json_object_set(run_params, "exit_code", json_array_get(codes, 0));
        } else {
            char *text = json_dumps(codes, JSON_COMPACT);
            json_object_set_new(run_params, "exit_codes", json_string(text && strlen(text) < 256 ? text : "various"));
            free(text);
        }
    }
    double user = 0, sys = 0;
    if (num(r, "user", &user))
        json_object_set_new(run_params, "user_ms", json_real(user * 1e3));
    if (num(r, "system", &sys))
        json_object_set_new(run_params, "system_ms", json_real(sys * 1e3));
    json_object_set_new(config, "run_params", run_params);

    json_t *protocol = sb_import_protocol("unknown");
    json_t *prov = sb_import_provenance("hyperfine", NULL, NULL, sb_import_cpu_device(NULL, -1), when, when);
    char notes[1400];
    snprintf(notes, sizeof notes,
             "hyperfine command \"%.*s\": %zu runs, each sample one run's wall time%s; hyperfine records no host, "
             "hardware, commit, version or time of day",
             sb_import_text_cut(command, 600), command, n, nonzero ? " (some runs exited non-zero: run_params say how)" : "");
    return sb_import_emit(ctx, "passed", NULL, config, protocol, timing, sb_import_metrics(-1, median_ms), NULL, prov,
                          notes, (long long)i, err);
}

int sb_import_hyperfine_json(sb_import_ctx *ctx, json_t *root, sb_error *err)
{
    json_t *results = json_object_get(root, "results");
    if (!json_is_array(results))
        return sb_error_set(err, ctx->path, "/results", "not a hyperfine JSON file: no \"results\" array");
    char when[40];
    if (sb_import_file_time(ctx, when, sizeof when, err) != SB_OK)
        return SB_ERR;
    size_t i;
    json_t *r;
    json_array_foreach(results, i, r) {
        ctx->st->rows++;
        if (!json_is_object(r))
            return entry_error(ctx, i, "result is not an object", err);
        if (convert_result(ctx, r, i, when, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}
