/* ingest_list.h - the files an ingest takes, in the order it stores them:
 * each path given, a directory walked recursively in sorted order for
 * NAME.json files and archives, symbolic links followed with loops caught
 * by device and inode, a file named twice taken once. Internal to ingest/.
 */
#ifndef SOLBOOK_INGEST_LIST_H
#define SOLBOOK_INGEST_LIST_H

#include <stddef.h>

#include "error.h"

/* A file to ingest, or a problem the walk found in its place (reported
 * there, in walk order). */
/* Bits of sb_ingest_entry.absent: sidecars a directory's listing shows
 * are not there, so no lookup beside the file is needed for them. */
#define SB_INGEST_NO_NCU 1u  /* no NAME.ncu.csv */
#define SB_INGEST_NO_NSYS 2u /* no NAME.nsys.csv */

typedef struct sb_ingest_entry {
    char *path;
    sb_error *problem;  /* non-NULL: report it, nothing to ingest */
    unsigned absent;    /* SB_INGEST_NO_* */
    const char *inside; /* the resolved folder given that the file was found in (one of the list's
                         * tops), or NULL for a file named itself: the file and its sidecars are
                         * read only where they still lie inside it (sb_file_open_inside) */
} sb_ingest_entry;

typedef struct sb_ingest_list {
    sb_ingest_entry *v;
    size_t n;
    int oom;     /* memory ran out: the list is incomplete */
    char **tops; /* the folders given, resolved, that entries' inside points into */
    size_t n_tops;
} sb_ingest_list;

/* Lists paths into out (zeroed first); free it with sb_ingest_list_free.
 * in_place: a file named itself gets as inside insides[i] where given
 * (its folder as its gathering resolved it), else its own folder resolved
 * now (sb_ingest_limits.files_in_place, .insides). */
void sb_ingest_list_paths(char *const *paths, size_t n_paths, int in_place, char *const *insides,
                          sb_ingest_list *out);
void sb_ingest_list_free(sb_ingest_list *l);

#endif
