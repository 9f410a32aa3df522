/* test_checks_migrate.c - migration 017 rebuilds run_verdicts with its
 * CHECK constraints written without IN lists: a database with verdicts
 * stored at schema 16 keeps every row and column after the upgrade, the
 * constraints still refuse what they refused, and the partial indexes of
 * rg_steps come back with their terms written the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "error.h"
#include "migrate.h"
#include "store.h"

static char dir[] = "/tmp/sb_test_checks_migrate_XXXXXX";

static int group_setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void exec_ok(sqlite3 *c, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(c, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

static int exec_refused(sqlite3 *c, const char *sql)
{
    return sqlite3_exec(c, sql, NULL, NULL, NULL) == SQLITE_CONSTRAINT;
}

/* The rows of run_verdicts, every column as text, one line each. */
static char *verdict_rows(sqlite3 *c)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c, "SELECT * FROM run_verdicts ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(c));
    size_t cap = 4096, len = 0;
    char *out = calloc(cap, 1);
    assert_non_null(out);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const char *t = (const char *)sqlite3_column_text(st, i);
            int k = snprintf(out + len, cap - len, "%s%s=%s", i ? "," : "", sqlite3_column_name(st, i),
                             t ? t : "NULL");
            assert_true(k > 0 && (size_t)k < cap - len);
            len += (size_t)k;
        }
        assert_true(len + 1 < cap);
        out[len++] = '\n';
    }
    sqlite3_finalize(st);
    return out;
}

static long long q(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(c));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void test_verdicts_keep_their_rows(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/v16.db", dir);
    sqlite3 *c;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    size_t before = 0;
    while (before < sb_db_migration_count && sb_db_migrations[before].version < 17)
        before++;
    assert_int_equal(sb_db_migrate(c, p, sb_db_migrations, before, &e), SB_OK);
    assert_int_equal(q(c, "PRAGMA user_version"), 16);
    exec_ok(c, "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at, raw_json)"
               " VALUES (1, '01', 'solbook.result.v1', 'passed', 'a.json', '2026-12-01T00:00:00Z', '{}'),"
               " (2, '02', 'solbook.result.v1', 'passed', 'b.json', '2026-12-01T00:00:00Z', '{}')");
    exec_ok(c, "INSERT INTO run_verdicts VALUES"
               " (1, 'implausible', 'faster than the copy ceiling', 4100.5, NULL, 'bw.copy', 3000.25, 136.7,"
               "  7, 'GPU-1', 1073741824, 'own', 2, 2900.0, 3050.0, 0, '', NULL, NULL),"
               " (2, 'ok', '', 10.0, 900.0, 'datasheet HBM', 3350.0, 0.3, NULL, '', 0, 'unknown', 0, NULL, NULL,"
               "  1, 'bf16 tensor', 989.0, 91.0)");
    char *rows16 = verdict_rows(c);

    assert_int_equal(sb_db_migrate(c, p, sb_db_migrations, sb_db_migration_count, &e), SB_OK);
    assert_int_equal(q(c, "PRAGMA user_version"), sb_db_schema_version());
    char *rows = verdict_rows(c);
    assert_string_equal(rows, rows16);
    free(rows);
    free(rows16);

    /* what the constraints refused, they refuse */
    exec_ok(c, "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at, raw_json)"
               " VALUES (3, '03', 'solbook.result.v1', 'passed', 'c.json', '2026-12-01T00:00:00Z', '{}')");
    const char *row = "INSERT INTO run_verdicts VALUES (3, %s, '', NULL, NULL, '', NULL, NULL, NULL, '', 0, %s, 0,"
                      " NULL, NULL, %s, '', NULL, NULL)";
    char sql[512];
    snprintf(sql, sizeof sql, row, "'plausible'", "'own'", "0");
    assert_true(exec_refused(c, sql));
    snprintf(sql, sizeof sql, row, "'ok'", "'mine'", "0");
    assert_true(exec_refused(c, sql));
    snprintf(sql, sizeof sql, row, "'ok'", "'own'", "2");
    assert_true(exec_refused(c, sql));
    snprintf(sql, sizeof sql, row, "'cache-resident'", "'other'", "1");
    exec_ok(c, sql);
    /* and the verdict of a forgotten run goes with it */
    exec_ok(c, "PRAGMA foreign_keys = ON");
    exec_ok(c, "DELETE FROM runs WHERE id = 1");
    assert_int_equal(q(c, "SELECT count(*) FROM run_verdicts"), 2);

    /* no CHECK or partial index of the tables an insert goes through
     * keeps an IN list of constants */
    assert_int_equal(q(c, "SELECT count(*) FROM sqlite_master WHERE tbl_name IN ('run_verdicts', 'rg_steps')"
                          " AND sql LIKE '% IN (%'"),
                     0);
    assert_int_equal(q(c, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                          " AND name IN ('rg_steps_family', 'rg_steps_drift')"),
                     2);
    sqlite3_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts_keep_their_rows),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
