/* cmd_runs.c - `solbook runs`: list stored runs, filtered. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "encode.h"
#include "error.h"
#include "home.h"
#include "run_list.h"
#include "store.h"
#include "term.h"

static const char *const runs_usage[] = {
    "solbook runs [<options>]",
    "",
    "Lists stored runs, oldest first (by finish time), as a table or a JSON array.",
    NULL,
};

#define MAX_PARAMS SB_RUN_FILTER_PARAMS

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

int cmd_runs(int argc, char **argv)
{
    const char *mode = NULL, *dtype = NULL, *suite = NULL, *shape_arg = NULL, *params_arg = NULL;
    const char *db_path = sb_default_db_path();
    const char *arch = NULL, *sku = NULL, *sha = NULL, *op = NULL, *provider = NULL, *status = NULL;
    int limit = 0, json = 0, exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('d', "db", &db_path, "path", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING('a', "arch", &arch, "arch", "a100, h100, h200, cpu, ..."),
        SB_OPT_STRING('k', "sku", &sku, "sku", "SKU id, e.g. h100-sxm5-80gb"),
        SB_OPT_STRING('g', "sha", &sha, "sha", "benchmarked git commit, full or a prefix"),
        SB_OPT_STRING('o', "op", &op, "op", "operation, e.g. gemm, rmsnorm"),
        SB_OPT_STRING(0, "mode", &mode, "mode", "fwd, bwd or full"),
        SB_OPT_STRING(0, "dtype", &dtype, "dtype", "fp16, bf16, fp32, ..."),
        SB_OPT_STRING(0, "suite", &suite, "suite", "the preset that ran it, e.g. memory-bound"),
        SB_OPT_STRING(0, "shape", &shape_arg, "K=V,...",
                      "the whole shape, names in any order, e.g. M=4096,N=4096"),
        SB_OPT_STRING(0, "params", &params_arg, "K=V,...",
                      "params the run has, e.g. eps=1e-06,weight_dtype=same"),
        SB_OPT_STRING('p', "provider", &provider, "provider", "implementation, e.g. cublas, solbook-mma"),
        SB_OPT_STRING('s', "status", &status, "status", "passed, failed or skipped"),
        SB_OPT_INT('l', "limit", &limit, "n", 1, INT_MAX, "only the newest N runs"),
        SB_OPT_BOOL('j', "json", &json, "a JSON array of objects instead of the table"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "runs", options, runs_usage,
                                SB_PARSE_STOP_AT_NON_OPTION, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc > 0) {
        sb_term_line(stderr, "solbook runs: unexpected argument '%s'", argv[0]);
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
    sb_run_filter filter = {
        .arch = arch, .sku = sku, .op = op, .provider = provider, .status = status, .mode = mode,
        .dtype = dtype, .suite = suite, .sha = sha, .shape_key = shape, .param_names = pname,
        .param_values = pval, .nparams = np, .limit = limit,
    };
    sb_run_list *list = NULL;
    if (sb_run_list_open(db, &filter, &list, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_db_close(db);
        free(pbuf);
        free(shape);
        return 2;
    }

    json_t *arr = json ? json_array() : NULL;
    int rc, rows = 0;
    if (!json)
        printf("%6s  %-20s  %-5s  %-16s  %-8s  %-14s  %-4s  %-16s  %-7s  %-22s  %10s  %s\n", "id",
               "finished_at", "arch", "sku", "sha", "op", "mode", "provider", "dtype", "shape",
               "median_ms", "status");
    sb_run_row row;
    while ((rc = sb_run_list_next(list, &row, &err)) == 1) {
        rows++;
        const char *schema = row.schema;
        int training = schema && strcmp(schema, "solbook.training.v1") == 0;
        int calibration = schema && strcmp(schema, "solbook.calibration.v1") == 0;
        const char *opname = row.op;
        if (!opname)
            opname = training ? "training" : calibration ? "calibration" : "-";
        const char *row_shape = row.shape_key;
        if (!row_shape && training)
            row_shape = row.model_name;
        if (json) {
            json_t *o = json_object();
            json_object_set_new(o, "id", json_integer(row.id));
            json_object_set_new(o, "schema", json_string(schema ? schema : ""));
            const struct {
                const char *key, *value;
            } strs[] = {{"finished_at", row.finished_at}, {"arch", row.arch},
                        {"sku", row.sku},                 {"git_sha", row.git_sha},
                        {"op", row.op},                   {"mode", row.mode},
                        {"provider", row.provider},       {"dtype", row.dtype},
                        {"shape_key", row.shape_key},     {"status", row.status},
                        {"model_name", row.model_name},   {"suite", row.suite},
                        {"profiler", row.profiler},       {"git_branch", row.git_branch}};
            for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
                const char *v = strs[i].value;
                json_object_set_new(o, strs[i].key, v ? json_string(v) : json_null());
            }
            json_object_set_new(o, "median_ms",
                                row.has_median ? json_real(row.median_ms) : json_null());
            json_object_set_new(o, "sample_count",
                                row.has_sample_count ? json_integer(row.sample_count)
                                                     : json_null());
            const char *pj = row.params_json;
            json_t *params = pj ? json_loads(pj, 0, NULL) : NULL;
            json_object_set_new(o, "params", params ? params : json_null());
            json_array_append_new(arr, o);
            continue;
        }
        char med[32] = "-";
        if (row.has_median)
            snprintf(med, sizeof med, "%.4f", row.median_ms);
        const char *g = row.git_sha;
        char gshort[9];
        snprintf(gshort, sizeof gshort, "%s", g ? g : "-");
        const char *fin = row.finished_at, *a = row.arch, *k = row.sku;
        const char *mo = row.mode, *pr = row.provider, *dt = row.dtype;
        const char *stt = row.status, *prof = row.profiler;
        char stbuf[64];
        if (prof) {
            snprintf(stbuf, sizeof stbuf, "%s (under %s: not a timing)", stt ? stt : "-", prof);
            stt = stbuf;
        }
        /* stored text reaches the terminal only through its encoder, each
         * cell cut to a readable width */
        const char *raw[] = {fin, a, k, gshort, opname, mo, pr, dt, row_shape, stt};
        sb_buf cells[10];
        for (int i = 0; i < 10; i++) {
            cells[i] = (sb_buf)SB_BUF_INIT;
            sb_enc_terminal(&cells[i], raw[i] ? raw[i] : "-", SB_TEXT_NAME_MAX / 2);
        }
        printf("%6lld  %-20s  %-5s  %-16s  %-8s  %-14s  %-4s  %-16s  %-7s  %-22s  %10s  %s\n",
               row.id, sb_buf_str(&cells[0]),
               sb_buf_str(&cells[1]), sb_buf_str(&cells[2]), sb_buf_str(&cells[3]),
               sb_buf_str(&cells[4]), sb_buf_str(&cells[5]), sb_buf_str(&cells[6]),
               sb_buf_str(&cells[7]), sb_buf_str(&cells[8]), med, sb_buf_str(&cells[9]));
        for (int i = 0; i < 10; i++)
            sb_buf_free(&cells[i]);
    }
    int status_code = 0;
    if (rc != 0) {
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
    sb_run_list_close(list);
    sb_db_close(db);
    free(pbuf);
    free(shape);
    return status_code;
}
