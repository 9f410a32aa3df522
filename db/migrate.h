/* migrate.h - applying the embedded migrations (db/migrations/NNN_name.sql).
 *
 * store.c uses this on every open; it is public so that tests can run the
 * mechanism over their own migration lists (an "old" database upgraded by a
 * later migration). */
#ifndef SOLBOOK_DB_MIGRATE_H
#define SOLBOOK_DB_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

#include "error.h"

typedef struct sb_db_migration {
    int version;        /* NNN of NNN_name.sql: 1, 2, ... without gaps */
    const char *name;   /* file name, for errors */
    const char *sql;
} sb_db_migration;

/* The migrations compiled into the program (generated at build time). */
extern const sb_db_migration sb_db_migrations[];
extern const size_t sb_db_migration_count;

/* The schema all of sb_db_migrations leave, as one script (generated at
 * build time by db/schema_gen.c); sb_db_migrate gives it to an empty file
 * when it runs that whole list. */
extern const char sb_db_new_schema[];

/* Brings the database on conn (named path in errors) to the last version
 * of list, in one BEGIN IMMEDIATE transaction, setting user_version after
 * each migration. Refuses a database newer than the list, and a non-empty
 * database that has no user_version (not created by solbook). */
int sb_db_migrate(sqlite3 *conn, const char *path, const sb_db_migration *list,
                  size_t count, sb_error *err);

/* sb_db_open with another migration list than the embedded one (tests). */
struct sb_db;
int sb_db_open_with(const char *path, int flags, const sb_db_migration *list, size_t count,
                    struct sb_db **out, sb_error *err);

/* PRAGMA user_version of conn into *version (any int, -1 included). */
int sb_db_user_version(sqlite3 *conn, const char *path, int *version, sb_error *err);

/* The one check of a stored schema version v against latest: a negative
 * version is not solbook's, one above latest is too new. */
int sb_db_check_version(int v, const char *path, int latest, sb_error *err);

/* Fills err: the database's schema version v is newer than the latest one
 * this solbook knows. Returns SB_ERR. */
int sb_db_error_too_new(sb_error *err, const char *path, int v, int latest);

#endif
