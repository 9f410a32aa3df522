/* site_opts.h - what a site build takes (sb_site_opts) and what it
 * counts (sb_site_summary): the types both the build's entry point
 * (site.h) and its parts' shared context (site_parts.h) hold. */
#ifndef SOLBOOK_SITE_SITE_OPTS_H
#define SOLBOOK_SITE_SITE_OPTS_H

#include <stddef.h>

typedef struct sb_site_opts {
    const char *db_path;        /* the database (read only) */
    const char *db_label;       /* how commands on the pages name it (NULL: db_path) */
    const char *out_dir;        /* must not exist, be empty, or hold an earlier site */
    const char *roadmap_path;   /* NULL: SOLBOOK_HOME/data/roadmap.json */
    const char *ledger_path;    /* NULL: SOLBOOK_HOME/data/contributions.csv */
    const char *kernels_path;   /* verified_kernels.json; NULL: the forge_kernels table */
    const char *gate_arches;    /* NULL: "a100,h100,h200" */
    size_t page_rows;           /* rows per page of run lists and histories; 0: 200 */
    const char *baseline;       /* NULL: the headline baselines (report/geomean.h) */
    const char *sessions_path;  /* measuring sessions' database; NULL: db_path */
    const char *repo_url;       /* http(s) address of the repository: commit SHAs link to
                                   URL/commit/SHA; NULL: no links */
} sb_site_opts;

typedef struct sb_site_summary {
    size_t pages;               /* HTML files written */
    size_t files;               /* all files written */
    size_t reused;              /* files taken over unchanged from the earlier build */
    size_t runs;                /* runs with a page */
    size_t ops, histories, weeks, packets, kernels;
    size_t largest_bytes;       /* size of the largest file written */
    char largest[4096];         /* its path */
    int gate_ok;                /* completion gate verdict */
} sb_site_summary;

#endif
