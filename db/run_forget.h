/* run_forget.h - removing stored runs whole (`solbook forget`): the runs
 * row and every row that belongs to it (config, provenance, metrics,
 * correctness, training, ceilings, samples, the stored sample values and
 * the Nsight Compute sidecar's rows), all runs in one transaction.
 * Errors name the database (sb_db_fail). */
#ifndef SOLBOOK_DB_RUN_FORGET_H
#define SOLBOOK_DB_RUN_FORGET_H

#include <stddef.h>

#include "error.h"
#include "store.h"

/* What one removed run held. */
typedef struct sb_forgotten {
    long long run_id;
    char source_path[1024];   /* the path it was ingested from */
    char status[16];          /* passed, failed, skipped */
    long long samples;        /* stored sample values */
    long long ncu_values;     /* Nsight Compute sidecar values */
} sb_forgotten;

/* Removes the n runs ids[] and what belongs to them, filling out[i] for
 * each. All or nothing: an id that is no stored run is an error ("no run
 * N") and nothing is removed. */
int sb_runs_forget(sb_db *db, const long long *ids, size_t n, sb_forgotten *out, sb_error *err);

#endif
