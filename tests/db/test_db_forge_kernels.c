/* test_db_forge_kernels.c - the forge_kernels table comes from migration
 * 004 (a database whose forge created the table keeps its rows), and
 * sb_db_forge_kernels gives the rows back as verified_kernels.json's
 * kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "connection.h"
#include "forge_kernels.h"
#include "migrate.h"
#include "store.h"

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/sb-test-db-forge-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/lab.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void exec(sqlite3 *c, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(c, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
}

static const char *const ROW =
    "INSERT INTO forge_kernels VALUES ('cuda_rmsnorm_h100_bf16_m4096_v1', 'cuda_rmsnorm_h100_bf16_m4096', 1,"
    " 'cuda', 'rmsnorm', 'h100-sxm5-80gb', 'bf16', 'M=4096', 'run-1', 'alice', 'human', 'rmsnorm_fwd',"
    " 1.1, 1.2, 1.25, 'NVIDIA H100 80GB HBM3', NULL, 'abcdef', '[{\"speedup\": 1.2}]',"
    " '{\"kernel.cu\": \"00ff\"}', 'forge/registry/cuda_rmsnorm_h100_bf16_m4096_v1',"
    " 'available, not applied', 'op-level microbenchmark', '2026-11-21T12:00:00Z')";

static void test_fresh_database_has_the_table(void **state)
{
    fixture *f = *state;
    sb_db *db;
    sb_error e;
    assert_int_equal(sb_db_open(f->path, SB_DB_WRITE, &db, &e), SB_OK);
    sqlite3 *c = sb_db_handle(db);
    json_t *k = NULL;
    assert_int_equal(sb_db_forge_kernels(db, &k, &e), SB_OK);
    assert_int_equal(json_array_size(k), 0);
    json_decref(k);
    exec(c, ROW);
    assert_int_equal(sb_db_forge_kernels(db, &k, &e), SB_OK);
    assert_int_equal(json_array_size(k), 1);
    json_t *r = json_array_get(k, 0);
    assert_string_equal(json_string_value(json_object_get(r, "kernel_id")), "cuda_rmsnorm_h100_bf16_m4096_v1");
    assert_int_equal(json_integer_value(json_object_get(r, "version")), 1);
    assert_string_equal(json_string_value(json_object_get(r, "commit")), "abcdef");
    assert_null(json_object_get(r, "git_sha"));
    assert_true(json_is_null(json_object_get(r, "driver_version")));
    assert_true(json_number_value(json_object_get(r, "speedup_geomean")) == 1.25);
    assert_true(json_number_value(json_object_get(json_array_get(json_object_get(r, "cases"), 0), "speedup")) == 1.2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r, "sources_sha256"), "kernel.cu")), "00ff");
    assert_null(json_object_get(r, "base_id")); /* not part of verified_kernels.json */
    assert_int_equal(json_object_size(r), 23);
    json_decref(k);
    sb_db_close(db);
}

/* A database at version 3 on which an older forge created forge_kernels
 * itself: the upgrade keeps the table and its row. */
static void test_upgrade_keeps_a_forge_created_table(void **state)
{
    fixture *f = *state;
    assert_true(sb_db_migration_count >= 4);
    assert_string_equal(sb_db_migrations[3].name, "004_forge_kernels.sql");
    sqlite3 *c;
    sb_error e;
    assert_int_equal(sqlite3_open(f->path, &c), SQLITE_OK);
    assert_int_equal(sb_db_migrate(c, f->path, sb_db_migrations, 3, &e), SB_OK);
    exec(c, "CREATE TABLE IF NOT EXISTS forge_kernels (kernel_id TEXT PRIMARY KEY, base_id TEXT NOT NULL,"
            " version INTEGER NOT NULL, language TEXT NOT NULL, op TEXT NOT NULL, sku TEXT NOT NULL,"
            " dtype TEXT NOT NULL, shapes TEXT NOT NULL, forge_run TEXT NOT NULL UNIQUE, author TEXT NOT NULL,"
            " author_kind TEXT NOT NULL, entry_point TEXT NOT NULL, min_speedup REAL NOT NULL,"
            " speedup_min REAL NOT NULL, speedup_geomean REAL NOT NULL, gpu_name TEXT NOT NULL,"
            " driver_version TEXT, git_sha TEXT NOT NULL, cases_json TEXT NOT NULL, sources_json TEXT NOT NULL,"
            " registry_path TEXT NOT NULL, status TEXT NOT NULL, evidence_level TEXT NOT NULL,"
            " promoted_at TEXT NOT NULL, UNIQUE (base_id, version));");
    exec(c, ROW);
    assert_int_equal(sb_db_migrate(c, f->path, sb_db_migrations, sb_db_migration_count, &e), SB_OK);
    int uv = -9;
    assert_int_equal(sb_db_user_version(c, f->path, &uv, &e), SB_OK);
    assert_int_equal(uv, sb_db_schema_version());
    sb_db *db;
    assert_int_equal(sb_db_adopt(c, f->path, &db, &e), SB_OK);
    json_t *k = NULL;
    assert_int_equal(sb_db_forge_kernels(db, &k, &e), SB_OK);
    assert_int_equal(json_array_size(k), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(k, 0), "forge_run")), "run-1");
    json_decref(k);
    sb_db_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fresh_database_has_the_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upgrade_keeps_a_forge_created_table, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
