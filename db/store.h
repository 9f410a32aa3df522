/* store.h - the solbook SQLite database: open, migrate, transactions.
 *
 * The schema is db/migrations/NNN_name.sql, compiled into the program, so no
 * data directory is needed to open a database. PRAGMA user_version holds
 * the number of the last migration applied; opening an older database
 * upgrades it in place (one transaction), opening one newer than this
 * program is refused. Connections run in WAL mode with foreign keys on and
 * a 10 s busy timeout, so several readers and ingests can share one file.
 *
 * Readers (report, site, runs, show) open with SB_DB_READ and pass the
 * sb_db to the query functions of db/; only db/ reaches the connection
 * inside (connection.h), so this header does not name SQLite. The tables and their meaning are in db/README.md and the
 * migrations themselves.
 */
#ifndef SOLBOOK_DB_STORE_H
#define SOLBOOK_DB_STORE_H

#include "error.h"

typedef struct sb_db sb_db;

enum {
    /* Open an existing solbook database for queries. Errors clearly when
     * the file is missing, is not SQLite, or is not a solbook database.
     * An older database is upgraded first (which needs write access). */
    SB_DB_READ = 0,
    /* Open for writing, creating the file (and its schema) if missing. */
    SB_DB_WRITE = 1,
};

/* Milliseconds a connection waits for another writer before SQLITE_BUSY. */
#define SB_DB_BUSY_TIMEOUT_MS 10000

/* Sets SQLite's process-wide options; a program calls it once, first,
 * before any database is opened (later it changes nothing). SQLite's
 * allocation statistics are off: nothing here reads them, and keeping
 * them takes a global lock on every allocation of every connection. */
void sb_db_process_setup(void);

int sb_db_open(const char *path, int flags, sb_db **out, sb_error *err);
void sb_db_close(sb_db *db);            /* accepts NULL */

/* Opens a read transaction on a reader's connection: every query after it
 * reads the database as it was at the first of them (another program's
 * commits meanwhile are not seen), and none takes the file's locks again
 * (a report reads a run's samples with one query a run). It ends when the
 * connection closes. */
int sb_db_read_snapshot(sb_db *db, sb_error *err);

/* Opens an existing database for reading with the checks and messages
 * every report command uses (sb_db_open with SB_DB_READ), in one read
 * transaction (sb_db_read_snapshot): the report reads one state of the
 * database. Close it with sb_db_close. */
int sb_db_open_reader(const char *path, sb_db **out, sb_error *err);

/* The path the database was opened with. */
const char *sb_db_path(const sb_db *db);

/* Schema version this program creates and understands (the number of the
 * last embedded migration). */
int sb_db_schema_version(void);

/* BEGIN IMMEDIATE (waits up to the busy timeout for other writers),
 * COMMIT, ROLLBACK. */
int sb_db_begin(sb_db *db, sb_error *err);
int sb_db_commit(sb_db *db, sb_error *err);
void sb_db_rollback(sb_db *db);

/* After a large commit: starts writing the WAL's new pages to disk without
 * waiting for them (Linux; elsewhere nothing). With synchronous=NORMAL a
 * commit writes the WAL into the page cache only, and the checkpoint at
 * the end waits for all of it at once: an ingest of thousands of files
 * otherwise ends with tens of milliseconds of that wait. Durability is
 * unchanged: the checkpoint still syncs. */
void sb_db_wal_writeback(sb_db *db);

/* Runs one or more SQL statements without results. */
int sb_db_exec(sb_db *db, const char *sql, sb_error *err);

#endif
