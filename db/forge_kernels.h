/* forge_kernels.h - the promoted kernels (forge_kernels, created by
 * db/migrations/004_forge_kernels.sql): the runs a promotion cites, the
 * next version of a kernel, storing a promotion, and reading them all for
 * forge's registry export and the site's registry page. */
#ifndef SOLBOOK_DB_FORGE_KERNELS_H
#define SOLBOOK_DB_FORGE_KERNELS_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "store.h"

/* Every promoted kernel, sorted by kernel id, as verified_kernels.json's
 * "kernels" array: kernel_id, version, language, op, sku, dtype, shapes,
 * forge_run, author, author_kind, entry_point, min_speedup, speedup_min,
 * speedup_geomean, gpu_name, driver_version, commit, cases (parsed),
 * sources_sha256 (parsed), registry_path, status, evidence_level,
 * promoted_at. Errors name the database's path. */
int sb_db_forge_kernels(sb_db *db, json_t **kernels, sb_error *err);

/* A stored result run as a promotion checks it; text "" and numbers
 * NAN / -1 where the database has nothing. */
typedef struct sb_forge_cited_run {
    int found;          /* 0: no result run with that id */
    char status[16];
    int passed;         /* correctness.passed: 1, 0, -1 unknown */
    double median_ms;   /* NAN when absent */
    double max_abs_err; /* NAN when absent */
    char case_key[1024], provider[128], op[64], dtype[16], shape_key[512];
    char forge_run[128];  /* params.forge_run, "" when absent */
    char gpu_name[256], sku[128], hostname[256], driver[128], cuda_rt[64], git_sha[64];
    long long device_index; /* -1 when NULL */
} sb_forge_cited_run;

int sb_db_forge_cited_run(sb_db *db, long long run_id,
                          sb_forge_cited_run *r, sb_error *err);

/* The kernel id forge run run_id was promoted as, or "" (into id). */
int sb_db_forge_kernel_of_run(sb_db *db, const char *run_id, char *id,
                              size_t size, sb_error *err);

/* One more than the highest version of base_id (1 for a new kernel). */
int sb_db_forge_next_version(sb_db *db, const char *base_id, int *version,
                             sb_error *err);

/* One forge_kernels row; driver_version may be NULL. */
typedef struct sb_forge_kernel_row {
    const char *kernel_id, *base_id;
    long long version;
    const char *language, *op, *sku, *dtype, *shapes, *forge_run, *author, *author_kind,
        *entry_point;
    double min_speedup, speedup_min, speedup_geomean;
    const char *gpu_name, *driver_version, *git_sha, *cases_json, *sources_json, *registry_path,
        *status, *evidence_level, *promoted_at;
} sb_forge_kernel_row;

int sb_db_forge_kernel_insert(sb_db *db, const sb_forge_kernel_row *k,
                              sb_error *err);

#endif
