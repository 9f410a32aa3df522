/* plaus_snap.h - what the plausibility check (report/plausible.h) takes
 * of the stored runs, read once by its caller (db/plaus_snap_db.h): what
 * the stored verdicts were judged with and whether they hold, the stored
 * states of the runs it marks, and for the runs it judges itself their
 * GPU UUIDs and the calibrations of their SKUs. Read-only values; nothing
 * here reads the database.
 */
#ifndef SOLBOOK_MODEL_PLAUS_SNAP_H
#define SOLBOOK_MODEL_PLAUS_SNAP_H

#include <stddef.h>

#include "calibration.h"
#include "plausibility.h"
#include "run_cards.h"
#include "stored_result.h"

/* What the stored verdicts were judged with: the SHA-256 (hex) of the
 * tables and the rule, that of the calibration runs then stored, and
 * the greatest of their ids (0 when none). */
typedef struct sb_verdict_basis {
    char tables_sha256[65];
    char calibrations_sha256[65];
    long long last_calibration;
} sb_verdict_basis;

/* Stored verdicts' states, by run id ascending. */
typedef struct sb_verdict_states {
    long long *run_id;
    sb_plaus_state *state;
    size_t n;
} sb_verdict_states;
void sb_verdict_states_free(sb_verdict_states *s);
/* 1 and *state when run_id has a stored verdict; 0 when not. */
int sb_verdict_state(const sb_verdict_states *s, long long run_id, sb_plaus_state *state);

/* The calibration runs of one SKU with their ceilings, newest first. */
typedef struct sb_plaus_sku_cals {
    char *sku;
    sb_calibration *cals;
    size_t n;
} sb_plaus_sku_cals;

/* The plausibility snapshot of some runs: what the check takes of them,
 * each part read only for the runs that need it (db/plaus_snap_db.h says
 * which). stored: the stored verdicts were judged with the tables and the
 * calibrations of now (calibrations_sha256 and last_calibration: the
 * digest and greatest id of the calibration runs stored now). Where they
 * hold: states, the stored states of runs a report marks, and verdict,
 * the whole stored verdicts of runs a listing shows. devices and cals:
 * the GPU UUIDs of the runs judged now and the calibrations of their SKUs.
 * session_results: every result run of the measuring sessions, where the
 * session runs' stored states did not cover them (session_results_read). */
typedef struct sb_plaus_snap {
    char calibrations_sha256[65];
    long long last_calibration;
    int stored;
    sb_verdict_states states;
    long long *verdict_run; /* ascending */
    sb_plaus_verdict *verdict;
    size_t nverdicts;
    sb_run_devices devices;
    sb_plaus_sku_cals *cals;
    size_t ncals;
    sb_result_set session_results;
    int session_results_read;
} sb_plaus_snap;
void sb_plaus_snap_free(sb_plaus_snap *s); /* leaves it empty */
/* The calibrations of sku in s, NULL when they were not read. */
const sb_plaus_sku_cals *sb_plaus_snap_cals(const sb_plaus_snap *s, const char *sku);
/* The stored verdict of run_id in s, NULL when none was read. */
const sb_plaus_verdict *sb_plaus_snap_verdict(const sb_plaus_snap *s, long long run_id);

#endif
