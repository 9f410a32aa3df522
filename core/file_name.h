/* file_name.h - file names made from data (an op, a SKU, a case key):
 * short, made of safe characters, and distinct for distinct data.
 *
 * A name from data is its slug (sb_slug) cut to SB_NAME_SLUG_MAX bytes;
 * when that is not the data itself (characters changed or the name cut),
 * "-" and 12 hex digits of a hash of the data follow, so two values never
 * share a file. Names stay far below NAME_MAX whatever the data's length. */
#ifndef SOLBOOK_CORE_FILE_NAME_H
#define SOLBOOK_CORE_FILE_NAME_H

#include <stddef.h>
#include <stdint.h>

#define SB_NAME_SLUG_MAX 48
/* Size of a buffer that holds any sb_safe_name or sb_hashed_name. */
#define SB_SAFE_NAME_SIZE 64

/* Keeps [a-z0-9._-] (upper case folded), other bytes become '-'; at most
 * size - 1 bytes. */
void sb_slug(const char *in, char *out, size_t size);

/* The slug itself when it equals s (and is not empty and does not start
 * with '.'), else the slug cut to SB_NAME_SLUG_MAX, '-' and the hash. */
void sb_safe_name(const char *s, char out[SB_SAFE_NAME_SIZE]);

/* Always the cut slug, '-' and the hash: for keys whose names must not
 * collide with plain names. */
void sb_hashed_name(const char *s, char out[SB_SAFE_NAME_SIZE]);

/* The 48-bit hash used in the names above (64-bit FNV-1a, low 48 bits). */
uint64_t sb_name_hash48(const char *s);

/* Page ids: file names for the pages of a static site, one per value and
 * page, that no other value or page can produce.
 *
 * The id of a value is the value with every byte outside [a-z0-9._-] (a
 * '.' too, as the first byte or where it begins a final ".html") written
 * as '~' and two lowercase hex digits, and "index" written "~69ndex" (the
 * name of a folder's list);
 * the empty value is "~-". The escape reads back, so distinct values have
 * distinct ids, also on a file system that folds case. An id longer than
 * SB_PAGE_ID_MAX is cut at an escape's edge and ends in "~h" and 16 hex
 * digits of the value's SHA-256. Page N > 1 of a value is its id and
 * "~pN". An escape is '~' and a hex digit, so neither "~h" nor "~p"
 * comes from one: a value's page never shares a name with another value
 * or another page. No id ends in ".html", so the folder a site names by
 * one value's id (ops/ID/) is never the page ID.html of another. */
#define SB_PAGE_ID_MAX 80
/* Size of a buffer that holds any sb_page_id, with "~pN" after it. */
#define SB_PAGE_ID_SIZE 112

void sb_page_id(const char *s, char out[SB_PAGE_ID_SIZE]);

/* The id of s for page (1 for the first) into out. */
void sb_page_id_paged(const char *s, size_t page, char out[SB_PAGE_ID_SIZE]);

/* 1 when name ends with suffix (".json", ".tar.gz"): what walks of result
 * trees take a file for. */
int sb_name_ends_with(const char *name, const char *suffix);

/* name with the suffix from replaced by to (NAME.json -> NAME.ncu.csv, a
 * result's Nsight Compute sidecar), malloc'd; NULL when name does not end
 * with from, or out of memory. */
char *sb_name_resuffixed(const char *name, const char *from, const char *to);

#endif
