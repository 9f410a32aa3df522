/* test_fleet.c - experiments, Job and Slurm rendering, spawning, gathering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "fleet_skus.h"
#include "gather.h"
#include "home.h"
#include "json_file.h"
#include "json_schema.h"
#include "render.h"
#include "process.h"
#include "spawn.h"
#include "task_status.h"

/* The six speed-of-light metrics validate-results asks for
 * (ingest/ncu_csv.c SB_NCU_SOL_METRICS). */
static const char *const SOL[] = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "gpu__time_duration.sum",
};

typedef struct world {
    sb_fleet_skus skus;
    sb_experiment_set set;
} world;

static int setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    sb_error err;
    char dir[4096];
    if (!w || sb_fleet_skus_load(NULL, &w->skus, &err) != SB_OK)
        return -1;
    snprintf(dir, sizeof dir, "%s/data/experiments", sb_home());
    if (sb_experiment_set_load(dir, NULL, w->skus.archs, &w->set, &err) != SB_OK) {
        fprintf(stderr, "%s: %s: %s\n", err.file, err.where, err.msg);
        return -1;
    }
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    sb_experiment_set_free(&w->set);
    sb_fleet_skus_free(&w->skus);
    free(w);
    return 0;
}

static void test_shipped_experiments(void **state)
{
    world *w = *state;
    const char *want[] = {"gemm-spec", "gemm-sweep", "liger-fsdp", "liger-perkernel", "memory-bound",
                          "roofline-calibration"};
    assert_int_equal(w->set.n, 6);
    for (size_t i = 0; i < 6; i++) {
        const sb_experiment *e = sb_experiment_set_find(&w->set, want[i]);
        assert_non_null(e);
        assert_string_equal(w->set.v[i]->name, want[i]); /* sorted */
        for (const char *arch = "a100"; arch; arch = strcmp(arch, "a100") == 0 ? "h100"
                                                   : strcmp(arch, "h100") == 0 ? "h200" : NULL)
            assert_non_null(sb_experiment_arch(e, arch));
    }
    /* liger-fsdp: world sizes 4 and 8 on one 8-GPU node, baseline then liger */
    const sb_experiment *fsdp = sb_experiment_set_find(&w->set, "liger-fsdp");
    assert_string_equal(fsdp->gate_name, "report-training");
    assert_int_equal(fsdp->n_cases, 2);
    assert_int_equal(sb_experiment_arch(fsdp, "h100")->gpus, 8);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(fsdp->cases[i].n_commands, 2);
        assert_string_equal(fsdp->cases[i].commands[0].argv[0], "llama-fsdp");
        assert_string_equal(fsdp->cases[i].commands[0].argv[1], i == 0 ? "4" : "8");
    }
    const sb_experiment *spec = sb_experiment_set_find(&w->set, "gemm-spec");
    assert_string_equal(spec->gate_name, "validate-results");
    assert_int_equal(spec->n_cases, 4);
    const sb_exp_arch *h100 = sb_experiment_arch(spec, "h100");
    assert_true(h100->ncu.enabled);
    assert_int_equal(h100->ncu.launch_skip, 4);
    assert_int_equal(h100->time_seconds, 20 * 60);
    /* Every profile case carries the metrics the gate needs. */
    for (size_t m = 0; m < sizeof SOL / sizeof *SOL; m++) {
        int found = 0;
        for (size_t k = 0; k < h100->ncu.n_metrics; k++)
            found |= strcmp(h100->ncu.metrics[k], SOL[m]) == 0;
        assert_true(found);
    }
    const char *providers[] = {"cublas", "cublaslt", "cublas-pedantic", "solbook-mma"};
    for (size_t i = 0; i < 4; i++) {
        const sb_exp_case *c = &spec->cases[i];
        char want_out[128];
        snprintf(want_out, sizeof want_out, "{out}/spec/gemm-spec-%s.json", providers[i]);
        assert_true(c->profile);
        assert_true(sb_exp_case_profiled(c, h100));
        assert_string_equal(sb_exp_case_result_out(c), want_out);
        assert_string_equal(c->commands[0].argv[0], "solbench");
        assert_string_equal(c->commands[0].argv[3], "--provider");
        assert_string_equal(c->commands[0].argv[4], providers[i]);
    }
    const sb_experiment *liger = sb_experiment_set_find(&w->set, "liger-perkernel");
    assert_string_equal(liger->gate_command[2], "geomean");
    assert_false(sb_experiment_arch(liger, "h200")->ncu.enabled);
    assert_null(sb_experiment_arch(liger, "b200"));
}

static void test_skus(void **state)
{
    world *w = *state;
    char label[64];
    assert_int_equal(sb_fleet_product_label("NVIDIA H100 80GB HBM3", label, sizeof label), SB_OK);
    assert_string_equal(label, "NVIDIA-H100-80GB-HBM3");
    assert_int_equal(sb_fleet_product_label("NVIDIA H100 (test)", label, sizeof label), SB_ERR);
    assert_int_equal(sb_fleet_product_label(" lead", label, sizeof label), SB_ERR);
    int h100 = 0, h200 = 0, a100 = 0;
    for (size_t i = 0; i < w->skus.n; i++) {
        const sb_fleet_sku *k = &w->skus.v[i];
        assert_true(k->n_products >= 1);
        if (strcmp(k->id, "h100-sxm5-80gb") == 0) {
            assert_int_equal(k->n_products, 1);
            assert_string_equal(k->products[0], "NVIDIA-H100-80GB-HBM3");
        }
        if (strcmp(k->id, "a100-sxm4-80gb") == 0) {
            /* "NVIDIA A100-SXM4-80GB|A100-SXM4-80GB": the driver's full name only */
            assert_int_equal(k->n_products, 1);
            assert_string_equal(k->products[0], "NVIDIA-A100-SXM4-80GB");
        }
        h100 += strcmp(k->arch, "h100") == 0;
        h200 += strcmp(k->arch, "h200") == 0;
        a100 += strcmp(k->arch, "a100") == 0;
    }
    assert_int_equal(h100, 3);
    assert_int_equal(h200, 2);
    assert_int_equal(a100, 4);
    assert_string_equal(w->skus.archs[0], "a100");
    assert_string_equal(w->skus.archs[1], "h100");
    assert_string_equal(w->skus.archs[2], "h200");
    assert_null(w->skus.archs[3]);
}

/* Bad experiment files: each error names the file and the JSON pointer. */
static void test_bad_experiments(void **state)
{
    world *w = *state;
    static const struct {
        const char *file, *where, *msg;
    } cases[] = {
        {"name-mismatch.json", "/name", "name the file other-name.json"},
        {"unknown-arch.json", "/archs/b200", "arch b200 is not in data/skus.csv"},
        {"bad-placeholder.json", "/cases/0/commands/0/5", "{outdir} is not a placeholder"},
        {"not-solbench.json", "/cases/0/commands/0/0", "a case runs solbench, solbench-spread or llama-fsdp, not python3"},
        {"zero-gpus.json", "/archs/h100/gpus", "minimum"},
        {"profile-without-json-out.json", "/cases/0/commands/0", "a profile case needs --out NAME.json"},
        {"duplicate-case.json", "/cases/1/id", "case id one is used twice"},
        {"ncu-without-metrics.json", "/archs/h100/ncu", "required"},
        {"bad-write-path.json", "/cases/0/writes/0", "without .."},
        {"truncated.json", "line", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fleet/bad/%s", SOLBOOK_TEST_DATA, cases[i].file);
        sb_experiment *e = NULL;
        sb_error err;
        sb_error_clear(&err);
        assert_int_equal(sb_experiment_load(path, NULL, w->skus.archs, &e, &err), SB_ERR);
        assert_null(e);
        if (strcmp(err.file, path) != 0 || strncmp(err.where, cases[i].where, strlen(cases[i].where)) != 0 ||
            !strstr(err.msg, cases[i].msg))
            fail_msg("%s: got %s: %s: %s", cases[i].file, err.file, err.where, err.msg);
    }
}

static void test_expand(void **state)
{
    (void)state;
    sb_exp_vars v = {.out = "/r/x", .arch = "h100", .experiment = "e", .case_id = "c", .gpus = "2"};
    char *s = sb_exp_expand("{out}/{arch}/{case}-{gpus}-{experiment}{sku}", &v);
    assert_string_equal(s, "/r/x/h100/c-2-e{sku}");
    free(s);
    assert_int_equal(sb_exp_parse_time("01:02:03"), 3723);
    assert_int_equal(sb_exp_parse_time("100:00:00"), 360000);
    assert_int_equal(sb_exp_parse_time("1:60:00"), -1);
    assert_int_equal(sb_exp_parse_time("01:02"), -1);
    assert_int_equal(sb_exp_parse_time("01:02:03x"), -1);
    char *q = sb_fleet_shell_quote("it's $HOME");
    assert_string_equal(q, "'it'\\''s $HOME'");
    free(q);
    q = sb_fleet_shell_quote("--out=/a/b.json");
    assert_string_equal(q, "--out=/a/b.json");
    free(q);
}

static sb_render_opts opts_for(world *w, const char *name, const char *arch)
{
    static const char *products[8];
    size_t np = 0;
    for (size_t i = 0; i < w->skus.n; i++)
        if (strcmp(w->skus.v[i].arch, arch) == 0)
            for (size_t p = 0; p < w->skus.v[i].n_products && np < 8; p++)
                products[np++] = w->skus.v[i].products[p];
    const sb_experiment *e = sb_experiment_set_find(&w->set, name);
    sb_render_opts o = {.exp = e, .arch = sb_experiment_arch(e, arch), .run_id = "20261122T010203Z",
                        .image = "registry.example/solbench:1", .products = products, .n_products = np};
    return o;
}

static json_t *get_path(json_t *j, const char *ptr)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", ptr);
    char *save = NULL;
    for (char *t = strtok_r(buf, "/", &save); t && j; t = strtok_r(NULL, "/", &save)) {
        for (char *p = t; *p; p++)
            if (*p == '~')
                *p = '/';
        if (json_is_array(j))
            j = json_array_get(j, (size_t)atoi(t));
        else
            j = json_object_get(j, t);
    }
    return j;
}

static void schema_errors(void *ctx, const char *pointer, const char *keyword, const char *reason)
{
    (void)ctx;
    fprintf(stderr, "  schema error at %s: %s: %s\n", pointer, keyword, reason);
}

static void test_k8s_job(void **state)
{
    world *w = *state;
    sb_render_opts o = opts_for(w, "gemm-spec", "h100");
    o.queue = "gpu-queue";
    o.namespace_ = "bench";
    o.claim = "results-claim";
    sb_error err;
    json_t *job = sb_render_k8s_job(&o, &err);
    assert_non_null(job);
    /* Rendered text parsed back, as kubectl would read it. */
    char *text = json_dumps(job, JSON_INDENT(2));
    json_decref(job);
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    free(text);
    assert_non_null(j);

    char schema_path[4096];
    snprintf(schema_path, sizeof schema_path, "%s/data/schemas/k8s-batch-v1-job.json", sb_home());
    sb_schema *schema = NULL;
    assert_int_equal(sb_schema_load_file(schema_path, &schema, &err), SB_OK);
    assert_int_equal(sb_schema_validate(schema, j, schema_errors, NULL), 0);

    assert_string_equal(json_string_value(get_path(j, "apiVersion")), "batch/v1");
    assert_string_equal(json_string_value(get_path(j, "kind")), "Job");
    assert_string_equal(json_string_value(get_path(j, "metadata/name")), "sb-gemm-spec-h100-20261122t010203z");
    assert_string_equal(json_string_value(get_path(j, "metadata/namespace")), "bench");
    assert_string_equal(json_string_value(get_path(j, "metadata/labels/kueue.x-k8s.io~queue-name")), "gpu-queue");
    assert_string_equal(json_string_value(get_path(j, "metadata/labels/solbook.dev~experiment")), "gemm-spec");
    assert_string_equal(json_string_value(get_path(j, "metadata/labels/solbook.dev~arch")), "h100");
    assert_string_equal(json_string_value(get_path(j, "spec/template/metadata/labels/solbook.dev~arch")), "h100");
    assert_string_equal(json_string_value(get_path(j, "spec/completionMode")), "Indexed");
    assert_int_equal(json_integer_value(get_path(j, "spec/completions")), 4);
    assert_int_equal(json_integer_value(get_path(j, "spec/parallelism")), 4);
    assert_int_equal(json_integer_value(get_path(j, "spec/backoffLimit")), 0);
    assert_int_equal(json_integer_value(get_path(j, "spec/ttlSecondsAfterFinished")), SB_K8S_TTL_SECONDS);
    assert_int_equal(json_integer_value(get_path(j, "spec/activeDeadlineSeconds")), 4 * 20 * 60);
    assert_true(json_is_true(get_path(j, "spec/suspend")));
    json_t *pod = get_path(j, "spec/template/spec");
    assert_string_equal(json_string_value(get_path(pod, "restartPolicy")), "Never");
    json_t *expr = get_path(pod, "affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
                                 "nodeSelectorTerms/0/matchExpressions/0");
    assert_string_equal(json_string_value(get_path(expr, "key")), "nvidia.com/gpu.product");
    assert_string_equal(json_string_value(get_path(expr, "operator")), "In");
    json_t *values = get_path(expr, "values");
    assert_int_equal(json_array_size(values), 3);
    assert_string_equal(json_string_value(json_array_get(values, 0)), "NVIDIA-H100-80GB-HBM3");
    assert_string_equal(json_string_value(json_array_get(values, 1)), "NVIDIA-H100-PCIe");
    assert_string_equal(json_string_value(json_array_get(values, 2)), "NVIDIA-H100-NVL");
    json_t *c = get_path(pod, "containers/0");
    assert_string_equal(json_string_value(get_path(c, "image")), "registry.example/solbench:1");
    assert_int_equal(json_integer_value(get_path(c, "resources/limits/nvidia.com~gpu")), 1);
    assert_string_equal(json_string_value(get_path(c, "resources/limits/memory")), "32Gi");
    assert_string_equal(json_string_value(get_path(c, "resources/limits/cpu")), "8");
    assert_string_equal(json_string_value(get_path(c, "securityContext/capabilities/add/0")), "SYS_ADMIN");
    assert_string_equal(json_string_value(get_path(c, "volumeMounts/0/mountPath")), "/results");
    assert_string_equal(json_string_value(get_path(c, "volumeMounts/0/name")), "results");
    assert_string_equal(json_string_value(get_path(pod, "volumes/0/name")), "results");
    assert_string_equal(json_string_value(get_path(pod, "volumes/0/persistentVolumeClaim/claimName")),
                        "results-claim");
    assert_string_equal(json_string_value(get_path(c, "command/0")), "/bin/bash");
    assert_string_equal(json_string_value(get_path(c, "command/1")), "-c");
    const char *script = json_string_value(get_path(c, "command/2"));
    assert_non_null(strstr(script, "CASE=${JOB_COMPLETION_INDEX:?"));
    assert_non_null(strstr(script, "OUT=/results/gemm-spec/h100/20261122T010203Z\n"));
    assert_non_null(strstr(script, "    profile \"$CASE_OUT\"/spec/gemm-spec-cublas.json \"$SOLBENCH\" gemm --spec "
                                   "--provider cublas --out \"$CASE_OUT\"/spec/gemm-spec-cublas.json\n"));
    /* The task record names the Job; the container says its name. */
    assert_non_null(strstr(script, "ENGINE=kubernetes\nJOB_ID=${SOLBOOK_JOB_NAME:-unknown}\n"));
    assert_string_equal(json_string_value(get_path(c, "env/1/name")), "SOLBOOK_JOB_NAME");
    assert_string_equal(json_string_value(get_path(c, "env/1/value")), "sb-gemm-spec-h100-20261122t010203z");
    assert_string_equal(json_string_value(get_path(j, "metadata/annotations/solbook.dev~experiment-file")),
                        "data/experiments/gemm-spec.json");
    assert_non_null(strstr(script, "--launch-skip 4 --launch-count 3"));
    assert_non_null(strstr(script, "  3)\n    # spec-solbook-mma:"));

    /* The schema refuses what a Job may not be. */
    json_object_set_new(pod, "restartPolicy", json_string("Always"));
    assert_int_equal(sb_schema_validate(schema, j, NULL, NULL), 1);
    json_object_set_new(pod, "restartPolicy", json_string("Never"));
    json_object_set_new(get_path(j, "metadata"), "name", json_string("Not_A_Name"));
    assert_int_equal(sb_schema_validate(schema, j, NULL, NULL), 1);
    json_decref(j);

    /* No ncu: no capability, no queue: not suspended. */
    o = opts_for(w, "gemm-sweep", "a100");
    job = sb_render_k8s_job(&o, &err);
    assert_non_null(job);
    assert_int_equal(sb_schema_validate(schema, job, schema_errors, NULL), 0);
    assert_null(get_path(job, "spec/template/spec/containers/0/securityContext"));
    assert_null(get_path(job, "spec/suspend"));
    assert_null(get_path(job, "metadata/labels/kueue.x-k8s.io~queue-name"));
    assert_null(get_path(job, "metadata/namespace"));
    assert_int_equal(json_integer_value(get_path(job, "spec/template/spec/containers/0/resources/limits/nvidia.com~gpu")), 2);
    assert_non_null(strstr(json_string_value(get_path(job, "spec/template/spec/containers/0/command/2")),
                           "    \"$SOLBENCH_SPREAD\" --preset gemm-sweep --gpus all --out \"$CASE_OUT\"/sweep\n"));
    assert_string_equal(json_string_value(get_path(job, "spec/template/spec/volumes/0/persistentVolumeClaim/claimName")),
                        SB_K8S_DEFAULT_CLAIM);
    assert_int_equal(json_array_size(get_path(job, "spec/template/spec/affinity/nodeAffinity/"
                                                   "requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/"
                                                   "0/matchExpressions/0/values")),
                     4);
    json_decref(job);

    /* No image: one clear error. */
    o.image = NULL;
    assert_null(sb_render_k8s_job(&o, &err));
    assert_non_null(strstr(err.msg, "--image"));
    sb_schema_free(schema);
}

static void test_job_name(void **state)
{
    (void)state;
    /* A pod of an Indexed Job is NAME-INDEX, at most 63 characters. */
    sb_exp_case cases[12];
    memset(cases, 0, sizeof cases);
    sb_exp_arch arch = {.arch = "h100"};
    sb_experiment e = {.path = "x.json", .name = "abcdefghijklmnopqrstuvwxyz-abcdef", .cases = cases, .n_cases = 12};
    sb_render_opts o = {.exp = &e, .arch = &arch, .run_id = "0123456789abcdef"};
    char name[80];
    sb_error err;
    /* sb- + 33 + -h100- + 16 = 58 characters: fits under 63 - len("-11") = 60 */
    assert_int_equal(sb_render_job_name(&o, name, sizeof name, &err), SB_OK);
    assert_string_equal(name, "sb-abcdefghijklmnopqrstuvwxyz-abcdef-h100-0123456789abcdef");
    o.run_id = "0123456789abcdefgh"; /* 60: still fits */
    assert_int_equal(sb_render_job_name(&o, name, sizeof name, &err), SB_OK);
    o.run_id = "0123456789abcdefghi"; /* 61 */
    assert_int_equal(sb_render_job_name(&o, name, sizeof name, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "longer than 60 characters (pods add -INDEX)"));
    o.run_id = "run_1";
    assert_int_equal(sb_render_job_name(&o, name, sizeof name, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "only letters, digits and '-'"));
}

static void test_slurm_script(void **state)
{
    world *w = *state;
    sb_render_opts o = opts_for(w, "gemm-spec", "h200");
    o.partition = "hopper";
    o.time = "00:45:00";
    o.root = "/shared/solbook results";
    sb_error err;
    char *s = sb_render_script(&o, SB_ENGINE_SLURM, &err);
    assert_non_null(s);
    assert_int_equal(strncmp(s, "#!/usr/bin/env bash\n#SBATCH ", 28), 0);
    static const char *const lines[] = {
        "#SBATCH --job-name=sb-gemm-spec-h200-20261122t010203z\n",
        "#SBATCH --array=0-3\n",
        "#SBATCH --gres=gpu:1\n",
        "#SBATCH --cpus-per-task=8\n",
        "#SBATCH --mem=32G\n",
        "#SBATCH --time=00:45:00\n",
        "#SBATCH --partition=hopper\n",
        "#SBATCH --output=sb-gemm-spec-h200-20261122t010203z-%A_%a.out\n",
        "#SBATCH --no-requeue\n",
        "set -euo pipefail\n",
        "CASE=${SLURM_ARRAY_TASK_ID:?",
        "OUT='/shared/solbook results/gemm-spec/h200/20261122T010203Z'\n",
        "CASE_IDS=(spec-cublas spec-cublaslt spec-cublas-pedantic spec-solbook-mma)\n",
        "CASE_ID=${CASE_IDS[$CASE]}\nCASE_OUT=$OUT/$CASE_ID\n",
        "ENGINE=slurm\nJOB_ID=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-unknown}}\n",
        "TASK_FIXED='{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h200\","
        "\"run_id\":\"20261122T010203Z\",\"cases\":[\"spec-cublas\",\"spec-cublaslt\",\"spec-cublas-pedantic\","
        "\"spec-solbook-mma\"]'\n",
        "  1)\n    # spec-cublaslt: ",
        "    mkdir -p \"$CASE_OUT\"/spec\n",
        "trap 'task_end $?' EXIT\n",
        "# Rendered by `solbook submit` from data/experiments/gemm-spec.json;",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (!strstr(s, lines[i]))
            fail_msg("missing from the script: %s", lines[i]);
    /* Every #SBATCH line comes before the first command. */
    const char *last = strstr(s, "#SBATCH --no-requeue");
    assert_true(last < strstr(s, "set -euo pipefail"));
    free(s);

    o = opts_for(w, "roofline-calibration", "a100");
    s = sb_render_script(&o, SB_ENGINE_SLURM, &err);
    assert_non_null(s);
    assert_non_null(strstr(s, "#SBATCH --array=0-0\n"));
    assert_null(strstr(s, "--partition"));
    assert_null(strstr(s, "profile()"));
    assert_non_null(strstr(s, "OUT=solbook-results/roofline-calibration/a100/20261122T010203Z\n"));
    assert_non_null(strstr(s, "    \"$SOLBENCH\" roofline --out \"$CASE_OUT\"/calibration/roofline-\"$ARCH\".json\n"));
    free(s);

    /* --only-missing: the array and the case table hold the chosen tasks. */
    o = opts_for(w, "gemm-spec", "h100");
    size_t only[] = {1, 3};
    o.only = only;
    o.n_only = 2;
    s = sb_render_script(&o, SB_ENGINE_SLURM, &err);
    assert_non_null(s);
    assert_non_null(strstr(s, "#SBATCH --array=1,3\n"));
    assert_null(strstr(s, "  0)\n"));
    assert_non_null(strstr(s, "  1)\n    # spec-cublaslt:"));
    assert_null(strstr(s, "  2)\n"));
    assert_non_null(strstr(s, "  3)\n    # spec-solbook-mma:"));
    free(s);

    /* A case's "what" is an experiment file's text, written into the
     * script's comment: a line break, a terminal's escape sequences (which
     * --print would send to the terminal) and bidi controls come out as
     * visible escapes on the one comment line, and nothing of it runs. */
    o = opts_for(w, "gemm-spec", "h100");
    sb_experiment hostile = *o.exp;
    sb_exp_case cases[8];
    assert_true(hostile.n_cases <= 8);
    memcpy(cases, hostile.cases, hostile.n_cases * sizeof *cases);
    cases[1].what = "x\x1b]8;;http://evil.example\a\x1b[2J\ntouch /tmp/pwned\r\xe2\x80\xae y";
    hostile.cases = cases;
    o.exp = &hostile;
    s = sb_render_script(&o, SB_ENGINE_SLURM, &err);
    assert_non_null(s);
    const char *want = "  1)\n    # spec-cublaslt: x\\e]8;;http://evil.example\\x07\\e[2J\\ntouch /tmp/pwned\\r"
                       "\\u{202E} y\n";
    if (!strstr(s, want))
        fail_msg("the comment is not the escaped text: %s", strstr(s, "  1)\n"));
    for (const char *p = s; *p; p++)
        assert_true((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t');
    assert_null(strstr(s, "\xe2\x80\xae"));
    assert_null(strstr(s, "\ntouch /tmp/pwned"));
    free(s);
}

static void test_spawn(void **state)
{
    (void)state;
    char path[4096];
    assert_int_equal(sb_process_find("sh", path, sizeof path), SB_OK);
    assert_int_equal(sb_process_find("solbook-no-such-program", path, sizeof path), SB_ERR);
    char out[] = "/tmp/sb-fleet-spawn-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char script[512];
    snprintf(script, sizeof script, "cat > '%s'; exit 3", out);
    const char *argv[] = {"sh", "-c", script, NULL};
    /* Larger than a pipe buffer, so the writer must loop. */
    size_t len = 200000;
    char *input = malloc(len);
    for (size_t i = 0; i < len; i++)
        input[i] = (char)('a' + i % 26);
    int status = -1;
    sb_error err;
    assert_int_equal(sb_spawn_pipe(argv, input, len, &status, &err), SB_OK);
    assert_int_equal(status, 3);
    char *back = NULL;
    size_t blen = 0;
    assert_int_equal(sb_file_read_all(out, &back, &blen, &err), SB_OK);
    assert_int_equal(blen, len);
    assert_memory_equal(back, input, len);
    free(back);
    free(input);
    unlink(out);
    const char *missing[] = {"kubectl-solbook-test-missing", "apply", NULL};
    assert_int_equal(sb_spawn_pipe(missing, "x", 1, &status, &err), SB_ERR);
    assert_string_equal(err.msg, "kubectl-solbook-test-missing is not installed (not found on PATH)");
    /* A child that reads nothing and exits does not kill the parent with
     * SIGPIPE: its status comes back, and success without reading the
     * manifest is an error. */
    const char *failer[] = {"sh", "-c", "exit 5", NULL};
    char *big = calloc(1, 1 << 20);
    assert_int_equal(sb_spawn_pipe(failer, big, 1 << 20, &status, &err), SB_OK);
    assert_int_equal(status, 5);
    const char *quitter[] = {"true", NULL};
    assert_int_equal(sb_spawn_pipe(quitter, big, 1 << 20, &status, &err), SB_ERR);
    assert_int_equal(status, 0);
    assert_non_null(strstr(err.msg, "true did not read the whole manifest"));
    free(big);

    /* Output captured whole (more than one read), and the exit status. */
    const char *talker[] = {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done; exit 4", NULL};
    char *text = NULL;
    assert_int_equal(sb_spawn_capture(talker, &text, &status, &err), SB_OK);
    assert_int_equal(status, 4);
    assert_int_equal(strncmp(text, "line 0\nline 1\n", 14), 0);
    assert_non_null(strstr(text, "\nline 1999\n"));
    free(text);
    assert_int_equal(sb_spawn_capture(missing, &text, &status, &err), SB_ERR);
    assert_null(text);
    assert_string_equal(err.msg, "kubectl-solbook-test-missing is not installed (not found on PATH)");
}

/* ------------------------------------------------------------ gather */

static json_t *load_fixture(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", SOLBOOK_TEST_DATA, rel);
    json_t *j = NULL;
    sb_error err;
    if (sb_json_load_file(path, &j, &err) != SB_OK)
        fail_msg("%s: %s", path, err.msg);
    return j;
}

static void write_json(const char *root, const char *rel, json_t *j)
{
    char path[4096], dir[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(dir, 0777);
        *p = '/';
    }
    sb_error err;
    if (sb_json_write_file(path, j, &err) != SB_OK)
        fail_msg("%s: %s", path, err.msg);
}

static void write_raw(const char *root, const char *rel, const char *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (len)
        assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static const sb_gather_file *find(const sb_gather *g, const char *root, const char *rel)
{
    char path[8400]; /* a root of up to 4200 bytes and a relative name */
    if ((size_t)snprintf(path, sizeof path, "%s/%s", root, rel) >= sizeof path)
        fail_msg("%s/%s: path too long for the test", root, rel);
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->files[i].path, path) == 0)
            return &g->files[i];
    fail_msg("%s not in the gathering", path);
    return NULL;
}

static void test_gather(void **state)
{
    (void)state;
    char root[] = "/tmp/sb-fleet-gather-XXXXXX";
    assert_non_null(mkdtemp(root));
    json_t *r = load_fixture("schemas/result.valid.gemm.json");
    char why[256];
    char *key = sb_gather_key(r, why, sizeof why);
    assert_string_equal(key, "gemm-spec|gemm|fwd|fp16|K=4096,M=4096,N=4096|{\"transa\":\"n\",\"transb\":\"n\"}|cublas|h100");
    free(key);

    write_json(root, "gemm-spec/h100/run1/spec/gemm-spec-cublas.json", r);
    write_raw(root, "gemm-spec/h100/run1/spec/gemm-spec-cublas.ncu.csv", "x\n", 2);
    json_t *lt = json_deep_copy(r);
    json_object_set_new(json_object_get(lt, "config"), "provider", json_string("cublaslt"));
    write_json(root, "gemm-spec/h100/run1/spec/gemm-spec-cublaslt.json", lt);
    json_t *h200 = json_deep_copy(r);
    json_t *dev = json_object_get(json_object_get(h200, "provenance"), "device");
    json_object_set_new(dev, "arch", json_string("h200"));
    json_object_set_new(dev, "sku", json_string("h200-sxm-141gb"));
    write_json(root, "gemm-spec/h200/run1/spec/gemm-spec-cublas.json", h200);
    json_t *seed = json_deep_copy(r);
    json_object_set_new(json_object_get(json_object_get(seed, "config"), "params"), "seed", json_integer(43));
    write_json(root, "gemm-spec/h100/run1/spec/gemm-spec-cublas-seed43.json", seed);
    /* A second final result of the first case (a rerun into the same tree). */
    write_json(root, "gemm-spec/h100/run2/spec/gemm-spec-cublas.json", r);
    /* Partial files. */
    write_raw(root, "gemm-spec/h100/run1/spec/gemm-spec-solbook-mma.json.tmp.4242", "{\"sch", 5);
    write_raw(root, "gemm-spec/h100/run1/spec/empty.json", "", 0);
    char *text = json_dumps(r, JSON_INDENT(2));
    write_raw(root, "gemm-spec/h100/run1/spec/cut.json", text, strlen(text) / 2);
    free(text);
    write_raw(root, "gemm-spec/h100/run1/notes.json", "{\"hello\": 1}", 12);
    json_t *cal = load_fixture("schemas/calibration.valid.h100.json");
    write_json(root, "roofline-calibration/h100/run1/calibration/roofline-h100.json", cal);

    sb_gather g;
    sb_error err;
    assert_int_equal(sb_gather_scan(root, &g, &err), SB_OK);
    assert_int_equal(g.n, 10);
    assert_int_equal(g.accepted, 4);
    assert_int_equal(g.duplicate_groups, 1);
    assert_int_equal(g.duplicate_files, 2);
    assert_int_equal(g.partial, 3);
    assert_int_equal(g.invalid, 1);
    assert_int_equal(sb_gather_problems(&g), 6);
    assert_int_equal(find(&g, root, "gemm-spec/h100/run1/spec/gemm-spec-cublas.json")->state, SB_GATHER_DUPLICATE);
    assert_int_equal(find(&g, root, "gemm-spec/h100/run2/spec/gemm-spec-cublas.json")->state, SB_GATHER_DUPLICATE);
    assert_int_equal(find(&g, root, "gemm-spec/h100/run1/spec/gemm-spec-cublaslt.json")->state, SB_GATHER_ACCEPTED);
    assert_int_equal(find(&g, root, "gemm-spec/h200/run1/spec/gemm-spec-cublas.json")->state, SB_GATHER_ACCEPTED);
    assert_int_equal(find(&g, root, "gemm-spec/h100/run1/spec/gemm-spec-cublas-seed43.json")->state,
                     SB_GATHER_ACCEPTED);
    const sb_gather_file *cf = find(&g, root, "roofline-calibration/h100/run1/calibration/roofline-h100.json");
    assert_int_equal(cf->state, SB_GATHER_ACCEPTED);
    assert_string_equal(cf->key, "calibration|h100-sxm5-80gb|h100");
    const sb_gather_file *f = find(&g, root, "gemm-spec/h100/run1/spec/gemm-spec-solbook-mma.json.tmp.4242");
    assert_int_equal(f->state, SB_GATHER_PARTIAL);
    assert_non_null(strstr(f->why, "temporary file"));
    f = find(&g, root, "gemm-spec/h100/run1/spec/empty.json");
    assert_int_equal(f->state, SB_GATHER_PARTIAL);
    assert_string_equal(f->why, "empty file (zero length)");
    f = find(&g, root, "gemm-spec/h100/run1/spec/cut.json");
    assert_int_equal(f->state, SB_GATHER_PARTIAL);
    assert_non_null(strstr(f->why, "not one whole JSON document"));
    f = find(&g, root, "gemm-spec/h100/run1/notes.json");
    assert_int_equal(f->state, SB_GATHER_INVALID);
    assert_non_null(strstr(f->why, "no \"schema\" field"));

    size_t n = 0;
    char **acc = sb_gather_accepted_paths(&g, &n);
    assert_int_equal(n, 4);
    free(acc);
    char *d = sb_gather_describe(&g);
    char line[8192];
    snprintf(line, sizeof line, "duplicate: %s/gemm-spec/h100/run2/spec/gemm-spec-cublas.json: 2 final results", root);
    assert_non_null(strstr(d, line));
    snprintf(line, sizeof line, "partial: %s/gemm-spec/h100/run1/spec/empty.json: empty file (zero length)\n", root);
    assert_non_null(strstr(d, line));
    assert_non_null(strstr(d, "gather: 4 accepted, 2 duplicate files in 1 group, 3 partial, 1 invalid\n"));
    free(d);
    sb_gather_free(&g);

    /* The same directory twice: files count once. */
    char *twice[] = {root, root};
    assert_int_equal(sb_gather_scan_dirs(twice, 2, &g, &err), SB_OK);
    assert_int_equal(g.n, 10);
    sb_gather_free(&g);
    assert_int_equal(sb_gather_scan("/nonexistent/solbook-fleet", &g, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent/solbook-fleet");

    json_decref(r);
    json_decref(lt);
    json_decref(h200);
    json_decref(seed);
    json_decref(cal);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------ task records */

/* The task records refused by sb_task_status_from_records. */
typedef struct refusals {
    size_t n;
    sb_error last;
} refusals;

static void on_refused(void *ctx, const sb_error *why)
{
    refusals *r = ctx;
    r->n++;
    r->last = *why;
}

static void write_record(const char *root, const char *case_dir, long index, const char *id, const char *state,
                         int exit_status)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", case_dir, SB_TASK_RECORD_FILE);
    int running = strcmp(state, "running") == 0;
    json_t *rec = json_pack("{s:s,s:s,s:s,s:s,s:[s,s,s],s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o}", "schema",
                            "solbook.fleet-task.v1", "experiment", "gemm-spec", "arch", "h100", "run_id", "r1",
                            "cases", "spec-a", "spec-b", "spec-c", "index", (int)index, "case", id, "engine", "slurm",
                            "job_id", "77", "host", "node1", "state", state, "started_at", "2026-11-22T01:02:03Z",
                            "exit_status", exit_status < 0 ? json_null() : json_integer(exit_status), "finished_at",
                            running ? json_null() : json_string("2026-11-22T01:09:00Z"));
    write_json(root, rel, rec);
    json_decref(rec);
}

static void test_gather_tasks(void **state)
{
    (void)state;
    char root[] = "/tmp/sb-fleet-tasks-XXXXXX";
    assert_non_null(mkdtemp(root));
    json_t *r = load_fixture("schemas/result.valid.gemm.json");
    /* Run r1 of three cases: a done, b failed, c left no record; an
     * earlier attempt of b kept in .superseded. */
    write_record(root, "gemm-spec/h100/r1/spec-a", 0, "spec-a", "done", 0);
    write_json(root, "gemm-spec/h100/r1/spec-a/spec/a.json", r);
    write_record(root, "gemm-spec/h100/r1/spec-b", 1, "spec-b", "failed", 2);
    json_object_set_new(json_object_get(r, "config"), "provider", json_string("cublaslt"));
    write_json(root, "gemm-spec/h100/r1/spec-b/spec/b.json", r);
    write_record(root, "gemm-spec/h100/r1/.superseded/spec-b-20261122T010000Z-12", 1, "spec-b", "cancelled", 143);
    write_json(root, "gemm-spec/h100/r1/.superseded/spec-b-20261122T010000Z-12/b.json", r);
    sb_gather g;
    sb_error err;
    assert_int_equal(sb_gather_scan(root, &g, &err), SB_OK);
    assert_int_equal(g.accepted, 1);
    assert_int_equal(g.unfinished, 2);
    assert_int_equal(g.superseded, 1);
    assert_int_equal(sb_gather_problems(&g), 2);
    const sb_gather_file *f = find(&g, root, "gemm-spec/h100/r1/spec-a/spec/a.json");
    assert_int_equal(f->state, SB_GATHER_ACCEPTED);
    f = find(&g, root, "gemm-spec/h100/r1/spec-b");
    assert_int_equal(f->state, SB_GATHER_UNFINISHED);
    assert_string_equal(f->why, "task 1 (case spec-b) of slurm job 77 on node1: failed with exit status 2; its 1 file "
                                "are not stored");
    f = find(&g, root, "gemm-spec/h100/r1/spec-c");
    assert_int_equal(f->state, SB_GATHER_UNFINISHED);
    assert_non_null(strstr(f->why, "task 2 (case spec-c) left no record"));
    char *d = sb_gather_describe(&g);
    assert_non_null(strstr(d, "gather: 1 accepted, 0 duplicate files in 0 groups, 0 partial, 0 invalid, 2 unfinished "
                              "tasks, 1 superseded attempt\n"));
    free(d);
    sb_gather_free(&g);

    /* A record that is not one whole document: the task is unfinished. */
    write_raw(root, "gemm-spec/h100/r1/spec-a/solbook-task.json", "{\"state\":", 9);
    assert_int_equal(sb_gather_scan(root, &g, &err), SB_OK);
    assert_int_equal(g.accepted, 0);
    f = find(&g, root, "gemm-spec/h100/r1/spec-a");
    assert_non_null(strstr(f->why, "task record solbook-task.json refused (line 1, column 9: "));
    sb_gather_free(&g);
    /* ingest --fleet reads records as submit --status does (one reader):
     * a record `done` that is not strictly a task record, or is another
     * case's or another run's, keeps its files out, in the line the reader
     * gives */
    static const struct {
        const char *text, *why;
    } loose[] = {
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":0,\"case\":\"spec-a\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node\\u001b[2J\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (/host: not a host name (A-Z, a-z, 0-9, '.', '_', '-')); its 1 file "
         "are not stored"},
        {"{\"state\":\"done\",\"index\":0,\"case\":\"spec-a\",\"engine\":\"slurm\",\"job_id\":\"77\","
         "\"host\":\"node1\",\"cases\":[\"spec-a\"]}",
         "task record solbook-task.json refused (not a task record: no \"schema\"); its 1 file are not stored"},
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":0,\"case\":\"spec-a\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,\"note\":\"x\","
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (/note: not a field of a task record (solbook.fleet-task.v1)); its "
         "1 file are not stored"},
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":1,\"case\":\"spec-a\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (/index: not the index of its case in its cases); its 1 file are not "
         "stored"},
        /* an unknown state, read before the record is freed */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":0,\"case\":\"spec-a\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"exploded\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (/state: not a task state (running, done, failed, cancelled)); its 1 "
         "file are not stored"},
        /* spec-b's record, whole and done, in spec-a's folder */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":1,\"case\":\"spec-b\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (the record of case spec-b in the folder of another); its 1 file are "
         "not stored"},
        /* spec-a's record of another run, and of another experiment, in
         * the folder of run r1 of gemm-spec */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r9\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":0,\"case\":\"spec-a\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (the record of run r9 of gemm-spec on h100 in a folder of run r1 of "
         "gemm-spec on h100); its 1 file are not stored"},
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-sweep\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":0,\"case\":\"spec-a\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "task record solbook-task.json refused (the record of run r1 of gemm-sweep on h100 in a folder of run r1 of "
         "gemm-spec on h100); its 1 file are not stored"},
    };
    for (size_t k = 0; k < sizeof loose / sizeof *loose; k++) {
        write_raw(root, "gemm-spec/h100/r1/spec-a/solbook-task.json", loose[k].text, strlen(loose[k].text));
        assert_int_equal(sb_gather_scan(root, &g, &err), SB_OK);
        assert_int_equal(g.accepted, 0);
        f = find(&g, root, "gemm-spec/h100/r1/spec-a");
        assert_int_equal(f->state, SB_GATHER_UNFINISHED);
        assert_string_equal(f->why, loose[k].why);
        sb_gather_free(&g);
    }

    /* Status from the records, then squeue's view merged in. */
    write_record(root, "gemm-spec/h100/r1/spec-a", 0, "spec-a", "done", 0);
    sb_exp_case cases[3] = {{.id = "spec-a"}, {.id = "spec-b"}, {.id = "spec-c"}};
    sb_experiment e = {.name = "gemm-spec", .cases = cases, .n_cases = 3};
    char run[4200];
    snprintf(run, sizeof run, "%s/gemm-spec/h100/r1", root);
    sb_task_status st[3];
    refusals seen = {0};
    sb_task_records rec = {.run_dir = run, .exp = &e, .arch = "h100", .run_id = "r1", .on_refused = on_refused,
                           .ctx = &seen};
    assert_int_equal(sb_task_status_from_records(&rec, st, &err), SB_OK);
    assert_int_equal(rec.valid, 2);
    assert_int_equal(rec.refused, 0);
    assert_int_equal(st[0].state, SB_TASK_DONE);
    assert_int_equal(st[1].state, SB_TASK_FAILED);
    assert_string_equal(st[1].detail, "slurm job 77, host node1, started 2026-11-22T01:02:03Z, exit status 2");
    assert_int_equal(st[2].state, SB_TASK_NOT_STARTED);
    assert_int_equal(sb_task_status_merge_squeue("77|0|COMPLETED\n77|1|FAILED\n77|2|PENDING\n", st, 3, &err), SB_OK);
    assert_int_equal(st[0].state, SB_TASK_DONE);
    assert_int_equal(st[1].state, SB_TASK_FAILED);
    assert_int_equal(st[2].state, SB_TASK_PENDING);
    assert_string_equal(st[2].detail, "slurm job 77_2: PENDING");
    assert_false(sb_task_needs_rerun(&st[0]));
    assert_true(sb_task_needs_rerun(&st[1]));
    assert_false(sb_task_needs_rerun(&st[2]));
    /* A record that says running, unknown to squeue: stopped. */
    write_record(root, "gemm-spec/h100/r1/spec-c", 2, "spec-c", "running", -1);
    assert_int_equal(sb_task_status_from_records(&rec, st, &err), SB_OK);
    assert_int_equal(sb_task_status_merge_squeue("", st, 3, &err), SB_OK);
    assert_int_equal(st[2].state, SB_TASK_STOPPED);
    assert_non_null(strstr(st[2].detail, "its record says running, squeue no longer lists it"));
    assert_int_equal(sb_task_status_merge_squeue("garbage\n", st, 3, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "line 1: \"garbage\" is not ARRAY_JOB_ID|ARRAY_TASK_ID|STATE"));

    /* Records that are not this task's, or no task record at all: each
     * refused in one line naming its file, its task unknown (never run
     * again by --only-missing), the other records still read. */
    static const struct {
        const char *text, *where, *msg;
    } bad[] = {
        /* another case's record in this case's directory */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":1,\"case\":\"spec-b\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "", "not the task record of case 2 (spec-c): index or case differ"},
        /* a record of another run of the experiment */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r9\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "", "a task record of another run (not run r1 of gemm-spec on h100)"},
        /* a state no task writes: named, and read before the record is
         * freed (ASan sees a use after free otherwise) */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"exploded-while-reading-the-record\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/state", "not a task state (running, done, failed, cancelled)"},
        /* wrong types */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":\"2\",\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/index", "not a task index (a whole number from 0)"},
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":\"0\","
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/exit_status", "not the exit status of the state (0 for done, 1-255 for failed or cancelled)"},
        /* done with a failing exit status; running with an end */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":3,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/exit_status", "not the exit status of the state (0 for done, 1-255 for failed or cancelled)"},
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"running\",\"exit_status\":null,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/finished_at", "not null, as a running task's is"},
        /* a host name the task script cannot write */
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node\\u001b[2J\",\"state\":\"done\",\"exit_status\":0,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/host", "not a host name (A-Z, a-z, 0-9, '.', '_', '-')"},
        /* missing fields; an unknown field; another tool's JSON */
        {"{\"state\":\"done\",\"index\":2,\"case\":\"spec-c\"}", "", "not a task record: no \"schema\""},
        {"{\"schema\":\"solbook.fleet-task.v1\",\"experiment\":\"gemm-spec\",\"arch\":\"h100\",\"run_id\":\"r1\","
         "\"cases\":[\"spec-a\",\"spec-b\",\"spec-c\"],\"index\":2,\"case\":\"spec-c\",\"engine\":\"slurm\","
         "\"job_id\":\"77\",\"host\":\"node1\",\"state\":\"done\",\"exit_status\":0,\"extra\":1,"
         "\"started_at\":\"2026-11-22T01:02:03Z\",\"finished_at\":\"2026-11-22T01:09:00Z\"}",
         "/extra", "not a field of a task record (solbook.fleet-task.v1)"},
        {"{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[]}", "/kind",
         "not a field of a task record (solbook.fleet-task.v1)"},
        {"[1,2,3]", "", "not a task record (a JSON object)"},
        {"{\"state\":", "line 1, column 9", NULL},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        write_raw(root, "gemm-spec/h100/r1/spec-c/solbook-task.json", bad[k].text, strlen(bad[k].text));
        memset(&seen, 0, sizeof seen);
        assert_int_equal(sb_task_status_from_records(&rec, st, &err), SB_OK);
        assert_int_equal(rec.valid, 2);
        assert_int_equal(rec.refused, 1);
        assert_int_equal(seen.n, 1);
        assert_non_null(strstr(seen.last.file, "gemm-spec/h100/r1/spec-c/solbook-task.json"));
        if (bad[k].msg) {
            assert_string_equal(seen.last.where, bad[k].where);
            assert_string_equal(seen.last.msg, bad[k].msg);
        } else {
            assert_non_null(strstr(seen.last.where, bad[k].where));
        }
        assert_int_equal(st[0].state, SB_TASK_DONE);
        assert_int_equal(st[1].state, SB_TASK_FAILED);
        assert_int_equal(st[2].state, SB_TASK_UNKNOWN);
        assert_false(sb_task_needs_rerun(&st[2]));
    }
    /* A link where the record goes is not followed; with every record
     * refused, none is valid. */
    char link[4300], side[4300];
    snprintf(link, sizeof link, "%s/gemm-spec/h100/r1/spec-c/solbook-task.json", root);
    snprintf(side, sizeof side, "%s/gemm-spec/h100/r1/spec-a/solbook-task.json", root);
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink(side, link), 0);
    rec.run_id = "r2";
    memset(&seen, 0, sizeof seen);
    assert_int_equal(sb_task_status_from_records(&rec, st, &err), SB_OK);
    assert_int_equal(rec.valid, 0);
    assert_int_equal(rec.refused, 3);
    assert_int_equal(seen.n, 3);
    assert_string_equal(seen.last.msg, "a symbolic link: refused, not followed");
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(st[i].state, SB_TASK_UNKNOWN);

    json_decref(r);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* Task records on a volume the tasks write: a FIFO named like a record
 * would hold `submit --status` and `ingest --fleet` at its opening
 * forever, and a link would have them read (and quote) a file anywhere.
 * Both are refused unread; the run goes on. */
static void test_task_record_not_a_file(void **state)
{
    (void)state;
    char root[] = "/tmp/sb-fleet-fifo-XXXXXX";
    assert_non_null(mkdtemp(root));
    json_t *r = load_fixture("schemas/result.valid.gemm.json");
    write_json(root, "gemm-spec/h100/r1/spec-a/a.json", r);
    write_json(root, "gemm-spec/h100/r1/spec-b/b.json", r);
    char path[4200], secret[4200];
    snprintf(path, sizeof path, "%s/gemm-spec/h100/r1/spec-a/solbook-task.json", root);
    assert_int_equal(mkfifo(path, 0644), 0);
    /* The link leads to a file that would pass as a done record. */
    write_record(root, "outside", 1, "spec-b", "done", 0);
    snprintf(secret, sizeof secret, "%s/outside/solbook-task.json", root);
    snprintf(path, sizeof path, "%s/gemm-spec/h100/r1/spec-b/solbook-task.json", root);
    assert_int_equal(symlink(secret, path), 0);
    char tree[4200];
    snprintf(tree, sizeof tree, "%s/gemm-spec", root);

    sb_gather g;
    sb_error err;
    assert_int_equal(sb_gather_scan(tree, &g, &err), SB_OK); /* returns: the FIFO is not waited on */
    assert_int_equal(g.accepted, 0);
    assert_int_equal(g.unfinished, 2);
    const sb_gather_file *f = find(&g, tree, "h100/r1/spec-a");
    assert_non_null(f);
    assert_non_null(strstr(f->why, "refused (not a regular file (a FIFO, socket or device): refused unread)"));
    f = find(&g, tree, "h100/r1/spec-b");
    assert_non_null(f);
    assert_non_null(strstr(f->why, "refused (a symbolic link: refused, not followed)"));
    sb_gather_free(&g);

    sb_exp_case cases[2] = {{.id = "spec-a"}, {.id = "spec-b"}};
    sb_experiment e = {.name = "gemm-spec", .cases = cases, .n_cases = 2};
    char run[4200];
    snprintf(run, sizeof run, "%s/gemm-spec/h100/r1", root);
    /* submit --status: neither record is read; the FIFO is not waited on */
    sb_task_status st[2];
    refusals seen = {0};
    sb_task_records rec = {.run_dir = run, .exp = &e, .arch = "h100", .run_id = "r1", .on_refused = on_refused,
                           .ctx = &seen};
    assert_int_equal(sb_task_status_from_records(&rec, st, &err), SB_OK);
    assert_int_equal(rec.valid, 0);
    assert_int_equal(rec.refused, 2);
    assert_int_equal(seen.n, 2);
    assert_string_equal(seen.last.msg, "a symbolic link: refused, not followed");
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(st[i].state, SB_TASK_UNKNOWN);

    json_decref(r);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static char *fixture_text(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", SOLBOOK_TEST_DATA, rel);
    char *text = NULL;
    size_t len = 0;
    sb_error err;
    if (sb_file_read_all(path, &text, &len, &err) != SB_OK)
        fail_msg("%s: %s", path, err.msg);
    return text;
}

static void test_k8s_status(void **state)
{
    (void)state;
    sb_task_status st[4];
    sb_error err;
    char *failed = fixture_text("fleet/kubectl-jobs-failed.json");
    assert_int_equal(sb_task_status_from_k8s(failed, "sb-gemm-spec-h100-r1", st, 4, &err), SB_OK);
    assert_int_equal(st[0].state, SB_TASK_DONE);
    assert_int_equal(st[1].state, SB_TASK_DONE);
    assert_int_equal(st[2].state, SB_TASK_FAILED);
    assert_int_equal(st[3].state, SB_TASK_DONE);
    assert_string_equal(st[0].detail, "Job sb-gemm-spec-h100-r1: index 0 in completedIndexes");
    assert_non_null(strstr(st[2].detail, "Job sb-gemm-spec-h100-r1 failed (BackoffLimitExceeded: Job has reached the "
                                         "specified backoff limit) before index 2 completed"));
    /* A Job the list does not hold: not started. */
    assert_int_equal(sb_task_status_from_k8s(failed, "sb-gemm-spec-h100-r9", st, 4, &err), SB_OK);
    assert_int_equal(st[0].state, SB_TASK_NOT_STARTED);
    assert_non_null(strstr(st[0].detail, "no Job sb-gemm-spec-h100-r9"));
    free(failed);

    char *running = fixture_text("fleet/kubectl-jobs-running.json");
    assert_int_equal(sb_task_status_from_k8s(running, "sb-gemm-spec-h100-r2", st, 4, &err), SB_OK);
    assert_int_equal(st[0].state, SB_TASK_DONE);
    assert_int_equal(st[1].state, SB_TASK_RUNNING);
    assert_int_equal(st[2].state, SB_TASK_DONE);
    assert_int_equal(st[3].state, SB_TASK_RUNNING);
    assert_string_equal(st[1].detail, "Job sb-gemm-spec-h100-r2: 2 pods active, 2 ready; index 1 not completed yet");
    assert_int_equal(sb_task_status_from_k8s(running, "sb-gemm-spec-h100-r3", st, 4, &err), SB_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(st[i].state, SB_TASK_PENDING);
    assert_string_equal(st[0].detail, "Job sb-gemm-spec-h100-r3 suspended (JobSuspended): waiting for admission");
    free(running);

    assert_int_equal(sb_task_status_from_k8s("{\"kind\": \"Pod\"}", "x", st, 4, &err), SB_ERR);
    assert_string_equal(err.msg, "output is not a Job or a List of Jobs (kind Pod)");
    assert_int_equal(sb_task_status_from_k8s("{\"kind\": \"Job\", \"metadata\": {\"name\": \"x\"}, \"status\": "
                                             "{\"completedIndexes\": \"1-0\"}}",
                                             "x", st, 4, &err),
                     SB_ERR);
    assert_non_null(strstr(err.msg, "\"1-0\" is not a list of indexes"));
    /* A sign, a space, an index past the Job's tasks or one past the
     * largest integer is refused: strtoul read "-1" and
     * "0-99999999999999999999" as ULONG_MAX and marked every task done. */
    const char *bad[] = {"-1", "0--1", "0-99999999999999999999", "99999999999999999999", " 1", "0-4", "4", "1,",
                         "0,,1", "+1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char doc[256];
        snprintf(doc, sizeof doc,
                 "{\"kind\": \"Job\", \"metadata\": {\"name\": \"x\"}, \"status\": {\"completedIndexes\": \"%s\"}}",
                 bad[k]);
        sb_error_clear(&err);
        if (sb_task_status_from_k8s(doc, "x", st, 4, &err) != SB_ERR)
            fail_msg("completedIndexes \"%s\" was taken", bad[k]);
        assert_non_null(strstr(err.msg, "is not a list of indexes (0-2,5) of the Job's 4 tasks"));
    }
    /* the last task's index and a full range are taken */
    assert_int_equal(sb_task_status_from_k8s("{\"kind\": \"Job\", \"metadata\": {\"name\": \"x\"}, \"status\": "
                                             "{\"completedIndexes\": \"0-1,3\"}}",
                                             "x", st, 4, &err),
                     SB_OK);
    assert_int_equal(st[0].state, SB_TASK_DONE);
    assert_int_equal(st[1].state, SB_TASK_DONE);
    assert_int_equal(st[3].state, SB_TASK_DONE);
    assert_true(st[2].state != SB_TASK_DONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_experiments),
        cmocka_unit_test(test_skus),
        cmocka_unit_test(test_bad_experiments),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_k8s_job),
        cmocka_unit_test(test_job_name),
        cmocka_unit_test(test_slurm_script),
        cmocka_unit_test(test_spawn),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_gather_tasks),
        cmocka_unit_test(test_task_record_not_a_file),
        cmocka_unit_test(test_k8s_status),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
