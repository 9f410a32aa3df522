/* snapshot_read.c - the snapshot reports read, filled from the database
 * (snapshot_read.h). */
#include "snapshot_read.h"

#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "results_query.h"

/* The SKUs with a calibration run, through the calibrations' own index
 * (runs_calibration, migration 006). */
static const char calibrated_skus_sql[] =
    "SELECT DISTINCT p.sku FROM runs r JOIN provenance p ON p.run_id = r.id"
    " WHERE r.schema = 'solbook.calibration.v1' AND p.sku IS NOT NULL ORDER BY p.sku";

/* Reads one SKU's calibrations into s. */
static int card_read(sb_db *db, const sb_sku_table *skus, sb_snapshot *s, const char *sku, sb_error *err)
{
    size_t ncals = 0;
    sb_calibration *cals = NULL;
    if (sb_calibrations_load(db, sku, &cals, &ncals, err) != SB_OK)
        return SB_ERR;
    return sb_snapshot_add_card(s, sku, skus ? sb_sku_find(skus, sku) : NULL, cals, ncals, err);
}

int sb_snapshot_read(sb_db *db, const sb_sku_table *skus, sb_snapshot **out, sb_error *err)
{
    *out = NULL;
    sqlite3 *conn = sb_db_handle(db);
    sb_snapshot *s = sb_snapshot_new();
    if (!s)
        return sb_error_set(err, sb_db_path(db), NULL, "out of memory reading the calibrations");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, calibrated_skus_sql, -1, &st, NULL) != SQLITE_OK) {
        sb_snapshot_free(s);
        return sb_db_conn_fail(conn, err, "query failed");
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sku = (const char *)sqlite3_column_text(st, 0);
        if (card_read(db, skus, s, sku, err) != SB_OK) {
            sqlite3_finalize(st);
            sb_snapshot_free(s);
            return SB_ERR;
        }
    }
    if (rc != SQLITE_DONE) {
        sb_db_conn_fail(conn, err, "reading the calibrated cards failed");
        sqlite3_finalize(st);
        sb_snapshot_free(s);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    *out = s;
    return SB_OK;
}
