/* mkdirs.c - see mkdirs.h. */
#include "mkdirs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int sb_mkdirs(const char *path, sb_error *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return sb_error_set(err, path, NULL, "path too long");
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return sb_error_set(err, buf, NULL, "cannot create directory: %s", strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return sb_error_set(err, buf, NULL, "cannot create directory: %s", strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return sb_error_set(err, buf, NULL, "exists and is not a directory");
    return SB_OK;
}
