/* solbench_spread.c - `solbench-spread`: `solbench suite` over several GPUs
 * of one host (fleet/gpu_spread.h). The preset table is bench/presets.c
 * itself, compiled in, so the cases are the ones `solbench suite` runs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "gpu_spread.h"
#include "parse_options.h"
#include "presets.h"

static const char *const spread_usage[] = {
    "solbench-spread --preset NAME --out DIR [--gpus all|0,1,...] [--solbench PATH]",
    "                [-- SOLBENCH OPTIONS...]",
    "",
    "Runs every case of a solbench preset like 'solbench suite', spread over the GPUs",
    "of this host: one solbench process per GPU at a time, each case on the next free",
    "GPU, every result tagged with its GPU (provenance.device.index). Results go to a",
    "new folder DIR/NAME-YYYYMMDDTHHMMSSZ/ with one log per GPU (spread-gpuN.log).",
    "",
    "Options after -- go to every solbench call (--iters 20 --repeats 3",
    "--calibration FILE --provider P ...); not --device or --out.",
    "",
    "Exit status: 0 every case passed, 1 some correctness check failed (results",
    "written), 2 usage error or a case that could not run.",
    NULL,
};

typedef struct progress_ctx {
    const sb_preset *pr;
    size_t done;
} progress_ctx;

static void on_case(void *vctx, size_t i, const sb_spread_outcome *o)
{
    progress_ctx *c = vctx;
    const sb_preset_case *pc = &c->pr->cases[i];
    c->done++;
    printf("[%zu/%zu] case %zu %s %s%s%s %s", c->done, c->pr->case_count, i + 1, pc->op, pc->mode ? pc->mode : "",
           pc->mode ? " " : "", pc->dtype, pc->shape);
    if (o->gpu < 0)
        printf(": not run (its options could not be built)\n");
    else
        printf(" on GPU %d: exit %d, %.1f s\n", o->gpu, o->status, o->seconds);
    fflush(stdout);
}

static size_t count_results(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        n += l > 5 && strcmp(de->d_name + l - 5, ".json") == 0 && !strstr(de->d_name, ".tmp.");
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    const char *preset = NULL, *out = NULL, *gpus_text = "all", *solbench = getenv("SOLBENCH");
    if (!solbench || !*solbench)
        solbench = "solbench";
    const sb_option options[] = {
        SB_OPT_STRING(0, "preset", &preset, "name", "a preset of solbench (solbench suite --help lists them)"),
        SB_OPT_STRING(0, "out", &out, "dir", "an existing directory"),
        SB_OPT_STRING(0, "gpus", &gpus_text, "G",
                      "all (the default: the GPUs of CUDA_VISIBLE_DEVICES when set, else every\n"
                      "GPU NVML sees) or CUDA ordinals 0,1,..."),
        SB_OPT_STRING(0, "solbench", &solbench, "path",
                      "the solbench program (default: $SOLBENCH, else solbench on PATH)"),
        SB_OPT_END(),
    };
    sb_error perr;
    sb_error_clear(&perr);
    int n_args = sb_parse_options(argc, argv, options, 0, &perr);
    if (n_args == SB_PARSE_HELP)
        return sb_usage_write(stdout, spread_usage, options) == SB_OK ? 0 : 2;
    if (n_args < 0) {
        fprintf(stderr, "solbench-spread: %s (options for solbench go after --)\n", perr.msg);
        return 2;
    }
    char **extra = argv;
    size_t n_extra = (size_t)n_args;
    for (size_t i = 0; i < n_extra; i++) {
        if (!strcmp(extra[i], "--device") || !strncmp(extra[i], "--device=", 9) || !strcmp(extra[i], "--out") ||
            !strncmp(extra[i], "--out=", 6)) {
            fprintf(stderr, "solbench-spread: %s is set per case (--gpus, --out)\n", extra[i]);
            return 2;
        }
        if (!strcmp(extra[i], "--suite") || !strncmp(extra[i], "--suite=", 8)) {
            fprintf(stderr, "solbench-spread: --suite is the preset's name, as in solbench suite\n");
            return 2;
        }
    }
    if (!preset || !out) {
        fprintf(stderr, "solbench-spread: --preset NAME and --out DIR are required\n");
        return 2;
    }
    const sb_preset *pr = sb_preset_find(preset);
    if (!pr) {
        fprintf(stderr, "solbench-spread: no preset %s (", preset);
        for (size_t i = 0; sb_preset_table[i].name; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", sb_preset_table[i].name);
        fprintf(stderr, ")\n");
        return 2;
    }
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "solbench-spread: --out %s: not an existing directory\n", out);
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    int gpus[SB_SPREAD_MAX_GPUS], n_gpus = 0;
    if (strcmp(gpus_text, "all") == 0) {
        if (sb_spread_count_gpus(&n_gpus, &err) != SB_OK) {
            fprintf(stderr, "solbench-spread: --gpus all: cannot count the GPUs: %s\n", err.msg);
            return 2;
        }
        if (n_gpus == 0) {
            fprintf(stderr, "solbench-spread: --gpus all: no GPU (CUDA_VISIBLE_DEVICES empty, or NVML sees none)\n");
            return 2;
        }
        if (n_gpus > SB_SPREAD_MAX_GPUS)
            n_gpus = SB_SPREAD_MAX_GPUS;
        for (int i = 0; i < n_gpus; i++)
            gpus[i] = i;
    } else if (sb_spread_parse_gpus(gpus_text, gpus, SB_SPREAD_MAX_GPUS, &n_gpus, &err) != SB_OK) {
        fprintf(stderr, "solbench-spread: %s\n", err.msg);
        return 2;
    }

    char stamp[32], dir[4200];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(dir, sizeof dir, "%s/%s-%s", out, pr->name, stamp);
    for (int k = 2; mkdir(dir, 0777) != 0; k++) {
        if (errno != EEXIST || k > 99) {
            fprintf(stderr, "solbench-spread: %s: cannot create directory: %s\n", dir, strerror(errno));
            return 2;
        }
        snprintf(dir, sizeof dir, "%s/%s-%s-%d", out, pr->name, stamp, k);
    }
    sb_spread_case *cases = calloc(pr->case_count, sizeof *cases);
    sb_spread_outcome *outcomes = calloc(pr->case_count, sizeof *outcomes);
    if (!cases || !outcomes) {
        fprintf(stderr, "solbench-spread: out of memory\n");
        free(cases);
        free(outcomes);
        return 2;
    }
    for (size_t i = 0; i < pr->case_count; i++)
        cases[i] = (sb_spread_case){pr->cases[i].op, pr->cases[i].mode, pr->cases[i].dtype, pr->cases[i].shape,
                                    pr->cases[i].params};
    printf("solbench-spread: %zu cases of %s over %d GPU%s (", pr->case_count, pr->name, n_gpus,
           n_gpus == 1 ? "" : "s");
    for (int i = 0; i < n_gpus; i++)
        printf("%s%d", i ? "," : "", gpus[i]);
    printf(") into %s\n", dir);
    progress_ctx pc = {pr, 0};
    sb_spread_plan plan = {
        .solbench = solbench,
        .cases = cases,
        .n_cases = pr->case_count,
        .suite = pr->name,
        .gpus = gpus,
        .n_gpus = (size_t)n_gpus,
        .out_dir = dir,
        .extra = extra,
        .n_extra = n_extra,
        .log_dir = dir,
        .progress = on_case,
        .ctx = &pc,
    };
    int rc = sb_spread_run(&plan, outcomes, &err);
    int worst = 0;
    size_t per_gpu[SB_SPREAD_MAX_GPUS] = {0};
    for (size_t i = 0; i < pr->case_count; i++) {
        int s = outcomes[i].status;
        int w = s == 0 ? 0 : s == 1 ? 1 : 2;
        worst = w > worst ? w : worst;
        for (int g = 0; g < n_gpus; g++)
            per_gpu[g] += outcomes[i].gpu == gpus[g];
    }
    if (rc != SB_OK) {
        fprintf(stderr, "solbench-spread: %s\n", err.msg);
        worst = 2;
    }
    printf("%zu result files in %s; cases per GPU:", count_results(dir), dir);
    for (int g = 0; g < n_gpus; g++)
        printf(" %d:%zu", gpus[g], per_gpu[g]);
    printf("\n");
    if (worst == 2)
        fprintf(stderr, "solbench-spread: some cases did not run to the end; their GPU's spread-gpuN.log in %s says why\n",
                dir);
    free(cases);
    free(outcomes);
    return worst;
}
