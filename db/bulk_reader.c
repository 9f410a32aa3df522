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

int sb_bulk_readers_threaded(void)
{
    return sqlite3_threadsafe() != 0;
}
