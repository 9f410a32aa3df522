/* ingest_prepared.h - ingest in two steps, for the directory walk's
 * pipeline: a reader thread loads, validates, canonicalises and hashes
 * files (sb_ingest_prepare touches no database) while the main thread
 * stores the ones before (sb_ingest_store_prepared). Internal to ingest/. */
#ifndef SOLBOOK_INGEST_PREPARED_H
#define SOLBOOK_INGEST_PREPARED_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "ingest.h"
#include "sha256.h"

typedef struct sb_ingest_prepared {
    json_t *doc;      /* own reference */
    char *raw;        /* canonical JSON */
    size_t raw_len;
    char sha256[SB_SHA256_HEX_LEN + 1];
    int kind;         /* result, training or calibration */
} sb_ingest_prepared;

/* Schema selection and validation, count checks, canonical form, digest.
 * Reads only the schema set: safe on another thread than the one storing. */
int sb_ingest_prepare(const sb_ingest *ing, json_t *doc, const char *source,
                      sb_ingest_prepared *p, sb_error *err);

/* Stores a prepared document (one transaction, or a savepoint in a batch). */
int sb_ingest_store_prepared(sb_ingest *ing, const sb_ingest_prepared *p, const char *source,
                             const char *source_format, long long *run_id, int *duplicate,
                             sb_error *err);

void sb_ingest_prepared_free(sb_ingest_prepared *p);

/* sb_ingest_attach_ncu of a CSV in memory (an archive's member); name
 * (archive:member) is stored as the profile's source_path. */
int sb_ingest_attach_ncu_buffer(sb_ingest *ing, long long run_id, const char *csv, size_t len,
                                const char *name, long *rows, sb_error *err);

/* 1 while a batch (sb_ingest_begin) is open. */
int sb_ingest_in_batch(const sb_ingest *ing);

#endif
