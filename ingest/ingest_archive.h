/* ingest_archive.h - result files kept in archives, read where they lie:
 * tar archives (.tar, .tar.gz, .tgz) and JSON Lines (.jsonl, .jsonl.gz),
 * through libarchive (which undoes the gzip; a .tar.gz whose tar is up to
 * 256 MiB, and within the bound on held bytes, is inflated whole by
 * libdeflate first). Internal to ingest/.
 *
 * A tar archive gives its members named NAME.json, in name order, each with
 * the bytes of the members NAME.ncu.csv and NAME.nsys.csv beside it when
 * there are (the Nsight Compute and Nsight Systems sidecars, as in a
 * directory). A JSON Lines file gives each
 * non-blank line, named by its line number. Other members are passed over;
 * those that look like data ingest would not read from there (a .csv that
 * is no sidecar, JSON Lines, an archive inside the archive) are named to
 * the skip callback with the reason, so that they do not go unseen.
 */
#ifndef SOLBOOK_INGEST_ARCHIVE_H
#define SOLBOOK_INGEST_ARCHIVE_H

#include <stddef.h>

#include "error.h"
#include "ingest.h" /* sb_ingest_limits */

/* 1 when path's name says it is an archive ingest reads. */
int sb_archive_named(const char *path);

/* Called once per document: member names it within the archive ("dir/x.json"
 * or, for JSON Lines, the line number); ncu and nsys are NULL without
 * those sidecars. The bytes are valid during the call only. Return SB_OK
 * to go on. */
typedef int (*sb_archive_fn)(void *ctx, const char *member, const char *data, size_t len,
                             const char *ncu, size_t ncu_len, const char *nsys, size_t nsys_len);

/* Called once per member passed over that looks like data (above): why
 * says what it is and what to do instead. */
typedef void (*sb_archive_skip_fn)(void *ctx, const char *member, const char *why);

/* Reads path and calls fn for each document, and skip (may be NULL) for
 * each member passed over that looks like data. A damaged archive gives the
 * documents read before the damage to fn and then SB_ERR, err naming the
 * archive (and the member being read). A tar archive whose member is
 * larger than limits->member_bytes inflated (a NAME.json member:
 * limits->doc_bytes), or whose members together pass limits->held_bytes,
 * is refused the same way (what is held is counted as the heap bytes it
 * takes: the inflated tar, each member's buffer, the names and the
 * records, so that millions of empty members meet the bound too), err naming the member (limits NULL or zero:
 * the defaults of ingest.h); so is a JSON Lines line longer than either
 * bound, after the lines before it. */
int sb_archive_each(const char *path, const sb_ingest_limits *limits, sb_archive_fn fn, sb_archive_skip_fn skip,
                    void *ctx, sb_error *err);
/* The same for the archive already open as fd (sb_file_open_inside), named
 * path; fd stays open. */
int sb_archive_each_fd(const char *path, int fd, const sb_ingest_limits *limits, sb_archive_fn fn,
                       sb_archive_skip_fn skip, void *ctx, sb_error *err);

#endif
