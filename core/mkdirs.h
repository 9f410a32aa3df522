/* mkdirs.h - creating a folder and its missing parents (mkdir -p). */
#ifndef SOLBOOK_CORE_MKDIRS_H
#define SOLBOOK_CORE_MKDIRS_H

#include "error.h"

/* Creates path and every missing parent (mode 0777 less the umask); an
 * existing folder is fine. SB_ERR names the part that could not be
 * created, or path when it exists and is not a folder. */
int sb_mkdirs(const char *path, sb_error *err);

#endif
