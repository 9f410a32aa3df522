/* dir_names.h - the entries of a folder, sorted, for walks that must visit
 * files in the same order on every machine. */
#ifndef SOLBOOK_CORE_DIR_NAMES_H
#define SOLBOOK_CORE_DIR_NAMES_H

#include <dirent.h>
#include <stddef.h>

#include "error.h"

/* Reads every name of the open folder d except "." and "..", sorted in
 * byte order (strcmp). *names is a malloc'd array of *n malloc'd strings,
 * freed with sb_dir_names_free. Out of memory: SB_ERR with "out of memory"
 * naming dir, and *names = NULL, *n = 0. The caller opens and closes d. */
int sb_dir_read_names(DIR *d, const char *dir, char ***names, size_t *n, sb_error *err);

void sb_dir_names_free(char **names, size_t n);

#endif
