/* calibration.h - the measured ceilings of a card (solbook.calibration
 * runs) as reports read them: one calibration run and its ceilings made
 * into values (db/results_query.h loads them), and the one rule that says
 * which measured ceilings a report may use. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_CALIBRATION_H
#define SOLBOOK_MODEL_CALIBRATION_H

#include <stddef.h>

#include "sku.h"

typedef struct sb_ceiling {
    char name[64];   /* bw.copy, gemm.fp16, ... */
    char unit[16];   /* GB/s | TFLOP/s */
    double value;
    long long run_id; /* the calibration run that measured it */
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

/* A measured ceiling is credible within these fractions of the
 * datasheet's figure (HBM bandwidth for bw.*, the dtype's dense peak for
 * gemm.*): the stored calibrations of H100 and H200 measure 0.88 to 0.95
 * of HBM and 0.76 to 0.83 of the GEMM peaks, and a card at half its
 * datasheet is broken, not calibrated. A calibration is a stored document
 * like any other: one that states a ceiling far from what the card can do
 * would otherwise turn every run of the card implausible (too low) or
 * plausible (too high), and move every share of the ceiling. */
#define SB_CEILING_CREDIBLE_LOW 0.5
#define SB_CEILING_CREDIBLE_HIGH 1.25

/* The datasheet figure a ceiling called name is held against, from row
 * (data/skus.csv): HBM GB/s for bw.*, the dense peak TFLOP/s of the dtype
 * for gemm.*; 0 when row is NULL or gives none. */
double sb_ceiling_datasheet(const sb_sku *row, const char *name);

/* 1 when a measured ceiling may be used: its value is finite and
 * positive, and within [SB_CEILING_CREDIBLE_LOW, SB_CEILING_CREDIBLE_HIGH]
 * of its datasheet figure where row gives one. Every report that takes a
 * measured ceiling asks this (report/plausible.c, model/snapshot.c). */
int sb_ceiling_credible(const sb_sku *row, const char *name, double value);

/* A measured ceiling a report set aside, and why. */
typedef struct sb_ceiling_aside {
    char sku[64];
    sb_ceiling ceiling;   /* its name, unit, value and calibration run */
    double datasheet;     /* the figure it is held against; 0 none (not finite or positive) */
} sb_ceiling_aside;

/* The ceilings a SKU's calibrations cals (newest first) give a report:
 * of each name, the newest credible one (sb_ceiling_credible against
 * row), ordered by name, into *chosen (*nchosen; run_id says whose), and
 * *newest the run of the newest calibration any of them comes from (-1:
 * none). Every ceiling that is not credible goes to *aside (*naside,
 * newest first), with sku. Both malloc'd (NULL when empty); 0, or -1 out
 * of memory (then both are NULL). */
int sb_ceilings_choose(const char *sku, const sb_sku *row, const sb_calibration *cals, size_t ncals,
                       sb_ceiling **chosen, size_t *nchosen, long long *newest,
                       sb_ceiling_aside **aside, size_t *naside);

#endif
