/* experiment.h - experiments as data: data/experiments/NAME.json files
 * (data/schemas/solbook.experiment.v1.json, docs/FLEET.md).
 *
 * An experiment names the solbench command lines to run (one array task
 * per case), the archs it runs on with the resources one case needs there
 * (GPUs, CPU cores, host memory, wall time, whether and how Nsight Compute
 * runs), what each case writes under the run's output directory, and the
 * gate or report that reads the results. Loading validates the file
 * against the schema and then checks what a schema cannot say (unique case
 * ids, known archs, placeholders, the programs, profile cases that
 * write one result), naming the file and the JSON pointer of the problem.
 */
#ifndef SOLBOOK_FLEET_EXPERIMENT_H
#define SOLBOOK_FLEET_EXPERIMENT_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

typedef struct sb_exp_ncu {
    int enabled;
    const char *const *metrics;   /* n_metrics names */
    size_t n_metrics;
    long launch_skip, launch_count;
} sb_exp_ncu;

typedef struct sb_exp_arch {
    const char *arch;     /* a100 | h100 | h200 */
    long gpus, cpus, memory_gb;
    const char *time;     /* HH:MM:SS */
    long time_seconds;
    sb_exp_ncu ncu;
} sb_exp_arch;

typedef struct sb_exp_command {
    const char *const *argv;   /* argc words, argv[0] "solbench", "solbench-spread" or "llama-fsdp"
                                  (bench/train/run_llama_fsdp.sh); placeholders unreplaced */
    size_t argc;
} sb_exp_command;

typedef struct sb_exp_case {
    const char *id, *what;
    int profile;               /* run under ncu where the arch enables it */
    const sb_exp_command *commands;
    size_t n_commands;
    const char *const *writes; /* relative to {out} */
    size_t n_writes;
} sb_exp_case;

typedef struct sb_experiment {
    const char *path;          /* the file it was read from */
    const char *name, *description;
    const sb_exp_arch *archs;  /* in the file's order */
    size_t n_archs;
    const sb_exp_case *cases;
    size_t n_cases;
    const char *gate_name, *gate_reads;
    const char *const *gate_command;
    size_t gate_argc;
} sb_experiment;

/* The placeholders: command words may hold {out} {arch} {experiment}
 * {case} {gpus}; write paths the same less {out} (they are relative to
 * it); the gate command {arch} {experiment} {sku}. Anything else in braces
 * is an error at load time. */
#define SB_EXP_PLACEHOLDERS "{out} {arch} {experiment} {case} {gpus} {sku}"

/* The largest experiment file read, in bytes. The shipped ones take a few
 * KB and 1000 cases (the schema's most) of ordinary commands under 1 MiB;
 * a rendered Job or script and the tree it is built from take several
 * times the file, so a larger one is refused unparsed: a 192 MB file
 * took 870 MB to render as a Kubernetes Job. */
#define SB_EXPERIMENT_MAX_BYTES ((size_t)4 << 20)

/* Reads path strictly (at most SB_EXPERIMENT_MAX_BYTES), validates it against schema_path
 * (NULL: SOLBOOK_HOME/data/schemas/solbook.experiment.v1.json) and checks it.
 * known_archs is a NULL-terminated list of the archs of data/skus.csv (NULL:
 * not checked). The file name (less .json) must equal "name". */
int sb_experiment_load(const char *path, const char *schema_path,
                       const char *const *known_archs, sb_experiment **out,
                       sb_error *err);
void sb_experiment_free(sb_experiment *e);

/* The arch entry, or NULL when the experiment does not run on arch. */
const sb_exp_arch *sb_experiment_arch(const sb_experiment *e, const char *arch);

/* Whether case c runs under ncu on arch a. */
int sb_exp_case_profiled(const sb_exp_case *c, const sb_exp_arch *a);

/* For a profile case: the command's --out value (a NAME.json path, with
 * placeholders), or NULL. */
const char *sb_exp_case_result_out(const sb_exp_case *c);

/* All the experiments of a directory (every *.json, sorted by name). A
 * file that fails to load is not skipped: the whole call fails with that
 * file's error, so a broken experiment is never silently absent. */
typedef struct sb_experiment_set {
    sb_experiment **v;
    size_t n;
} sb_experiment_set;

int sb_experiment_set_load(const char *dir, const char *schema_path,
                           const char *const *known_archs, sb_experiment_set *out,
                           sb_error *err);
void sb_experiment_set_free(sb_experiment_set *s);
/* NULL when no experiment has that name. */
const sb_experiment *sb_experiment_set_find(const sb_experiment_set *s, const char *name);

/* Replaces the placeholders of text. vars holds the values in the order of
 * SB_EXP_PLACEHOLDERS (out, arch, experiment, case, gpus, sku); a NULL
 * value leaves its placeholder as written. Returns a malloc'd string, or
 * NULL when out of memory. */
typedef struct sb_exp_vars {
    const char *out, *arch, *experiment, *case_id, *gpus, *sku;
} sb_exp_vars;
char *sb_exp_expand(const char *text, const sb_exp_vars *vars);

/* Seconds of an HH:MM:SS text, -1 when malformed. */
long sb_exp_parse_time(const char *text);

#endif
