/* claims.h - checks on a writeup's or packet's text before it is written:
 * every provider, card and package it names is one its cited runs have,
 * and no path of the machine that built it appears (docs/CLAIMS.md).
 *
 * Names come from structured fields, never from free text: providers
 * stored in the database and the headline baselines; cards from
 * db/skus.csv (ids, display names, arch in capitals) and the stored SKU
 * ids and arches; packages from the keys of stored
 * provenance.packages_json. A stored device name (provenance.device.name)
 * is free text and names nothing here, though a cited run's may be said. A name counts where it stands as a word
 * (letters, digits, '_', '-' and a '.' followed by a letter or digit make
 * up words), compared without case; allowed strings (e.g. the project a
 * packet is addressed to) are masked out first.
 */
#ifndef SOLBOOK_REPORT_CLAIMS_H
#define SOLBOOK_REPORT_CLAIMS_H

#include <sqlite3.h>
#include <stddef.h>

#include "error.h"
#include "results.h"
#include "session_query.h"
#include "sku.h"

struct sb_session_headlines;

/* SB_ERR naming the first provider, card or package the text names that no
 * cited run has (what: "packet body", "weekly writeup", ...). training: the
 * training runs the text cites too (NULL: none); a patch name counts as a
 * provider they have, their cards as cards. */
int sb_claims_check(sqlite3 *db, const sb_sku_table *skus, const sb_result *const *cited,
                    size_t ncited, const sb_training_set *training, const char *const *allowed,
                    const char *text, const char *what, sb_error *err);

/* Like with like (docs/CLAIMS.md, rule 8): SB_ERR naming the pair when
 * the two runs of a headline pair differ in GPU UUID, session id, timing
 * method or correctness check version, or one of them has none recorded. */
int sb_claims_pair_check(const sb_session_run *provider, const sb_session_run *baseline, sb_error *err);
/* sb_claims_pair_check on every pair of every headline. */
int sb_claims_headlines_check(const struct sb_session_headlines *h, sb_error *err);
/* The checked headlines a report shows: every session run in db
 * (db/session_query.h) of suite (every suite where it is NULL), their
 * headlines (report/sessions.h,
 * sb_session_headlines_take; of op, or every op where op is NULL; of the
 * runs finished in [from, to) where to > from) over the headline
 * baselines (report/geomean.h), or over baseline alone where it is not
 * NULL; then sb_claims_headlines_check. Free with
 * sb_session_headlines_free. */
int sb_claims_headlines_read(sqlite3 *db, const char *suite, const char *op, const char *baseline, long long from,
                             long long to, struct sb_session_headlines *out, sb_error *err);

/* SB_ERR when the text holds a path of this machine: the given paths
 * (NULL-ended; made absolute), the data home, the working directory and
 * $HOME. */
int sb_paths_check(const char *const *paths, const char *text, const char *what, sb_error *err);

#endif
