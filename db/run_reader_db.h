/* run_reader_db.h - a run reader (model/run_reader.h) on a database
 * connection: report/ reads single runs through it instead of querying.
 */
#ifndef SOLBOOK_DB_RUN_READER_DB_H
#define SOLBOOK_DB_RUN_READER_DB_H

#include "run_reader.h"
#include "store.h"

/* Fills rd with the reads of db (sb_samples_load, sb_kernel_samples_text
 * and sb_run_raw_json); db must outlive it. Each samples read prepares
 * its statement: unlike a walk's sb_samples_query, it leaves the
 * connection's page cache at its size, so a reader of a few runs keeps
 * the memory of a plain connection. */
void sb_run_reader_db(sb_db *db, sb_run_reader *rd);

#endif
