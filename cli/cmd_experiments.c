/* cmd_experiments.c - `solbook experiments list|explain`: what the
 * experiments of data/experiments/ run, where, what they write and what reads
 * it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "experiment.h"
#include "fleet_skus.h"
#include "home.h"
#include "render.h"
#include "strbuf.h"
#include "term.h"

static const char *const experiments_usage[] = {
    "solbook experiments list [--dir DIR]",
    "solbook experiments explain NAME --arch ARCH [--dir DIR]",
    "",
    "list     every experiment: name, archs, the gate it feeds, description",
    "explain  what NAME runs on ARCH: the exact commands of each case, the SKUs of",
    "         that arch (data/skus.csv) a job may land on, the resources one case asks",
    "         for, the paths it writes, and the gate or report that reads them",
    "",
    "Experiment files are checked against data/schemas/solbook.experiment.v1.json;",
    "a bad one is reported with its file and JSON pointer (exit 1).",
    "Run them with 'solbook submit NAME --arch ARCH --engine kubernetes|slurm'.",
    NULL,
};

/* Loads the SKUs and every experiment; prints the error and returns the
 * exit status on failure (1 for a bad experiment file, 2 otherwise). */
static int load_all(const char *dir, sb_fleet_skus *skus, sb_experiment_set *set)
{
    sb_error err;
    sb_error_clear(&err);
    char def[4096];
    if (sb_fleet_skus_load(NULL, skus, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    if (!dir) {
        if (sb_data_path(def, sizeof def, "experiments", &err) != SB_OK) {
            sb_error_print(&err, stderr);
            sb_fleet_skus_free(skus);
            return 2;
        }
        dir = def;
    }
    if (sb_experiment_set_load(dir, NULL, skus->archs, set, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_fleet_skus_free(skus);
        /* An unreadable directory is a usage error; a bad file is a finding. */
        return strcmp(err.file, dir) == 0 ? 2 : 1;
    }
    return 0;
}

static int list(const sb_experiment_set *set)
{
    size_t wn = 4, wa = 5, wg = 4;
    char archs[256];
    for (size_t i = 0; i < set->n; i++) {
        const sb_experiment *e = set->v[i];
        size_t al = 0;
        for (size_t a = 0; a < e->n_archs; a++)
            al += strlen(e->archs[a].arch) + 1;
        wn = strlen(e->name) > wn ? strlen(e->name) : wn;
        wa = al > wa ? al : wa;
        wg = strlen(e->gate_name) > wg ? strlen(e->gate_name) : wg;
    }
    printf("%-*s  %-*s  %-*s  %s\n", (int)wn, "name", (int)wa, "archs", (int)wg, "gate", "description");
    for (size_t i = 0; i < set->n; i++) {
        const sb_experiment *e = set->v[i];
        size_t n = 0;
        archs[0] = '\0';
        for (size_t a = 0; a < e->n_archs && n < sizeof archs; a++)
            n += (size_t)snprintf(archs + n, sizeof archs - n, "%s%s", a ? "," : "", e->archs[a].arch);
        /* the description is the file's free text: one line, its
         * control characters shown as escapes (core/term.h) */
        sb_term_line(stdout, "%-*s  %-*s  %-*s  %s", (int)wn, e->name, (int)wa, archs, (int)wg, e->gate_name,
                     e->description);
    }
    return 0;
}

static void put_words(sb_buf *b, const char *const *words, size_t n, const sb_exp_vars *vars)
{
    for (size_t i = 0; i < n; i++) {
        char *x = sb_exp_expand(words[i], vars);
        char *q = x ? sb_fleet_shell_quote(x) : NULL;
        sb_buf_printf(b, "%s%s", i ? " " : "", q ? q : words[i]);
        free(q);
        free(x);
    }
}

static int explain(const sb_experiment *e, const char *arch, const sb_fleet_skus *skus)
{
    const sb_exp_arch *a = sb_experiment_arch(e, arch);
    if (!a) {
        sb_buf archs = SB_BUF_INIT;
        for (size_t i = 0; i < e->n_archs; i++)
            sb_buf_printf(&archs, " %s", e->archs[i].arch);
        sb_term_line(stderr, "solbook: %s: experiment %s does not run on %s (it runs on%s)", e->path, e->name, arch,
                     sb_buf_str(&archs));
        sb_buf_free(&archs);
        return 2;
    }
    /* What the file says (its description, each case's line, commands,
     * paths and the gate's words) goes out through sb_term_line: an
     * experiment from --dir is anyone's text, and raw it could rewrite
     * the terminal or hide a line. */
    sb_term_line(stdout, "experiment %s (%s)", e->name, e->path);
    sb_term_line(stdout, "  %s", e->description);
    printf("\n");
    printf("arch %s, on any of these SKUs (data/skus.csv):\n", arch);
    for (size_t i = 0; i < skus->n; i++) {
        const sb_fleet_sku *k = &skus->v[i];
        if (strcmp(k->arch, arch) != 0)
            continue;
        printf("  %-16s %s; nvidia.com/gpu.product", k->id, k->display);
        for (size_t p = 0; p < k->n_products; p++)
            printf("%s%s", p ? " or " : " = ", k->products[p]);
        printf("\n");
    }
    printf("\neach case asks for %ld GPU%s, %ld CPU core%s, %ld GiB host memory, at most %s;\n", a->gpus,
           a->gpus == 1 ? "" : "s", a->cpus, a->cpus == 1 ? "" : "s", a->memory_gb, a->time);
    if (a->ncu.enabled) {
        printf("Nsight Compute runs the profile cases: skips %ld launches, profiles the next %ld;\n"
               "(Kubernetes: the container gets CAP_SYS_ADMIN for the performance counters)\nNCU_METRICS=",
               a->ncu.launch_skip, a->ncu.launch_count);
        for (size_t i = 0; i < a->ncu.n_metrics; i++)
            printf("%s%s", i ? "," : "", a->ncu.metrics[i]);
        printf("\n");
    } else {
        printf("Nsight Compute off on %s\n", arch);
    }
    printf("\nOUT is ROOT/%s/%s/RUN_ID: ROOT is %s on Kubernetes (the PVC of --output-volume,\n"
           "default %s) and --output-volume PATH on Slurm (default ./%s);\n"
           "RUN_ID is --run-id, default the submit time YYYYMMDDTHHMMSSZ.\n\n",
           e->name, arch, SB_K8S_RESULTS_MOUNT, SB_K8S_DEFAULT_CLAIM, SB_SLURM_DEFAULT_ROOT);
    printf("%zu case%s, one array task each (Slurm --array=0-%zu, Kubernetes Indexed Job of %zu):\n", e->n_cases,
           e->n_cases == 1 ? "" : "s", e->n_cases - 1, e->n_cases);
    char gpus[16];
    snprintf(gpus, sizeof gpus, "%ld", a->gpus);
    for (size_t i = 0; i < e->n_cases; i++) {
        const sb_exp_case *c = &e->cases[i];
        sb_exp_vars vars = {.out = "OUT", .arch = arch, .experiment = e->name, .case_id = c->id, .gpus = gpus};
        sb_term_line(stdout, "  [%zu] %s: %s", i, c->id, c->what);
        for (size_t k = 0; k < c->n_commands; k++) {
            char *line = sb_render_command_line(c, k, a, &vars);
            if (!line) {
                fprintf(stderr, "solbook: out of memory\n");
                return 2;
            }
            for (char *s = line, *nl; s; s = nl ? nl + 1 : NULL) {
                nl = strchr(s, '\n');
                sb_term_line(stdout, "      $ %.*s", nl ? (int)(nl - s) : (int)strlen(s), s);
            }
            free(line);
        }
        sb_buf writes = SB_BUF_INIT;
        for (size_t w = 0; w < c->n_writes; w++) {
            char *x = sb_exp_expand(c->writes[w], &vars);
            sb_buf_printf(&writes, " OUT/%s", x ? x : c->writes[w]);
            free(x);
        }
        sb_term_line(stdout, "      writes:%s", sb_buf_str(&writes));
        sb_buf_free(&writes);
    }
    printf("\nthen: solbook ingest --fleet ROOT/%s/%s (one final result per case, provider and arch;\n"
           "duplicates and partial files are named and not stored)\n",
           e->name, arch);
    printf("\ngate %s reads them:\n", e->gate_name);
    int per_sku = 0;
    for (size_t i = 0; i < e->gate_argc; i++)
        per_sku |= strstr(e->gate_command[i], "{sku}") != NULL;
    for (size_t i = 0; i < skus->n; i++) {
        if (per_sku && strcmp(skus->v[i].arch, arch) != 0)
            continue;
        sb_exp_vars vars = {.arch = arch, .experiment = e->name, .sku = skus->v[i].id};
        sb_buf words = SB_BUF_INIT;
        put_words(&words, e->gate_command, e->gate_argc, &vars);
        sb_term_line(stdout, "  $ %s", sb_buf_str(&words));
        sb_buf_free(&words);
        if (!per_sku)
            break;
    }
    sb_term_line(stdout, "  %s", e->gate_reads);
    return 0;
}

int cmd_experiments(int argc, char **argv)
{
    const char *dir = NULL, *arch = NULL;
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('d', "dir", &dir, "dir", "experiment files (default: SOLBOOK_HOME/data/experiments)"),
        SB_OPT_STRING('a', "arch", &arch, "arch", "a100, h100 or h200 (the arch column of data/skus.csv)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "experiments", options, experiments_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc == 0) {
        fprintf(stderr, "solbook experiments: give list or explain NAME --arch ARCH (solbook experiments --help)\n");
        return 2;
    }
    const char *verb = argv[0];
    int is_list = strcmp(verb, "list") == 0, is_explain = strcmp(verb, "explain") == 0;
    if (!is_list && !is_explain) {
        fprintf(stderr, "solbook experiments: %s: not list or explain\n", verb);
        return 2;
    }
    if (is_list && argc != 1) {
        fprintf(stderr, "solbook experiments list: unexpected argument %s\n", argv[1]);
        return 2;
    }
    if (is_explain && argc != 2) {
        fprintf(stderr, "solbook experiments explain: give one experiment NAME (solbook experiments list names them)\n");
        return 2;
    }
    if (is_explain && !arch) {
        fprintf(stderr, "solbook experiments explain: --arch ARCH is required (a100, h100, h200)\n");
        return 2;
    }
    sb_fleet_skus skus;
    sb_experiment_set set;
    int rc = load_all(dir, &skus, &set);
    if (rc)
        return rc;
    if (is_list) {
        rc = list(&set);
    } else {
        const char *name = argv[1];
        const sb_experiment *e = sb_experiment_set_find(&set, name);
        int arch_known = 0;
        for (size_t i = 0; skus.archs[i]; i++)
            arch_known |= strcmp(skus.archs[i], arch) == 0;
        if (!e) {
            fprintf(stderr, "solbook: no experiment %s (known:", name);
            for (size_t i = 0; i < set.n; i++)
                fprintf(stderr, " %s", set.v[i]->name);
            fprintf(stderr, ")\n");
            rc = 2;
        } else if (!arch_known) {
            fprintf(stderr, "solbook: --arch %s: not an arch of data/skus.csv (", arch);
            for (size_t i = 0; skus.archs[i]; i++)
                fprintf(stderr, "%s%s", i ? ", " : "", skus.archs[i]);
            fprintf(stderr, ")\n");
            rc = 2;
        } else {
            rc = explain(e, arch, &skus);
        }
    }
    sb_experiment_set_free(&set);
    sb_fleet_skus_free(&skus);
    return rc;
}
