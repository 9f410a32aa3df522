/* forge_kernels.h - reading the promoted kernels (forge_kernels, created by
 * db/migrations/004_forge_kernels.sql) for forge's registry export and the
 * site's registry page. */
#ifndef SOLBOOK_DB_FORGE_KERNELS_H
#define SOLBOOK_DB_FORGE_KERNELS_H

#include <jansson.h>
#include <sqlite3.h>

#include "error.h"

/* Every promoted kernel, sorted by kernel id, as verified_kernels.json's
 * "kernels" array: kernel_id, version, language, op, sku, dtype, shapes,
 * forge_run, author, author_kind, entry_point, min_speedup, speedup_min,
 * speedup_geomean, gpu_name, driver_version, commit, cases (parsed),
 * sources_sha256 (parsed), registry_path, status, evidence_level,
 * promoted_at. path names the database in errors. */
int sb_db_forge_kernels(sqlite3 *conn, const char *path, json_t **kernels, sb_error *err);

#endif
