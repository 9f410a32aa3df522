/* names_query.h - the names stored runs use: every provider, and every
 * card (GPU name, SKU, arch) with the packages its runs recorded. The
 * claims check (report/claims.c) reads a writeup against them. */
#ifndef SOLBOOK_DB_NAMES_QUERY_H
#define SOLBOOK_DB_NAMES_QUERY_H

#include <sqlite3.h>

#include "error.h"

/* Calls fn once per distinct configs.provider. */
typedef void (*sb_name_fn)(void *ctx, const char *name);
int sb_providers_each(sqlite3 *db, sb_name_fn fn, void *ctx, sb_error *err);

/* Calls fn once per distinct (gpu_name, sku, arch, packages_json) of
 * provenance; any of them may be NULL. */
typedef void (*sb_card_fn)(void *ctx, const char *gpu_name, const char *sku, const char *arch,
                           const char *packages_json);
int sb_cards_each(sqlite3 *db, sb_card_fn fn, void *ctx, sb_error *err);

#endif
