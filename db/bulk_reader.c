/* bulk_reader.c - a connection for whole-database readers (bulk_reader.h). */
#include "bulk_reader.h"

#include "connection.h"

int sb_bulk_reader_open(const char *path, sb_db **out, sb_error *err)
{
    *out = NULL;
    /* the checks and their messages first, then a connection of its own
     * for this thread */
    sb_db *checked = NULL;
    if (sb_db_open(path, SB_DB_READ, &checked, err) != SB_OK)
        return SB_ERR;
    sb_db_close(checked);
    sqlite3 *conn = NULL;
    if (sb_db_open_read_conn(path, &conn, err) != SB_OK)
        return SB_ERR;
    sqlite3_busy_timeout(conn, SB_DB_BUSY_TIMEOUT_MS);
    /* the sort of a whole result set stays off disk; the file is read,
     * not mapped: with four threads faulting mapped pages in, a 100,000-run
     * site took longer and twice the memory */
    sqlite3_exec(conn, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    if (sb_db_adopt(conn, path, out, err) != SB_OK)
        return SB_ERR;
    /* one read transaction for the connection's life: the queries a run
     * (samples, marks) take no file locks each, and every query of the
     * thread reads the same state of the database */
    if (sb_db_read_snapshot(*out, err) != SB_OK) {
        sb_db_close(*out);
        *out = NULL;
        return SB_ERR;
    }
    return SB_OK;
}

/* Starts db's read transaction now: its first read fixes the state of
 * the database it reads to the end. */
static int pin(sb_db *db, sb_error *err)
{
    sqlite3 *conn = sb_db_handle(db);
    if (sqlite3_exec(conn, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) != SQLITE_OK)
        return sb_db_conn_fail(conn, err, "cannot begin a read transaction");
    return SB_OK;
}

int sb_bulk_readers_open(const char *path, sb_db **out, size_t n, sb_error *err)
{
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    for (size_t i = 0; i < n; i++)
        if (sb_bulk_reader_open(path, &out[i], err) != SB_OK)
            goto fail;
    /* A writer's lock holds off every commit while the readers start
     * their transactions, so that all of them read the same state. Where
     * the database cannot be written (a read-only folder or file) there
     * is no writer to hold off, and no lock to take. */
    sqlite3 *w = NULL;
    int locked = 0;
    if (n > 1 && sqlite3_open_v2(path, &w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(w, SB_DB_BUSY_TIMEOUT_MS);
        locked = sqlite3_exec(w, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
    }
    int rc = SB_OK;
    for (size_t i = 0; i < n && rc == SB_OK; i++)
        rc = pin(out[i], err);
    if (locked)
        sqlite3_exec(w, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(w);
    if (rc == SB_OK)
        return SB_OK;
fail:
    for (size_t i = 0; i < n; i++) {
        sb_db_close(out[i]);
        out[i] = NULL;
    }
    return SB_ERR;
}

int sb_bulk_readers_threaded(void)
{
    return sqlite3_threadsafe() != 0;
}
