/* home.c - locating solbook's data files. */
#include "home.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SOLBOOK_SOURCE_DIR
#define SOLBOOK_SOURCE_DIR "."
#endif
/* The data directory relative to the directory of the installed binary. */
#ifndef SOLBOOK_REL_DATADIR
#define SOLBOOK_REL_DATADIR "../share/solbook"
#endif

const char *sb_home(void)
{
    const char *h = getenv("SOLBOOK_HOME");
    return (h && *h) ? h : SOLBOOK_SOURCE_DIR;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The installed data directory beside the running program, or 0 when
 * the program does not sit in an installed layout. */
static int installed_home(char *buf, size_t size)
{
    char exe[PATH_MAX], probe[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    if ((size_t)snprintf(probe, sizeof probe, "%s/%s/data/schemas", exe, SOLBOOK_REL_DATADIR) >= sizeof probe ||
        !is_dir(probe))
        return 0;
    /* Resolve the ".." so that messages name a plain directory. */
    probe[strlen(probe) - strlen("/data/schemas")] = '\0';
    char real[PATH_MAX];
    const char *dir = realpath(probe, real) ? real : probe;
    return (size_t)snprintf(buf, size, "%s", dir) < size;
}

int sb_home_dir(char *buf, size_t size, sb_error *err)
{
    const char *h = getenv("SOLBOOK_HOME");
    if (h && *h) {
        if ((size_t)snprintf(buf, size, "%s", h) >= size)
            return sb_error_set(err, NULL, NULL, "SOLBOOK_HOME is too long: %s", h);
        return SB_OK;
    }
    if (installed_home(buf, size))
        return SB_OK;
    if ((size_t)snprintf(buf, size, "%s", SOLBOOK_SOURCE_DIR) >= size)
        return sb_error_set(err, NULL, NULL, "path too long: %s", SOLBOOK_SOURCE_DIR);
    return SB_OK;
}

int sb_data_path(char *buf, size_t size, const char *rel, sb_error *err)
{
    char home[PATH_MAX];
    if (sb_home_dir(home, sizeof home, err) != SB_OK)
        return SB_ERR;
    if ((size_t)snprintf(buf, size, "%s/data/%s", home, rel) >= size)
        return sb_error_set(err, NULL, NULL, "path too long: %s/data/%s", home, rel);
    return SB_OK;
}

const char *sb_default_db_path(void)
{
    const char *d = getenv("SOLBOOK_DB");
    return (d && *d) ? d : "solbook.db";
}
