/* cmd_site.c - `solbook site`: the static dashboard (docs/SITE.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "site.h"
#include "term.h"

static const char *const site_usage[] = {
    "solbook site --out DIR [--db FILE] [--roadmap FILE] [--contributions FILE]",
    "             [--kernels verified_kernels.json] [--arches a100,h100,h200]",
    "             [--page-rows N] [--baseline PROVIDER] [--repo-url URL]",
    "solbook site --check [--roadmap FILE] [--contributions FILE]",
    "",
    "Builds the static dashboard into DIR: overview (arch x op matrix, completion gate),",
    "one page per op, per run (with its raw JSON) and per case and SKU history,",
    "weekly writeups, upstream packets, promoted kernels, contributions and roadmap.",
    "DIR must not exist, be empty, or hold an earlier site (it is replaced). The same",
    "database gives the same bytes. Open DIR/index.html; no network is needed.",
    NULL,
};

int cmd_site(int argc, char **argv)
{
    sb_site_opts o;
    memset(&o, 0, sizeof o);
    int check = 0, page_rows = 0, exit_status;
    o.repo_url = getenv("SOLBOOK_REPO_URL");
    const sb_option options[] = {
        SB_OPT_STRING(0, "out", &o.out_dir, "dir", "where the site goes"),
        SB_OPT_STRING(0, "db", &o.db_path, "file", "the database (default $SOLBOOK_DB or ./solbook.db)"),
        SB_OPT_STRING(0, "roadmap", &o.roadmap_path, "file",
                      "roadmap data (default SOLBOOK_HOME/data/roadmap.json)"),
        SB_OPT_STRING(0, "contributions", &o.ledger_path, "file",
                      "ledger data (default SOLBOOK_HOME/data/contributions.csv)"),
        SB_OPT_STRING(0, "kernels", &o.kernels_path, "file",
                      "promoted kernels from verified_kernels.json instead of the\n"
                      "database's forge_kernels table"),
        SB_OPT_STRING(0, "arches", &o.gate_arches, "list",
                      "arches the completion gate requires (default a100,h100,h200)"),
        SB_OPT_INT(0, "page-rows", &page_rows, "n", 10, 100000,
                   "rows per page of run lists and histories (default 200)"),
        SB_OPT_STRING(0, "baseline", &o.baseline, "provider",
                      "the baseline of every speedup (default: huggingface, then\n"
                      "torch-compile and liger where an op has runs of them)"),
        SB_OPT_STRING(0, "sessions", &o.sessions_path, "file",
                      "the measuring sessions' database behind the speedup-by-shape\n"
                      "sections of op pages (default: --db)"),
        SB_OPT_STRING(0, "repo-url", &o.repo_url, "url",
                      "the repository: every commit SHA on history and regressions\n"
                      "pages links to URL/commit/SHA (default: $SOLBOOK_REPO_URL)"),
        SB_OPT_BOOL(0, "check", &check, "only check the roadmap and ledger files"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "site", options, site_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc > 0) {
        sb_term_line(stderr, "solbook site: unexpected argument '%s'", argv[0]);
        return 2;
    }
    if (page_rows)
        o.page_rows = (size_t)page_rows;
    sb_error err;
    sb_error_clear(&err);
    if (check) {
        char rp[4096], lp[4096];
        if ((!o.roadmap_path && sb_data_path(rp, sizeof rp, "roadmap.json", &err) != SB_OK) ||
            (!o.ledger_path &&
             sb_data_path(lp, sizeof lp, "contributions.csv", &err) != SB_OK) ||
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
    if (sum.reused)
        printf("site: %zu of %zu files taken over unchanged from the earlier build\n", sum.reused,
               sum.files);
    printf("open %s/index.html\n", o.out_dir);
    return 0;
}
