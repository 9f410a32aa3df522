/* site_plaus.c - the plausibility marks of loaded runs on a connection
 * (site_plaus.h). */
#include "site_plaus.h"

#include "plaus_snap_db.h"
#include "plausible.h"

int sb_site_plaus_mark(sb_db *db, sb_result_set *set, sb_error *err)
{
    char tables[65];
    sb_plaus_snap snap;
    if (sb_plaus_tables_sha256(NULL, NULL, tables, err) != SB_OK ||
        sb_plaus_snap_read_marks(db, tables, set, &snap, err) != SB_OK)
        return SB_ERR;
    int rc = sb_plaus_mark(&snap, set, err);
    sb_plaus_snap_free(&snap);
    return rc;
}
