/* cmd_validate_results.c - `solbook validate-results`: the completion gate
 * (report/gate.h). Exit 0 only when every required arch has exactly one
 * complete GEMM spec result; otherwise the report says what is missing. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "gate.h"
#include "home.h"
#include "results.h"
#include "results_query.h"
#include "run_details_read.h"
#include "sku.h"
#include "store.h"
#include "strbuf.h"
#include "term.h"

static const char *const validate_results_usage[] = {
    "solbook validate-results [--db FILE] [--arch a100,h100,h200] [--op gemm]",
    "",
    "Exits 0 only when each listed arch has exactly one stored result of the op's spec",
    "(gemm: suite gemm-spec, M=N=K=4096 fp16, provider cublas, 10 warm-up + 5 x 50",
    "launches) that passed correctness, whose SKU is that arch in data/skus.csv, and",
    "that carries every ncu speed-of-light metric. Otherwise prints, per arch, what is",
    "missing and exits 1.",
    NULL,
};

int cmd_validate_results(int argc, char **argv)
{
    const char *db_path = NULL, *arch = "a100,h100,h200", *op = "gemm";
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING(0, "db", &db_path, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING(0, "arch", &arch, "a100,h100,h200", "the archs required (default a100,h100,h200)"),
        SB_OPT_STRING(0, "op", &op, "op", "the op whose spec is checked (default gemm)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "validate-results", options, validate_results_usage, 0,
                                &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc > 0) {
        sb_term_line(stderr, "solbook validate-results: unexpected argument '%s'", argv[0]);
        return 2;
    }
    const sb_gate_spec *spec = sb_gate_spec_for(op);
    if (!spec) {
        sb_term_line(stderr, "solbook validate-results: no result spec is defined for op '%s' (gemm)",
                op);
        return 2;
    }
    for (const char *p = arch; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ',')) {
            sb_term_line(stderr, "solbook validate-results: --arch takes a comma list like "
                                 "a100,h100,h200, not '%s'", arch);
            return 2;
        }
    }
    if (strspn(arch, ",") == strlen(arch)) {
        fprintf(stderr, "solbook validate-results: --arch names no arch\n");
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_db *db = NULL;
    if (sb_db_open_reader(db_path ? db_path : sb_default_db_path(), &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    sb_sku_table *skus = NULL;
    if (sb_sku_table_load(NULL, &skus, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_db_close(db);
        return 2;
    }
    sb_buf out = SB_BUF_INIT;
    int ok = 0, rc;
    sb_result_filter f = {0};
    f.suite = spec->suite;
    f.op = spec->op;
    f.provider = spec->provider;
    sb_result_set runs = {0};
    sb_details_ask ask = {0};
    sb_run_details *det = NULL;
    if (sb_results_load(db, &f, &runs, &err) != SB_OK ||
        sb_gate_ask(&runs, spec, arch, &ask, &err) != SB_OK ||
        sb_run_details_read(db, &ask, &det, &err) != SB_OK ||
        sb_gate_check(&runs, det, skus, spec, arch, &ok, &out, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = 2;
    } else {
        fputs(sb_buf_str(&out), stdout);
        printf("%s\n", ok ? "validate-results: ok" : "validate-results: incomplete");
        rc = ok ? 0 : 1;
    }
    sb_buf_free(&out);
    sb_run_details_free(det);
    sb_details_ask_free(&ask);
    sb_results_free(&runs);
    sb_sku_table_free(skus);
    sb_db_close(db);
    return rc;
}
