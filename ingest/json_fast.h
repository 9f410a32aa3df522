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

/* The reals of one document's tree, kept for the next. A result is
 * mostly its samples, each a jansson real allocated when parsed and freed
 * with the tree; a pool of them, each set to its new value, takes those
 * allocations and frees out of every document after the first. A real is
 * reused only once no tree holds it (its only reference is the pool's):
 * free a document's tree before the next is loaded, or its reals are not
 * reused. Zero-initialise; one pool a thread. */
typedef struct sb_json_fast_reals {
    json_t **v;
    size_t n, cap, next;
} sb_json_fast_reals;

/* sb_json_fast_load_buffer, taking the tree's reals from reals. */
int sb_json_fast_load_reusing(const char *buf, size_t len, const char *name,
                              sb_json_fast_reals *reals, json_t **out, sb_error *err);
void sb_json_fast_reals_free(sb_json_fast_reals *r);

/* As sb_json_load_file. */
int sb_json_fast_load_file(const char *path, json_t **out, sb_error *err);

#endif
