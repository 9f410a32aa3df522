/* site_rg.c - the regression walk's inputs read on a connection (site_rg.h). */
#include "site_rg.h"

#include "session_query.h"

int sb_site_rg_aa(sb_db *db, const sb_rg_opts *o, sb_rg_aa **out, sb_error *err)
{
    sb_session_runs runs = {0};
    *out = NULL;
    int rc = sb_session_runs_load(db, NULL, 0, &runs, err);
    if (rc == SB_OK)
        rc = sb_rg_aa_new(&runs, o, out, err);
    sb_session_runs_free(&runs);
    return rc;
}
