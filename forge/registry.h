/* registry.h - `solbook forge promote` and `solbook forge list`: the
 * registry of promoted kernels.
 *
 * The registry is a table in the solbook database (forge_kernels, created
 * by db/migrations/004_forge_kernels.sql, read through db/forge_kernels.h),
 * plus a folder
 * (default forge/registry) with one subfolder per kernel id holding the
 * promoted sources and promotion.json, and verified_kernels.json, the
 * table exported, sorted by kernel id.
 *
 * Promotion re-checks everything from the recorded evidence: verify.json
 * passed on the files as they are now, bench.json passed on the same files,
 * and the database rows of every candidate/baseline pair: both stored,
 * both status passed with correctness passed, the same benchmark case (so
 * the same forge run and bench session), the same card, the task's SKU,
 * and baseline median / candidate median at least the required speedup.
 */
#ifndef SOLBOOK_FORGE_REGISTRY_H
#define SOLBOOK_FORGE_REGISTRY_H

#include <jansson.h>

#include "error.h"
#include "store.h"

typedef struct sb_forge_promote_opts {
    const char *db_path;     /* NULL: the bench.json's database */
    const char *registry;    /* NULL: forge/registry */
} sb_forge_promote_opts;

/* Promotes RUN_DIR. On success *promotion is the promotion.json document.
 * When a gate refuses, returns SB_ERR with *refused = 1 and the reason in
 * err; system errors leave *refused = 0. */
int sb_forge_promote(const char *run_dir, const sb_forge_promote_opts *o, int *refused,
                     json_t **promotion, sb_error *err);

/* Every promoted kernel, sorted by kernel id, as verified_kernels.json's
 * "kernels" array (sb_db_forge_kernels on the database at db_path). */
int sb_forge_registry_list(const char *db_path, json_t **kernels, sb_error *err);

/* Writes REGISTRY/verified_kernels.json from the database. */
int sb_forge_registry_export(const char *db_path, const char *registry, sb_error *err);

/* <language>_<op>_<sku>_<dtype>_<shape> for a spec (without _v<n>). */
void sb_forge_kernel_base_id(const json_t *spec, char *buf, size_t size);

#endif
