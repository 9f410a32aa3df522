/* bulk_reader.h - a read-only connection for a reader that goes over the
 * whole database several times (the site: its result set, the run pages,
 * each weekly writeup and packet): sorts kept in memory, no connection
 * mutex (one connection a thread). */
#ifndef SOLBOOK_DB_BULK_READER_H
#define SOLBOOK_DB_BULK_READER_H

#include "error.h"
#include "store.h"

/* Opens path with the checks of sb_db_open(path, SB_DB_READ) (store.h): a
 * missing file, someone else's or a newer database is refused with one
 * line. Its queries read the database in one read transaction
 * (sb_db_read_snapshot), as it was at the first of them. Close it with
 * sb_db_close. */
int sb_bulk_reader_open(const char *path, sb_db **out, sb_error *err);

/* n bulk readers (out[0..n)) that all read one state of the database:
 * their read transactions start together while commits are held off (a
 * writer's lock taken for that moment, waiting as long as the busy
 * timeout for a writer's transaction to end), so a reader that splits its
 * work over several connections sees no run another process stored
 * meanwhile on one of them and not on another. Nothing is left open on
 * failure. */
int sb_bulk_readers_open(const char *path, sb_db **out, size_t n, sb_error *err);

/* 1 when this SQLite lets each thread use a connection of its own. */
int sb_bulk_readers_threaded(void);

#endif
