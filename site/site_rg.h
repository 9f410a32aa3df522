/* site_rg.h - what the regression walk (report/regress.h) takes, read on
 * a connection for the CLI and the site: the walk computes from what it
 * is handed, and these calls read it through db/.
 */
#ifndef SOLBOOK_SITE_RG_H
#define SOLBOOK_SITE_RG_H

#include "error.h"
#include "regress.h"
#include "store.h"

/* The A/A noise of db's measuring sessions by o's rule: every session
 * run of db (sb_session_runs_load) measured by sb_rg_aa_new. */
int sb_site_rg_aa(sb_db *db, const sb_rg_opts *o, sb_rg_aa **out, sb_error *err);

#endif
