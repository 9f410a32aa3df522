/* staged_dir.c - see staged_dir.h. */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE; nftw */
#include "staged_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dir_names.h"
#include "mkdirs.h"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

int sb_remove_tree(const char *path, sb_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? SB_OK : sb_error_set(err, path, NULL, "cannot read: %s", strerror(errno));
    if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return sb_error_set(err, path, NULL, "cannot remove: %s", strerror(errno));
    return SB_OK;
}

int sb_staged_dir_open(sb_staged_dir *s, const char *target, sb_stage_mode mode, sb_error *err)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        n--;
    if (n == 0 || n >= sizeof s->target - 64)
        return sb_error_set(err, target, NULL, n ? "path too long" : "no output folder given");
    memcpy(s->target, target, n);
    s->target[n] = '\0';
    struct stat st;
    if (stat(s->target, &st) == 0 && !S_ISDIR(st.st_mode))
        return sb_error_set(err, s->target, NULL, "exists and is not a directory");
    char tmpl[2 * sizeof s->target];
    if (mode == SB_STAGE_MERGE) {
        if (sb_mkdirs(s->target, err) != SB_OK)
            return SB_ERR;
        snprintf(tmpl, sizeof tmpl, "%s/.solbook-partial-XXXXXX", s->target);
    } else {
        const char *slash = strrchr(s->target, '/');
        const char *base = slash ? slash + 1 : s->target;
        if (!strcmp(base, ".") || !strcmp(base, ".."))
            return sb_error_set(err, s->target, NULL,
                                "give the output folder by name, not as '.' or '..'");
        if (slash) {
            char parent[4096];
            size_t pl = slash == s->target ? 1 : (size_t)(slash - s->target);
            memcpy(parent, s->target, pl);
            parent[pl] = '\0';
            if (sb_mkdirs(parent, err) != SB_OK)
                return SB_ERR;
        }
        snprintf(tmpl, sizeof tmpl, "%.*s.%s.partial-XXXXXX", (int)(base - s->target), s->target,
                 base);
    }
    if (!mkdtemp(tmpl))
        return sb_error_set(err, tmpl, NULL, "cannot create the staging folder: %s", strerror(errno));
    /* mkdtemp makes it 0700; outputs are meant to be read by others */
    chmod(tmpl, 0755);
    if ((size_t)snprintf(s->stage, sizeof s->stage, "%s", tmpl) >= sizeof s->stage) {
        rmdir(tmpl);
        s->stage[0] = '\0';
        return sb_error_set(err, s->target, NULL, "path too long");
    }
    return SB_OK;
}

void sb_staged_dir_discard(sb_staged_dir *s)
{
    if (!s->stage[0])
        return;
    sb_remove_tree(s->stage, NULL);
    s->stage[0] = '\0';
}

static int commit_swap(sb_staged_dir *s, sb_error *err)
{
    if (rename(s->stage, s->target) == 0) {
        s->stage[0] = '\0';
        return SB_OK;
    }
    if (errno != EEXIST && errno != ENOTEMPTY)
        return sb_error_set(err, s->target, NULL, "cannot move the new output into place: %s",
                            strerror(errno));
    /* The target exists: exchange the two, then the stage path holds the
     * earlier output, which is removed. */
    if (renameat2(AT_FDCWD, s->stage, AT_FDCWD, s->target, RENAME_EXCHANGE) != 0) {
        if (errno != EINVAL && errno != ENOSYS)
            return sb_error_set(err, s->target, NULL, "cannot swap the new output in: %s",
                                strerror(errno));
        /* No exchange on this file system: move the earlier output aside,
         * the new one in, and the earlier one back if that fails. */
        char aside[sizeof s->stage];
        if ((size_t)snprintf(aside, sizeof aside, "%.4000s.old", s->stage) >= sizeof aside)
            return sb_error_set(err, s->target, NULL, "path too long");
        if (rename(s->target, aside) != 0)
            return sb_error_set(err, s->target, NULL, "cannot move the earlier output aside: %s",
                                strerror(errno));
        if (rename(s->stage, s->target) != 0) {
            int e = errno;
            rename(aside, s->target);
            return sb_error_set(err, s->target, NULL, "cannot move the new output into place: %s",
                                strerror(e));
        }
        memcpy(s->stage, aside, sizeof s->stage);
    }
    sb_staged_dir_discard(s);
    return SB_OK;
}

static int commit_merge(sb_staged_dir *s, sb_error *err)
{
    DIR *d = opendir(s->stage);
    if (!d)
        return sb_error_set(err, s->stage, NULL, "cannot read: %s", strerror(errno));
    char **names = NULL;
    size_t n = 0;
    int rc = sb_dir_read_names(d, s->stage, &names, &n, err);
    closedir(d);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char from[8192], to[8192];
        snprintf(from, sizeof from, "%s/%s", s->stage, names[i]);
        snprintf(to, sizeof to, "%s/%s", s->target, names[i]);
        struct stat st;
        if (lstat(to, &st) == 0 && S_ISDIR(st.st_mode))
            rc = sb_error_set(err, to, NULL, "is a directory; cannot replace it with a file");
        else if (rename(from, to) != 0)
            rc = sb_error_set(err, to, NULL, "cannot move the new file into place: %s",
                              strerror(errno));
    }
    sb_dir_names_free(names, n);
    sb_staged_dir_discard(s);
    return rc;
}

int sb_staged_dir_commit(sb_staged_dir *s, sb_error *err)
{
    if (!s->stage[0])
        return sb_error_set(err, s->target, NULL, "no staging folder to move into place");
    int rc = s->mode == SB_STAGE_SWAP ? commit_swap(s, err) : commit_merge(s, err);
    if (rc != SB_OK)
        sb_staged_dir_discard(s);
    return rc;
}
