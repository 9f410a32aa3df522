/* calibration.h - the measured ceilings of a card (solbook.calibration
 * runs) as reports read them: one calibration run and its ceilings made
 * into values (db/results_query.h loads them). Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_CALIBRATION_H
#define SOLBOOK_MODEL_CALIBRATION_H

#include <stddef.h>

typedef struct sb_ceiling {
    char name[64];   /* bw.copy, gemm.fp16, ... */
    char unit[16];   /* GB/s | TFLOP/s */
    double value;
} sb_ceiling;

/* One calibration run and the ceilings it stored. */
typedef struct sb_calibration {
    long long run_id;
    char gpu_uuid[96];       /* provenance.device.uuid; "" when not recorded */
    long long buffer_bytes;  /* protocol.buffer_bytes; 0 when not recorded */
    sb_ceiling *ceilings;    /* ordered by name */
    size_t n;
} sb_calibration;

void sb_calibrations_free(sb_calibration *v, size_t n); /* accepts NULL */

#endif
