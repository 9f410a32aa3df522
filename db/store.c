/* store.c - opening the solbook database and running transactions. */
#define _GNU_SOURCE /* sync_file_range */
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connection.h"
#include "migrate.h"

struct sb_db {
    sqlite3 *conn;
    char *path;
    int wal_fd;     /* the WAL, opened for sb_db_wal_writeback; -1 when not */
};

int sb_db_schema_version(void)
{
    return sb_db_migration_count ? sb_db_migrations[sb_db_migration_count - 1].version : 0;
}

const char *sb_db_path(const sb_db *db)
{
    return db->path;
}

sqlite3 *sb_db_handle(sb_db *db)
{
    return db->conn;
}

int sb_db_fail(sb_db *db, sb_error *err, const char *what)
{
    return sb_error_set(err, db->path, NULL, "%s: %s", what, sqlite3_errmsg(db->conn));
}

void sb_db_bind_real(sqlite3_stmt *st, int i, double x)
{
    if (isnan(x))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, x);
}

double sb_db_column_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int sb_db_conn_fail(sqlite3 *conn, sb_error *err, const char *what)
{
    return sb_error_set(err, sqlite3_db_filename(conn, "main"), NULL, "%s: %s", what,
                        sqlite3_errmsg(conn));
}

int sb_db_exec(sb_db *db, const char *sql, sb_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
        sb_error_set(err, db->path, NULL, "%s", msg ? msg : sqlite3_errmsg(db->conn));
        sqlite3_free(msg);
        return SB_ERR;
    }
    return SB_OK;
}

int sb_db_begin(sb_db *db, sb_error *err)
{
    if (sqlite3_exec(db->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot start a write transaction");
    return SB_OK;
}

int sb_db_commit(sb_db *db, sb_error *err)
{
    /* the result runs the transaction stored join series_latest
     * (migration 011): one fold a commit, not one a run */
    if (sqlite3_exec(db->conn, "INSERT INTO series_fold (go) VALUES (1)", NULL, NULL, NULL) !=
        SQLITE_OK) {
        sb_db_fail(db, err, "cannot record the newest runs");
        sb_db_rollback(db);
        return SB_ERR;
    }
    if (sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        sb_db_fail(db, err, "cannot commit");
        sb_db_rollback(db);
        return SB_ERR;
    }
    return SB_OK;
}

void sb_db_wal_writeback(sb_db *db)
{
#if defined(__linux__)
    if (db->wal_fd < 0) {
        /* SQLite's own name for the WAL: beside the file a symbolic link
         * leads to, not beside the link. */
        const char *wal = sqlite3_filename_wal(sqlite3_db_filename(db->conn, "main"));
        if (!wal || !*wal)
            return;
        db->wal_fd = open(wal, O_RDONLY | O_CLOEXEC);
        if (db->wal_fd < 0)
            return;
    }
    /* Starts the writes and returns; what fails here only leaves the
     * writing to the checkpoint, as without the hint. */
    (void)sync_file_range(db->wal_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)db;
#endif
}

void sb_db_rollback(sb_db *db)
{
    if (!sqlite3_get_autocommit(db->conn))
        sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
}

/* Reads one text or integer pragma value into buf. */
static int pragma_text(sb_db *db, const char *sql, char *buf, size_t size, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sb_error_set(err, db->path, NULL, "%s: %s", sql, sqlite3_errmsg(db->conn));
        sqlite3_finalize(st);
        return SB_ERR;
    }
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(buf, size, "%s", t ? (const char *)t : "");
    sqlite3_finalize(st);
    return SB_OK;
}

/* The folder that holds path, in dir. */
static void folder_of(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, size, ".");
}

/* Whether a reader cannot create files beside path: a folder without
 * write permission, or a read-only file system (where root is refused
 * too). WAL mode needs PATH-wal and PATH-shm there even to read. */
static int folder_unwritable(const char *path)
{
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    return access(dir, W_OK) != 0 && (errno == EACCES || errno == EROFS);
}

/* When SQLite could not open or read path: a folder the user cannot
 * write is the usual cause, and is named as such. */
static int explain_open_failure(sb_db *db, int writable, sb_error *err)
{
    char dir[4096];
    folder_of(db->path, dir, sizeof dir);
    if (!folder_unwritable(db->path))
        return SB_ERR;
    if (!writable) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return sb_error_set(err, db->path, NULL, "cannot read the database in the read-only folder %s: %s",
                            dir, why);
    }
    return sb_error_set(err, db->path, NULL,
                        "cannot write the database: its folder %s is not writable, and SQLite needs "
                        "to create %s-wal and %s-shm there (WAL mode); make the folder writable "
                        "or copy the database elsewhere",
                        dir, db->path, db->path);
}

/* A file: URI for path that SQLite reads as immutable: every byte but
 * the unreserved ones and '/' percent-encoded, so '?', '#' and '%' in a
 * file name stay part of the name. */
static int immutable_uri(const char *path, char *uri, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(uri, size, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (n + 4 >= size)
            return -1;
        if (isalnum(*p) || strchr("/-._~", *p))
            uri[n++] = (char)*p;
        else {
            uri[n++] = '%';
            uri[n++] = hex[*p >> 4];
            uri[n++] = hex[*p & 15];
        }
    }
    const char *tail = "?immutable=1";
    if (n + strlen(tail) + 1 > size)
        return -1;
    memcpy(uri + n, tail, strlen(tail) + 1);
    return 0;
}

/* A database in a folder nobody can write (a read-only mount, a shared
 * archive) cannot be opened for reading the usual way: WAL mode needs its
 * -shm file there. Nobody can change it there either, so it is opened
 * immutable, which needs no files beside it. A -wal file left beside it
 * holds commits that an immutable reader would not see: refused, said so. */
static int open_immutable(const char *path, int oflags, sqlite3 **conn, sb_error *err)
{
    char wal[4200], uri[3 * 4096 + 32];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &st) == 0 && st.st_size > 0)
        return sb_error_set(err, path, NULL,
                            "cannot read the database: its folder is read-only and %s holds changes "
                            "not yet written into it; open it once where the folder is writable",
                            wal);
    if (immutable_uri(path, uri, sizeof uri) != 0)
        return sb_error_set(err, path, NULL, "cannot open the database: its path is too long");
    if (sqlite3_open_v2(uri, conn, oflags | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        sb_error_set(err, path, NULL, "cannot open the database: %s",
                     *conn ? sqlite3_errmsg(*conn) : "out of memory");
        sqlite3_close(*conn);
        *conn = NULL;
        return SB_ERR;
    }
    return SB_OK;
}

int sb_db_open_read_conn(const char *path, sqlite3 **conn, sb_error *err)
{
    *conn = NULL;
    int oflags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
    if (folder_unwritable(path))
        return open_immutable(path, oflags, conn, err);
    if (sqlite3_open_v2(path, conn, oflags, NULL) != SQLITE_OK) {
        sb_error_set(err, path, NULL, "cannot open the database: %s",
                     *conn ? sqlite3_errmsg(*conn) : "out of memory");
        sqlite3_close(*conn);
        *conn = NULL;
        return SB_ERR;
    }
    return SB_OK;
}

static int connect(sb_db *db, int writable, sb_error *err)
{
    int oflags = writable ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
    oflags |= SQLITE_OPEN_NOMUTEX;
    if (!writable && folder_unwritable(db->path)) {
        if (open_immutable(db->path, oflags, &db->conn, err) != SB_OK)
            return SB_ERR;
    } else if (sqlite3_open_v2(db->path, &db->conn, oflags, NULL) != SQLITE_OK) {
        sb_error_set(err, db->path, NULL, "cannot open the database: %s",
                     db->conn ? sqlite3_errmsg(db->conn) : "out of memory");
        sqlite3_close(db->conn);
        db->conn = NULL;
        explain_open_failure(db, writable, err);
        return SB_ERR;
    }
    sqlite3_extended_result_codes(db->conn, 1);
    sqlite3_busy_timeout(db->conn, SB_DB_BUSY_TIMEOUT_MS);
    /* The first read tells whether this is an SQLite file at all. */
    char buf[64];
    if (pragma_text(db, "PRAGMA schema_version", buf, sizeof buf, err) != SB_OK) {
        if ((sqlite3_errcode(db->conn) & 0xff) == SQLITE_NOTADB)
            sb_error_set(err, db->path, NULL, "not an SQLite database (so not a solbook database)");
        else
            explain_open_failure(db, writable, err);
        return SB_ERR;
    }
    if (sb_db_exec(db, "PRAGMA foreign_keys = ON", err) != SB_OK)
        return SB_ERR;
    return SB_OK;
}

/* After the file is known to be a solbook database: WAL, so readers and
 * one writer at a time share it; synchronous=NORMAL is durable in WAL
 * against program crashes and consistent across power loss.
 *
 * Switching a new file to WAL needs it to itself for a moment. When a
 * second process opens the same new file at that instant (two ingests
 * starting together), SQLite answers "database is locked" at once, or
 * leaves the mode as it was, without calling the busy handler (waiting
 * there could deadlock two connections). So the switch is tried again,
 * every few milliseconds, for as long as the busy timeout. */
static int set_wal(sb_db *db, sb_error *err)
{
    char buf[64];
    for (int waited_ms = 0;; waited_ms += 5) {
        int ok = pragma_text(db, "PRAGMA journal_mode = WAL", buf, sizeof buf, err) == SB_OK;
        if (ok && (strcmp(buf, "wal") == 0 || strcmp(buf, "memory") == 0))
            break;
        int busy = ok || (sqlite3_errcode(db->conn) & 0xff) == SQLITE_BUSY ||
                   (sqlite3_errcode(db->conn) & 0xff) == SQLITE_LOCKED;
        if (!busy || waited_ms >= SB_DB_BUSY_TIMEOUT_MS) {
            if (!ok)
                return SB_ERR;
            return sb_error_set(err, db->path, NULL,
                                "cannot switch the database to WAL mode (journal mode stays %s)", buf);
        }
        sqlite3_sleep(5);
    }
    return sb_db_exec(db, "PRAGMA synchronous = NORMAL", err);
}

/* 1 when the solbook tables are there. */
static int has_solbook_tables(sb_db *db, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->conn,
                                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                                "name IN ('runs', 'provenance', 'configs', 'metrics')",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sb_db_fail(db, err, "cannot read the schema");
        sqlite3_finalize(st);
        return -1;
    }
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n == 4;
}

void sb_db_close(sb_db *db)
{
    if (!db)
        return;
    if (db->wal_fd >= 0)
        close(db->wal_fd);
    if (db->conn) {
        /* Statements a caller forgot would keep the file busy: finalize them. */
        sqlite3_stmt *st;
        while ((st = sqlite3_next_stmt(db->conn, NULL)) != NULL)
            sqlite3_finalize(st);
        sqlite3_close(db->conn);
    }
    free(db->path);
    free(db);
}

int sb_db_adopt(sqlite3 *conn, const char *path, sb_db **out, sb_error *err)
{
    *out = NULL;
    sb_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        free(db);
        sqlite3_close(conn);
        return sb_error_set(err, path, NULL, "out of memory");
    }
    db->conn = conn;
    db->wal_fd = -1;
    *out = db;
    return SB_OK;
}

int sb_db_read_snapshot(sb_db *db, sb_error *err)
{
    if (sqlite3_exec(db->conn, "BEGIN DEFERRED", NULL, NULL, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db->conn, err, "cannot begin a read transaction");
    return SB_OK;
}

int sb_db_open_reader(const char *path, sb_db **out, sb_error *err)
{
    if (sb_db_open(path, SB_DB_READ, out, err) != SB_OK)
        return SB_ERR;
    if (sb_db_read_snapshot(*out, err) != SB_OK) {
        sb_db_close(*out);
        *out = NULL;
        return SB_ERR;
    }
    return SB_OK;
}

void sb_db_process_setup(void)
{
    /* SQLITE_MISUSE once SQLite is initialized: it keeps what it has. */
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int sb_db_open(const char *path, int flags, sb_db **out, sb_error *err)
{
    return sb_db_open_with(path, flags, sb_db_migrations, sb_db_migration_count, out, err);
}

int sb_db_open_with(const char *path, int flags, const sb_db_migration *list, size_t count,
                    sb_db **out, sb_error *err)
{
    *out = NULL;
    if (!path || !*path)
        return sb_error_set(err, NULL, NULL, "no database path given");
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT)
        return sb_error_set(err, path, NULL, "cannot open the database: %s", strerror(errno));
    if (exists && S_ISDIR(sb.st_mode))
        return sb_error_set(err, path, NULL, "is a directory, not a database file");
    if (!exists && flags != SB_DB_WRITE)
        return sb_error_set(err, path, NULL,
                            "no such database; store results first with 'solbook ingest --db %s FILE...'",
                            path);

    sb_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        free(db);
        return sb_error_set(err, path, NULL, "out of memory");
    }
    db->wal_fd = -1;
    if (connect(db, flags == SB_DB_WRITE, err) != SB_OK)
        goto fail;

    sb_error e2;
    int v;
    int latest = count ? list[count - 1].version : 0;
    if (sb_db_user_version(db->conn, db->path, &v, err) != SB_OK ||
        sb_db_check_version(v, path, latest, err) != SB_OK)
        goto fail;
    if (flags == SB_DB_READ) {
        if (v == 0) {
            sb_error_set(err, path, NULL, "not a solbook database (no solbook schema version)");
            goto fail;
        }
        if (v < latest) {
            /* Upgrade in place, then carry on reading. */
            sqlite3_close(db->conn);
            db->conn = NULL;
            if (connect(db, 1, err) != SB_OK ||
                sb_db_migrate(db->conn, db->path, list, count, &e2) != SB_OK) {
                if (db->conn)
                    *err = e2;
                char msg[sizeof err->msg];
                snprintf(msg, sizeof msg, "%s", err->msg);
                sb_error_set(err, path, NULL,
                             "database schema version %d is older than this solbook's (%d) and "
                             "could not be upgraded: %s",
                             v, latest, msg);
                goto fail;
            }
        }
    } else {
        /* A new file gets 32 KiB pages: a result's canonical JSON (4 to 8
         * KB with its samples) fits in a page instead of an overflow chain,
         * and several share one (16 KiB pages held two 6 KB documents and
         * left a quarter empty): fewer, fuller pages are fewer WAL frames
         * to write and to checkpoint. Only effective before the first table
         * exists. */
        if (v == 0 && sb_db_exec(db, "PRAGMA page_size = 32768", err) != SB_OK)
            goto fail;
        /* A file this open created is switched to WAL before its schema is
         * written: the migrations then commit into the WAL without a sync,
         * where in the rollback journal their one transaction took four
         * syncs (journal, folder, journal header, file: 80 to 100 ms on
         * this machine's disk, most of a small ingest's time). Any other
         * file is switched only once it is known to be a solbook database. */
        if (!exists && set_wal(db, err) != SB_OK)
            goto fail;
        if (sb_db_migrate(db->conn, db->path, list, count, err) != SB_OK)
            goto fail;
    }
    if (sqlite3_db_readonly(db->conn, "main") == 0 && set_wal(db, err) != SB_OK)
        goto fail;
    /* A reader's page cache (lazily filled) as large as a writer's: the
     * regressions walk reads the samples of each series' runs, which lie
     * on the pages the series before it read too (a night's runs are
     * stored together), and its sorts stay in memory longer. SQLite's
     * default of 2 MiB held 62 pages of 32 KiB, so nearly every sample
     * read was a read of the file. */
    if (flags == SB_DB_READ && sb_db_exec(db, "PRAGMA cache_size = -65536", err) != SB_OK)
        goto fail;
    int t = has_solbook_tables(db, err);
    if (t < 0)
        goto fail;
    if (!t) {
        sb_error_set(err, path, NULL, "not a solbook database (the solbook tables are missing)");
        goto fail;
    }
    *out = db;
    return SB_OK;
fail:
    sb_db_close(db);
    return SB_ERR;
}
