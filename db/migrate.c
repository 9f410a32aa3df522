/* migrate.c - PRAGMA user_version driven schema migrations. */
#include "migrate.h"

#include <stdio.h>

#include "sample_blob.h"

int sb_db_user_version(sqlite3 *conn, const char *path, int *version, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(conn, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sb_error_set(err, path, NULL, "cannot read the schema version: %s",
                     sqlite3_errmsg(conn));
        sqlite3_finalize(st);
        return SB_ERR;
    }
    *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_db_check_version(int v, const char *path, int latest, sb_error *err)
{
    if (v < 0)
        return sb_error_set(err, path, NULL,
                            "not a solbook database (schema version %d is not one solbook writes)", v);
    if (v > latest)
        return sb_db_error_too_new(err, path, v, latest);
    return SB_OK;
}

/* Number of schema objects other than SQLite's own. */
static int count_objects(sqlite3 *conn, const char *path, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(conn,
                                "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sb_error_set(err, path, NULL, "cannot read the schema: %s", sqlite3_errmsg(conn));
        sqlite3_finalize(st);
        return -1;
    }
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

static int exec(sqlite3 *conn, const char *path, const char *sql, const char *what,
                sb_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
        sb_error_set(err, path, NULL, "%s: %s", what, msg ? msg : sqlite3_errmsg(conn));
        sqlite3_free(msg);
        return SB_ERR;
    }
    return SB_OK;
}

int sb_db_error_too_new(sb_error *err, const char *path, int v, int latest)
{
    return sb_error_set(err, path, NULL,
                        "database schema version %d is newer than this solbook (%s) understands "
                        "(up to %d); use a newer solbook",
                        v, SOLBOOK_VERSION, latest);
}

/* 1 when PRAGMA foreign_key_check finds a row whose parent is missing
 * (err says which), -1 when it cannot run, 0 when every key holds. */
static int foreign_keys_broken(sqlite3 *conn, const char *path, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(conn, "PRAGMA foreign_key_check", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int broken = 0;
    if (rc == SQLITE_ROW) {
        sb_error_set(err, path, NULL, "the upgrade left a row of %s (rowid %lld) without its row in %s",
                     (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
                     (const char *)sqlite3_column_text(st, 2));
        broken = 1;
    } else if (rc != SQLITE_DONE) {
        sb_error_set(err, path, NULL, "cannot check the foreign keys: %s", sqlite3_errmsg(conn));
        broken = -1;
    }
    sqlite3_finalize(st);
    return broken;
}

/* The migrations after the stored version, in one transaction. */
static int migrate_locked(sqlite3 *conn, const char *path, const sb_db_migration *list,
                          size_t count, sb_error *err)
{
    int latest = count ? list[count - 1].version : 0;
    int v;
    if (exec(conn, path, "BEGIN IMMEDIATE", "cannot lock the database to upgrade it", err) != SB_OK)
        return SB_ERR;
    /* Again under the write lock: another process may have migrated meanwhile. */
    if (sb_db_user_version(conn, path, &v, err) != SB_OK ||
        sb_db_check_version(v, path, latest, err) != SB_OK)
        goto fail;
    if (v == 0) {
        int n = count_objects(conn, path, err);
        if (n < 0)
            goto fail;
        if (n > 0) {
            sb_error_set(err, path, NULL,
                         "not a solbook database (it has tables but no solbook schema version)");
            goto fail;
        }
    }
    /* An empty file gets the schema the whole list leaves in one script:
     * replaying every migration parses each table rebuild and the schema
     * after each change, most of the cost of creating a database. */
    if (v == 0 && list == sb_db_migrations && count == sb_db_migration_count &&
        sb_db_new_schema[0]) {
        if (exec(conn, path, sb_db_new_schema, "cannot create the schema", err) != SB_OK)
            goto fail;
        v = latest;
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", latest);
        if (exec(conn, path, pragma, "cannot set the schema version", err) != SB_OK)
            goto fail;
    }
    for (size_t i = 0; i < count; i++) {
        if (list[i].version <= v)
            continue;
        char what[300];
        snprintf(what, sizeof what, "migration %s failed", list[i].name);
        if (exec(conn, path, list[i].sql, what, err) != SB_OK)
            goto fail;
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", list[i].version);
        if (exec(conn, path, pragma, "cannot set the schema version", err) != SB_OK)
            goto fail;
    }
    if (foreign_keys_broken(conn, path, err))
        goto fail;
    if (exec(conn, path, "COMMIT", "cannot commit the schema upgrade", err) != SB_OK)
        goto fail;
    return SB_OK;
fail:
    sqlite3_exec(conn, "ROLLBACK", NULL, NULL, NULL);
    return SB_ERR;
}

int sb_db_migrate(sqlite3 *conn, const char *path, const sb_db_migration *list,
                  size_t count, sb_error *err)
{
    int latest = count ? list[count - 1].version : 0;
    /* A read first: most opens find the database current and need no lock. */
    int v;
    if (sb_db_user_version(conn, path, &v, err) != SB_OK ||
        sb_db_check_version(v, path, latest, err) != SB_OK)
        return SB_ERR;
    if (v == latest && v > 0)
        return SB_OK;
    /* Functions some migrations call (007 folds samples with them, 012
     * cuts them out of the stored JSON). */
    if (sb_sample_blob_register(conn) != SQLITE_OK || sb_samples_cut_register(conn) != SQLITE_OK)
        return sb_error_set(err, path, NULL, "cannot register the migration functions: %s",
                            sqlite3_errmsg(conn));
    /* A migration that rebuilds a table (013 rebuilds runs) drops the old
     * one, which with foreign keys on deletes every row that references
     * it. SQLite's procedure for changing a table turns them off outside
     * the transaction (the pragma does nothing inside one) and checks them
     * before the commit. */
    sqlite3_stmt *st = NULL;
    int foreign_keys = 0;
    if (sqlite3_prepare_v2(conn, "PRAGMA foreign_keys", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        foreign_keys = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (foreign_keys &&
        exec(conn, path, "PRAGMA foreign_keys = OFF", "cannot turn foreign keys off to upgrade",
             err) != SB_OK)
        return SB_ERR;
    int rc = migrate_locked(conn, path, list, count, err);
    sb_error on_again;
    if (foreign_keys &&
        exec(conn, path, "PRAGMA foreign_keys = ON", "cannot turn foreign keys on again",
             &on_again) != SB_OK &&
        rc == SB_OK) {
        *err = on_again;
        rc = SB_ERR;
    }
    return rc;
}
