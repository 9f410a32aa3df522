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
#include <errno.h>
#include <getopt.h>
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
#include "task.h"
#include "verify.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook forge task --op OP --sku SKU --dtype DTYPE --shape NAME=V[,NAME=V...] [--shape ...]\n"
            "                          --objective latency|memory [--mode fwd|bwd|full] [--language cuda]\n"
            "                          [--root DIR] [--id RUN_ID] [--min-speedup X] [--reference FILE]\n"
            "                          [--compile-timeout S] [--test-timeout S] [--bench-timeout S]\n"
            "       solbook forge prompt RUN [--root DIR] [--skills DIR]\n"
            "       solbook forge verify RUN [--root DIR] [--keep-temp]\n"
            "       solbook forge bench RUN [--root DIR] [--db FILE] [--min-speedup X] [--raw FILE]\n"
            "       solbook forge promote RUN [--root DIR] [--db FILE] [--registry DIR]\n"
            "       solbook forge list [--db FILE] [--json]\n"
            "\n"
            "Candidate kernels from a task to a promoted, registered kernel (docs/FORGE.md).\n"
            "RUN is a run folder, or a run id under --root (default forge_runs).\n"
            "Exit status: 0 passed, 1 refused by a gate, 2 usage or system error,\n"
            "3 compiled but not run because this machine has no GPU.\n");
}

static int parse_double(const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || end == text || !isfinite(v) || v <= 0) {
        fprintf(stderr, "solbook: forge: %s must be a positive number, not '%s'\n", opt, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_seconds(const char *opt, const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || end == text || v < 1 || v > 3600) {
        fprintf(stderr, "solbook: forge: %s must be 1 to 3600 seconds, not '%s'\n", opt, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int fail(const sb_error *e)
{
    sb_error_print(e, stderr);
    return 2;
}

static int forge_task(int argc, char **argv)
{
    static const struct option opts[] = {
        {"op", required_argument, 0, 'o'},          {"sku", required_argument, 0, 's'},
        {"dtype", required_argument, 0, 'd'},       {"shape", required_argument, 0, 'S'},
        {"objective", required_argument, 0, 'j'},   {"mode", required_argument, 0, 'm'},
        {"language", required_argument, 0, 'l'},    {"root", required_argument, 0, 'r'},
        {"id", required_argument, 0, 'i'},          {"min-speedup", required_argument, 0, 'x'},
        {"compile-timeout", required_argument, 0, 'C'}, {"test-timeout", required_argument, 0, 'T'},
        {"bench-timeout", required_argument, 0, 'B'}, {"reference", required_argument, 0, 'F'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    sb_forge_task_opts o;
    memset(&o, 0, sizeof o);
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.op = optarg; break;
        case 's': o.sku = optarg; break;
        case 'd': o.dtype = optarg; break;
        case 'S':
            if (o.shape_count == SB_FORGE_MAX_SHAPES) {
                fprintf(stderr, "solbook: forge task: at most %d --shape options\n", SB_FORGE_MAX_SHAPES);
                return 2;
            }
            o.shapes[o.shape_count++] = optarg;
            break;
        case 'j': o.objective = optarg; break;
        case 'm': o.mode = optarg; break;
        case 'l': o.language = optarg; break;
        case 'r': o.root = optarg; break;
        case 'i': o.id = optarg; break;
        case 'x': if (parse_double("--min-speedup", optarg, &o.min_speedup)) return 2; break;
        case 'C': if (parse_seconds("--compile-timeout", optarg, &o.compile_s)) return 2; break;
        case 'T': if (parse_seconds("--test-timeout", optarg, &o.test_s)) return 2; break;
        case 'B': if (parse_seconds("--bench-timeout", optarg, &o.bench_s)) return 2; break;
        case 'F': o.reference = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "solbook: forge task: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
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

/* Common RUN [--root DIR] [--db FILE] [--registry DIR] ... parsing. */
typedef struct run_args {
    const char *run, *root, *db, *registry, *skills, *raw;
    double min_speedup;
    int keep_temp, json;
} run_args;

static int parse_run_args(int argc, char **argv, const char *allowed, run_args *a, int need_run)
{
    static const struct option opts[] = {
        {"root", required_argument, 0, 'r'},     {"db", required_argument, 0, 'D'},
        {"registry", required_argument, 0, 'R'}, {"skills", required_argument, 0, 'k'},
        {"raw", required_argument, 0, 'w'},      {"min-speedup", required_argument, 0, 'x'},
        {"keep-temp", no_argument, 0, 'K'},      {"json", no_argument, 0, 'J'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    int c, idx = 0;
    while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (c == '?' || !strchr(allowed, c)) {
            if (c != '?')
                fprintf(stderr, "solbook: forge %s: option --%s does not apply\n", argv[0], opts[idx].name);
            usage(stderr);
            return -1;
        }
        switch (c) {
        case 'r': a->root = optarg; break;
        case 'D': a->db = optarg; break;
        case 'R': a->registry = optarg; break;
        case 'k': a->skills = optarg; break;
        case 'w': a->raw = optarg; break;
        case 'x': if (parse_double("--min-speedup", optarg, &a->min_speedup)) return -1; break;
        case 'K': a->keep_temp = 1; break;
        case 'J': a->json = 1; break;
        default: break;
        }
    }
    if (need_run) {
        if (optind + 1 != argc) {
            fprintf(stderr, "solbook: forge %s: give exactly one RUN (a run folder or id)\n", argv[0]);
            return -1;
        }
        a->run = argv[optind];
    } else if (optind != argc) {
        fprintf(stderr, "solbook: forge %s: unexpected argument '%s'\n", argv[0], argv[optind]);
        return -1;
    }
    return 0;
}

static int forge_prompt(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, "rk", &a, 1);
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
        printf("%-9s %-8s %s\n", json_string_value(json_object_get(g, "name")),
               json_string_value(json_object_get(g, "verdict")), json_string_value(json_object_get(g, "detail")));
        size_t j;
        json_t *f;
        json_array_foreach(json_object_get(g, "findings"), j, f) printf("          %s\n", json_string_value(f));
    }
}

static int forge_verify(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, "rK", &a, 1);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096];
    if (sb_forge_run_dir(a.run, a.root, dir, sizeof dir, &err) != SB_OK)
        return fail(&err);
    sb_forge_verify_opts o = {a.keep_temp};
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
    int p = parse_run_args(argc, argv, "rDxw", &a, 1);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096];
    if (sb_forge_run_dir(a.run, a.root, dir, sizeof dir, &err) != SB_OK)
        return fail(&err);
    sb_forge_bench_opts o = {a.db, a.min_speedup, a.raw};
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
    json_array_foreach(json_object_get(report, "reasons"), i, c) printf("reason: %s\n", json_string_value(c));
    printf("bench: %s (%s/bench.json)\n", json_string_value(json_object_get(report, "verdict")), dir);
    json_decref(report);
    return verdict;
}

static int forge_promote(int argc, char **argv)
{
    run_args a;
    int p = parse_run_args(argc, argv, "rDR", &a, 1);
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
            printf("promote: refused: %s\n", line);
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
    int p = parse_run_args(argc, argv, "DJ", &a, 0);
    if (p)
        return p > 0 ? 0 : 2;
    sb_error err;
    sb_error_clear(&err);
    json_t *kernels = NULL;
    if (sb_forge_registry_list(a.db ? a.db : sb_default_db_path(), &kernels, &err) != SB_OK)
        return fail(&err);
    if (a.json) {
        char *s = json_dumps(kernels, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
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
        printf("%-56s %7.3fx %7.3fx  %-24.24s %s (%s)\n", json_string_value(json_object_get(k, "kernel_id")),
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
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (strcmp(argv[1], subs[i].name) == 0) {
            optind = 1;
            return subs[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "solbook: forge: unknown subcommand '%s' (task, prompt, verify, bench, promote, list)\n", argv[1]);
    return 2;
}
