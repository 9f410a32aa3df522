/* rg_ask_read.h - the answer to what the update of the stored regression
 * steps asks to read (model/rg_ask.h), read on a connection: each kind
 * of ask by the db/ function that reads it.
 */
#ifndef SOLBOOK_DB_RG_ASK_READ_H
#define SOLBOOK_DB_RG_ASK_READ_H

#include "rg_ask.h"
#include "store.h"

/* Reads what ask names from db into *out (zero-initialised by the
 * caller; sb_rg_answer_free empties it, also after an error). */
int sb_rg_answer_read(sb_db *db, const sb_rg_ask *ask, sb_rg_answer *out, sb_error *err);

#endif
