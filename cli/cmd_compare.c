/* cmd_compare.c - `solbook compare A B`: two commits, or two run sets
 * chosen by filters, side by side (report/compare.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "error.h"
#include "home.h"
#include "repro.h"
#include "results.h"
#include "strbuf.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook compare [--db FILE] [--op O] [--suite S] [--provider P] [--sku S]\n"
            "                       [--arch A] [--alpha 0.01] [--threshold 0.03]\n"
            "                       [--format md|json] [--out FILE] A B\n"
            "\n"
            "Puts the runs A selects beside the runs B selects: per case (op, mode, dtype,\n"
            "shape, params), provider and SKU, the newest passing run of each side, both\n"
            "medians, B/A, and a two-sided Mann-Whitney U verdict on the stored samples\n"
            "(slower, faster, same or inconclusive), with the geomean of B/A. Runs timed\n"
            "under a profiler never count.\n"
            "\n"
            "A and B: a commit (4 to 40 hex digits, a prefix of the SHA), or filters\n"
            "KEY=VALUE[,KEY=VALUE...] with keys sha, branch, suite, sku, arch, provider, op,\n"
            "e.g.  solbook compare a7d808f f82e263\n"
            "      solbook compare sku=h100-sxm5-80gb sku=h200-sxm-141gb   (card against card)\n"
            "The other options narrow both sides alike.\n"
            "\n"
            "  --threshold T   smallest relative change of the median that counts (default 0.03)\n"
            "  --alpha A       significance level (default 0.01)\n"
            "\n"
            "Exit status: 0 no case slower; 1 some case significantly slower by more than the\n"
            "threshold; 2 usage or database error, or no case on both sides.\n");
}

static int parse_double(const char *s, const char *name, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || end == s || !(v >= lo && v <= hi)) {
        fprintf(stderr, "solbook compare: %s must be a number in [%g, %g], not '%s'\n", name, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    static const struct option lo[] = {
        {"db", required_argument, NULL, 'd'},        {"op", required_argument, NULL, 'o'},
        {"suite", required_argument, NULL, 's'},     {"provider", required_argument, NULL, 'p'},
        {"sku", required_argument, NULL, 'k'},       {"arch", required_argument, NULL, 'a'},
        {"alpha", required_argument, NULL, 'A'},     {"threshold", required_argument, NULL, 't'},
        {"format", required_argument, NULL, 'f'},    {"out", required_argument, NULL, 'O'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    const char *db_path = sb_default_db_path(), *fmt = "md", *out_path = NULL;
    sb_result_filter f = {0};
    sb_cmp_opts o = {0.01, 0.03};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'o': f.op = optarg; break;
        case 's': f.suite = optarg; break;
        case 'p': f.provider = optarg; break;
        case 'k': f.sku = optarg; break;
        case 'a': f.arch = optarg; break;
        case 'A':
            if (parse_double(optarg, "--alpha", 1e-12, 0.5, &o.alpha))
                return 2;
            break;
        case 't':
            if (parse_double(optarg, "--threshold", 0, 10, &o.threshold))
                return 2;
            break;
        case 'f': fmt = optarg; break;
        case 'O': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        case ':':
        default:
            return sb_cli_refused_option(stderr, "compare", c, argv[optind - 1], lo);
        }
    }
    if (strcmp(fmt, "md") && strcmp(fmt, "json")) {
        fprintf(stderr, "solbook compare: --format must be md or json, not '%s'\n", fmt);
        return 2;
    }
    if (argc - optind != 2) {
        fprintf(stderr, "solbook compare: give two selectors, A and B; see 'solbook compare --help'\n");
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_cmp_side a, b;
    if (sb_cmp_side_parse(argv[optind], &a, &err) != SB_OK) {
        fprintf(stderr, "solbook compare: A %s\n", err.msg);
        return 2;
    }
    if (sb_cmp_side_parse(argv[optind + 1], &b, &err) != SB_OK) {
        fprintf(stderr, "solbook compare: B %s\n", err.msg);
        sb_cmp_side_free(&a);
        return 2;
    }
    sqlite3 *db = NULL;
    sb_result_set set = {0};
    sb_cmp_result r = {0};
    sb_buf out = SB_BUF_INIT;
    int rc = 2;
    if (sb_report_db_open(db_path, &db, &err) != SB_OK || sb_results_load(db, &f, &set, &err) != SB_OK ||
        sb_cmp_run(db, &set, &a, &b, &o, &r, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (r.n == 0) {
        fprintf(stderr,
                "solbook compare: no case has a passing run on both sides (A matched %zu passing "
                "run(s), B %zu) in %s\n",
                r.runs_a, r.runs_b, db_path);
        goto done;
    }
    if (strcmp(fmt, "md") == 0)
        sb_cmp_render_md(&r, &a, &b, &o, &out);
    else if (sb_cmp_render_json(&r, &a, &b, &o, &out, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (sb_buf_failed(&out)) {
        fprintf(stderr, "solbook compare: out of memory\n");
        goto done;
    }
    if (out_path) {
        if (sb_write_buf(out_path, &out, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            goto done;
        }
    } else {
        fwrite(sb_buf_str(&out), 1, out.len, stdout);
        if (fflush(stdout) != 0)
            goto done;
    }
    rc = r.counts[SB_CMP_SLOWER] ? 1 : 0;
    if (rc)
        fprintf(stderr, "solbook compare: %zu case(s) slower in B\n", r.counts[SB_CMP_SLOWER]);
done:
    sb_buf_free(&out);
    sb_cmp_free(&r);
    sb_results_free(&set);
    if (db)
        sb_report_db_close(db);
    sb_cmp_side_free(&a);
    sb_cmp_side_free(&b);
    return rc;
}
