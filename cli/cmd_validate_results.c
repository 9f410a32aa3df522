/* cmd_validate_results.c - `solbook validate-results`: the completion gate
 * (report/gate.h). Exit 0 only when every required arch has exactly one
 * complete GEMM spec result; otherwise the report says what is missing. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "gate.h"
#include "home.h"
#include "results.h"
#include "sku.h"
#include "strbuf.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook validate-results [--db FILE] [--arch a100,h100,h200] [--op gemm]\n"
            "\n"
            "Exits 0 only when each listed arch has exactly one stored result of the op's spec\n"
            "(gemm: suite gemm-spec, M=N=K=4096 fp16, provider cublas, 10 warm-up + 5 x 50\n"
            "launches) that passed correctness, whose SKU is that arch in db/skus.csv, and\n"
            "that carries every ncu speed-of-light metric. Otherwise prints, per arch, what is\n"
            "missing and exits 1. Default --arch a100,h100,h200.\n");
}

int cmd_validate_results(int argc, char **argv)
{
    static const struct option lo[] = {
        {"db", required_argument, NULL, 'd'},   {"arch", required_argument, NULL, 'a'},
        {"op", required_argument, NULL, 'o'},   {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db_path = NULL, *arch = "a100,h100,h200", *op = "gemm";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'a': arch = optarg; break;
        case 'o': op = optarg; break;
        case 'h': usage(stdout); return 0;
        case ':':
        default:
            return sb_cli_refused_option(stderr, "validate-results", c, argv[optind - 1], lo);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "solbook validate-results: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    const sb_gate_spec *spec = sb_gate_spec_for(op);
    if (!spec) {
        fprintf(stderr, "solbook validate-results: no result spec is defined for op '%s' (gemm)\n",
                op);
        return 2;
    }
    for (const char *p = arch; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ',')) {
            fprintf(stderr, "solbook validate-results: --arch takes a comma list like "
                            "a100,h100,h200, not '%s'\n", arch);
            return 2;
        }
    }
    if (strspn(arch, ",") == strlen(arch)) {
        fprintf(stderr, "solbook validate-results: --arch names no arch\n");
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sqlite3 *db = NULL;
    if (sb_report_db_open(db_path ? db_path : sb_default_db_path(), &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    sb_sku_table *skus = NULL;
    if (sb_sku_table_load(NULL, &skus, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_report_db_close(db);
        return 2;
    }
    sb_buf out = SB_BUF_INIT;
    int ok = 0, rc;
    if (sb_gate_check(db, skus, spec, arch, &ok, &out, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = 2;
    } else {
        fputs(sb_buf_str(&out), stdout);
        printf("%s\n", ok ? "validate-results: ok" : "validate-results: incomplete");
        rc = ok ? 0 : 1;
    }
    sb_buf_free(&out);
    sb_sku_table_free(skus);
    sb_report_db_close(db);
    return rc;
}
