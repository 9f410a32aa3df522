/* test_db.c - opening, migrating and refusing databases; sha256. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "connection.h"
#include "migrate.h"
#include "sample_blob.h"
#include "sha256.h"
#include "store.h"

static char dir[] = "/tmp/sb_test_db_XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

static long long query_int(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void query_text(sqlite3 *c, const char *sql, char *buf, size_t size)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* The n values stored for run_id, through the module readers use. */
static void load_samples(sqlite3 *c, long long run_id, double *v, size_t n)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(c, "SELECT value_ms FROM run_samples WHERE run_id = ?", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, run_id);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_bytes(st, 0), (int)(8 * n));
    assert_int_equal(sb_sample_blob_decode(sqlite3_column_blob(st, 0), 8 * n, v), 0);
    sqlite3_finalize(st);
}

/* The database NAME in the test folder (its path in p), opened for
 * writing: created and migrated when new. */
static sb_db *open_writable(char *p, size_t size, const char *name)
{
    path_in(p, size, name);
    sb_db *db = NULL;
    sb_error e;
    sb_error_clear(&e);
    if (sb_db_open(p, SB_DB_WRITE, &db, &e) != SB_OK)
        fail_msg("cannot open %s: %s", p, e.msg);
    return db;
}

static void expect_error(const sb_error *e, const char *needle)
{
    if (!strstr(e->msg, needle))
        fail_msg("error '%s' does not mention '%s'", e->msg, needle);
}

static void test_create_and_settings(void **state)
{
    (void)state;
    char p[256];
    sb_db *db = open_writable(p, sizeof p, "new.db");
    sb_error e;
    sb_error_clear(&e);
    sqlite3 *c = sb_db_handle(db);
    assert_int_equal(sb_db_schema_version(), (int)sb_db_migrations[sb_db_migration_count - 1].version);
    assert_true(sb_db_schema_version() >= 1);
    assert_int_equal(query_int(c, "PRAGMA user_version"), sb_db_schema_version());
    char mode[16];
    query_text(c, "PRAGMA journal_mode", mode, sizeof mode);
    assert_string_equal(mode, "wal");
    assert_int_equal(query_int(c, "PRAGMA foreign_keys"), 1);
    assert_int_equal(query_int(c, "PRAGMA busy_timeout"), SB_DB_BUSY_TIMEOUT_MS);
    /* The contract's tables are there. */
    assert_int_equal(query_int(c, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN "
                                  "('runs','provenance','configs','run_samples','metrics','correctness',"
                                  "'profiler_metrics','ceilings','training')"),
                     9);
    assert_string_equal(sb_db_path(db), p);
    sb_db_close(db);

    /* Reopening for reading finds it current. */
    assert_int_equal(sb_db_open(p, SB_DB_READ, &db, &e), SB_OK);
    assert_int_equal(query_int(sb_db_handle(db), "SELECT count(*) FROM runs"), 0);
    sb_db_close(db);
}

/* Open file descriptors of this process. */
static int open_fds(void)
{
    int n = 0;
    char p[64];
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        if (access(p, F_OK) == 0)
            n++;
    }
    return n;
}

/* The write-back hint changes when pages reach the disk, never what is
 * stored: commits around it keep every row, the WAL goes away at close as
 * usual, and the hint's own descriptor with it. */
static void test_wal_writeback(void **state)
{
    (void)state;
    char p[256], wal[300];
    path_in(p, sizeof p, "writeback.db");
    snprintf(wal, sizeof wal, "%s-wal", p);
    int fds = open_fds();
    for (int round = 0; round < 3; round++) {
        sb_db *db;
        sb_error e;
        sb_error_clear(&e);
        assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_OK);
        sb_db_wal_writeback(db); /* before any write of this connection */
        for (int g = 0; g < 4; g++) {
            assert_int_equal(sb_db_begin(db, &e), SB_OK);
            assert_int_equal(sb_db_exec(db,
                                        "INSERT INTO runs (content_sha256, schema, status, source_path, "
                                        "ingested_at, raw_json) VALUES (hex(randomblob(32)), "
                                        "'solbook.result.v1', 'passed', 'writeback', "
                                        "'2026-01-01T00:00:00Z', '{}')",
                                        &e),
                             SB_OK);
            assert_int_equal(sb_db_commit(db, &e), SB_OK);
            sb_db_wal_writeback(db);
        }
        assert_int_equal(query_int(sb_db_handle(db), "SELECT count(*) FROM runs"), 4 * (round + 1));
        sb_db_close(db);
        assert_int_equal(access(wal, F_OK), -1);
        assert_int_equal(open_fds(), fds);
    }
}

/* Another process about to write the file while it is switched to WAL (as
 * when two ingests create one new database together: one looks for
 * migrations to run while the other switches) makes the switch wait, not
 * fail: a child holds a write transaction on a database in rollback mode
 * for 300 ms while this process opens it for writing. */
static void test_wal_switch_waits_for_a_writer(void **state)
{
    (void)state;
    char p[256];
    sb_db *db = open_writable(p, sizeof p, "switch.db");
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_db_exec(db, "PRAGMA journal_mode = DELETE", &e), SB_OK);
    sb_db_close(db);

    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        sqlite3 *c = NULL;
        int ok = sqlite3_open_v2(p, &c, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
                 sqlite3_exec(c, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
        char byte = ok ? 'y' : 'n';
        if (write(ready[1], &byte, 1) != 1)
            _exit(2);
        struct timespec hold = {0, 300 * 1000 * 1000};
        nanosleep(&hold, NULL);
        sqlite3_exec(c, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(c);
        _exit(ok ? 0 : 1);
    }
    char byte = 0;
    assert_int_equal(read(ready[0], &byte, 1), 1);
    assert_int_equal(byte, 'y');
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sb_db_open(p, SB_DB_WRITE, &db, &e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]);
    close(ready[1]);
    if (rc != SB_OK)
        fail_msg("open while another process writes: %s", e.msg);
    char mode[16];
    query_text(sb_db_handle(db), "PRAGMA journal_mode", mode, sizeof mode);
    assert_string_equal(mode, "wal");
    double waited = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    assert_true(waited >= 100.0); /* it did meet the writer's lock */
    sb_db_close(db);
}

/* How many descriptors of this process have path open (the targets of
 * the /proc/self/fd links). */
static int times_open(const char *path)
{
    char fd_path[64], target[512];
    int count = 0;
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(fd_path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, path) == 0)
            count++;
    }
    return count;
}

/* Opened through a symbolic link, the database's WAL lies beside the file
 * the link leads to (SQLite resolves it): the hint opens that one (beside
 * SQLite's own descriptor of it), not a name beside the link. */
static void test_wal_writeback_through_a_link(void **state)
{
    (void)state;
    char real[256], link[256], wal[300];
    sb_db *db = open_writable(real, sizeof real, "linked.db");
    sb_db_close(db);
    path_in(link, sizeof link, "link-to-linked.db");
    assert_int_equal(symlink(real, link), 0);
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_db_open(link, SB_DB_WRITE, &db, &e), SB_OK);
    assert_int_equal(sb_db_begin(db, &e), SB_OK);
    assert_int_equal(sb_db_exec(db, "CREATE TABLE scratch (x)", &e), SB_OK);
    assert_int_equal(sb_db_commit(db, &e), SB_OK);
    snprintf(wal, sizeof wal, "%s-wal", real);
    char *resolved = realpath(wal, NULL);
    assert_non_null(resolved);
    int before = times_open(resolved);
    sb_db_wal_writeback(db);
    assert_int_equal(times_open(resolved), before + 1);
    free(resolved);
    sb_db_close(db);
}

static void test_insert_query_cascade(void **state)
{
    (void)state;
    char p[256];
    sb_db *db = open_writable(p, sizeof p, "cascade.db");
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_db_begin(db, &e), SB_OK);
    assert_int_equal(
        sb_db_exec(db,
                   "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at, raw_json) "
                   "VALUES (7, 'abc', 'solbook.result.v1', 'passed', 'x.json', '2026-11-21T00:00:00Z', '{}');"
                   "INSERT INTO run_samples VALUES (7, '[2,1]', "
                   "X'000000000000F83F" "0000000000000440" "0000000000000C40');"
                   "INSERT INTO metrics (run_id, sample_count, median_ms) VALUES (7, 3, 2.5);",
                   &e),
        SB_OK);
    assert_int_equal(sb_db_commit(db, &e), SB_OK);
    sqlite3 *c = sb_db_handle(db);
    assert_int_equal(query_int(c, "SELECT length(value_ms) / 8 FROM run_samples WHERE run_id = 7"), 3);
    double v[3];
    load_samples(c, 7, v, 3);
    assert_true(v[0] == 1.5 && v[1] == 2.5 && v[2] == 3.5);
    /* Foreign keys: a sample of a run that does not exist is refused. */
    assert_int_equal(sb_db_exec(db, "INSERT INTO run_samples VALUES (8, '[1]', X'000000000000F03F')", &e), SB_ERR);
    expect_error(&e, "FOREIGN KEY");
    assert_string_equal(e.file, p);
    /* Rolled back work leaves nothing. */
    assert_int_equal(sb_db_begin(db, &e), SB_OK);
    assert_int_equal(sb_db_exec(db, "DELETE FROM run_samples", &e), SB_OK);
    sb_db_rollback(db);
    assert_int_equal(query_int(c, "SELECT count(*) FROM run_samples"), 1);
    /* Deleting the run takes its rows with it. */
    assert_int_equal(sb_db_exec(db, "DELETE FROM runs WHERE id = 7", &e), SB_OK);
    assert_int_equal(query_int(c, "SELECT count(*) FROM run_samples"), 0);
    assert_int_equal(query_int(c, "SELECT count(*) FROM metrics"), 0);
    sb_db_close(db);
}

static void test_refusals(void **state)
{
    (void)state;
    char p[256];
    sb_db *db = (sb_db *)1;
    sb_error e;

    path_in(p, sizeof p, "missing.db");
    assert_int_equal(sb_db_open(p, SB_DB_READ, &db, &e), SB_ERR);
    assert_null(db);
    assert_string_equal(e.file, p);
    expect_error(&e, "no such database");
    assert_int_not_equal(access(p, F_OK), 0); /* a reader creates nothing */

    path_in(p, sizeof p, "text.db");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("this is not a database, it is a text file long enough to have a header........\n", f);
    fclose(f);
    assert_int_equal(sb_db_open(p, SB_DB_READ, &db, &e), SB_ERR);
    expect_error(&e, "not an SQLite database");
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_ERR);
    expect_error(&e, "not an SQLite database");

    /* Someone else's SQLite database: never adopted. */
    path_in(p, sizeof p, "other.db");
    sqlite3 *c;
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    assert_int_equal(sqlite3_exec(c, "CREATE TABLE photos (id INTEGER)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(c);
    assert_int_equal(sb_db_open(p, SB_DB_READ, &db, &e), SB_ERR);
    expect_error(&e, "not a solbook database");
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_ERR);
    expect_error(&e, "not a solbook database");
    /* ... and left as it was (not even switched to WAL). */
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    char mode[16];
    query_text(c, "PRAGMA journal_mode", mode, sizeof mode);
    assert_string_equal(mode, "delete");
    assert_int_equal(query_int(c, "SELECT count(*) FROM sqlite_master"), 1);
    sqlite3_close(c);

    /* A database from a newer solbook. */
    path_in(p, sizeof p, "newer.db");
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_OK);
    assert_int_equal(sb_db_exec(db, "PRAGMA user_version = 999", &e), SB_OK);
    sb_db_close(db);
    assert_int_equal(sb_db_open(p, SB_DB_READ, &db, &e), SB_ERR);
    expect_error(&e, "schema version 999 is newer than this solbook");
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_ERR);
    expect_error(&e, "schema version 999 is newer than this solbook");

    /* A directory. */
    assert_int_equal(sb_db_open(dir, SB_DB_WRITE, &db, &e), SB_ERR);
    expect_error(&e, "is a directory");
}

/* The upgrade mechanism: a version-1 database (with data) meets a program
 * that knows a migration 002; and an empty file gets both. */
static void test_upgrade_in_place(void **state)
{
    (void)state;
    sb_db_migration list[2] = {
        sb_db_migrations[0],
        {2, "002_test_extra.sql",
         "CREATE TABLE run_labels (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
         "label TEXT NOT NULL);"},
    };
    char p[256];
    path_in(p, sizeof p, "v1.db");
    sqlite3 *c;
    sb_error e;
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    assert_int_equal(sb_db_migrate(c, p, list, 1, &e), SB_OK);
    { int uv = -9; assert_int_equal(sb_db_user_version(c, p, &uv, &e), SB_OK); assert_int_equal(uv, 1); }
    assert_int_equal(sqlite3_exec(c,
                                  "INSERT INTO runs (content_sha256, schema, status, source_path, ingested_at, "
                                  "raw_json) VALUES ('s1', 'solbook.result.v1', 'passed', 'a.json', 'now', '{}')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    /* Upgrade: 002 applied, the run kept. */
    assert_int_equal(sb_db_migrate(c, p, list, 2, &e), SB_OK);
    { int uv = -9; assert_int_equal(sb_db_user_version(c, p, &uv, &e), SB_OK); assert_int_equal(uv, 2); }
    assert_int_equal(query_int(c, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(sqlite3_exec(c, "INSERT INTO run_labels VALUES (1, 'baseline')", NULL, NULL, NULL),
                     SQLITE_OK);
    /* Running it again changes nothing. */
    assert_int_equal(sb_db_migrate(c, p, list, 2, &e), SB_OK);
    assert_int_equal(query_int(c, "SELECT count(*) FROM run_labels"), 1);
    /* This program (which knows only the embedded list) refuses a v2 file
     * when the embedded list ends at 1, and reads it when it knows 2. */
    if (sb_db_schema_version() < 2) {
        assert_int_equal(sb_db_migrate(c, p, sb_db_migrations, sb_db_migration_count, &e), SB_ERR);
        expect_error(&e, "newer than this solbook");
    }
    sqlite3_close(c);

    path_in(p, sizeof p, "v0.db");
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    { int uv = -9; assert_int_equal(sb_db_user_version(c, p, &uv, &e), SB_OK); assert_int_equal(uv, 0); }
    assert_int_equal(sb_db_migrate(c, p, list, 2, &e), SB_OK);
    { int uv = -9; assert_int_equal(sb_db_user_version(c, p, &uv, &e), SB_OK); assert_int_equal(uv, 2); }
    assert_int_equal(query_int(c, "SELECT count(*) FROM sqlite_master WHERE name = 'run_labels'"), 1);
    sqlite3_close(c);

    /* A failing migration leaves the database at its old version. */
    sb_db_migration broken[2] = {sb_db_migrations[0], {2, "002_broken.sql", "CREATE TABLE runs (x);"}};
    path_in(p, sizeof p, "v1b.db");
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    assert_int_equal(sb_db_migrate(c, p, broken, 1, &e), SB_OK);
    assert_int_equal(sb_db_migrate(c, p, broken, 2, &e), SB_ERR);
    expect_error(&e, "migration 002_broken.sql failed");
    { int uv = -9; assert_int_equal(sb_db_user_version(c, p, &uv, &e), SB_OK); assert_int_equal(uv, 1); }
    sqlite3_close(c);

    /* A migration that rebuilds runs on a connection with foreign keys on
     * keeps the rows that reference it (with the keys on, dropping the old
     * table would delete them); one that leaves a row without its run
     * fails whole. The keys are on again after either. */
    sb_db_migration rebuild[4] = {
        list[0], list[1],
        {3, "003_rebuild.sql",
         "CREATE TABLE runs_new (id INTEGER PRIMARY KEY, content_sha256 TEXT, schema TEXT, "
         "run_uuid TEXT, status TEXT, reason TEXT, source_path TEXT, source_format TEXT, "
         "ingested_at TEXT, notes TEXT, raw_json TEXT);"
         "INSERT INTO runs_new SELECT * FROM runs; DROP TABLE runs;"
         "ALTER TABLE runs_new RENAME TO runs;"},
        {4, "004_dangling.sql", "DELETE FROM runs;"},
    };
    path_in(p, sizeof p, "v2fk.db");
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    assert_int_equal(sqlite3_exec(c, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sb_db_migrate(c, p, rebuild, 2, &e), SB_OK);
    assert_int_equal(sqlite3_exec(c,
                                  "INSERT INTO runs (id, content_sha256, schema, status, source_path, "
                                  "ingested_at, raw_json) VALUES (7, 's7', 'solbook.result.v1', 'passed', "
                                  "'a.json', 'now', '{}'); INSERT INTO run_labels VALUES (7, 'kept')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(sb_db_migrate(c, p, rebuild, 3, &e), SB_OK);
    assert_int_equal(query_int(c, "SELECT count(*) FROM run_labels WHERE run_id = 7"), 1);
    assert_int_equal(query_int(c, "SELECT count(*) FROM runs WHERE id = 7 AND content_sha256 = 's7'"), 1);
    assert_int_equal(query_int(c, "PRAGMA foreign_keys"), 1);
    assert_int_equal(sb_db_migrate(c, p, rebuild, 4, &e), SB_ERR);
    expect_error(&e, "left a row of run_labels (rowid 1) without its row in runs");
    { int uv = -9; assert_int_equal(sb_db_user_version(c, p, &uv, &e), SB_OK); assert_int_equal(uv, 3); }
    assert_int_equal(query_int(c, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(query_int(c, "PRAGMA foreign_keys"), 1);
    sqlite3_close(c);
}

/* sb_db_open on a version-0 file created by another program run. */
static void test_open_upgrades_empty_file(void **state)
{
    (void)state;
    char p[256];
    path_in(p, sizeof p, "empty.db");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    sb_db *db;
    sb_error e;
    assert_int_equal(sb_db_open(p, SB_DB_READ, &db, &e), SB_ERR);
    expect_error(&e, "not a solbook database");
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_OK);
    assert_int_equal(query_int(sb_db_handle(db), "PRAGMA user_version"), sb_db_schema_version());
    sb_db_close(db);
}

static int append_row(void *acc, int n, char **vals, char **names)
{
    (void)names;
    for (int i = 0; i < n; i++) {
        char *next = sqlite3_mprintf("%z%s|", *(char **)acc, vals[i] ? vals[i] : "NULL");
        assert_non_null(next);
        *(char **)acc = next;
    }
    *(char **)acc = sqlite3_mprintf("%z\n", *(char **)acc);
    return 0;
}

/* Everything a new file holds: user_version, sqlite_master in order
 * (statements and the SQLite objects they bring) and every table's rows. */
static char *contents(sqlite3 *c)
{
    char *acc = sqlite3_mprintf("");
    assert_int_equal(sqlite3_exec(c, "PRAGMA user_version; SELECT type, name, tbl_name, sql "
                                     "FROM sqlite_master ORDER BY rowid",
                                  append_row, &acc, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(c, "SELECT name FROM sqlite_master WHERE type = 'table' "
                                           "ORDER BY rowid", -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char *q = sqlite3_mprintf("SELECT '%q', * FROM \"%w\"", sqlite3_column_text(st, 0),
                                  sqlite3_column_text(st, 0));
        assert_int_equal(sqlite3_exec(c, q, append_row, &acc, NULL), SQLITE_OK);
        sqlite3_free(q);
    }
    sqlite3_finalize(st);
    return acc;
}

/* A new file gets the generated schema script in one go; it must hold
 * exactly what replaying every migration leaves (the same statements in
 * the same order, the same seeded rows, the same version). */
static void test_new_schema_equals_migrations(void **state)
{
    (void)state;
    assert_true(sb_db_new_schema[0] != '\0');
    char fast[256], slow[256];
    path_in(fast, sizeof fast, "new_fast.db");
    path_in(slow, sizeof slow, "new_slow.db");
    /* Another list than sb_db_migrations (the same migrations) takes the
     * migration-by-migration path. */
    sb_db_migration *copy = malloc(sb_db_migration_count * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, sb_db_migrations, sb_db_migration_count * sizeof *copy);
    sb_db *a, *b;
    sb_error e;
    assert_int_equal(sb_db_open(fast, SB_DB_WRITE, &a, &e), SB_OK);
    assert_int_equal(sb_db_open_with(slow, SB_DB_WRITE, copy, sb_db_migration_count, &b, &e), SB_OK);
    char *ta = contents(sb_db_handle(a)), *tb = contents(sb_db_handle(b));
    assert_string_equal(ta, tb);
    assert_non_null(strstr(ta, "rg_changes|1|0|"));
    sqlite3_free(ta);
    sqlite3_free(tb);
    sb_db_close(a);
    sb_db_close(b);
    free(copy);
}

/* The real open path: a reader meeting an older database upgrades it in
 * place and reads it; a writer does too; then an older program refuses it. */
static void test_open_upgrades_older(void **state)
{
    (void)state;
    sb_db_migration list[2] = {
        sb_db_migrations[0],
        {2, "002_test_notes.sql", "ALTER TABLE runs ADD COLUMN label TEXT;"},
    };
    char p[256];
    path_in(p, sizeof p, "old_reader.db");
    sb_db *db;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_db_open_with(p, SB_DB_WRITE, list, 1, &db, &e), SB_OK);
    assert_int_equal(sb_db_exec(db,
                                "INSERT INTO runs (content_sha256, schema, status, source_path, ingested_at, "
                                "raw_json) VALUES ('s1', 'solbook.result.v1', 'passed', 'a.json', 'now', '{}')",
                                &e),
                     SB_OK);
    sb_db_close(db);
    if (sb_db_open_with(p, SB_DB_READ, list, 2, &db, &e) != SB_OK)
        fail_msg("%s: %s", e.file, e.msg);
    sqlite3 *c = sb_db_handle(db);
    assert_int_equal(query_int(c, "PRAGMA user_version"), 2);
    assert_int_equal(query_int(c, "SELECT count(*) FROM runs WHERE label IS NULL"), 1);
    sb_db_close(db);
    /* A program that knows only migration 1 now refuses the file. */
    assert_int_equal(sb_db_open_with(p, SB_DB_READ, list, 1, &db, &e), SB_ERR);
    expect_error(&e, "schema version 2 is newer than this solbook");

    path_in(p, sizeof p, "old_writer.db");
    assert_int_equal(sb_db_open_with(p, SB_DB_WRITE, list, 1, &db, &e), SB_OK);
    sb_db_close(db);
    assert_int_equal(sb_db_open_with(p, SB_DB_WRITE, list, 2, &db, &e), SB_OK);
    assert_int_equal(query_int(sb_db_handle(db), "PRAGMA user_version"), 2);
    sb_db_close(db);
}

/* A new database at file (its path in p) with the migrations before the
 * one whose name contains migration: a database an older solbook wrote. */
static sb_db *open_before(const char *migration, const char *file, char *p, size_t psize)
{
    size_t at = 0;
    while (at < sb_db_migration_count && !strstr(sb_db_migrations[at].name, migration))
        at++;
    assert_true(at < sb_db_migration_count);
    path_in(p, psize, file);
    sb_db *db;
    sb_error e;
    sb_error_clear(&e);
    if (sb_db_open_with(p, SB_DB_WRITE, sb_db_migrations, at, &db, &e) != SB_OK)
        fail_msg("%s: %s", e.file, e.msg);
    return db;
}

/* The case-identity migration re-keys a database written before it: the
 * suite leaves the case key, and runs timed under a profiler are marked. */
static void test_case_identity_migration(void **state)
{
    (void)state;
    char p[256];
    sb_error e;
    sb_error_clear(&e);
    sb_db *db = open_before("case_identity", "rekey.db", p, sizeof p);
    static const char *const rows =
        "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at, raw_json) VALUES"
        " (1, 'a', 'solbook.result.v1', 'passed', 'a.json', 'x', '{\"protocol\":{}}'),"
        " (2, 'b', 'solbook.result.v1', 'passed', 'b.json', 'x', '{\"protocol\":{}}'),"
        " (3, 'c', 'solbook.result.v1', 'passed', 'c.json', 'x', '{\"protocol\":{}}'),"
        " (4, 'd', 'solbook.result.v1', 'passed', 'd.json', 'x', '{\"protocol\":{\"profiler\":\"nsys\"}}');"
        "INSERT INTO configs (run_id, suite, op, mode, provider, backend, dtype, shape_key, shape_json,"
        " params_json, case_key, timer, l2) VALUES"
        " (1, 'memory-bound', 'rmsnorm', 'fwd', 'fused', 'cuda', 'bf16', 'M=1,N=2', '{}', '{\"eps\":1e-06}',"
        "  'memory-bound|rmsnorm|fwd|bf16|M=1,N=2|{\"eps\":1e-06}', 'cuda-event', 'warm'),"
        " (2, 'memory-bound-quick', 'rmsnorm', 'fwd', 'fused', 'cuda', 'bf16', 'M=1,N=2', '{}', '{\"eps\":1e-06}',"
        "  'memory-bound-quick|rmsnorm|fwd|bf16|M=1,N=2|{\"eps\":1e-06}', 'cuda-event', 'warm'),"
        " (3, 'adhoc', 'rmsnorm', 'fwd', 'fused', 'cuda', 'bf16', 'M=1,N=2', '{}', '{\"eps\":1e-06}',"
        "  'adhoc|rmsnorm|fwd|bf16|M=1,N=2|{\"eps\":1e-06}', 'cuda-event', 'warm'),"
        " (4, 'adhoc', 'rmsnorm', 'fwd', 'fused', 'cuda', 'bf16', 'M=1,N=2', '{}', '{\"eps\":1e-06}',"
        "  'adhoc|rmsnorm|fwd|bf16|M=1,N=2|{\"eps\":1e-06}', 'cuda-event', 'warm');"
        "INSERT INTO profiler_metrics VALUES (3, 0, 'k', 'gpu__time_duration.sum', 'ns', 1.0, 'c.ncu.csv'),"
        " (2, 0, 'k', 'gpu__time_duration.sum', 'ns', 1.0, 'b.ncu.csv');"
        /* run 3: one sample, profiled; run 2: 250 samples beside a separate profile */
        "INSERT INTO metrics (run_id, sample_count) VALUES (2, 250), (3, 1);";
    assert_int_equal(sb_db_exec(db, rows, &e), SB_OK);
    sb_db_close(db);
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &e), SB_OK);
    sqlite3 *c = sb_db_handle(db);
    assert_int_equal(query_int(c, "SELECT count(DISTINCT case_key) FROM configs"), 1);
    char t[256];
    query_text(c, "SELECT case_key FROM configs WHERE run_id = 2", t, sizeof t);
    assert_string_equal(t, "rmsnorm|fwd|bf16|M=1,N=2|{\"eps\":1e-06}");
    query_text(c, "SELECT group_concat(coalesce(profiler, '-'), ' ') FROM (SELECT profiler FROM configs ORDER BY run_id)",
               t, sizeof t);
    assert_string_equal(t, "- - ncu nsys");
    sb_db_close(db);
}

/* Migration 007 folds the one-row-a-sample table into run_samples: values
 * in (rep, idx) order whatever order they were inserted in, a missing
 * repeat below the last one 0 long, runs without samples without a row. */
static void test_run_samples_migration(void **state)
{
    (void)state;
    char p[256];
    sb_error e;
    sb_error_clear(&e);
    sb_db *db = open_before("run_samples", "fold.db", p, sizeof p);
    static const char *const rows =
        "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at, raw_json) VALUES"
        " (1, 'a', 'solbook.result.v1', 'passed', 'a.json', 'x', '{}'),"
        " (2, 'b', 'solbook.training.v1', 'passed', 'b.json', 'x', '{}'),"
        " (3, 'c', 'solbook.result.v1', 'failed', 'c.json', 'x', '{}');"
        "INSERT INTO samples VALUES (1, 3, 1, 0.375), (1, 0, 1, 0.125), (1, 3, 0, 0.25),"
        " (1, 1, 0, 0.1), (1, 0, 0, 0.0625), (2, 0, 2, 30.5), (2, 0, 0, 10.5), (2, 0, 1, 20.5);";
    assert_int_equal(sb_db_exec(db, rows, &e), SB_OK);
    sb_db_close(db);
    if (sb_db_open(p, SB_DB_WRITE, &db, &e) != SB_OK)
        fail_msg("%s: %s", e.file, e.msg);
    sqlite3 *c = sb_db_handle(db);
    assert_int_equal(query_int(c, "SELECT count(*) FROM sqlite_master WHERE name = 'samples'"), 0);
    assert_int_equal(query_int(c, "SELECT count(*) FROM run_samples"), 2);
    char t[64];
    query_text(c, "SELECT rep_lengths FROM run_samples WHERE run_id = 1", t, sizeof t);
    assert_string_equal(t, "[2,1,0,2]");
    query_text(c, "SELECT rep_lengths FROM run_samples WHERE run_id = 2", t, sizeof t);
    assert_string_equal(t, "[3]");
    double v[5];
    load_samples(c, 1, v, 5);
    assert_true(v[0] == 0.0625 && v[1] == 0.125 && v[2] == 0.1 && v[3] == 0.25 && v[4] == 0.375);
    load_samples(c, 2, v, 3);
    assert_true(v[0] == 10.5 && v[1] == 20.5 && v[2] == 30.5);
    /* The functions that did it are not callable from stored SQL. */
    assert_int_equal(sb_db_exec(db, "CREATE VIEW packed AS SELECT sb_pack_samples(0, 0, 1.0)", &e), SB_OK);
    assert_int_equal(sb_db_exec(db, "SELECT * FROM packed", &e), SB_ERR);
    expect_error(&e, "unsafe use of sb_pack_samples");
    sb_db_close(db);
}

static void test_sha256(void **state)
{
    (void)state;
    char hex[65];
    sb_error e;
    assert_int_equal(sb_sha256_hex("abc", 3, hex, &e), SB_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(sb_sha256_hex("", 0, hex, &e), SB_OK);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char p[256];
    path_in(p, sizeof p, "abc.txt");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("abc", f);
    fclose(f);
    assert_int_equal(sb_sha256_file_hex(p, hex, &e), SB_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    path_in(p, sizeof p, "nope.txt");
    assert_int_equal(sb_sha256_file_hex(p, hex, &e), SB_ERR);
    assert_string_equal(e.file, p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_settings),
        cmocka_unit_test(test_wal_writeback),
        cmocka_unit_test(test_wal_writeback_through_a_link),
        cmocka_unit_test(test_wal_switch_waits_for_a_writer),
        cmocka_unit_test(test_insert_query_cascade),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_upgrade_in_place),
        cmocka_unit_test(test_open_upgrades_empty_file),
        cmocka_unit_test(test_new_schema_equals_migrations),
        cmocka_unit_test(test_open_upgrades_older),
        cmocka_unit_test(test_case_identity_migration),
        cmocka_unit_test(test_run_samples_migration),
        cmocka_unit_test(test_sha256),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
