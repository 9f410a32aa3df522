/* site_plaus.h - the plausibility check on a connection, for the CLI and
 * the site: each call reads the snapshot of the runs it is given through
 * db/plaus_snap_db.h (with the tables' digest, sb_plaus_tables_sha256),
 * then marks or hands it over to report/plausible.h.
 */
#ifndef SOLBOOK_SITE_PLAUS_H
#define SOLBOOK_SITE_PLAUS_H

#include <stddef.h>

#include "error.h"
#include "plaus_snap.h"
#include "results.h"
#include "session_run.h"
#include "stored_result.h"
#include "store.h"

/* Sets r->implausible for every passing run of set (sb_plaus_mark) from
 * what db holds of those runs. */
int sb_site_plaus_mark(sb_db *db, sb_result_set *set, sb_error *err);

/* The session runs of the sessions ids[0..nids) (every session where nids
 * is 0; sb_session_runs_load) of suite (every suite where it is NULL),
 * marked by sb_plaus_mark_sessions: what sb_claims_headlines_take
 * (report/claims.h) takes. out is empty on error. */
int sb_site_plaus_session_runs(sb_db *db, const char *const *ids, size_t nids, const char *suite,
                               sb_session_runs *out, sb_error *err);

/* What sb_plaus_check takes of the runs rs[0..n) (sb_plaus_snap_read_verdicts);
 * free with sb_plaus_snap_free. */
int sb_site_plaus_snap_runs(sb_db *db, const sb_result *const *rs, size_t n, sb_plaus_snap *out, sb_error *err);
/* The same of the picks' runs and the runs of sessions (NULL: none): what
 * the listings (sb_plaus_render_md) take. */
int sb_site_plaus_snap_listing(sb_db *db, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                               sb_plaus_snap *out, sb_error *err);

#endif
