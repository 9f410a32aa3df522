/* test_samples_once.c - a database written before migration 012 (each
 * result's samples both in runs.raw_json and in run_samples) upgrades to
 * one copy: real result files from examples/ stored as the earlier solbook
 * stored them, then migrated, give back the same document byte for byte
 * (sb_run_raw_json, whose digest is content_sha256) and the same samples
 * (sb_samples_load), while raw_json no longer carries them. Samples
 * written as whole numbers stay where they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "canonical_json.h"
#include "connection.h"
#include "home.h"
#include "json_file.h"
#include "migrate.h"
#include "results_query.h"
#include "run_query.h"
#include "sample_blob.h"
#include "sha256.h"
#include "store.h"
#include "strbuf.h"

static char dir[] = "/tmp/sb_test_samples_once_XXXXXX";

/* Real results: samples first in timing (forge), after other members
 * (clocks), beside timing.kernel.samples (a held launch), one sample. */
static const char *const FILES[] = {
    "examples/h100/forge/runs/gpu-rmsnorm-20261122-003612/results/case0-baseline.json",
    "examples/h100/rmsnorm-bwd-coop/ab/new/8.json",
    "examples/h100/providers/334acf0-quick/compile/cross_entropy-bf16-full-1024x128256-torch-compile.json",
    "examples/h100/rmsnorm-fwd-ncu/fused.json",
};
#define NFILES (sizeof FILES / sizeof FILES[0])

typedef struct stored {
    char *whole;        /* the canonical JSON the earlier solbook stored */
    double *v;
    size_t n;
} stored;

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

static long long q(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(c));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Stores doc as run id the way solbook did before migration 012: raw_json
 * whole, the samples packed in run_samples too. */
static void store_old(sqlite3 *c, long long id, json_t *doc, stored *out)
{
    size_t len;
    out->whole = sb_canonical_json(doc, &len);
    assert_non_null(out->whole);
    char sha[SB_SHA256_HEX_LEN + 1];
    sb_error e;
    assert_int_equal(sb_sha256_hex(out->whole, len, sha, &e), SB_OK);
    json_t *samples = json_object_get(json_object_get(doc, "timing"), "samples");
    size_t nrep = json_array_size(samples), n = 0;
    for (size_t r = 0; r < nrep; r++)
        n += json_array_size(json_array_get(samples, r));
    out->v = malloc(n * sizeof *out->v);
    size_t *lens = malloc(nrep * sizeof *lens);
    assert_non_null(out->v);
    assert_non_null(lens);
    out->n = 0;
    for (size_t r = 0; r < nrep; r++) {
        json_t *rep = json_array_get(samples, r);
        lens[r] = json_array_size(rep);
        for (size_t i = 0; i < lens[r]; i++)
            out->v[out->n++] = json_number_value(json_array_get(rep, i));
    }
    char rl[4096];
    assert_true(sb_sample_blob_rep_lengths(lens, nrep, rl, sizeof rl) > 0);
    unsigned char *blob = malloc(SB_SAMPLE_BLOB_BYTES(n));
    assert_non_null(blob);
    sb_sample_blob_encode(out->v, n, blob);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(c,
                                        "INSERT INTO runs (id, content_sha256, schema, status, source_path,"
                                        " ingested_at, raw_json) VALUES (?1, ?2, 'solbook.result.v1',"
                                        " 'passed', 'old.json', '2026-11-20T00:00:00Z', ?3)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, out->whole, (int)len, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(c, "INSERT INTO run_samples VALUES (?1, ?2, ?3)", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, rl, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 3, blob, (int)SB_SAMPLE_BLOB_BYTES(n), SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    free(blob);
    free(lens);
}

static void test_old_database_migrates(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/old.db", dir);
    sqlite3 *c;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sqlite3_open(p, &c), SQLITE_OK);
    /* the query functions of db/ take the handle; the checks here use
     * its connection */
    sb_db *db;
    assert_int_equal(sb_db_adopt(c, p, &db, &e), SB_OK);
    size_t before = 0;
    while (before < sb_db_migration_count && sb_db_migrations[before].version < 12)
        before++;
    assert_int_equal(sb_db_migrate(c, p, sb_db_migrations, before, &e), SB_OK);
    assert_int_equal(q(c, "PRAGMA user_version"), 11);

    stored s[NFILES + 1];
    size_t raw_before = 0;
    for (size_t i = 0; i < NFILES; i++) {
        char path[1024];
        json_t *doc = NULL;
        snprintf(path, sizeof path, "%s/%s", sb_home(), FILES[i]);
        if (sb_json_load_file(path, &doc, &e) != SB_OK)
            fail_msg("%s: %s", e.file, e.msg);
        store_old(c, (long long)i + 1, doc, &s[i]);
        raw_before += strlen(s[i].whole);
        if (i == 0) {
            /* the same run with its samples written as whole numbers */
            json_t *reps = json_object_get(json_object_get(doc, "timing"), "samples");
            for (size_t r = 0; r < json_array_size(reps); r++) {
                json_t *rep = json_array_get(reps, r);
                for (size_t k = 0; k < json_array_size(rep); k++)
                    json_array_set_new(rep, k, json_integer((json_int_t)(k + 1)));
            }
            json_object_set_new(doc, "notes", json_string("whole numbers"));
            store_old(c, NFILES + 1, doc, &s[NFILES]);
        }
        json_decref(doc);
    }

    assert_int_equal(sb_db_migrate(c, p, sb_db_migrations, sb_db_migration_count, &e), SB_OK);
    assert_int_equal(q(c, "PRAGMA user_version"), sb_db_schema_version());
    /* the real files' samples left raw_json; the whole numbers stayed */
    assert_int_equal(q(c, "SELECT count(*) FROM runs WHERE samples_at IS NOT NULL"), NFILES);
    assert_int_equal(q(c, "SELECT count(*) FROM runs WHERE json_extract(raw_json, '$.timing.samples') IS NULL"),
                     NFILES);
    assert_int_equal(q(c, "SELECT samples_at FROM runs WHERE id = 5"), -1);
    assert_int_equal(q(c, "SELECT count(*) FROM runs WHERE json_extract(raw_json, '$.timing.kernel.samples') "
                          "IS NOT NULL"),
                     1);
    /* each sample's text (17 significant digits, a comma) is gone */
    size_t values = 0;
    for (size_t i = 0; i < NFILES; i++)
        values += s[i].n;
    assert_true((size_t)q(c, "SELECT sum(length(raw_json)) FROM runs WHERE id <= 4") + 17 * values <
                raw_before);

    for (size_t i = 0; i <= NFILES; i++) {
        sb_buf b = SB_BUF_INIT;
        if (sb_run_raw_json(db, (long long)i + 1, &b, &e) != SB_OK)
            fail_msg("run %zu: %s", i + 1, e.msg);
        if (strcmp(sb_buf_str(&b), s[i].whole) != 0)
            fail_msg("run %zu: the document read back differs from the one stored", i + 1);
        char sha[SB_SHA256_HEX_LEN + 1];
        assert_int_equal(sb_sha256_hex(b.data, b.len, sha, &e), SB_OK);
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT content_sha256 = '%s' FROM runs WHERE id = %zu", sha, i + 1);
        assert_int_equal(q(c, sql), 1);
        sb_buf_free(&b);
        double *v;
        size_t n;
        assert_int_equal(sb_samples_load(db, (long long)i + 1, &v, &n, &e), SB_OK);
        assert_int_equal(n, s[i].n);
        assert_memory_equal(v, s[i].v, n * sizeof *v);
        free(v);
        free(s[i].whole);
        free(s[i].v);
    }
    sb_db_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_database_migrates),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
