/* staged_dir.c - see staged_dir.h. */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE; nftw */
#include "staged_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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

/* Stages are named PREFIX + PID + "-" + six mkdtemp characters, with
 * ".old" after them for an earlier output moved aside; a stage of an
 * older solbook has no PID. Returns the PID (0 for none) when name is
 * such a stage, else -1. */
static long stage_name_pid(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return -1;
    const char *p = name + pl;
    long pid = 0;
    const char *d = p;
    while (*d >= '0' && *d <= '9' && d - p < 10)
        pid = pid * 10 + (*d++ - '0');
    if (d > p && *d == '-')
        p = d + 1;
    else
        pid = 0;
    for (int i = 0; i < 6; i++, p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return -1;
    return (!*p || !strcmp(p, ".old")) ? pid : -1;
}

/* A stage is stale when no build holds its lock and its owner is gone: a
 * named PID that no longer runs, or, for a stage without one, no change
 * for an hour (an older solbook took no lock). */
static int stage_is_stale(const char *path, long pid, const struct stat *st)
{
    if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
        return 0;
    if (pid == 0 && time(NULL) - st->st_mtime < 3600)
        return 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free_lock;
}

/* Removes the stages of earlier runs in dir whose builds were killed
 * before they could remove them: only names of this scheme, only folders,
 * never one whose build still runs. Best effort: a stage that cannot be
 * removed stays and does not stop this run. */
static void remove_stale_stages(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0;
    int rc = sb_dir_read_names(d, dir, &names, &n, NULL);
    closedir(d);
    if (rc != SB_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        long pid = stage_name_pid(names[i], prefix);
        char path[8192];
        struct stat st;
        if (pid < 0 || (size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= sizeof path)
            continue;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || !stage_is_stale(path, pid, &st))
            continue;
        sb_remove_tree(path, NULL);
    }
    sb_dir_names_free(names, n);
}

static void release_lock(sb_staged_dir *s)
{
    if (s->lock_fd > 0)
        close(s->lock_fd);
    s->lock_fd = -1;
}

int sb_staged_dir_open(sb_staged_dir *s, const char *target, sb_stage_mode mode, sb_error *err)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->lock_fd = -1;
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
        remove_stale_stages(s->target, ".solbook-partial-");
        snprintf(tmpl, sizeof tmpl, "%s/.solbook-partial-%ld-XXXXXX", s->target, (long)getpid());
    } else {
        const char *slash = strrchr(s->target, '/');
        const char *base = slash ? slash + 1 : s->target;
        if (!strcmp(base, ".") || !strcmp(base, ".."))
            return sb_error_set(err, s->target, NULL,
                                "give the output folder by name, not as '.' or '..'");
        char parent[4096] = ".", prefix[sizeof s->target + 16];
        if (slash) {
            size_t pl = slash == s->target ? 1 : (size_t)(slash - s->target);
            memcpy(parent, s->target, pl);
            parent[pl] = '\0';
            if (sb_mkdirs(parent, err) != SB_OK)
                return SB_ERR;
        }
        snprintf(prefix, sizeof prefix, ".%s.partial-", base);
        remove_stale_stages(parent, prefix);
        snprintf(tmpl, sizeof tmpl, "%.*s.%s.partial-%ld-XXXXXX", (int)(base - s->target),
                 s->target, base, (long)getpid());
    }
    if (!mkdtemp(tmpl))
        return sb_error_set(err, tmpl, NULL, "cannot create the staging folder: %s", strerror(errno));
    /* mkdtemp makes it 0700; outputs are meant to be read by others */
    chmod(tmpl, 0755);
    /* held until the stage is moved or removed; the kernel drops it when
     * the process dies, which is what tells a later run the stage is stale */
    s->lock_fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->lock_fd >= 0)
        flock(s->lock_fd, LOCK_EX | LOCK_NB);
    if ((size_t)snprintf(s->stage, sizeof s->stage, "%s", tmpl) >= sizeof s->stage) {
        rmdir(tmpl);
        release_lock(s);
        s->stage[0] = '\0';
        return sb_error_set(err, s->target, NULL, "path too long");
    }
    return SB_OK;
}

void sb_staged_dir_discard(sb_staged_dir *s)
{
    if (s->stage[0])
        sb_remove_tree(s->stage, NULL);
    s->stage[0] = '\0';
    release_lock(s);
}

static int commit_swap(sb_staged_dir *s, sb_error *err)
{
    if (rename(s->stage, s->target) == 0) {
        s->stage[0] = '\0';
        release_lock(s);
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
