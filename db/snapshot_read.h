/* snapshot_read.h - fills a snapshot (model/snapshot.h) from the database:
 * what reports read, read once, so report/ takes it from its caller
 * instead of querying.
 */
#ifndef SOLBOOK_DB_SNAPSHOT_READ_H
#define SOLBOOK_DB_SNAPSHOT_READ_H

#include "error.h"
#include "snapshot.h"
#include "store.h"

/* Reads every calibration of each SKU that has one
 * (sb_calibrations_load) into a new snapshot, which holds them against
 * skus' rows (NULL: no datasheet to hold them against); free with
 * sb_snapshot_free. On a connection opened with sb_db_open_reader, in
 * its read transaction. */
int sb_snapshot_read(sb_db *db, const sb_sku_table *skus, sb_snapshot **out, sb_error *err);

#endif
