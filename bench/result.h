/* result.h - reporting: a measurement (harness.h) plus its context becomes a
 * solbook.result.v1 document; derived metrics come from the op's FLOP/byte
 * model, the SKU's datasheet peaks and, optionally, a calibration file.
 */
#ifndef SOLBOOK_BENCH_RESULT_H
#define SOLBOOK_BENCH_RESULT_H

#include <jansson.h>

#include "error.h"
#include "harness.h"
#include "op.h"
#include "result_doc.h"
#include "sku.h"

typedef struct sb_result_env {
    const char *suite;         /* config.suite */
    const json_t *provenance;  /* copied into every result */
    const sb_sku *sku;         /* datasheet peaks; NULL when unknown (CPU) */
    const json_t *calibration; /* solbook.calibration.v1, or NULL */
    char calibration_sha256[65];
} sb_result_env;

/* Loads a calibration file (strict JSON, schema id checked) and its sha256.
 * When prov_sku is given and the file names another SKU, refuses it. */
int sb_calibration_load(const char *path, const char *prov_sku, json_t **out, char sha256[65],
                        sb_error *err);

/* Builds one result document; NULL only when out of memory. */
json_t *sb_result_build(const sb_result_env *env, const sb_op *op, const sb_op_config *cfg,
                        int provider, const sb_measurement *m);

/* 32 lowercase hex digits of /dev/urandom (time and pid if unreadable). */
void sb_random_uuid(char out[33]);

/* File name for one result: op-dtype-shape-params-provider.json. */
void sb_result_file_name(const sb_op *op, const sb_op_config *cfg, int provider, char *buf,
                         size_t size);

/* Statistics of a measurement's samples (iters a repeat; model/stats.h).
 * -1 when it holds none or memory runs out. */
int sb_measurement_stats(const sb_measurement *m, sb_sample_stats *st);

/* The timing object of a measurement's samples (model/result_doc.h), its
 * median in *median_ms; NULL when it holds none or memory runs out. */
json_t *sb_measurement_timing(const sb_measurement *m, double *median_ms);

/* Median of the samples in ms; NAN when there are none. */
double sb_measurement_median(const sb_measurement *m);

#endif
