/* names_query.c - the providers and cards stored runs name (names_query.h). */
#include "names_query.h"

#include "store.h"

static int query_failed(sqlite3 *db, sqlite3_stmt *st, sb_error *err)
{
    sb_db_conn_fail(db, err, "query failed");
    sqlite3_finalize(st);
    return SB_ERR;
}

int sb_providers_each(sqlite3 *db, sb_name_fn fn, void *ctx, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT provider FROM configs", -1, &st, NULL) != SQLITE_OK)
        return query_failed(db, st, err);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(ctx, (const char *)sqlite3_column_text(st, 0));
    if (rc != SQLITE_DONE)
        return query_failed(db, st, err);
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_cards_each(sqlite3 *db, sb_card_fn fn, void *ctx, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT gpu_name, sku, arch, packages_json FROM provenance",
                           -1, &st, NULL) != SQLITE_OK)
        return query_failed(db, st, err);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(ctx, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
           (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3));
    if (rc != SQLITE_DONE)
        return query_failed(db, st, err);
    sqlite3_finalize(st);
    return SB_OK;
}
