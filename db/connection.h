/* connection.h - the SQLite connection inside an sb_db, for db/'s own
 * modules (and tests that inspect a database file); store.c defines these
 * functions. Other folders hold the opaque sb_db of store.h and call db/'s
 * query functions: only db/ prepares statements, and only db/ includes
 * this header.
 */
#ifndef SOLBOOK_DB_CONNECTION_H
#define SOLBOOK_DB_CONNECTION_H

#include <sqlite3.h>

#include "error.h"

/* store.h's opaque handle; not included here, so that store.c, which
 * defines these, and this header form no include circle */
typedef struct sb_db sb_db;

/* The connection, for queries (prepare, step, finalize your statements). */
sqlite3 *sb_db_handle(sb_db *db);

/* A read-only connection of its own to the database at path, opened as
 * sb_db_open opens one for reading: immutable where the database's folder
 * cannot be written (WAL mode would need its -shm file there). *conn is
 * NULL on failure. */
int sb_db_open_read_conn(const char *path, sqlite3 **conn, sb_error *err);

/* Wraps a connection opened elsewhere in db/ (the bulk reader's) as an
 * sb_db, which then owns it: sb_db_close closes it. path is the file it
 * was opened on. On failure the connection is closed. */
int sb_db_adopt(sqlite3 *conn, const char *path, sb_db **out, sb_error *err);

/* Fills err with "WHAT: <sqlite message>", file = the database path;
 * returns SB_ERR. For callers reporting a failed sqlite3_* call. */
int sb_db_fail(sb_db *db, sb_error *err, const char *what);

/* sb_db_fail for a bare connection (the statements of a query module):
 * "WHAT: <sqlite message>", file = the connection's database. */
int sb_db_conn_fail(sqlite3 *conn, sb_error *err, const char *what);

/* A real that may be NAN: bound as NULL (SQLite stores no NaN), and read
 * back from NULL as NAN. */
void sb_db_bind_real(sqlite3_stmt *st, int i, double x);
double sb_db_column_real(sqlite3_stmt *st, int i);

#endif
