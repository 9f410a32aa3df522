/* bulk_reader.c - a connection for whole-database readers (bulk_reader.h). */
#include "bulk_reader.h"

#include "store.h"

int sb_bulk_reader_open(const char *path, sqlite3 **out, sb_error *err)
{
    *out = NULL;
    /* the checks and their messages first, then a connection of its own
     * for this thread */
    sqlite3 *checked = NULL;
    if (sb_db_open_connection(path, &checked, err) != SB_OK)
        return SB_ERR;
    sb_db_close_connection(checked);
    if (sqlite3_open_v2(path, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sb_error_set(err, path, NULL, "cannot open database: %s",
                     *out ? sqlite3_errmsg(*out) : "out of memory");
        sqlite3_close(*out);
        *out = NULL;
        return SB_ERR;
    }
    sqlite3_busy_timeout(*out, SB_DB_BUSY_TIMEOUT_MS);
    /* the sort of a whole result set stays off disk; the file is read,
     * not mapped: with four threads faulting mapped pages in, a 100,000-run
     * site took longer and twice the memory */
    sqlite3_exec(*out, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    return SB_OK;
}

void sb_bulk_reader_close(sqlite3 *conn)
{
    sqlite3_close(conn);
}

int sb_bulk_readers_threaded(void)
{
    return sqlite3_threadsafe() != 0;
}
