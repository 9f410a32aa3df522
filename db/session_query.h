/* session_query.h - the runs of measuring sessions (run_sessions, migration
 * 008): what a paired comparison needs of each, read in one query. */
#ifndef SOLBOOK_DB_SESSION_QUERY_H
#define SOLBOOK_DB_SESSION_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "session_run.h"
#include "store.h"


/* Every run of the sessions whose id starts with one of ids[0..nids)
 * (nids 0: every session), ordered by session start, session, case,
 * provider and copy. Appends to *out (zero-initialised by the caller). */
int sb_session_runs_load(sb_db *db, const char *const *ids, size_t nids, sb_session_runs *out, sb_error *err);

/* sb_session_runs_load on the database at path, opened for reading and
 * closed again: what a command that only reads sessions needs. */
int sb_session_runs_read(const char *path, const char *const *ids, size_t nids, sb_session_runs *out,
                         sb_error *err);

#endif
