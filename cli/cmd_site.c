/* cmd_site.c - `solbook site`: the static dashboard (docs/SITE.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "site.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook site --out DIR [--db FILE] [--roadmap FILE] [--contributions FILE]\n"
            "                    [--kernels verified_kernels.json] [--arches a100,h100,h200]\n"
            "                    [--page-rows N] [--baseline PROVIDER]\n"
            "       solbook site --check [--roadmap FILE] [--contributions FILE]\n"
            "\n"
            "Builds the static dashboard into DIR: overview (arch x op matrix, completion gate),\n"
            "one page per op, per run (with its raw JSON) and per case and SKU history,\n"
            "weekly writeups, upstream packets, promoted kernels, contributions and roadmap.\n"
            "DIR must not exist, be empty, or hold an earlier site (it is replaced). The same\n"
            "database gives the same bytes. Open DIR/index.html; no network is needed.\n"
            "\n"
            "  --db FILE            the database (default $SOLBOOK_DB or ./solbook.db)\n"
            "  --roadmap FILE       roadmap data (default SOLBOOK_HOME/docs/roadmap.json)\n"
            "  --contributions FILE ledger data (default SOLBOOK_HOME/docs/contributions.csv)\n"
            "  --kernels FILE       promoted kernels from verified_kernels.json instead of the\n"
            "                       database's forge_kernels table\n"
            "  --arches LIST        arches the completion gate requires (default a100,h100,h200)\n"
            "  --page-rows N        rows per page of run lists and histories (default 200)\n"
            "  --baseline P         the baseline of every speedup (default: huggingface, then\n"
            "                       torch-compile and liger where an op has runs of them)\n"
            "  --check              only check the roadmap and ledger files\n");
}

int cmd_site(int argc, char **argv)
{
    static const struct option lo[] = {
        {"db", required_argument, NULL, 'd'},      {"out", required_argument, NULL, 'o'},
        {"roadmap", required_argument, NULL, 'r'}, {"contributions", required_argument, NULL, 'c'},
        {"kernels", required_argument, NULL, 'k'}, {"arches", required_argument, NULL, 'a'},
        {"page-rows", required_argument, NULL, 'p'}, {"check", no_argument, NULL, 'C'},
        {"baseline", required_argument, NULL, 'b'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    sb_site_opts o;
    memset(&o, 0, sizeof o);
    int check = 0;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (ch) {
        case 'd': o.db_path = optarg; break;
        case 'o': o.out_dir = optarg; break;
        case 'r': o.roadmap_path = optarg; break;
        case 'c': o.ledger_path = optarg; break;
        case 'k': o.kernels_path = optarg; break;
        case 'a': o.gate_arches = optarg; break;
        case 'C': check = 1; break;
        case 'b': o.baseline = optarg; break;
        case 'p': {
            char *end = NULL;
            long v = strtol(optarg, &end, 10);
            if (!end || *end || v < 10 || v > 100000) {
                fprintf(stderr, "solbook site: --page-rows must be an integer in [10, 100000], "
                                "not '%s'\n", optarg);
                return 2;
            }
            o.page_rows = (size_t)v;
            break;
        }
        case 'h': usage(stdout); return 0;
        case ':':
        default:
            return sb_cli_refused_option(stderr, "site", ch, argv[optind - 1], lo);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "solbook site: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    if (check) {
        char rp[4096], lp[4096];
        if ((!o.roadmap_path && sb_home_path(rp, sizeof rp, "docs/roadmap.json", &err) != SB_OK) ||
            (!o.ledger_path &&
             sb_home_path(lp, sizeof lp, "docs/contributions.csv", &err) != SB_OK) ||
            sb_site_check_roadmap(o.roadmap_path ? o.roadmap_path : rp, &err) != SB_OK ||
            sb_site_check_ledger(o.ledger_path ? o.ledger_path : lp, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            return 1;
        }
        printf("roadmap and contributions ledger: ok\n");
        return 0;
    }
    if (!o.out_dir) {
        fprintf(stderr, "solbook site: --out DIR is required\n");
        return 2;
    }
    if (!o.db_path)
        o.db_path = sb_default_db_path();
    o.db_label = o.db_path;
    sb_site_summary sum;
    if (sb_site_build(&o, &sum, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    printf("site: %zu pages (%zu runs, %zu ops, %zu histories, %zu weeks, %zu packets, "
           "%zu promoted kernels), largest page %zu bytes (%s); completion gate %s\n",
           sum.pages, sum.runs, sum.ops, sum.histories, sum.weeks, sum.packets, sum.kernels,
           sum.largest_bytes, sum.largest, sum.gate_ok ? "complete" : "incomplete");
    printf("open %s/index.html\n", o.out_dir);
    return 0;
}
