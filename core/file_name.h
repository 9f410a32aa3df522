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

/* 1 when name ends with suffix (".json", ".tar.gz"): what walks of result
 * trees take a file for. */
int sb_name_ends_with(const char *name, const char *suffix);

/* name with the suffix from replaced by to (NAME.json -> NAME.ncu.csv, a
 * result's Nsight Compute sidecar), malloc'd; NULL when name does not end
 * with from, or out of memory. */
char *sb_name_resuffixed(const char *name, const char *from, const char *to);

#endif
