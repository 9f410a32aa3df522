/* task.h - forge runs: the task spec (spec.json), run folders, op traits,
 * and the rendered prompt (prompt.md).
 *
 * A run lives in ROOT/RUN_ID/: spec.json (solbook.forge-spec.v1), then
 * prompt.md, candidate/, verify.json, bench.json, promotion.json as the
 * pipeline goes on (docs/FORGE.md).
 */
#ifndef SOLBOOK_FORGE_TASK_H
#define SOLBOOK_FORGE_TASK_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

#define SB_FORGE_MAX_SHAPES 16
#define SB_FORGE_DEFAULT_MIN_SPEEDUP 1.10

typedef struct sb_forge_task_opts {
    const char *op;
    const char *mode;          /* NULL: fwd */
    const char *sku;           /* data/skus.csv id */
    const char *dtype;
    const char *objective;     /* latency | memory */
    const char *language;      /* NULL: cuda */
    const char *shapes[SB_FORGE_MAX_SHAPES]; /* "M=4096,N=4096" */
    size_t shape_count;
    const char *root;          /* NULL: forge_runs */
    const char *id;            /* NULL: DATE-OP-HASH */
    double min_speedup;        /* 0: SB_FORGE_DEFAULT_MIN_SPEEDUP */
    int compile_s, test_s, bench_s; /* 0: 300, 120, 300 */
    const char *skus_csv;      /* NULL: SOLBOOK_HOME/data/skus.csv */
    const char *reference;     /* NULL, or a reference.cu/.c the run fixes for every candidate */
} sb_forge_task_opts;

/* Validates the options, writes ROOT/ID/spec.json (refusing an existing
 * run folder) and returns the run folder in run_dir. */
int sb_forge_task_create(const sb_forge_task_opts *o, char *run_dir, size_t size, sb_error *err);

/* Parses "M=4096,N=4096" into a new JSON object. */
int sb_forge_parse_shape(const char *text, json_t **out, sb_error *err);

/* The run folder of RUN: RUN itself when it holds spec.json, else ROOT/RUN
 * (root NULL: forge_runs). */
int sb_forge_run_dir(const char *run, const char *root, char *out, size_t size, sb_error *err);

/* Loads RUN_DIR/spec.json and validates it against solbook.forge-spec.v1. */
int sb_forge_spec_load(const char *run_dir, json_t **spec, sb_error *err);

/* The run's own reference (spec "reference"): *path gets RUN_DIR/FILE and
 * *name FILE, after checking that its bytes still have the recorded
 * sha256. Both get "" when the task gave none. */
int sb_forge_run_reference(const char *run_dir, const json_t *spec, char *path, size_t size,
                           const char **name, sb_error *err);

/* Validates doc against SOLBOOK_HOME/data/schemas/ID.json; file names the
 * document in the error. */
int sb_forge_schema_check(const char *schema_id, const json_t *doc, const char *file,
                          sb_error *err);

/* "memory", "compute" or "unknown" for an op name (forge's op table). */
const char *sb_forge_op_bound(const char *op);

/* nvcc -arch for an arch label ("sm_80" for a100, "sm_90" for h100/h200),
 * NULL for others. */
const char *sb_forge_nvcc_arch(const char *arch);

/* Canonical shape text "M=4096,N=4096" (names in object order). */
void sb_forge_shape_text(const json_t *shape, char *buf, size_t size);

/* Renders the prompt for the run (template data/templates/forge/prompt.md,
 * playbooks from playbooks_dir, NULL: SOLBOOK_HOME/data/forge/skills) into a
 * malloc'd string; writes the chosen playbook ids, comma-separated, into
 * chosen. */
int sb_forge_prompt_render(const json_t *spec, const char *playbooks_dir, const char *skus_csv,
                           char **out, char *chosen, size_t chosen_size, sb_error *err);

/* Joins a and b with '/', SB_ERR when it does not fit. */
int sb_forge_path(char *buf, size_t size, const char *a, const char *b, sb_error *err);

#endif
