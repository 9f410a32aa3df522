/* run_devices.h - the physical card each result run was measured on: the
 * GPU UUID of its stored provenance (provenance.device.uuid), which runs
 * holds in gpu_uuid, taken from raw_json as the run is stored (migration
 * 013). Regressions prefer steps between runs of one card
 * (report/regress.h). */
#ifndef SOLBOOK_DB_RUN_DEVICES_H
#define SOLBOOK_DB_RUN_DEVICES_H

#include <stddef.h>

#include "error.h"
#include "run_cards.h"
#include "store.h"
#include "stored_result.h"

/* Every result run's GPU UUID (schema solbook.result.v1), into *out. */
int sb_run_devices_load(sb_db *db, sb_run_devices *out, sb_error *err);
/* The GPU UUIDs of the runs of set (its v) only, each read through the
 * runs' primary key: for a set that is a small part of the database
 * (compare's two sides), instead of reading every run. */
int sb_run_devices_load_set(sb_db *db, const sb_result_set *set, sb_run_devices *out,
                            sb_error *err);
/* The same for the n runs run_ids (in any order, repeats allowed). */
int sb_run_devices_load_ids(sb_db *db, const long long *run_ids, size_t n, sb_run_devices *out,
                            sb_error *err);

#endif
