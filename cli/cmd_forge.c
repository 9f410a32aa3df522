/* cmd_forge.c - `solbook forge`: candidate kernels from task to promotion
 * (docs/FORGE.md).
 *
 *   solbook forge task    --op OP --sku SKU --dtype DT --shape M=..,N=.. --objective latency|memory
 *   solbook forge prompt  RUN
 *   solbook forge verify  RUN
 *   solbook forge bench   RUN [--min-speedup 1.10]
 *   solbook forge promote RUN [--registry DIR]
 *   solbook forge list
 *
 * Exit status: 0 passed / done, 1 refused by a gate, 2 usage or system
 * error, 3 (verify, bench) compiled but not run: this machine has no GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"
#include "error.h"
#include "home.h"
#include "json_file.h"
#include "registry.h"
#include "sandbox.h"
#include "task.h"
#include "term.h"
#include "verify.h"

static const char *const forge_usage[] = {
    "solbook forge task --op OP --sku SKU --dtype DTYPE --shape NAME=V[,NAME=V...] [--shape ...]",
    "                   --objective latency|memory [--mode fwd|bwd|full] [--language cuda]",
    "                   [--root DIR] [--id RUN_ID] [--min-speedup X] [--reference FILE]",
    "                   [--compile-timeout S] [--test-timeout S] [--bench-timeout S]",
    "solbook forge prompt RUN [--root DIR] [--skills DIR]",
    "solbook forge verify RUN [--root DIR] [--keep-temp] [--unsafe-no-sandbox]",
    "solbook forge bench RUN [--root DIR] [--db FILE] [--min-speedup X] [--raw FILE] [--unsafe-no-sandbox]",
    "solbook forge promote RUN [--root DIR] [--db FILE] [--registry DIR]",
    "solbook forge list [--db FILE] [--json]",
    "",
    "Candidate kernels from a task to a promoted, registered kernel (docs/FORGE.md).",
    "RUN is a run folder, or a run id under --root (default forge_runs).",
    "Exit status: 0 passed, 1 refused by a gate, 2 usage or system error,",
    "3 compiled but not run because this machine has no GPU.",
    NULL,
};

/* What a forge subcommand was given. The subcommands share one option
 * table, so one struct holds every option's value. */
typedef struct run_args {
    const char *run, *root, *db, *registry, *skills, *raw;
    double min_speedup;
    int keep_temp, json, unsafe_no_sandbox, disk_limit_mb, max_tasks;
    sb_forge_task_opts task; /* the options only forge task takes */
} run_args;

static int add_shape(const sb_option *opt, const char *arg, sb_error *err)
{
    sb_forge_task_opts *t = opt->value;
    if (t->shape_count == SB_FORGE_MAX_SHAPES)
        return sb_error_set(err, NULL, NULL, "at most %d --shape options", SB_FORGE_MAX_SHAPES);
    t->shapes[t->shape_count++] = arg;
    return SB_OK;
}

/* Every forge option, into out (room for cap), those not in takes (NULL:
 * all apply) refused as not applying. */
static int forge_options(run_args *a, const char *const *takes, sb_option *out, size_t cap)
{
    const sb_option all[] = {
        SB_OPT_STRING(0, "op", &a->task.op, "op", "task: the op the candidates implement"),
        SB_OPT_STRING(0, "sku", &a->task.sku, "sku", "task: the card (data/skus.csv id)"),
        SB_OPT_STRING(0, "dtype", &a->task.dtype, "dtype", "task: fp16, bf16, fp32, ..."),
        SB_OPT_CALLBACK(0, "shape", &a->task, "NAME=V[,NAME=V...]", "task: a shape; repeat for more",
                        add_shape),
        SB_OPT_STRING(0, "objective", &a->task.objective, "latency|memory", "task: what to improve"),
        SB_OPT_STRING(0, "mode", &a->task.mode, "fwd|bwd|full", "task: the pass (default fwd)"),
        SB_OPT_STRING(0, "language", &a->task.language, "language", "task: the kernel language (default cuda)"),
        SB_OPT_STRING(0, "id", &a->task.id, "RUN_ID", "task: the run id (default DATE-OP-HASH)"),
        SB_OPT_STRING(0, "reference", &a->task.reference, "file",
                      "task: a reference.cu/.c the run fixes for every candidate"),
        SB_OPT_INT(0, "compile-timeout", &a->task.compile_s, "s", 1, 3600,
                   "task: seconds a compile may take (default 300)"),
        SB_OPT_INT(0, "test-timeout", &a->task.test_s, "s", 1, 3600,
                   "task: seconds the tests may take (default 120)"),
        SB_OPT_INT(0, "bench-timeout", &a->task.bench_s, "s", 1, 3600,
                   "task: seconds the benchmark may take (default 300)"),
        SB_OPT_STRING(0, "root", &a->root, "dir", "the folder of run folders (default forge_runs)"),
        SB_OPT_DOUBLE(0, "min-speedup", &a->min_speedup, "x", SB_OPT_POSITIVE, HUGE_VAL,
                      "task, bench: the speedup a candidate must reach (default 1.10)"),
        SB_OPT_STRING(0, "skills", &a->skills, "dir", "prompt: another playbook folder (default data/forge/skills)"),
        SB_OPT_BOOL(0, "keep-temp", &a->keep_temp, "verify: keep the temporary folder (named in verify.json)"),
        SB_OPT_BOOL(0, "unsafe-no-sandbox", &a->unsafe_no_sandbox,
                    "verify, bench: where no sandbox is available, run unconfined (your own code only)"),
        SB_OPT_INT(0, "disk-limit-mb", &a->disk_limit_mb, "MiB", 16, 262144,
                   "verify: the bytes a compile or test may hold in its folder (a tmpfs; default 1024)"),
        SB_OPT_INT(0, "max-tasks", &a->max_tasks, "n", SB_SANDBOX_MIN_TASKS, 100000,
                   "verify: processes and threads a compile or test may run at once (default 512)"),
        SB_OPT_STRING(0, "db", &a->db, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING(0, "raw", &a->raw, "file", "bench: judge this harness output instead of running"),
        SB_OPT_STRING(0, "registry", &a->registry, "dir", "promote: the kernel registry (default forge/registry)"),
        SB_OPT_BOOL(0, "json", &a->json, "list: JSON instead of the table"),
        SB_OPT_END(),
    };
    return sb_options_only(all, takes, out, cap);
}

/* Parses a subcommand's argv (argv[0] its name) with the options it
 * takes; need_run: exactly one RUN, else no argument. Returns 0 to go on,
 * 1 after printing the help, -1 after printing a usage error. */
static int parse_run_args(int argc, char **argv, const char *const *takes, run_args *a, int need_run)
{
    memset(a, 0, sizeof *a);
    sb_option options[32];
    char command[64];
    int exit_status;
    forge_options(a, takes, options, sizeof options / sizeof options[0]);
    snprintf(command, sizeof command, "forge %s", argv[0]);
    argc = sb_cli_parse_options(argc, argv, command, options, forge_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status == 0 ? 1 : -1;
    if (need_run) {
        if (argc != 1) {
            fprintf(stderr, "solbook %s: give exactly one RUN (a run folder or id)\n", command);
            return -1;
        }
        a->run = argv[0];
    } else if (argc != 0) {
        sb_term_line(stderr, "solbook %s: unexpected argument '%s'", command, argv[0]);
        return -1;
    }
    return 0;
}

static int fail(const sb_error *e)
{
    sb_error_print(e, stderr);
    return 2;
}

static int forge_task(int argc, char **argv)
{
    static const char *const takes[] = {"op", "sku", "dtype", "shape", "objective", "mode",
                                        "language", "id", "reference", "compile-timeout",
                                        "test-timeout", "bench-timeout", "root", "min-speedup",
                                        NULL};
    run_args a;
    int p = parse_run_args(argc, argv, takes, &a, 0);
    if (p)
        return p > 0 ? 0 : 2;
    sb_forge_task_opts o = a.task;
    o.root = a.root;
    o.min_speedup = a.min_speedup;
    if (!o.op || !o.sku || !o.dtype || !o.objective || !o.shape_count) {
        fprintf(stderr, "solbook: forge task: --op, --sku, --dtype, --shape and --objective are required\n");
        return 2;
    }
    if (o.mode && strcmp(o.mode, "fwd") && strcmp(o.mode, "bwd") && strcmp(o.mode, "full")) {
        fprintf(stderr, "solbook: forge task: --mode must be fwd, bwd or full\n");
        return 2;
    }
    char dir[4096];
    sb_error err;
    sb_error_clear(&err);
    if (sb_forge_task_create(&o, dir, sizeof dir, &err) != SB_OK)
        return fail(&err);
    printf("%s\n", dir);
    fprintf(stderr, "solbook forge: wrote %s/spec.json; next: solbook forge prompt %s\n", dir, dir);
    return 0;
}

static int forge_prompt(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, (const char *const[]){"root", "skills", NULL}, &a, 1);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096], path[4096], chosen[512];
    json_t *spec = NULL;
    char *md = NULL;
    if (sb_forge_run_dir(a.run, a.root, dir, sizeof dir, &err) != SB_OK ||
        sb_forge_spec_load(dir, &spec, &err) != SB_OK ||
        sb_forge_prompt_render(spec, a.skills, NULL, &md, chosen, sizeof chosen, &err) != SB_OK ||
        sb_forge_path(path, sizeof path, dir, "prompt.md", &err) != SB_OK ||
        sb_file_write_atomic(path, md, strlen(md), &err) != SB_OK) {
        json_decref(spec);
        free(md);
        return fail(&err);
    }
    fputs(md, stdout);
    fprintf(stderr, "solbook forge: wrote %s (playbooks: %s)\n", path, chosen);
    json_decref(spec);
    free(md);
    return 0;
}

static void print_gates(const json_t *report)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(report, "gates"), i, g)
    {
        /* A gate's detail names the metadata's author and a finding quotes a
         * source line: text of the candidate, so each goes out terminal-safe. */
        sb_term_line(stdout, "%-9s %-8s %s", json_string_value(json_object_get(g, "name")),
                     json_string_value(json_object_get(g, "verdict")), json_string_value(json_object_get(g, "detail")));
        size_t j;
        json_t *f;
        json_array_foreach(json_object_get(g, "findings"), j, f) sb_term_line(stdout, "          %s", json_string_value(f));
    }
}

static int forge_verify(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, (const char *const[]){"root", "keep-temp", "unsafe-no-sandbox",
                                                                  "disk-limit-mb", "max-tasks", NULL}, &a, 1);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096];
    if (sb_forge_run_dir(a.run, a.root, dir, sizeof dir, &err) != SB_OK)
        return fail(&err);
    sb_forge_verify_opts o = {a.keep_temp, a.unsafe_no_sandbox, a.disk_limit_mb, a.max_tasks};
    int verdict = SB_FORGE_REFUSED;
    json_t *report = NULL;
    if (sb_forge_verify(dir, &o, &verdict, &report, &err) != SB_OK)
        return fail(&err);
    print_gates(report);
    json_decref(report);
    if (verdict == SB_FORGE_PASSED)
        printf("verify: passed (%s/verify.json)\n", dir);
    else if (verdict == SB_FORGE_NO_GPU)
        printf("verify: compiled, not run: no GPU on this machine; this is not a pass (%s/verify.json)\n", dir);
    else
        printf("verify: refused (%s/verify.json)\n", dir);
    return verdict;
}

static int forge_bench(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, (const char *const[]){"root", "db", "min-speedup", "raw", "unsafe-no-sandbox", NULL},
                           &a, 1);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096];
    if (sb_forge_run_dir(a.run, a.root, dir, sizeof dir, &err) != SB_OK)
        return fail(&err);
    sb_forge_bench_opts o = {a.db, a.min_speedup, a.raw, a.unsafe_no_sandbox};
    int verdict = SB_FORGE_REFUSED;
    json_t *report = NULL;
    if (sb_forge_bench(dir, &o, &verdict, &report, &err) != SB_OK)
        return fail(&err);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(report, "cases"), i, c)
    {
        json_t *cm = json_object_get(c, "candidate_median_ms"), *bm = json_object_get(c, "baseline_median_ms");
        json_t *sp = json_object_get(c, "speedup");
        printf("%-28s candidate %s", json_string_value(json_object_get(c, "shape_key")),
               json_string_value(json_object_get(c, "candidate_status")));
        if (json_is_number(cm))
            printf(" %.4f ms", json_number_value(cm));
        printf(", %s %s", json_string_value(json_object_get(report, "baseline_provider")),
               json_string_value(json_object_get(c, "baseline_status")));
        if (json_is_number(bm))
            printf(" %.4f ms", json_number_value(bm));
        if (json_is_number(sp))
            printf(", speedup %.3fx", json_number_value(sp));
        printf(" (runs %lld, %lld): %s\n", (long long)json_integer_value(json_object_get(c, "candidate_run_id")),
               (long long)json_integer_value(json_object_get(c, "baseline_run_id")),
               json_string_value(json_object_get(c, "verdict")));
    }
    json_array_foreach(json_object_get(report, "reasons"), i, c) sb_term_line(stdout, "reason: %s", json_string_value(c));
    printf("bench: %s (%s/bench.json)\n", json_string_value(json_object_get(report, "verdict")), dir);
    json_decref(report);
    return verdict;
}

static int forge_promote(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, (const char *const[]){"root", "db", "registry", NULL}, &a, 1);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096];
    if (sb_forge_run_dir(a.run, a.root, dir, sizeof dir, &err) != SB_OK)
        return fail(&err);
    sb_forge_promote_opts o = {a.db, a.registry};
    int refused = 0;
    json_t *doc = NULL;
    if (sb_forge_promote(dir, &o, &refused, &doc, &err) != SB_OK) {
        char line[4096];
        sb_error_format(&err, line, sizeof line);
        if (refused) {
            sb_term_line(stdout, "promote: refused: %s", line);
            return 1;
        }
        return fail(&err);
    }
    printf("promote: %s (speedup %.3fx geomean, %.3fx min; %s, %s)\n",
           json_string_value(json_object_get(doc, "kernel_id")),
           json_number_value(json_object_get(doc, "speedup_geomean")),
           json_number_value(json_object_get(doc, "speedup_min")),
           json_string_value(json_object_get(doc, "evidence_level")), json_string_value(json_object_get(doc, "status")));
    printf("registry: %s\n", json_string_value(json_object_get(doc, "registry_path")));
    json_decref(doc);
    return 0;
}

static int forge_list(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, (const char *const[]){"db", "json", NULL}, &a, 0);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    json_t *kernels = NULL;
    if (sb_forge_registry_list(a.db ? a.db : sb_default_db_path(), &kernels, &err) != SB_OK)
        return fail(&err);
    if (a.json) {
        /* ASCII, as runs --json and show --json: the author and the
         * description are the candidate's text, and a bidi override in
         * them would reorder the terminal's line raw */
        char *s = json_dumps(kernels, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
        if (s)
            printf("%s\n", s);
        free(s);
    } else if (json_array_size(kernels) == 0) {
        printf("no promoted kernels\n");
    } else {
        printf("%-56s %8s %8s  %-24s %s\n", "kernel", "speedup", "min", "promoted", "author");
        size_t i;
        json_t *k;
        json_array_foreach(kernels, i, k)
        sb_term_line(stdout, "%-56s %7.3fx %7.3fx  %-24.24s %s (%s)", json_string_value(json_object_get(k, "kernel_id")),
               json_number_value(json_object_get(k, "speedup_geomean")),
               json_number_value(json_object_get(k, "speedup_min")),
               json_string_value(json_object_get(k, "promoted_at")), json_string_value(json_object_get(k, "author")),
               json_string_value(json_object_get(k, "author_kind")));
    }
    json_decref(kernels);
    return 0;
}

int cmd_forge(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } subs[] = {{"task", forge_task},     {"prompt", forge_prompt},   {"verify", forge_verify},
                {"bench", forge_bench},   {"promote", forge_promote}, {"list", forge_list}};
    run_args all;
    sb_option options[32];
    int status;
    forge_options(&all, NULL, options, sizeof options / sizeof options[0]);
    if (sb_cli_subcommand_help(argc, argv, forge_usage, options, &status))
        return status;
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (strcmp(argv[1], subs[i].name) == 0)
            return subs[i].fn(argc - 1, argv + 1);
    sb_term_line(stderr, "solbook: forge: unknown subcommand '%s' (task, prompt, verify, bench, promote, list)",
                 argv[1]);
    return 2;
}
