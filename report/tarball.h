/* tarball.h - a gzip-compressed POSIX ustar archive built in memory, for the
 * data a packet attaches (one file to upload beside a discussion). The
 * same files give the same bytes: every entry has mode 0644, owner 0 and
 * time 0, and the gzip header carries no time or name.
 */
#ifndef SOLBOOK_REPORT_TARBALL_H
#define SOLBOOK_REPORT_TARBALL_H

#include <stddef.h>

#include "error.h"
#include "strbuf.h"

typedef struct sb_tarball sb_tarball;

int sb_tarball_new(sb_tarball **out, sb_error *err);
/* Adds a regular file; name at most 100 bytes, relative, no "..". */
int sb_tarball_add(sb_tarball *t, const char *name, const char *data, size_t len, sb_error *err);
/* Ends the archive and appends it, gzip-compressed, to gz. */
int sb_tarball_finish(sb_tarball *t, sb_buf *gz, sb_error *err);
void sb_tarball_free(sb_tarball *t);

#endif
