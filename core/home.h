/* home.h - where solbook finds its data files (schemas/, db/, templates/).
 *
 * SOLBOOK_HOME in the environment wins; otherwise the source tree the
 * program was built from. Read-only data only: databases and outputs go
 * where the user says.
 */
#ifndef SOLBOOK_CORE_HOME_H
#define SOLBOOK_CORE_HOME_H

#include <stddef.h>

#include "error.h"

/* The home directory (never NULL). */
const char *sb_home(void);

/* Writes HOME/rel into buf; SB_ERR when it does not fit. */
int sb_home_path(char *buf, size_t size, const char *rel, sb_error *err);

/* Default database path: $SOLBOOK_DB, else "solbook.db" in the current
 * directory. */
const char *sb_default_db_path(void);

#endif
