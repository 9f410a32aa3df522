/* bulk_reader.h - a read-only connection for a reader that goes over the
 * whole database several times (the site: its result set, the run pages,
 * each weekly writeup and packet): sorts kept in memory, no connection
 * mutex (one connection a thread). */
#ifndef SOLBOOK_DB_BULK_READER_H
#define SOLBOOK_DB_BULK_READER_H

#include <sqlite3.h>

#include "error.h"

/* Opens path with the checks of sb_db_open_connection (store.h): a missing
 * file, someone else's or a newer database is refused with one line. */
int sb_bulk_reader_open(const char *path, sqlite3 **out, sb_error *err);
void sb_bulk_reader_close(sqlite3 *conn); /* accepts NULL */

/* 1 when this SQLite lets each thread use a connection of its own. */
int sb_bulk_readers_threaded(void);

#endif
