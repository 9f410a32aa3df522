/* bench.c - see bench.h. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "home.h"
#include "ingest.h"
#include "json_file.h"
#include "provenance.h"
#include "result_doc.h"
#include "sandbox.h"
#include "shape_key.h"
#include "sku.h"
#include "task.h"
#include "verify.h"

/* Checks the harness output's structure before anything is built from it. */
static int check_raw(const char *path, const json_t *raw, const json_t *spec, const sb_forge_bench_config *bc,
                     sb_error *err)
{
    json_t *dev = json_object_get(raw, "device");
    json_t *cases = json_object_get(raw, "cases");
    json_t *shapes = json_object_get(spec, "shapes");
    if (!json_is_object(dev) || !json_is_string(json_object_get(dev, "name")))
        return sb_error_set(err, path, "/device", "harness output has no device name");
    json_t *proto = json_object_get(raw, "protocol");
    const char *l2 = json_string_value(json_object_get(proto, "l2"));
    if (!json_is_object(proto) || !json_is_integer(json_object_get(proto, "warmup_iters")) ||
        json_integer_value(json_object_get(proto, "iters")) != bc->iters ||
        json_integer_value(json_object_get(proto, "repeats")) != bc->repeats ||
        !json_is_integer(json_object_get(proto, "input_sets")) || !l2 ||
        strcmp(l2, bc->cold_l2 ? "cold" : "warm") != 0)
        return sb_error_set(err, path, "/protocol", "harness protocol differs from bench.json (iters %d, repeats %d, l2 %s)",
                            bc->iters, bc->repeats, bc->cold_l2 ? "cold" : "warm");
    if (!json_is_array(cases) || json_array_size(cases) != json_array_size(shapes))
        return sb_error_set(err, path, "/cases", "harness output must have one case per spec shape (%zu)",
                            json_array_size(shapes));
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        char where[64];
        snprintf(where, sizeof where, "/cases/%zu", i);
        if (!json_equal(json_object_get(c, "shape"), json_array_get(shapes, i)))
            return sb_error_set(err, path, where, "shape differs from the spec's shape %zu", i);
        json_t *provs = json_object_get(c, "providers");
        if (!json_is_array(provs) || json_array_size(provs) != 2)
            return sb_error_set(err, path, where, "needs two providers, candidate and baseline");
        for (size_t p = 0; p < 2; p++) {
            json_t *pr = json_array_get(provs, p);
            const char *name = json_string_value(json_object_get(pr, "name"));
            if (!name || strcmp(name, p ? "baseline" : "candidate") != 0)
                return sb_error_set(err, path, where, "provider %zu must be named %s", p, p ? "baseline" : "candidate");
            json_t *e = json_object_get(pr, "error");
            if (e && !json_is_null(e) && !json_is_string(e))
                return sb_error_set(err, path, where, "provider error must be a string or null");
            json_t *chk = json_object_get(pr, "check");
            if (chk && !json_is_null(chk) &&
                (!json_is_object(chk) || !json_is_boolean(json_object_get(chk, "passed"))))
                return sb_error_set(err, path, where, "provider check must hold a boolean 'passed'");
            json_t *s = json_object_get(pr, "samples");
            if (s && !json_is_null(s)) {
                if (!json_is_array(s) || json_array_size(s) != (size_t)bc->repeats)
                    return sb_error_set(err, path, where, "samples must be %d repeats", bc->repeats);
                size_t r;
                json_t *row;
                json_array_foreach(s, r, row)
                {
                    if (!json_is_array(row) || json_array_size(row) != (size_t)bc->iters)
                        return sb_error_set(err, path, where, "each repeat must hold %d samples", bc->iters);
                    size_t q;
                    json_t *x;
                    json_array_foreach(row, q, x) if (!json_is_number(x) || json_number_value(x) < 0) return sb_error_set(
                        err, path, where, "samples must be non-negative numbers");
                }
            }
        }
    }
    return SB_OK;
}

static void set_if_unknown(json_t *obj, const char *key, json_t *value)
{
    json_t *cur = json_object_get(obj, key);
    const char *s = json_string_value(cur);
    if (value && !json_is_null(value) && (!cur || json_is_null(cur) || (s && strcmp(s, "unknown") == 0)))
        json_object_set(obj, key, value);
}

/* Provenance of this run: the machine's (git, host, NVML) with the card's
 * identity from the harness where NVML gave none. */
static int make_provenance(const json_t *dev, const char *skus_csv, json_t **out, char *sku_out,
                           size_t sku_size, sb_error *err)
{
    sb_provenance_opts po = {0};
    po.tool_name = "solbook-forge";
    po.tool_version = SOLBOOK_VERSION;
    po.device_index = (int)json_integer_value(json_object_get(dev, "index"));
    /* The commit recorded is the solbook tree that provided the harness
     * and the reference check (the candidate itself is hashed, not in git). */
    po.git_dir = sb_home();
    json_t *prov = NULL;
    if (sb_provenance_collect(&po, &prov, err) != SB_OK)
        return SB_ERR;
    json_t *pd = json_object_get(prov, "device");
    static const char *keys[] = {"name", "compute_capability", "sm_count", "memory_bytes", "l2_bytes", "uuid"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        set_if_unknown(pd, keys[i], json_object_get(dev, keys[i]));
    json_t *sw = json_object_get(prov, "software");
    set_if_unknown(sw, "cuda_runtime_version", json_object_get(dev, "cuda_runtime_version"));
    const char *sku = json_string_value(json_object_get(pd, "sku"));
    if (!sku || strcmp(sku, "unknown") == 0) {
        sb_sku_table *t = NULL;
        if (sb_sku_table_load(skus_csv, &t, err) != SB_OK) {
            json_decref(prov);
            return SB_ERR;
        }
        char uid[128], uarch[32];
        const sb_sku *s = sb_sku_identify(t, json_string_value(json_object_get(pd, "name")), NULL,
                                          (long long)json_integer_value(json_object_get(pd, "memory_bytes")),
                                          uid, sizeof uid, uarch, sizeof uarch);
        json_object_set_new(pd, "sku", json_string(s ? s->id : uid));
        json_object_set_new(pd, "arch", json_string(s ? s->arch : uarch));
        sb_sku_table_free(t);
    }
    snprintf(sku_out, sku_size, "%s", json_string_value(json_object_get(pd, "sku")));
    if (sb_provenance_finish(prov, err) != SB_OK) {
        json_decref(prov);
        return SB_ERR;
    }
    *out = prov;
    return SB_OK;
}

/* The metrics of a passed run from the spec's flop and byte counts of the
 * case and the card's datasheet peaks. */
static json_t *forge_metrics(const json_t *spec, const json_t *cas, const sb_sku *sku, double med)
{
    json_t *m = json_object();
    const char *bound = json_string_value(json_object_get(spec, "bound"));
    double fl = json_number_value(json_object_get(cas, "flops"));
    double by = json_number_value(json_object_get(cas, "bytes"));
    int have_fl = json_is_number(json_object_get(cas, "flops")) && fl >= 0;
    int have_by = json_is_number(json_object_get(cas, "bytes")) && by >= 0;
    json_object_set_new(m, "flops", have_fl ? json_real(fl) : json_null());
    json_object_set_new(m, "bytes", have_by ? json_real(by) : json_null());
    json_object_set_new(m, "tflops", have_fl && med > 0 ? json_real(fl / (med * 1e-3) / 1e12) : json_null());
    json_object_set_new(m, "gbps", have_by && med > 0 ? json_real(by / (med * 1e-3) / 1e9) : json_null());
    json_object_set_new(m, "bound", json_string(bound));
    if (sku && med > 0) {
        const char *dtype = json_string_value(json_object_get(spec, "dtype"));
        if (strcmp(bound, "memory") == 0 && have_by && sku->hbm_tbps > 0) {
            json_object_set_new(m, "pct_datasheet_peak", json_real(100.0 * by / (med * 1e-3) / (sku->hbm_tbps * 1e12)));
            json_object_set_new(m, "datasheet_peak_name", json_string("hbm_tbps"));
        } else if (strcmp(bound, "compute") == 0 && have_fl && sb_sku_peak_tflops(sku, dtype) > 0) {
            char name[64];
            snprintf(name, sizeof name, "%s_dense_tflops", dtype);
            json_object_set_new(m, "pct_datasheet_peak",
                                json_real(100.0 * fl / (med * 1e-3) / (sb_sku_peak_tflops(sku, dtype) * 1e12)));
            json_object_set_new(m, "datasheet_peak_name", json_string(name));
        }
    }
    json_object_set_new(m, "pct_measured_ceiling", json_null());
    return m;
}

json_t *sb_forge_result(const json_t *spec, const json_t *raw, const json_t *cas, const json_t *pr,
                        const char *provider, const char *session, const json_t *prov,
                        const sb_sku *sku, const char *notes, char *reason, size_t rsize)
{
    char uuid[33];
    sb_error e;
    if (sb_forge_random_hex(uuid, &e) != SB_OK)
        return NULL;
    json_t *chk = json_object_get(pr, "check");
    json_t *samples = json_object_get(pr, "samples");
    const char *error = json_string_value(json_object_get(pr, "error"));
    int checked_ok = json_is_object(chk) && json_is_true(json_object_get(chk, "passed"));
    int passed = !error && checked_ok && json_is_array(samples);
    reason[0] = '\0';
    if (!passed)
        snprintf(reason, rsize, "%s", error ? error : !checked_ok ? "output differs from the reference" : "no samples");
    json_t *proto = json_object_get(raw, "protocol");
    json_t *corr = json_object();
    json_object_set_new(corr, "reference", json_string(json_is_object(chk) && json_is_string(json_object_get(chk, "reference"))
                                                           ? json_string_value(json_object_get(chk, "reference"))
                                                           : "reference.cu"));
    json_object_set_new(corr, "passed", json_boolean(checked_ok));
    if (json_is_object(chk)) {
        static const char *nums[] = {"checked_elements", "max_abs_err", "max_rel_err", "rel_l2_err", "atol", "rtol", "unwritten"};
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
            json_t *x = json_object_get(chk, nums[i]);
            if (json_is_number(x) && json_number_value(x) >= 0)
                json_object_set(corr, nums[i], x);
            else if (json_is_null(x))
                json_object_set_new(corr, nums[i], json_null());
        }
        if (json_is_boolean(json_object_get(chk, "finite")))
            json_object_set(corr, "finite", json_object_get(chk, "finite"));
    }
    double med = 0;
    sb_result_doc d = {
        .run_uuid = uuid,
        .status = passed ? "passed" : "failed",
        .reason = passed ? NULL : reason,
        .config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:{s:s, s:s}}", "suite", "forge", "op",
                            json_string_value(json_object_get(spec, "op")), "mode",
                            json_string_value(json_object_get(spec, "mode")), "provider", provider, "backend", "cuda",
                            "dtype", json_string_value(json_object_get(spec, "dtype")), "shape",
                            json_object_get(cas, "shape"), "params", "forge_run",
                            json_string_value(json_object_get(spec, "run_id")), "forge_session", session),
        .protocol = json_pack("{s:s, s:O, s:n, s:O, s:O, s:O, s:O, s:b}", "timer", "cuda-event", "warmup_iters",
                              json_object_get(proto, "warmup_iters"), "warmup_ms", "iters",
                              json_object_get(proto, "iters"), "repeats", json_object_get(proto, "repeats"), "l2",
                              json_object_get(proto, "l2"), "input_sets", json_object_get(proto, "input_sets"),
                              "graph", 0),
        .timing = passed ? sb_result_timing_of_json(samples, &med) : NULL,
        .correctness = corr,
        .notes = notes,
        .provenance = json_deep_copy(prov),
    };
    if (passed && !d.timing) {
        json_decref(sb_result_doc_json(&d)); /* the parts go with it */
        return NULL;
    }
    if (passed)
        d.metrics = forge_metrics(spec, cas, sku, med);
    return sb_result_doc_json(&d);
}


/* The least time one call of the op can take on this card, in ms: its
 * bytes at the datasheet's HBM bandwidth and its flops at the datasheet's
 * dense peak, whichever is longer; 0 when neither is known. Only a cold-L2
 * protocol is held to the HBM side (a warm L2 may serve a small problem
 * faster than HBM). */
static double roofline_floor_ms(const json_t *cas, const sb_sku *sku, const char *dtype, int cold_l2)
{
    if (!sku)
        return 0;
    double floor_s = 0;
    json_t *by = json_object_get(cas, "bytes"), *fl = json_object_get(cas, "flops");
    if (cold_l2 && json_is_number(by) && json_number_value(by) > 0 && sku->hbm_tbps > 0)
        floor_s = json_number_value(by) / (sku->hbm_tbps * 1e12);
    double peak = sb_sku_peak_tflops(sku, dtype);
    if (json_is_number(fl) && json_number_value(fl) > 0 && peak > 0 && json_number_value(fl) / (peak * 1e12) > floor_s)
        floor_s = json_number_value(fl) / (peak * 1e12);
    return floor_s * 1e3;
}

/* Measured times may sit this far under the datasheet floor (clock and
 * timer rounding) before they count as impossible. */
#define ROOFLINE_SLACK 0.95

static int judge(const char *run_dir, const json_t *spec, const json_t *meta, const json_t *raw,
                 const char *raw_path, const sb_forge_bench_config *bc, double min_speedup,
                 const char *db_path, json_t *report, int *verdict, sb_error *err)
{
    json_t *reasons = json_object_get(report, "reasons");
    sb_error rerr;
    sb_error_clear(&rerr);
    if (check_raw(raw_path, raw, spec, bc, &rerr) != SB_OK) {
        /* A malformed harness output is the candidate's doing or a broken
         * harness: nothing to store, and certainly no pass. */
        char line[2048];
        sb_error_format(&rerr, line, sizeof line);
        json_array_append_new(reasons, json_string(line));
        *verdict = SB_FORGE_REFUSED;
        return SB_OK;
    }
    char session[33];
    if (sb_forge_random_hex(session, err) != SB_OK)
        return SB_ERR;
    json_t *dev = json_object_get(raw, "device");
    json_t *prov = NULL;
    char card_sku[128];
    if (make_provenance(dev, NULL, &prov, card_sku, sizeof card_sku, err) != SB_OK)
        return SB_ERR;
    sb_sku_table *skus = NULL;
    if (sb_sku_table_load(NULL, &skus, err) != SB_OK) {
        json_decref(prov);
        return SB_ERR;
    }
    const sb_sku *sku = sb_sku_find(skus, card_sku);
    const char *baseline = json_string_value(json_object_get(meta, "baseline"));
    if (!baseline)
        baseline = "baseline";
    json_t *cases_out = json_object_get(report, "cases");
    json_object_set_new(report, "session", json_string(session));
    json_object_set_new(report, "baseline_provider", json_string(baseline));
    json_object_set_new(report, "card", json_pack("{s:O, s:s, s:O}", "gpu_name", json_object_get(dev, "name"), "sku",
                                                  card_sku, "uuid", json_object_get(dev, "uuid") ? json_object_get(dev, "uuid") : json_null()));
    const char *want_sku = json_string_value(json_object_get(spec, "sku"));
    if (strcmp(card_sku, want_sku) != 0) {
        char r[512];
        snprintf(r, sizeof r, "benchmarked on %s (SKU %s), but the task targets %s",
                 json_string_value(json_object_get(dev, "name")), card_sku, want_sku);
        json_array_append_new(reasons, json_string(r));
    }
    char results_dir[4096];
    int rc = SB_OK;
    sb_ingest *ing = NULL;
    char schemas[4096];
    if (sb_forge_path(results_dir, sizeof results_dir, run_dir, "results", err) != SB_OK ||
        sb_mkdirs(results_dir, err) != SB_OK ||
        sb_data_path(schemas, sizeof schemas, "schemas", err) != SB_OK ||
        sb_ingest_open(db_path, schemas, &ing, err) != SB_OK) {
        rc = SB_ERR;
        goto done;
    }
    if (sb_ingest_begin(ing, err) != SB_OK) {
        rc = SB_ERR;
        goto done;
    }
    size_t i;
    json_t *cas;
    json_array_foreach(json_object_get(raw, "cases"), i, cas)
    {
        char skey[512], notes[512];
        char *key = sb_shape_key(json_object_get(cas, "shape"));
        if (!key) {
            rc = sb_error_set(err, raw_path, NULL, "out of memory");
            break;
        }
        snprintf(skey, sizeof skey, "%s", key);
        free(key);
        json_t *entry = json_pack("{s:O, s:s}", "shape", json_object_get(cas, "shape"), "shape_key", skey);
        double medians[2] = {0, 0};
        int ok[2] = {0, 0};
        for (size_t p = 0; p < 2 && rc == SB_OK; p++) {
            json_t *pr = json_array_get(json_object_get(cas, "providers"), p);
            const char *provider = p ? baseline : "candidate";
            snprintf(notes, sizeof notes, "solbook forge run %s: %s", json_string_value(json_object_get(spec, "run_id")),
                     p ? "the baseline of reference.cu" : json_string_value(json_object_get(meta, "entry_point")));
            char reason[600];
            json_t *doc = sb_forge_result(spec, raw, cas, pr, provider, session, prov, sku, notes, reason, sizeof reason);
            if (!doc) {
                rc = sb_error_set(err, raw_path, NULL, "cannot build the result document (out of memory)");
                break;
            }
            char path[4096], fname[128];
            snprintf(fname, sizeof fname, "case%zu-%s.json", i, p ? "baseline" : "candidate");
            long long run_id = 0;
            int dup = 0;
            if (sb_forge_path(path, sizeof path, results_dir, fname, err) != SB_OK ||
                sb_json_write_file(path, doc, err) != SB_OK ||
                sb_ingest_document(ing, doc, path, "solbook", &run_id, &dup, err) != SB_OK) {
                json_decref(doc);
                rc = SB_ERR;
                break;
            }
            ok[p] = strcmp(json_string_value(json_object_get(doc, "status")), "passed") == 0;
            if (ok[p])
                medians[p] = json_number_value(json_object_get(json_object_get(json_object_get(doc, "timing"), "stats"), "median"));
            json_object_set_new(entry, p ? "baseline_run_id" : "candidate_run_id", json_integer(run_id));
            json_object_set_new(entry, p ? "baseline_status" : "candidate_status", json_string(ok[p] ? "passed" : "failed"));
            json_object_set_new(entry, p ? "baseline_median_ms" : "candidate_median_ms", ok[p] ? json_real(medians[p]) : json_null());
            if (!ok[p]) {
                char r[1400];
                snprintf(r, sizeof r, "%s: %s failed: %s", skey, p ? "baseline" : "candidate", reason);
                json_array_append_new(reasons, json_string(r));
            }
            json_decref(doc);
        }
        if (rc != SB_OK) {
            json_decref(entry);
            break;
        }
        int case_ok = ok[0] && ok[1];
        double floor_ms = roofline_floor_ms(cas, sku, json_string_value(json_object_get(spec, "dtype")), bc->cold_l2);
        json_object_set_new(entry, "roofline_floor_ms", floor_ms > 0 ? json_real(floor_ms) : json_null());
        if (ok[0] && floor_ms > 0 && medians[0] < floor_ms * ROOFLINE_SLACK) {
            /* Faster than the card can move the op's bytes or do its
             * flops: the timer was tampered with, or the work was not done. */
            char r[1400];
            snprintf(r, sizeof r,
                     "%s: candidate median %.4g ms is below the roofline floor %.4g ms of its op on %s "
                     "(its bytes at the datasheet bandwidth, its flops at the datasheet peak): the timing "
                     "cannot be real (patched timer, cached output or skipped work)",
                     skey, medians[0], floor_ms, card_sku);
            json_array_append_new(reasons, json_string(r));
            case_ok = 0;
        }
        if (case_ok) {
            double speedup = medians[0] > 0 ? medians[1] / medians[0] : 0;
            json_object_set_new(entry, "speedup", json_real(speedup));
            if (!(speedup >= min_speedup)) {
                char r[1400];
                snprintf(r, sizeof r, "%s: speedup %.3fx (baseline %.4g ms / candidate %.4g ms) is below the required %.2fx",
                         skey, speedup, medians[1], medians[0], min_speedup);
                json_array_append_new(reasons, json_string(r));
                case_ok = 0;
            }
        } else {
            json_object_set_new(entry, "speedup", json_null());
        }
        json_object_set_new(entry, "verdict", json_string(case_ok ? "passed" : "refused"));
        json_array_append_new(cases_out, entry);
    }
    if (rc == SB_OK)
        rc = sb_ingest_commit(ing, err);
    else
        sb_ingest_rollback(ing);
    if (rc == SB_OK)
        *verdict = json_array_size(reasons) == 0 ? SB_FORGE_PASSED : SB_FORGE_REFUSED;
done:
    if (ing)
        sb_ingest_close(ing);
    sb_sku_table_free(skus);
    json_decref(prov);
    return rc;
}

static int run_harness(const char *run_dir, const json_t *spec, const json_t *meta,
                       const sb_forge_bench_config *bc, sb_sandbox_isolation iso, const char *raw_out,
                       char *failure, size_t fsize, sb_error *err)
{
    char tmp[2048] = "", logs[2048], nvcc[1024], src[4096], ref[64];
    int rc = SB_OK;
    failure[0] = '\0';
    sb_error nerr;
    sb_error_clear(&nerr);
    if (sb_forge_find_nvcc(nvcc, sizeof nvcc, &nerr) != SB_OK) {
        sb_error_format(&nerr, failure, fsize);
        return SB_OK;
    }
    static const char *const harness[] = {"forge_abi.h", "forge_bench.cu", NULL};
    if (sb_forge_path(logs, sizeof logs, run_dir, "logs", err) != SB_OK || sb_mkdirs(logs, err) != SB_OK ||
        sb_forge_make_temp_dir("solbook-forge-bench", tmp, sizeof tmp, err) != SB_OK ||
        sb_forge_stage_build(run_dir, spec, tmp, harness, ref, sizeof ref, err) != SB_OK)
        goto fail;
    {
        char arch[64], entry[128], toolkit[4096];
        sb_forge_toolkit_dir(nvcc, toolkit, sizeof toolkit);
        snprintf(arch, sizeof arch, "-arch=%s", json_string_value(json_object_get(spec, "nvcc_arch")));
        snprintf(entry, sizeof entry, "-DFORGE_CANDIDATE_ENTRY=%s", json_string_value(json_object_get(meta, "entry_point")));
        const char *argv[] = {nvcc, "-O3", "-std=c++17", arch, "-lineinfo", "-I.", entry, "-o", "forge_bench",
                        "forge_bench.cu", "kernel.cu", ref, NULL};
        char out[4096], errp[4096];
        snprintf(out, sizeof out, "%s/compile-bench.stdout", logs);
        snprintf(errp, sizeof errp, "%s/compile-bench.stderr", logs);
        json_t *limits = json_object_get(spec, "limits");
        sb_sandbox_limits lim;
        sb_sandbox_limits_compiler(&lim, (double)json_integer_value(json_object_get(limits, "compile_s")));
        lim.isolation = iso;
        lim.tool_dir = toolkit;
        sb_sandbox_result res;
        if (sb_sandbox_run(argv, tmp, out, errp, &lim, &res, err) != SB_OK)
            goto fail;
        if (!(res.exited && res.exit_code == 0)) {
            char how[256], tail[600];
            sb_sandbox_describe(&res, &lim, how, sizeof how);
            sb_forge_file_tail(errp, 500, tail, sizeof tail);
            snprintf(failure, fsize, "compiling the bench harness: nvcc %s: %s", how, tail);
            goto cleanup;
        }
        /* An output name the candidate cannot guess (it may not list folders). */
        char hex[33], outname[64], prog[4096];
        if (sb_forge_random_hex(hex, err) != SB_OK)
            goto fail;
        snprintf(outname, sizeof outname, "raw-%s.json", hex);
        snprintf(prog, sizeof prog, "%s/forge_bench", tmp);
        char nums[5][32];
        snprintf(nums[0], sizeof nums[0], "%d", bc->warmup_iters);
        snprintf(nums[1], sizeof nums[1], "%d", bc->iters);
        snprintf(nums[2], sizeof nums[2], "%d", bc->repeats);
        snprintf(nums[3], sizeof nums[3], "%llu", bc->seed);
        const char *bargv[64] = {prog, "--out", outname, "--warmup", nums[0], "--iters", nums[1], "--repeats", nums[2],
                           "--seed", nums[3], "--l2", bc->cold_l2 ? "cold" : "warm"};
        size_t na = 13;
        char shape_args[SB_FORGE_MAX_SHAPES][512];
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(spec, "shapes"), i, s)
        {
            if (i >= SB_FORGE_MAX_SHAPES)
                break;
            sb_forge_shape_text(s, shape_args[i], sizeof shape_args[i]);
            bargv[na++] = "--shape";
            bargv[na++] = shape_args[i];
        }
        bargv[na] = NULL;
        snprintf(out, sizeof out, "%s/bench.stdout", logs);
        snprintf(errp, sizeof errp, "%s/bench.stderr", logs);
        sb_sandbox_limits_cuda(&lim, (double)json_integer_value(json_object_get(limits, "bench_s")));
        lim.isolation = iso;
        lim.tool_dir = toolkit;
        if (sb_sandbox_run(bargv, tmp, out, errp, &lim, &res, err) != SB_OK)
            goto fail;
        if (!(res.exited && res.exit_code == 0)) {
            char how[256], tail[600];
            sb_sandbox_describe(&res, &lim, how, sizeof how);
            sb_forge_file_tail(errp, 500, tail, sizeof tail);
            snprintf(failure, fsize, "bench harness %s: %s", how, tail[0] ? tail : "no output");
            goto cleanup;
        }
        if (sb_forge_path(src, sizeof src, tmp, outname, err) != SB_OK)
            goto fail;
        if (!sb_forge_is_file(src)) {
            snprintf(failure, fsize, "bench harness exited 0 without writing its output (did the candidate end the process?)");
            goto cleanup;
        }
        if (sb_forge_copy_file(src, raw_out, err) != SB_OK)
            goto fail;
    }
    goto cleanup;
fail:
    rc = SB_ERR;
cleanup:
    if (tmp[0]) {
        sb_error rerr;
        sb_forge_remove_tree(tmp, &rerr);
    }
    return rc;
}

int sb_forge_bench(const char *run_dir, const sb_forge_bench_opts *o, int *verdict, json_t **report,
                   sb_error *err)
{
    *verdict = SB_FORGE_REFUSED;
    if (report)
        *report = NULL;
    json_t *spec = NULL, *meta = NULL, *sources = NULL, *raw = NULL;
    if (sb_forge_spec_load(run_dir, &spec, err) != SB_OK)
        return SB_ERR;
    char now[64];
    sb_time_now_rfc3339(now, sizeof now);
    const char *db_path = o && o->db_path ? o->db_path : sb_default_db_path();
    double min_speedup = o && o->min_speedup > 0 ? o->min_speedup : json_number_value(json_object_get(spec, "min_speedup"));
    json_t *doc = json_pack("{s:s, s:s, s:s, s:f, s:[], s:[]}", "run_id", json_string_value(json_object_get(spec, "run_id")),
                            "benched_at", now, "database", db_path, "min_speedup", min_speedup, "reasons", "cases");
    json_t *reasons = json_object_get(doc, "reasons");
    int rc = SB_OK;
    char path[4096], bpath[4096], raw_path[4096];
    sb_forge_bench_config bc;
    sb_error gerr;
    sb_error_clear(&gerr);
    if (sb_forge_verify_recheck(run_dir, &sources, &gerr) != SB_OK ||
        sb_forge_metadata_load(run_dir, spec, &meta, &gerr) != SB_OK ||
        snprintf(path, sizeof path, "%s/candidate/bench.json", run_dir) >= (int)sizeof path ||
        sb_forge_bench_config_load(path, &bc, &gerr) != SB_OK) {
        char line[2048];
        sb_error_format(&gerr, line, sizeof line);
        json_array_append_new(reasons, json_string(line));
        goto write;
    }
    json_object_set_new(doc, "sources", sources);
    sources = NULL;
    json_object_set_new(doc, "protocol", json_pack("{s:i, s:i, s:i, s:s, s:I}", "warmup_iters", bc.warmup_iters, "iters",
                                                   bc.iters, "repeats", bc.repeats, "l2", bc.cold_l2 ? "cold" : "warm",
                                                   "seed", (json_int_t)bc.seed));
    if (o && o->raw_input) {
        snprintf(raw_path, sizeof raw_path, "%s", o->raw_input);
    } else {
        if (!sb_forge_have_gpu()) {
            *verdict = SB_FORGE_NO_GPU;
            json_array_append_new(reasons, json_string("no NVIDIA GPU on this machine: nothing was benchmarked"));
            goto write;
        }
        char failure[1024], iso_why[800];
        sb_sandbox_isolation iso;
        if (sb_sandbox_choose(&iso, o && o->unsafe_no_sandbox, iso_why, sizeof iso_why, err) != SB_OK) {
            rc = SB_ERR;
            goto out;
        }
        json_object_set_new(doc, "sandbox", json_pack("{s:s, s:s, s:s, s:s}", "isolation", sb_sandbox_isolation_name(iso),
                                                      "confinement", sb_sandbox_confinement(iso), "nested_userns",
                                                      sb_sandbox_nested_userns(iso), "detail", iso_why));
        if (sb_forge_path(raw_path, sizeof raw_path, run_dir, "bench_raw.json", err) != SB_OK ||
            run_harness(run_dir, spec, meta, &bc, iso, raw_path, failure, sizeof failure, err) != SB_OK) {
            rc = SB_ERR;
            goto out;
        }
        if (failure[0]) {
            json_array_append_new(reasons, json_string(failure));
            goto write;
        }
    }
    json_object_set_new(doc, "raw", json_string(raw_path));
    {
        sb_error lerr;
        sb_error_clear(&lerr);
        if (sb_json_load_file(raw_path, &raw, &lerr) != SB_OK) {
            char line[2048];
            sb_error_format(&lerr, line, sizeof line);
            json_array_append_new(reasons, json_string(line));
            goto write;
        }
    }
    if (judge(run_dir, spec, meta, raw, raw_path, &bc, min_speedup, db_path, doc, verdict, err) != SB_OK) {
        rc = SB_ERR;
        goto out;
    }
write:
    json_object_set_new(doc, "verdict", json_string(*verdict == SB_FORGE_PASSED ? "passed"
                                                    : *verdict == SB_FORGE_NO_GPU ? "not-run-no-gpu"
                                                                                  : "refused"));
    if (sb_forge_path(bpath, sizeof bpath, run_dir, "bench.json", err) != SB_OK || sb_json_write_file(bpath, doc, err) != SB_OK)
        rc = SB_ERR;
out:
    json_decref(spec);
    json_decref(meta);
    json_decref(sources);
    json_decref(raw);
    if (rc == SB_OK && report)
        *report = doc;
    else
        json_decref(doc);
    return rc;
}
