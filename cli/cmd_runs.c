/* cmd_runs.c - `solbook runs`: list stored runs, filtered. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "encode.h"
#include "error.h"
#include "home.h"
#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook runs [--db PATH] [--arch A] [--sku S] [--sha X] [--op O]\n"
            "                    [--mode M] [--dtype D] [--suite S] [--shape K=V,...]\n"
            "                    [--params K=V,...] [--provider P] [--status S] [--limit N]\n"
            "                    [--json]\n\n"
            "Lists stored runs, oldest first (by finish time), as a table or a JSON array.\n\n"
            "  --db PATH        database (default: $SOLBOOK_DB, else ./solbook.db)\n"
            "  --arch A         a100, h100, h200, cpu, ...\n"
            "  --sku S          SKU id, e.g. h100-sxm5-80gb\n"
            "  --sha X          benchmarked git commit, full or a prefix\n"
            "  --op O           operation, e.g. gemm, rmsnorm\n"
            "  --mode M         fwd, bwd or full\n"
            "  --dtype D        fp16, bf16, fp32, ...\n"
            "  --suite S        the preset that ran it, e.g. memory-bound\n"
            "  --shape K=V,...  the whole shape, names in any order, e.g. M=4096,N=4096\n"
            "  --params K=V,... params the run has, e.g. eps=1e-06,weight_dtype=same\n"
            "  --provider P     implementation, e.g. cublas, solbook-mma\n"
            "  --status S       passed, failed or skipped\n"
            "  --limit N        only the newest N runs\n"
            "  --json           a JSON array of objects instead of the table\n"
            "  -h, --help       this help\n");
}

enum { C_ID, C_FINISHED, C_ARCH, C_SKU, C_SHA, C_SCHEMA, C_OP, C_MODE, C_PROVIDER, C_DTYPE, C_SHAPE,
       C_MEDIAN, C_STATUS, C_MODEL, C_COUNT, C_SUITE, C_PARAMS, C_PROFILER, C_BRANCH, C_NCOLS };

#define MAX_PARAMS 16

/* "N=4096,M=4096" -> "M=4096,N=4096" (configs.shape_key: names in byte
 * order); NULL when a part is not NAME=VALUE. */
static char *shape_key_of(const char *s)
{
    char *copy = strdup(s), *parts[64], *save = NULL;
    size_t n = 0;
    if (!copy)
        return NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq || eq == t || !eq[1] || n == 64) {
            free(copy);
            return NULL;
        }
        parts[n++] = t;
    }
    /* insertion sort by name */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            size_t la = strcspn(parts[j - 1], "="), lb = strcspn(parts[j], "=");
            int c = strncmp(parts[j - 1], parts[j], la < lb ? la : lb);
            if (c < 0 || (c == 0 && la <= lb))
                break;
            char *t = parts[j];
            parts[j] = parts[j - 1];
            parts[j - 1] = t;
        }
    char *out = malloc(strlen(s) + 1);
    if (out) {
        out[0] = 0;
        for (size_t i = 0; i < n; i++) {
            if (i)
                strcat(out, ",");
            strcat(out, parts[i]);
        }
    }
    free(copy);
    return n ? out : (free(out), NULL);
}

/* A param's value as SQLite holds json_extract of it: a number, 1/0 for
 * true/false, else text. */
static void bind_param_value(sqlite3_stmt *st, int i, const char *v)
{
    char *end;
    double d = strtod(v, &end);
    if (*v && !*end && end != v)
        sqlite3_bind_double(st, i, d);
    else if (!strcmp(v, "true") || !strcmp(v, "false"))
        sqlite3_bind_int(st, i, !strcmp(v, "true"));
    else
        sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

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
        {"mode", required_argument, NULL, 'M'},   {"dtype", required_argument, NULL, 'D'},
        {"suite", required_argument, NULL, 'S'},  {"shape", required_argument, NULL, 'K'},
        {"params", required_argument, NULL, 'P'}, {NULL, 0, NULL, 0},
    };
    const char *mode = NULL, *dtype = NULL, *suite = NULL, *shape_arg = NULL, *params_arg = NULL;
    const char *db_path = sb_default_db_path();
    const char *arch = NULL, *sku = NULL, *sha = NULL, *op = NULL, *provider = NULL, *status = NULL;
    long limit = 0;
    int json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+d:a:k:g:o:p:s:l:jh", opts, NULL)) != -1) {
        switch (c) {
        case 'M': mode = optarg; break;
        case 'D': dtype = optarg; break;
        case 'S': suite = optarg; break;
        case 'K': shape_arg = optarg; break;
        case 'P': params_arg = optarg; break;
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
            sb_cli_bad_option(stderr, "runs", argv[optind - 1], opts);
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

    char *shape = NULL;
    if (shape_arg && !(shape = shape_key_of(shape_arg))) {
        fprintf(stderr, "solbook runs: --shape %s: expected NAME=VALUE[,NAME=VALUE...]\n", shape_arg);
        return 2;
    }
    /* --params: each NAME=VALUE must hold in the run's params */
    char *pbuf = params_arg ? strdup(params_arg) : NULL, *save = NULL;
    const char *pname[MAX_PARAMS], *pval[MAX_PARAMS];
    size_t np = 0;
    for (char *t = pbuf ? strtok_r(pbuf, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        const char *odd = strpbrk(t, "\"$.[]*");
        if (!eq || eq == t || np == MAX_PARAMS || (odd && odd < eq)) {
            fprintf(stderr, "solbook runs: --params %s: expected NAME=VALUE[,NAME=VALUE...] "
                            "(at most %d, plain names)\n", params_arg, MAX_PARAMS);
            free(pbuf);
            free(shape);
            return 2;
        }
        *eq = 0;
        pname[np] = t;
        pval[np++] = eq + 1;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_db *db;
    if (sb_db_open(db_path, SB_DB_READ, &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        free(pbuf);
        free(shape);
        return 2;
    }
    char pcond[MAX_PARAMS * 96] = "";
    for (size_t i = 0; i < np; i++) {
        size_t len = strlen(pcond);
        snprintf(pcond + len, sizeof pcond - len,
                 " AND json_extract(c.params_json, '$.\"' || ?%zu || '\"') = ?%zu", 20 + 2 * i,
                 21 + 2 * i);
    }
    char sql[4096];
    snprintf(sql, sizeof sql,
             "SELECT * FROM (SELECT r.id, p.finished_at, p.arch, p.sku, p.git_sha, r.schema, c.op, c.mode, "
             "c.provider, c.dtype, c.shape_key, coalesce(m.median_ms, t.median_step_ms), r.status, "
             "t.model_name, m.sample_count, c.suite, c.params_json, c.profiler, p.git_branch "
             "FROM runs r JOIN provenance p ON p.run_id = r.id "
             "LEFT JOIN configs c ON c.run_id = r.id LEFT JOIN metrics m ON m.run_id = r.id "
             "LEFT JOIN training t ON t.run_id = r.id "
             "WHERE (?1 IS NULL OR p.arch = ?1) AND (?2 IS NULL OR p.sku = ?2) "
             "AND (?3 IS NULL OR substr(p.git_sha, 1, length(?3)) = ?3) AND (?4 IS NULL OR c.op = ?4) "
             "AND (?5 IS NULL OR c.provider = ?5) AND (?6 IS NULL OR r.status = ?6) "
             "AND (?8 IS NULL OR c.mode = ?8) AND (?9 IS NULL OR c.dtype = ?9) "
             "AND (?10 IS NULL OR c.suite = ?10) AND (?11 IS NULL OR c.shape_key = ?11)%s "
             "ORDER BY p.finished_at DESC, r.id DESC %s) ORDER BY 2, 1",
             pcond, limit ? "LIMIT ?7" : "");
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
    const char *more[] = {mode, dtype, suite, shape};
    for (int i = 0; i < 4; i++)
        if (more[i])
            sqlite3_bind_text(st, 8 + i, more[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < np; i++) {
        sqlite3_bind_text(st, 20 + 2 * (int)i, pname[i], -1, SQLITE_STATIC);
        bind_param_value(st, 21 + 2 * (int)i, pval[i]);
    }

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
                        {"status", C_STATUS},        {"model_name", C_MODEL},  {"suite", C_SUITE},
                        {"profiler", C_PROFILER},    {"git_branch", C_BRANCH}};
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
            const char *pj = text(st, C_PARAMS);
            json_t *params = pj ? json_loads(pj, 0, NULL) : NULL;
            json_object_set_new(o, "params", params ? params : json_null());
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
        const char *stt = text(st, C_STATUS), *prof = text(st, C_PROFILER);
        char stbuf[64];
        if (prof) {
            snprintf(stbuf, sizeof stbuf, "%s (under %s: not a timing)", stt ? stt : "-", prof);
            stt = stbuf;
        }
        /* stored text reaches the terminal only through its encoder, each
         * cell cut to a readable width */
        const char *raw[] = {fin, a, k, gshort, opname, mo, pr, dt, shape, stt};
        sb_buf cells[10];
        for (int i = 0; i < 10; i++) {
            cells[i] = (sb_buf)SB_BUF_INIT;
            sb_enc_terminal(&cells[i], raw[i] ? raw[i] : "-", SB_TEXT_NAME_MAX / 2);
        }
        printf("%6lld  %-20s  %-5s  %-16s  %-8s  %-14s  %-4s  %-16s  %-7s  %-22s  %10s  %s\n",
               (long long)sqlite3_column_int64(st, C_ID), sb_buf_str(&cells[0]),
               sb_buf_str(&cells[1]), sb_buf_str(&cells[2]), sb_buf_str(&cells[3]),
               sb_buf_str(&cells[4]), sb_buf_str(&cells[5]), sb_buf_str(&cells[6]),
               sb_buf_str(&cells[7]), sb_buf_str(&cells[8]), med, sb_buf_str(&cells[9]));
        for (int i = 0; i < 10; i++)
            sb_buf_free(&cells[i]);
    }
    int status_code = 0;
    if (rc != SQLITE_DONE) {
        sb_db_fail(db, &err, "cannot read runs");
        sb_error_print(&err, stderr);
        status_code = 2;
    } else if (json) {
        /* ASCII only: no stored character reaches the terminal raw */
        char *s = json_dumps(arr, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
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
    free(pbuf);
    free(shape);
    return status_code;
}
