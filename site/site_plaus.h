/* site_plaus.h - the plausibility marks of loaded runs on a connection:
 * the snapshot of the runs through db/plaus_snap_db.h, then the marks
 * through report/plausible.h. The CLI's reports and the site call it
 * after loading their runs.
 */
#ifndef SOLBOOK_SITE_PLAUS_H
#define SOLBOOK_SITE_PLAUS_H

#include "error.h"
#include "stored_result.h"
#include "store.h"

/* Sets r->implausible for every passing run of set (sb_plaus_mark) from
 * what db holds of those runs. */
int sb_site_plaus_mark(sb_db *db, sb_result_set *set, sb_error *err);

#endif
