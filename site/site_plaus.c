/* site_plaus.c - the plausibility check on a connection (site_plaus.h). */
#include "site_plaus.h"

#include <stdlib.h>
#include <string.h>

#include "plaus_snap_db.h"
#include "plausible.h"
#include "session_query.h"

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

int sb_site_plaus_session_runs(sb_db *db, const char *const *ids, size_t nids, const char *suite,
                               sb_session_runs *out, sb_error *err)
{
    char tables[65];
    sb_plaus_snap snap;
    if (sb_session_runs_load(db, ids, nids, out, err) != SB_OK) {
        sb_session_runs_free(out);
        return SB_ERR;
    }
    sb_session_runs_keep_suite(out, suite);
    int rc = sb_plaus_tables_sha256(NULL, NULL, tables, err);
    if (rc == SB_OK && (rc = sb_plaus_snap_read_sessions(db, tables, out, &snap, err)) == SB_OK) {
        rc = sb_plaus_mark_sessions(&snap, out, err);
        sb_plaus_snap_free(&snap);
    }
    if (rc != SB_OK)
        sb_session_runs_free(out);
    return rc;
}

int sb_site_plaus_snap_runs(sb_db *db, const sb_result *const *rs, size_t n, sb_plaus_snap *out, sb_error *err)
{
    char tables[65];
    memset(out, 0, sizeof *out);
    if (sb_plaus_tables_sha256(NULL, NULL, tables, err) != SB_OK)
        return SB_ERR;
    return sb_plaus_snap_read_verdicts(db, tables, rs, n, out, err);
}

int sb_site_plaus_snap_listing(sb_db *db, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                               sb_plaus_snap *out, sb_error *err)
{
    size_t ns = sessions ? sessions->n : 0;
    const sb_result **rs = malloc((np + ns + 1) * sizeof *rs);
    memset(out, 0, sizeof *out);
    if (!rs)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < np; i++)
        rs[i] = picks[i].r;
    for (size_t i = 0; i < ns; i++)
        rs[np + i] = &sessions->v[i];
    int rc = sb_site_plaus_snap_runs(db, rs, np + ns, out, err);
    free(rs);
    return rc;
}
