/* json_fast.h - sb_json_load_buffer (core/json_file.h), faster on the
 * documents ingest sees most.
 *
 * A direct parser builds the jansson tree for input inside a plain subset
 * of JSON: ASCII strings without escapes, integers of at most 18 digits,
 * nesting under SB_JSON_MAX_DEPTH, unique keys, an object or array at the
 * top. There it gives the tree jansson's parser gives (same values, same
 * key order). Anything else - an escape, a non-ASCII byte, a duplicate key,
 * a syntax error - is handed whole to sb_json_load_buffer, so what is
 * refused, and the message that says why, are exactly the strict loader's.
 */
#ifndef SOLBOOK_INGEST_JSON_FAST_H
#define SOLBOOK_INGEST_JSON_FAST_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

/* As sb_json_load_buffer: on success *out holds a new reference. */
int sb_json_fast_load_buffer(const char *buf, size_t len, const char *name, json_t **out,
                             sb_error *err);

/* As sb_json_load_file. */
int sb_json_fast_load_file(const char *path, json_t **out, sb_error *err);

#endif
