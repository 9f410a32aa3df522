/* snapshot.h - what reports read of the database, read once: the measured
 * ceilings and calibrations of every card. db/snapshot_read.h fills one in
 * the read transaction of the connection it reads (sb_db_read_snapshot),
 * and the CLI and site/ hand it to report/ read-only, so a report takes
 * its rows from its caller instead of querying. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_SNAPSHOT_H
#define SOLBOOK_MODEL_SNAPSHOT_H

#include <stddef.h>

#include "calibration.h"
#include "error.h"

typedef struct sb_snapshot sb_snapshot;

/* Filling: an empty snapshot (NULL: out of memory). */
sb_snapshot *sb_snapshot_new(void);

/* Hands s one card's rows, which s owns from then on (also when this
 * fails): latest, the nlatest ceilings of the SKU's newest calibration
 * run latest_run, ordered by name; cals, every calibration of the SKU,
 * newest first. A SKU is added once. */
int sb_snapshot_add_card(sb_snapshot *s, const char *sku, sb_ceiling *latest, size_t nlatest,
                         long long latest_run, sb_calibration *cals, size_t ncals, sb_error *err);

void sb_snapshot_free(sb_snapshot *s); /* accepts NULL */

/* Reading: the ceilings of the newest calibration run of sku, ordered by
 * name, with that run's id in *run_id; NULL, *n 0 and *run_id -1 when
 * the SKU has none. Valid until sb_snapshot_free. */
const sb_ceiling *sb_snapshot_ceilings(const sb_snapshot *s, const char *sku, size_t *n,
                                       long long *run_id);

/* Every calibration run of sku with its ceilings, newest first (finish
 * time, then id); NULL and *n 0 when none. */
const sb_calibration *sb_snapshot_calibrations(const sb_snapshot *s, const char *sku, size_t *n);

#endif
