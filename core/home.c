/* home.c - locating solbook's data files. */
#include "home.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef SOLBOOK_SOURCE_DIR
#define SOLBOOK_SOURCE_DIR "."
#endif

const char *sb_home(void)
{
    const char *h = getenv("SOLBOOK_HOME");
    return (h && *h) ? h : SOLBOOK_SOURCE_DIR;
}

int sb_home_path(char *buf, size_t size, const char *rel, sb_error *err)
{
    if ((size_t)snprintf(buf, size, "%s/%s", sb_home(), rel) >= size)
        return sb_error_set(err, NULL, NULL, "path too long: %s/%s", sb_home(), rel);
    return SB_OK;
}

const char *sb_default_db_path(void)
{
    const char *d = getenv("SOLBOOK_DB");
    return (d && *d) ? d : "solbook.db";
}
