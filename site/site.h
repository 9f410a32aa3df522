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
 * wording and markup are templates in data/templates/site/.
 */
#ifndef SOLBOOK_SITE_SITE_H
#define SOLBOOK_SITE_SITE_H

#include <stddef.h>

#include "error.h"
#include "site_opts.h"

/* Builds the whole site into o->out_dir. */
int sb_site_build(const sb_site_opts *o, sb_site_summary *sum, sb_error *err);

/* The data files behind the contributions and roadmap pages, checked
 * strictly (docs/SITE.md gives the formats). Used by the site and by the
 * tests; each returns SB_ERR naming the file, line or JSON pointer. */
int sb_site_check_roadmap(const char *path, sb_error *err);
int sb_site_check_ledger(const char *path, sb_error *err);

#endif
