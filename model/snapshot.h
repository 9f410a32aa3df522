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

/* Hands s one card's calibrations, every one of the SKU, newest first,
 * which s owns from then on (also when this fails); row: its row of
 * data/skus.csv (NULL: none), what sb_ceilings_choose holds the
 * ceilings against. A SKU is added once. */
int sb_snapshot_add_card(sb_snapshot *s, const char *sku, const sb_sku *row, sb_calibration *cals,
                         size_t ncals, sb_error *err);

void sb_snapshot_free(sb_snapshot *s); /* accepts NULL */

/* Reading: the measured ceilings of sku, ordered by name: of each name,
 * the newest calibration's that is credible (sb_ceilings_choose; each
 * ceiling's run_id says which), with the newest of those runs in
 * *run_id; NULL, *n 0 and *run_id -1 when the SKU has none. Valid until
 * sb_snapshot_free. */
const sb_ceiling *sb_snapshot_ceilings(const sb_snapshot *s, const char *sku, size_t *n,
                                       long long *run_id);

/* Every calibration run of sku with its ceilings, newest first (finish
 * time, then id); NULL and *n 0 when none. */
const sb_calibration *sb_snapshot_calibrations(const sb_snapshot *s, const char *sku, size_t *n);

/* Every measured ceiling of every card that is not credible, and so is
 * in no figure: by card in the order added, newest first; NULL and *n 0
 * when none. */
const sb_ceiling_aside *sb_snapshot_set_aside(const sb_snapshot *s, size_t *n);

#endif
