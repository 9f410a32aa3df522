/* canonical_json.h - the canonical text of a JSON value: the bytes that
 * jansson's json_dumps writes with JSON_SORT_KEYS | JSON_COMPACT |
 * JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY (keys in byte order, no
 * spaces, reals as printf "%.17g" with ".0" added to whole numbers and the
 * exponent without "+" or leading zeros), so the content digests of stored
 * runs stay what they are. Written directly into one buffer, with reals of
 * magnitude 1e-16 to 1e17 formatted by exact integer arithmetic rather than
 * printf, because a result file is mostly reals. */
#ifndef SOLBOOK_INGEST_CANONICAL_JSON_H
#define SOLBOOK_INGEST_CANONICAL_JSON_H

#include <jansson.h>
#include <stddef.h>

/* A malloc'd NUL-terminated string (its length in *len when len is not
 * NULL), or NULL when out of memory. */
char *sb_canonical_json(const json_t *json, size_t *len);

/* As sb_canonical_json, and [*from, *to) is the text of the object
 * member whose value is value ("key":value, without a comma), found by
 * identity; both 0 where json holds no member with that value. The text
 * without that member is the text of json with it removed, after taking
 * out one comma next to it. */
char *sb_canonical_json_member(const json_t *json, const json_t *value, size_t *len, size_t *from,
                               size_t *to);

/* Writes double d as the canonical text does into buf (at least 32
 * bytes); returns the length. */
size_t sb_canonical_real(double d, char *buf);

#endif
