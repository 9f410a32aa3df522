/* ingest_prepared.h - the first of ingest's two steps, for the directory
 * walk's pipeline: a reader thread loads, validates, canonicalises and
 * hashes files (sb_ingest_prepare touches no database) while the main
 * thread stores the ones before (sb_ingest_store_prepared, ingest.h).
 * Knows nothing of the ingest that stores. Internal to ingest/. */
#ifndef SOLBOOK_INGEST_PREPARED_H
#define SOLBOOK_INGEST_PREPARED_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "json_schema.h"
#include "run_store.h"
#include "sha256.h"

/* Longest ceiling name stored (bw.NAME, gemm.DTYPE), with its NUL. */
#define SB_CEILING_NAME_MAX 128

/* Copies of the document's strings the rows point to, so the document can
 * be freed as soon as it is prepared (while it is still in the cache). */
typedef struct sb_string_block sb_string_block;

typedef struct sb_ingest_prepared {
    sb_string_block *strings; /* what rec's strings from the document point into */
    int strings_oom;          /* a copy failed: the document is refused */
    char *raw;        /* canonical JSON as stored (a result without its samples) */
    size_t raw_len;
    char sha256[SB_SHA256_HEX_LEN + 1];
    int kind;         /* result, training or calibration */
    /* The rows to write; the source and time are set when stored. */
    sb_run_record rec;
    sb_config_row config;
    sb_metrics_row metrics;
    sb_correctness_row correctness;
    sb_training_row training;
    /* What rec points to that is not in doc. */
    char *packages_json, *shape_key, *shape_json, *params_json, *case_key, *patch_kernels_json;
    double *samples;
    size_t *rep_len;
    sb_ceiling_row *ceilings;
    char *ceiling_names;   /* SB_CEILING_NAME_MAX bytes each */
} sb_ingest_prepared;

/* Schema selection (from schemas) and validation, count checks, canonical
 * form, digest, and the rows to store. Reads only the schema set: safe on
 * another thread than the one storing. p keeps no reference to doc: the
 * caller may free doc at once. */
int sb_ingest_prepare(const sb_schema_set *schemas, json_t *doc, const char *source,
                      sb_ingest_prepared *p, sb_error *err);

void sb_ingest_prepared_free(sb_ingest_prepared *p);

#endif
