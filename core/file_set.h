/* file_set.h - the files of an output folder, built in memory: what a
 * report makes (a week's writeup, a packet) without writing it. The CLI
 * and site/ publish a set through the staged writer (staged_dir.h), so a
 * folder of outputs appears whole or not at all, and report/ writes no
 * file.
 */
#ifndef SOLBOOK_CORE_FILE_SET_H
#define SOLBOOK_CORE_FILE_SET_H

#include <stddef.h>

#include "error.h"
#include "staged_dir.h"
#include "strbuf.h"

typedef struct sb_set_file {
    char *name;     /* relative to the folder: one file name, no '/' */
    sb_buf data;
    int executable; /* 1: written with mode 0755 (a script) */
} sb_set_file;

/* Zero-initialise; free with sb_file_set_free. */
typedef struct sb_file_set {
    sb_set_file *v;
    size_t n, cap;
} sb_file_set;

/* Adds a copy of b's text as file name; a name given twice is replaced.
 * An error when b ran out of memory while it was built, or name is not
 * a plain file name. */
int sb_file_set_add(sb_file_set *s, const char *name, const sb_buf *b, int executable, sb_error *err);

/* The file of that name; NULL when the set has none. */
const sb_set_file *sb_file_set_get(const sb_file_set *s, const char *name);

/* Writes every file of s into dir, an existing folder (each atomically,
 * json_file.h): for a caller that stages its own folder (a site). */
int sb_file_set_write(const sb_file_set *s, const char *dir, sb_error *err);

/* Publishes s at target through a staging folder (staged_dir.h): with
 * SB_STAGE_SWAP the folder becomes exactly s; with SB_STAGE_MERGE the
 * files of s replace those of their names and others stay. On failure
 * the target is left as it was. */
int sb_file_set_publish(const sb_file_set *s, const char *target, sb_stage_mode mode, sb_error *err);

/* sb_file_set_publish with SB_STAGE_SWAP into a target that does not
 * exist or is an empty folder: a folder whose every file the set holds
 * (a packet, whose manifest covers every file), which replaces no file
 * of anyone's. A target holding anything is refused, and left as it
 * was. */
int sb_file_set_publish_new(const sb_file_set *s, const char *target, sb_error *err);

void sb_file_set_free(sb_file_set *s);

#endif
