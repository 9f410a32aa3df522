/* ingest.h - validated, all-or-nothing storage of result files.
 *
 * Each file is read strictly (core/json_file.h), its schema chosen by its
 * own "schema" field, validated, and stored in one transaction; a bad file
 * stores nothing and the others still go in. --strict turns a whole batch
 * into one transaction.
 */
#ifndef SOLBOOK_INGEST_INGEST_H
#define SOLBOOK_INGEST_INGEST_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"

typedef struct sb_ingest sb_ingest;   /* opaque: database + schema set */

typedef struct sb_ingest_stats {
    long files_seen;
    long stored;        /* new runs written */
    long duplicates;    /* identical content already stored */
    long refused;       /* files refused (each reported once) */
    long ncu_attached;  /* ncu sidecars attached */
} sb_ingest_stats;

/* Opens (creating and migrating) the database at db_path and loads the
 * schemas from schemas_dir. */
int sb_ingest_open(const char *db_path, const char *schemas_dir, sb_ingest **out, sb_error *err);
void sb_ingest_close(sb_ingest *ing);

/* Stores one already-parsed document (any solbook schema). source names
 * where it came from (path, or "liger.csv:12"); source_format is
 * "solbook", "liger-csv", ... On success *run_id is the stored run's id
 * (the existing one when the content was already stored, with *duplicate
 * set to 1). Validates first; nothing is stored on error. */
int sb_ingest_document(sb_ingest *ing, json_t *doc, const char *source,
                       const char *source_format, long long *run_id,
                       int *duplicate, sb_error *err);

/* Begins/commits/rolls back an explicit batch transaction around several
 * sb_ingest_document calls (importers: one file = one transaction). */
int sb_ingest_begin(sb_ingest *ing, sb_error *err);
int sb_ingest_commit(sb_ingest *ing, sb_error *err);
void sb_ingest_rollback(sb_ingest *ing);

#endif
