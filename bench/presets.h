/* presets.h - named lists of cases for `solbench suite --preset NAME`.
 *
 * A preset is a row of sb_preset_table (bench/presets.c): a name, a line of
 * description, and a constant array of cases. A case names an op of the op
 * table and gives its mode, dtype, shape and params as text:
 *
 *   {"gemm", "fwd", "fp16", "M=4096,N=14336,K=4096", "transa=n,transb=t"}
 *   {"rmsnorm", "fwd", "bf16", "BT=8192,H=4096", "eps=1e-6"}
 *
 * Shape names and param names must be the op's own (op.h); params left out
 * take the op's defaults. Every case runs every provider of the op that
 * suits the device (CUDA providers on a GPU, the CPU provider with --device
 * cpu), and each (case, provider) gives one result file. To add a preset,
 * add a case array and a row to sb_preset_table in presets.c.
 */
#ifndef SOLBOOK_BENCH_PRESETS_H
#define SOLBOOK_BENCH_PRESETS_H

#include <stddef.h>

typedef struct sb_preset_case {
    const char *op;
    const char *mode;    /* NULL: the op's default mode */
    const char *dtype;
    const char *shape;   /* "M=4096,N=4096,K=4096" */
    const char *params;  /* "transa=n,transb=n" or NULL */
} sb_preset_case;

typedef struct sb_preset {
    const char *name;         /* also config.suite of every result */
    const char *description;
    const sb_preset_case *cases;
    size_t case_count;
} sb_preset;

/* The table, ended by a zeroed row. */
extern const sb_preset sb_preset_table[];
const sb_preset *sb_preset_find(const char *name);

#endif
