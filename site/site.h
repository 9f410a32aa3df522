/* site.h - `solbook site`: the static dashboard, built from one database
 * into a folder of plain HTML, SVG and JSON files (docs/SITE.md).
 *
 * Pages: the overview (arch x op matrix, completion gate), one page per
 * op (geomean tables, speedup bars, latency against shape, rooflines),
 * the runs a hundred to a page (provenance, figures, the sample
 * distribution, with their raw JSON and ncu metrics beside each page,
 * gzip-compressed), history per case and SKU with regressions marked,
 * weekly writeups and upstream packets, the promoted-kernel registry, the
 * contributions ledger and the roadmap.
 *
 * The site is deterministic (the same database and data files give the
 * same bytes: no build time anywhere, everything sorted), needs no network
 * (no external fonts, styles or scripts) and reads with JavaScript off.
 * Every string from the database or a data file is HTML-escaped; page
 * wording and markup are templates in templates/site/.
 */
#ifndef SOLBOOK_SITE_SITE_H
#define SOLBOOK_SITE_SITE_H

#include <stddef.h>

#include "error.h"

typedef struct sb_site_opts {
    const char *db_path;        /* the database (read only) */
    const char *db_label;       /* how commands on the pages name it (NULL: db_path) */
    const char *out_dir;        /* must not exist, be empty, or hold an earlier site */
    const char *roadmap_path;   /* NULL: SOLBOOK_HOME/docs/roadmap.json */
    const char *ledger_path;    /* NULL: SOLBOOK_HOME/docs/contributions.csv */
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

/* Builds the whole site into o->out_dir. */
int sb_site_build(const sb_site_opts *o, sb_site_summary *sum, sb_error *err);

/* The data files behind the contributions and roadmap pages, checked
 * strictly (docs/SITE.md gives the formats). Used by the site and by the
 * tests; each returns SB_ERR naming the file, line or JSON pointer. */
int sb_site_check_roadmap(const char *path, sb_error *err);
int sb_site_check_ledger(const char *path, sb_error *err);

#endif
