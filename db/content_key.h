/* content_key.h - the small key runs.content_key holds for a content
 * digest (db/migrations/013_content_key.sql).
 *
 * The key is the digest's first 16 hex digits (its first 8 bytes) read as
 * an unsigned big-endian number, minus 2^63: keys sort as the digests do,
 * so every digest that starts with a given prefix has a key in one range.
 * A character that is not a lower-case hex digit, and every place past the
 * end of a shorter text, counts as 0, as the SQL of the generated column
 * counts it; places are characters of UTF-8 text, as SQLite's substr()
 * counts them. Two digests may share a key: a look-up compares the whole
 * digest too. */
#ifndef SB_DB_CONTENT_KEY_H
#define SB_DB_CONTENT_KEY_H

/* The key of the digest (or any text) hex. */
long long sb_content_key(const char *hex);

/* *lo and *hi: the smallest and largest key of a digest that starts with
 * prefix (its first 16 characters count; more pin a single key). */
void sb_content_key_range(const char *prefix, long long *lo, long long *hi);

#endif
