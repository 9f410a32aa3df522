/* home.h - where solbook finds the data files it reads: everything under
 * data/ of its home (schemas, templates, experiments, the SKU and op
 * tables, the forge harness and skills, the site's roadmap and ledger).
 *
 * The home is the first that applies: $SOLBOOK_HOME; the installed
 * directory next to the running program (/proc/self/exe's directory, then
 * SOLBOOK_REL_DATADIR, ../share/solbook for the GNU layout) when it holds
 * data/schemas/; the source tree the program was built from. Read-only
 * data only: databases and outputs go where the user says.
 */
#ifndef SOLBOOK_CORE_HOME_H
#define SOLBOOK_CORE_HOME_H

#include <stddef.h>

#include "error.h"

/* $SOLBOOK_HOME, else the source tree the program was built from (never
 * NULL). The build-tree home: tests, and the git checkout forge records. */
const char *sb_home(void);

/* Writes the home directory, found as above, into buf; SB_ERR when it
 * does not fit. */
int sb_home_dir(char *buf, size_t size, sb_error *err);

/* Writes HOME/data/rel into buf, HOME as sb_home_dir finds it: the one
 * way a reader finds a data file. SB_ERR when it does not fit. */
int sb_data_path(char *buf, size_t size, const char *rel, sb_error *err);

/* Default database path: $SOLBOOK_DB, else "solbook.db" in the current
 * directory (docs/INSTALL.md). */
const char *sb_default_db_path(void);

#endif
