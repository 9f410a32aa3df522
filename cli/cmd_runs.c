/* cmd_runs.c - `solbook runs`: list stored runs, filtered. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook runs [--db PATH] [--arch A] [--sku S] [--sha X] [--op O]\n"
            "                    [--provider P] [--status S] [--limit N] [--json]\n\n"
            "Lists stored runs, oldest first (by finish time), as a table or a JSON array.\n\n"
            "  --db PATH        database (default: $SOLBOOK_DB, else ./solbook.db)\n"
            "  --arch A         a100, h100, h200, cpu, ...\n"
            "  --sku S          SKU id, e.g. h100-sxm5-80gb\n"
            "  --sha X          benchmarked git commit, full or a prefix\n"
            "  --op O           operation, e.g. gemm, rmsnorm\n"
            "  --provider P     implementation, e.g. cublas, solbook-mma\n"
            "  --status S       passed, failed or skipped\n"
            "  --limit N        only the newest N runs\n"
            "  --json           a JSON array of objects instead of the table\n"
            "  -h, --help       this help\n");
}

enum { C_ID, C_FINISHED, C_ARCH, C_SKU, C_SHA, C_SCHEMA, C_OP, C_MODE, C_PROVIDER, C_DTYPE, C_SHAPE,
       C_MEDIAN, C_STATUS, C_MODEL, C_COUNT, C_NCOLS };

static const char *text(sqlite3_stmt *st, int c)
{
    const unsigned char *t = sqlite3_column_text(st, c);
    return t ? (const char *)t : NULL;
}

int cmd_runs(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},     {"arch", required_argument, NULL, 'a'},
        {"sku", required_argument, NULL, 'k'},    {"sha", required_argument, NULL, 'g'},
        {"op", required_argument, NULL, 'o'},     {"provider", required_argument, NULL, 'p'},
        {"status", required_argument, NULL, 's'}, {"limit", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db_path = sb_default_db_path();
    const char *arch = NULL, *sku = NULL, *sha = NULL, *op = NULL, *provider = NULL, *status = NULL;
    long limit = 0;
    int json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+d:a:k:g:o:p:s:l:jh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'a': arch = optarg; break;
        case 'k': sku = optarg; break;
        case 'g': sha = optarg; break;
        case 'o': op = optarg; break;
        case 'p': provider = optarg; break;
        case 's': status = optarg; break;
        case 'l': {
            char *end;
            limit = strtol(optarg, &end, 10);
            if (!*optarg || *end || limit <= 0) {
                fprintf(stderr, "solbook runs: --limit %s: not a positive integer\n", optarg);
                return 2;
            }
            break;
        }
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "solbook runs: unknown option or missing value: %s\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "solbook runs: unexpected argument: %s\n", argv[optind]);
        return 2;
    }
    if (status && strcmp(status, "passed") && strcmp(status, "failed") && strcmp(status, "skipped")) {
        fprintf(stderr, "solbook runs: --status %s: expected passed, failed or skipped\n", status);
        return 2;
    }
    if (sha) {
        size_t n = strlen(sha);
        if (n == 0 || n > 40 || strspn(sha, "0123456789abcdef") != n) {
            fprintf(stderr, "solbook runs: --sha %s: expected 1 to 40 lowercase hex digits\n", sha);
            return 2;
        }
    }

    sb_error err;
    sb_error_clear(&err);
    sb_db *db;
    if (sb_db_open(db_path, SB_DB_READ, &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    char sql[2048];
    snprintf(sql, sizeof sql,
             "SELECT * FROM (SELECT r.id, p.finished_at, p.arch, p.sku, p.git_sha, r.schema, c.op, c.mode, "
             "c.provider, c.dtype, c.shape_key, coalesce(m.median_ms, t.median_step_ms), r.status, "
             "t.model_name, m.sample_count "
             "FROM runs r JOIN provenance p ON p.run_id = r.id "
             "LEFT JOIN configs c ON c.run_id = r.id LEFT JOIN metrics m ON m.run_id = r.id "
             "LEFT JOIN training t ON t.run_id = r.id "
             "WHERE (?1 IS NULL OR p.arch = ?1) AND (?2 IS NULL OR p.sku = ?2) "
             "AND (?3 IS NULL OR substr(p.git_sha, 1, length(?3)) = ?3) AND (?4 IS NULL OR c.op = ?4) "
             "AND (?5 IS NULL OR c.provider = ?5) AND (?6 IS NULL OR r.status = ?6) "
             "ORDER BY p.finished_at DESC, r.id DESC %s) ORDER BY 2, 1",
             limit ? "LIMIT ?7" : "");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK) {
        sb_db_fail(db, &err, "cannot query runs");
        sb_error_print(&err, stderr);
        sb_db_close(db);
        return 2;
    }
    const char *args[] = {arch, sku, sha, op, provider, status};
    for (int i = 0; i < 6; i++)
        if (args[i])
            sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC);
    if (limit)
        sqlite3_bind_int64(st, 7, limit);

    json_t *arr = json ? json_array() : NULL;
    int rc, rows = 0;
    if (!json)
        printf("%6s  %-20s  %-5s  %-16s  %-8s  %-14s  %-4s  %-16s  %-7s  %-22s  %10s  %s\n", "id",
               "finished_at", "arch", "sku", "sha", "op", "mode", "provider", "dtype", "shape",
               "median_ms", "status");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        const char *schema = text(st, C_SCHEMA);
        int training = schema && strcmp(schema, "solbook.training.v1") == 0;
        int calibration = schema && strcmp(schema, "solbook.calibration.v1") == 0;
        const char *opname = text(st, C_OP);
        if (!opname)
            opname = training ? "training" : calibration ? "calibration" : "-";
        const char *shape = text(st, C_SHAPE);
        if (!shape && training)
            shape = text(st, C_MODEL);
        if (json) {
            json_t *o = json_object();
            json_object_set_new(o, "id", json_integer(sqlite3_column_int64(st, C_ID)));
            json_object_set_new(o, "schema", json_string(schema ? schema : ""));
            static const struct {
                const char *key;
                int col;
            } strs[] = {{"finished_at", C_FINISHED}, {"arch", C_ARCH},         {"sku", C_SKU},
                        {"git_sha", C_SHA},          {"op", C_OP},             {"mode", C_MODE},
                        {"provider", C_PROVIDER},    {"dtype", C_DTYPE},       {"shape_key", C_SHAPE},
                        {"status", C_STATUS},        {"model_name", C_MODEL}};
            for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
                const char *v = text(st, strs[i].col);
                json_object_set_new(o, strs[i].key, v ? json_string(v) : json_null());
            }
            json_object_set_new(o, "median_ms",
                                sqlite3_column_type(st, C_MEDIAN) == SQLITE_NULL
                                    ? json_null()
                                    : json_real(sqlite3_column_double(st, C_MEDIAN)));
            json_object_set_new(o, "sample_count",
                                sqlite3_column_type(st, C_COUNT) == SQLITE_NULL
                                    ? json_null()
                                    : json_integer(sqlite3_column_int64(st, C_COUNT)));
            json_array_append_new(arr, o);
            continue;
        }
        char med[32] = "-";
        if (sqlite3_column_type(st, C_MEDIAN) != SQLITE_NULL)
            snprintf(med, sizeof med, "%.4f", sqlite3_column_double(st, C_MEDIAN));
        const char *g = text(st, C_SHA);
        char gshort[9];
        snprintf(gshort, sizeof gshort, "%s", g ? g : "-");
        const char *fin = text(st, C_FINISHED), *a = text(st, C_ARCH), *k = text(st, C_SKU);
        const char *mo = text(st, C_MODE), *pr = text(st, C_PROVIDER), *dt = text(st, C_DTYPE);
        const char *stt = text(st, C_STATUS);
        printf("%6lld  %-20s  %-5s  %-16s  %-8s  %-14s  %-4s  %-16s  %-7s  %-22s  %10s  %s\n",
               (long long)sqlite3_column_int64(st, C_ID), fin ? fin : "-", a ? a : "-", k ? k : "-",
               gshort, opname, mo ? mo : "-", pr ? pr : "-", dt ? dt : "-", shape ? shape : "-", med,
               stt ? stt : "-");
    }
    int status_code = 0;
    if (rc != SQLITE_DONE) {
        sb_db_fail(db, &err, "cannot read runs");
        sb_error_print(&err, stderr);
        status_code = 2;
    } else if (json) {
        char *s = json_dumps(arr, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        if (s) {
            printf("%s\n", s);
            free(s);
        }
    } else if (rows == 0) {
        printf("(no runs match)\n");
    }
    json_decref(arr);
    sqlite3_finalize(st);
    sb_db_close(db);
    return status_code;
}
