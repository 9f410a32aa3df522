/* verify.c - see verify.h. */
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_config.h"
#include "fsutil.h"
#include "home.h"
#include "json_file.h"
#include "provenance.h"
#include "sandbox.h"
#include "scan.h"
#include "sha256.h"
#include "task.h"

static json_t *gate(json_t *gates, const char *name, const char *verdict, const char *detail)
{
    json_t *g = json_pack("{s:s, s:s, s:s}", "name", name, "verdict", verdict, "detail", detail);
    json_array_append_new(gates, g);
    return g;
}

int sb_forge_metadata_load(const char *run_dir, const json_t *spec, json_t **meta, sb_error *err)
{
    char path[4096];
    *meta = NULL;
    if (snprintf(path, sizeof path, "%s/candidate/metadata.json", run_dir) >= (int)sizeof path)
        return sb_error_set(err, run_dir, NULL, "path too long");
    json_t *m = NULL;
    if (sb_json_load_file(path, &m, err) != SB_OK)
        return SB_ERR;
    if (sb_forge_schema_check("solbook.forge-metadata.v1", m, path, err) != SB_OK) {
        json_decref(m);
        return SB_ERR;
    }
    static const char *same[] = {"op", "language", "dtype"};
    for (size_t i = 0; i < 3; i++) {
        const char *mv = json_string_value(json_object_get(m, same[i]));
        const char *sv = json_string_value(json_object_get(spec, same[i]));
        if (mv && sv && strcmp(mv, sv) != 0) {
            char where[64];
            snprintf(where, sizeof where, "/%s", same[i]);
            sb_error_set(err, path, where, "metadata says %s '%s' but the run's spec says '%s'", same[i], mv, sv);
            json_decref(m);
            return SB_ERR;
        }
    }
    *meta = m;
    return SB_OK;
}

int sb_forge_verify_recheck(const char *run_dir, json_t **sources, sb_error *err)
{
    char path[4096], cand[4096];
    if (sb_forge_path(path, sizeof path, run_dir, "verify.json", err) != SB_OK ||
        sb_forge_path(cand, sizeof cand, run_dir, "candidate", err) != SB_OK)
        return SB_ERR;
    if (!sb_forge_is_file(path))
        return sb_error_set(err, path, NULL, "not verified: run 'solbook forge verify' first");
    json_t *v = NULL;
    if (sb_json_load_file(path, &v, err) != SB_OK)
        return SB_ERR;
    const char *verdict = json_string_value(json_object_get(v, "verdict"));
    json_t *recorded = json_object_get(v, "sources");
    if (!verdict || strcmp(verdict, "passed") != 0) {
        sb_error_set(err, path, "/verdict", "verification did not pass (verdict '%s')", verdict ? verdict : "missing");
        json_decref(v);
        return SB_ERR;
    }
    json_t *now = NULL;
    if (!json_is_object(recorded)) {
        sb_error_set(err, path, "/sources", "no source hashes recorded");
        json_decref(v);
        return SB_ERR;
    }
    if (sb_forge_hash_tree(cand, &now, err) != SB_OK) {
        json_decref(v);
        return SB_ERR;
    }
    if (!json_equal(now, recorded)) {
        const char *k;
        json_t *h;
        const char *changed = NULL;
        json_object_foreach(now, k, h) if (!json_equal(h, json_object_get(recorded, k)) && !changed) changed = k;
        json_object_foreach(recorded, k, h) if (!json_object_get(now, k) && !changed) changed = k;
        sb_error_set(err, cand, NULL, "candidate changed since it was verified (%s); verify again",
                     changed ? changed : "file set");
        json_decref(now);
        json_decref(v);
        return SB_ERR;
    }
    json_decref(v);
    if (sources)
        *sources = now;
    else
        json_decref(now);
    return SB_OK;
}

int sb_forge_stage_build(const char *run_dir, const json_t *spec, const char *tmp,
                         const char *const *harness, char *ref_name, size_t size, sb_error *err)
{
    char cand[4096], src[4096], dst[4096], ref_path[4096];
    const char *run_ref = "";
    if (sb_forge_path(cand, sizeof cand, run_dir, "candidate", err) != SB_OK ||
        sb_forge_run_reference(run_dir, spec, ref_path, sizeof ref_path, &run_ref, err) != SB_OK ||
        sb_forge_copy_tree(cand, tmp, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; harness && harness[i]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "forge/harness/%s", harness[i]);
        if (sb_data_path(src, sizeof src, rel, err) != SB_OK ||
            sb_forge_path(dst, sizeof dst, tmp, harness[i], err) != SB_OK ||
            sb_forge_copy_file(src, dst, err) != SB_OK)
            return SB_ERR;
    }
    if (run_ref[0]) {
        if (sb_forge_path(dst, sizeof dst, tmp, run_ref, err) != SB_OK ||
            sb_forge_copy_file(ref_path, dst, err) != SB_OK)
            return SB_ERR;
        snprintf(ref_name, size, "%s", run_ref);
        return SB_OK;
    }
    if (sb_forge_path(dst, sizeof dst, tmp, "reference.cu", err) != SB_OK)
        return SB_ERR;
    snprintf(ref_name, size, "%s", sb_forge_is_file(dst) ? "reference.cu" : "reference.c");
    return SB_OK;
}

/* The disk and task bounds verify's options ask for (0: the defaults). */
static void set_bounds(sb_sandbox_limits *lim, const sb_forge_verify_opts *o)
{
    if (o->disk_limit_mb > 0)
        lim->disk_bytes = (rlim_t)o->disk_limit_mb << 20;
    if (o->max_tasks > 0)
        lim->max_tasks = (unsigned)o->max_tasks;
}

/* Records in verify.json's sandbox what bounded a run's disk use and tasks. */
static void note_bounds(json_t *doc, const sb_sandbox_result *res, const sb_sandbox_limits *lim)
{
    char line[400];
    sb_sandbox_bounds(res, lim, line, sizeof line);
    json_t *box = json_object_get(doc, "sandbox");
    json_object_set_new(box, "bounds",
                        json_pack("{s:I, s:I, s:s}", "disk_mb", (json_int_t)(lim->disk_bytes >> 20), "max_tasks",
                                  (json_int_t)lim->max_tasks, "by", line));
}

static int run_compile(const char *tmp, const char *const argv[], const char *log_dir, const char *name,
                       double wall_s, sb_sandbox_isolation iso, const char *tool_dir,
                       const sb_forge_verify_opts *o, json_t *doc, char *detail, size_t dsize, sb_error *err)
{
    char out[4096], errp[4096];
    snprintf(out, sizeof out, "%s/%s.stdout", log_dir, name);
    snprintf(errp, sizeof errp, "%s/%s.stderr", log_dir, name);
    sb_sandbox_limits lim;
    sb_sandbox_limits_compiler(&lim, wall_s);
    lim.isolation = iso;
    lim.tool_dir = tool_dir;
    set_bounds(&lim, o);
    sb_sandbox_result res;
    if (sb_sandbox_run(argv, tmp, out, errp, &lim, &res, err) != SB_OK)
        return SB_ERR;
    note_bounds(doc, &res, &lim);
    if (res.exited && res.exit_code == 0) {
        snprintf(detail, dsize, "compiled in %.1f s", res.wall_s);
        return SB_OK;
    }
    char how[256], tail[600];
    sb_sandbox_describe(&res, &lim, how, sizeof how);
    sb_forge_file_tail(errp, 500, tail, sizeof tail);
    /* The detail line may be cut short; the full log stays at errp. */
    if ((size_t)snprintf(detail, dsize, "nvcc %s: %s (log %s)", how, tail[0] ? tail : "no output", errp) >= dsize)
        detail[dsize - 1] = '\0';
    return 1;
}

int sb_forge_verify(const char *run_dir, const sb_forge_verify_opts *o, int *verdict,
                    json_t **report, sb_error *err)
{
    sb_forge_verify_opts defaults = {0};
    if (!o)
        o = &defaults;
    *verdict = SB_FORGE_REFUSED;
    if (report)
        *report = NULL;
    json_t *spec = NULL;
    if (sb_forge_spec_load(run_dir, &spec, err) != SB_OK)
        return SB_ERR;
    char cand[2048], logs[2048], vpath[2048];
    if (sb_forge_path(cand, sizeof cand, run_dir, "candidate", err) != SB_OK ||
        sb_forge_path(logs, sizeof logs, run_dir, "logs", err) != SB_OK ||
        sb_forge_path(vpath, sizeof vpath, run_dir, "verify.json", err) != SB_OK ||
        sb_mkdirs(logs, err) != SB_OK) {
        json_decref(spec);
        return SB_ERR;
    }
    char now[64];
    sb_time_now_rfc3339(now, sizeof now);
    json_t *doc = json_pack("{s:s, s:s, s:s, s:[]}", "run_id",
                            json_string_value(json_object_get(spec, "run_id")), "verified_at", now,
                            "nvcc_arch", json_string_value(json_object_get(spec, "nvcc_arch")), "gates");
    json_t *gates = json_object_get(doc, "gates");
    /* One isolation for every run of this verification, recorded with it. */
    sb_sandbox_isolation iso;
    char iso_why[800];
    if (sb_sandbox_choose(&iso, o && o->unsafe_no_sandbox, iso_why, sizeof iso_why, err) != SB_OK) {
        json_decref(doc);
        json_decref(spec);
        return SB_ERR;
    }
    json_object_set_new(doc, "sandbox", json_pack("{s:s, s:s, s:s, s:s}", "isolation", sb_sandbox_isolation_name(iso),
                                                  "confinement", sb_sandbox_confinement(iso), "nested_userns",
                                                  sb_sandbox_nested_userns(iso), "detail", iso_why));
    const char *order[] = {"files", "metadata", "scan", "compile", "gpu", "test"};
    size_t reached = 0;
    int rc = SB_OK;
    char detail[2048];
    char tmp[2048] = "", toolkit[4096] = "";
    json_t *meta = NULL;

    /* files */
    static const char *required[] = {"kernel.cu", "test.cu", "bench.json", "metadata.json"};
    char missing[512] = "";
    struct stat st;
    if (lstat(cand, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(missing, sizeof missing, "no candidate/ folder in %s", run_dir);
    } else {
        for (size_t i = 0; i < 4; i++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", cand, required[i]);
            if (!sb_forge_is_file(p)) {
                size_t l = strlen(missing);
                snprintf(missing + l, sizeof missing - l, "%s%s", l ? ", " : "missing or not a regular file of its own: ", required[i]);
            }
        }
        char rc_path[4096], rcc_path[4096], run_ref_path[4096];
        snprintf(rc_path, sizeof rc_path, "%s/reference.cu", cand);
        snprintf(rcc_path, sizeof rcc_path, "%s/reference.c", cand);
        int a = sb_forge_is_file(rc_path), b = sb_forge_is_file(rcc_path);
        size_t l = strlen(missing);
        const char *run_ref = "";
        sb_error rerr;
        sb_error_clear(&rerr);
        if (sb_forge_run_reference(run_dir, spec, run_ref_path, sizeof run_ref_path, &run_ref, &rerr) != SB_OK) {
            sb_error_format(&rerr, missing + l, sizeof missing - l);
        } else if (run_ref[0]) {
            /* The task fixes the reference: the candidate may leave it out
             * or carry an identical copy. */
            const char *mine = a ? "reference.cu" : b ? "reference.c" : NULL;
            if (mine) {
                char mine_path[4096], h1[65] = "", h2[65] = "";
                snprintf(mine_path, sizeof mine_path, "%s/%s", cand, mine);
                if (strcmp(mine, run_ref) != 0 || (a && b) || sb_sha256_file_hex(mine_path, h1, &rerr) != SB_OK ||
                    sb_sha256_file_hex(run_ref_path, h2, &rerr) != SB_OK || strcmp(h1, h2) != 0)
                    snprintf(missing + l, sizeof missing - l,
                             "%scandidate/%s differs from the task's %s: the baseline is fixed by the task "
                             "(leave it out or copy it unchanged)",
                             l ? "; " : "", mine, run_ref);
            }
        } else if (!a && !b) {
            snprintf(missing + l, sizeof missing - l, "%sreference.cu or reference.c", l ? ", " : "missing: ");
        } else if (a && b) {
            snprintf(missing + l, sizeof missing - l, "%sboth reference.cu and reference.c (give one)", l ? "; " : "");
        }
    }
    if (missing[0]) {
        gate(gates, "files", "failed", missing);
        goto finish;
    }
    gate(gates, "files", "passed",
         json_object_get(spec, "reference") ? "kernel.cu, test.cu, bench.json, metadata.json present; the task's reference is used"
                                            : "kernel.cu, reference, test.cu, bench.json, metadata.json present");
    reached = 1;

    /* metadata + bench config */
    {
        sb_error merr;
        sb_error_clear(&merr);
        sb_forge_bench_config bc;
        char bpath[4096];
        snprintf(bpath, sizeof bpath, "%s/bench.json", cand);
        if (sb_forge_metadata_load(run_dir, spec, &meta, &merr) != SB_OK ||
            sb_forge_bench_config_load(bpath, &bc, &merr) != SB_OK) {
            sb_error_format(&merr, detail, sizeof detail);
            gate(gates, "metadata", "failed", detail);
            goto finish;
        }
        /* The entry point must be defined in kernel.cu (not only declared). */
        char kpath[4096];
        char *ksrc = NULL;
        size_t klen = 0;
        const char *entry = json_string_value(json_object_get(meta, "entry_point"));
        snprintf(kpath, sizeof kpath, "%s/kernel.cu", cand);
        if (sb_file_read_all(kpath, &ksrc, &klen, err) != SB_OK) {
            rc = SB_ERR;
            goto finish;
        }
        int defined = sb_scan_defines(ksrc, klen, entry);
        free(ksrc);
        if (defined < 0) {
            rc = sb_error_set(err, kpath, NULL, "out of memory");
            goto finish;
        }
        if (!defined) {
            snprintf(detail, sizeof detail, "%s/candidate/metadata.json: /entry_point: '%s' is not defined in kernel.cu", run_dir, entry);
            gate(gates, "metadata", "failed", detail);
            goto finish;
        }
        snprintf(detail, sizeof detail, "metadata.json valid (author %s, %s, entry point %s); bench.json valid",
                 json_string_value(json_object_get(meta, "author")),
                 json_string_value(json_object_get(meta, "kind")),
                 json_string_value(json_object_get(meta, "entry_point")));
        gate(gates, "metadata", "passed", detail);
        reached = 2;
    }

    /* scan */
    {
        sb_scan_report rep = {0};
        if (sb_scan_dir(cand, &rep, err) != SB_OK) {
            sb_scan_report_free(&rep);
            rc = SB_ERR;
            goto finish;
        }
        json_t *findings = json_array();
        for (size_t i = 0; i < rep.count; i++) {
            char line[1024];
            sb_scan_finding_format(&rep.items[i], line, sizeof line);
            json_array_append_new(findings, json_string(line));
        }
        if (rep.count) {
            snprintf(detail, sizeof detail, "%zu unsafe construct%s in %zu file%s scanned", rep.count,
                     rep.count == 1 ? "" : "s", rep.files_scanned, rep.files_scanned == 1 ? "" : "s");
            json_object_set_new(gate(gates, "scan", "failed", detail), "findings", findings);
            sb_scan_report_free(&rep);
            goto finish;
        }
        snprintf(detail, sizeof detail, "%zu source files scanned, nothing unsafe found", rep.files_scanned);
        json_object_set_new(gate(gates, "scan", "passed", detail), "findings", findings);
        sb_scan_report_free(&rep);
        reached = 3;
    }

    /* compile */
    {
        char nvcc[4096], ref[64];
        sb_error cerr;
        sb_error_clear(&cerr);
        if (sb_forge_find_nvcc(nvcc, sizeof nvcc, &cerr) != SB_OK) {
            sb_error_format(&cerr, detail, sizeof detail);
            gate(gates, "compile", "failed", detail);
            goto finish;
        }
        static const char *const harness[] = {"forge_abi.h", NULL};
        if (sb_forge_make_temp_dir("solbook-forge", tmp, sizeof tmp, err) != SB_OK ||
            sb_forge_stage_build(run_dir, spec, tmp, harness, ref, sizeof ref, err) != SB_OK) {
            rc = SB_ERR;
            goto finish;
        }
        char arch[64];
        snprintf(arch, sizeof arch, "-arch=%s", json_string_value(json_object_get(spec, "nvcc_arch")));
        const char *argv[] = {nvcc, "-O3", "-std=c++17", arch, "-lineinfo", "-I.", "-o", "forge_test",
                        "test.cu", "kernel.cu", ref, NULL};
        json_object_set_new(doc, "nvcc", json_string(nvcc));
        sb_forge_toolkit_dir(nvcc, toolkit, sizeof toolkit);
        int c = run_compile(tmp, argv, logs, "compile-test",
                            (double)json_integer_value(json_object_get(json_object_get(spec, "limits"), "compile_s")), iso,
                            toolkit, o, doc, detail, sizeof detail, err);
        if (c == SB_ERR) {
            rc = SB_ERR;
            goto finish;
        }
        gate(gates, "compile", c == 0 ? "passed" : "failed", detail);
        if (c != 0)
            goto finish;
        reached = 4;
    }

    /* gpu */
    if (!sb_forge_have_gpu()) {
        gate(gates, "gpu", "failed",
             "no NVIDIA GPU on this machine (no /dev/nvidiactl and /dev/nvidiaN): the test was compiled but not run");
        *verdict = SB_FORGE_NO_GPU;
        goto finish;
    }
    gate(gates, "gpu", "passed", "NVIDIA device nodes present");
    reached = 5;

    /* test */
    {
        char out[4096], errp[4096], tail[600], how[256];
        snprintf(out, sizeof out, "%s/test.stdout", logs);
        snprintf(errp, sizeof errp, "%s/test.stderr", logs);
        sb_sandbox_limits lim;
        sb_sandbox_limits_cuda(&lim, (double)json_integer_value(json_object_get(json_object_get(spec, "limits"), "test_s")));
        lim.isolation = iso;
        lim.tool_dir = toolkit;
        set_bounds(&lim, o);
        sb_sandbox_result res;
        const char *argv[] = {"./forge_test", NULL};
        char prog[4096];
        snprintf(prog, sizeof prog, "%s/forge_test", tmp);
        argv[0] = prog;
        if (sb_sandbox_run(argv, tmp, out, errp, &lim, &res, err) != SB_OK) {
            rc = SB_ERR;
            goto finish;
        }
        note_bounds(doc, &res, &lim);
        sb_sandbox_describe(&res, &lim, how, sizeof how);
        sb_forge_file_tail(errp, 400, tail, sizeof tail);
        if (!tail[0])
            sb_forge_file_tail(out, 400, tail, sizeof tail);
        int ok = res.exited && res.exit_code == 0;
        snprintf(detail, sizeof detail, "correctness test %s in %.1f s%s%s", ok ? "passed" : how, res.wall_s,
                 tail[0] && !ok ? ": " : "", ok ? "" : tail);
        gate(gates, "test", ok ? "passed" : "failed", detail);
        if (!ok)
            goto finish;
        reached = 6;
        *verdict = SB_FORGE_PASSED;
    }

finish:
    for (size_t i = json_array_size(gates); rc == SB_OK && i < 6; i++)
        gate(gates, order[i], "not-run", "an earlier gate did not pass");
    (void)reached;
    if (rc == SB_OK) {
        json_t *sources = NULL;
        if (lstat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
            sb_error herr;
            sb_error_clear(&herr);
            if (sb_forge_hash_tree(cand, &sources, &herr) != SB_OK) {
                sources = NULL;
                if (*verdict == SB_FORGE_PASSED)
                    *verdict = SB_FORGE_REFUSED;
            }
        }
        json_object_set_new(doc, "sources", sources ? sources : json_object());
        json_object_set_new(doc, "gpu", json_boolean(sb_forge_have_gpu()));
        json_object_set_new(doc, "verdict", json_string(*verdict == SB_FORGE_PASSED ? "passed"
                                                        : *verdict == SB_FORGE_NO_GPU ? "compiled-no-gpu"
                                                                                      : "refused"));
        if (o->keep_temp && tmp[0])
            json_object_set_new(doc, "build_dir", json_string(tmp));
        rc = sb_json_write_file(vpath, doc, err);
    }
    if (tmp[0] && !o->keep_temp) {
        sb_error rerr;
        sb_forge_remove_tree(tmp, &rerr);
    }
    json_decref(meta);
    json_decref(spec);
    if (rc == SB_OK && report)
        *report = doc;
    else
        json_decref(doc);
    return rc;
}
