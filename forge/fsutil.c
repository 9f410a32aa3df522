/* fsutil.c - see fsutil.h. */
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dir_names.h"
#include "process.h"
#include "sha256.h"

/* Copies what in reads (src names it in errors) into a new dst. Closes in. */
static int copy_fd(int in, const char *src, const char *dst, sb_error *err)
{
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return sb_error_set(err, dst, NULL, "cannot create: %s", strerror(e));
    }
    char buf[65536];
    int rc = SB_OK;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = sb_error_set(err, src, NULL, "read failed: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = sb_error_set(err, dst, NULL, "write failed: %s", strerror(errno));
                break;
            }
            off += w;
        }
        if (rc != SB_OK)
            break;
    }
    close(in);
    if (close(out) != 0 && rc == SB_OK)
        rc = sb_error_set(err, dst, NULL, "write failed: %s", strerror(errno));
    return rc;
}

int sb_forge_copy_file(const char *src, const char *dst, sb_error *err)
{
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return sb_error_set(err, src, NULL, "cannot read: %s", strerror(errno));
    return copy_fd(in, src, dst, err);
}

/* An entry of a folder being walked: dirfd and name reach it without
 * following a link (rel and full name it in messages), st is what
 * fstatat said of it when its folder was listed. */
typedef struct entry {
    int dirfd;
    const char *name, *rel, *full;
    struct stat st;
} entry;

typedef int (*visit_fn)(void *ctx, const entry *e, sb_error *err);

#define CHANGED "changed while its folder was read (replaced, or made a link): refused"

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A file of the candidate's own: a regular file with no other name. A
 * hard link is a second name for a file that may lie anywhere on the file
 * system (any file the candidate's author could read, as root or without
 * fs.protected_hardlinks); forge would read it outside any sandbox, and
 * its bytes would reach the scan's findings, the compiler's messages and
 * verify.json. */
static int own_file(const struct stat *st)
{
    return S_ISREG(st->st_mode) && st->st_nlink == 1;
}

#define NOT_OWN_FILE "not a regular file of its own (links, hard links and special files are refused)"

/* Opens the entry's file to read: one of its own, the file that was
 * listed. Whoever can write the folder may swap a name for a link, or a
 * folder on the way for a link out, between the listing and the opening;
 * the opening follows no link, and the file opened is checked again. */
static int open_own_file(const entry *e, int *fd, sb_error *err)
{
    if (!own_file(&e->st))
        return sb_error_set(err, e->full, NULL, NOT_OWN_FILE);
    int in = openat(e->dirfd, e->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (in < 0 && errno == ELOOP)
        return sb_error_set(err, e->full, NULL, CHANGED);
    if (in < 0)
        return sb_error_set(err, e->full, NULL, "cannot read: %s", strerror(errno));
    struct stat now;
    if (fstat(in, &now) != 0 || !own_file(&now) || !same_file(&now, &e->st)) {
        close(in);
        return sb_error_set(err, e->full, NULL, CHANGED);
    }
    *fd = in;
    return SB_OK;
}

/* Visits the entries of the folder dirfd (root/rel) sorted by name, depth
 * first, parents before children. Each folder is opened from its parent's
 * descriptor without following a link, so no name reaches outside root
 * whatever is swapped while the walk runs. */
static int walk_fd(int dirfd, const char *root, const char *rel, visit_fn fn, void *ctx, int depth,
                   sb_error *err)
{
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel) >= sizeof dir)
        return sb_error_set(err, root, NULL, "path too long");
    if (depth > 8)
        return sb_error_set(err, dir, NULL, "folders nested too deep");
    int listfd = dup(dirfd);
    DIR *d = listfd >= 0 ? fdopendir(listfd) : NULL;
    if (!d) {
        int e = errno;
        if (listfd >= 0)
            close(listfd);
        return sb_error_set(err, dir, NULL, "cannot open folder: %s", strerror(e));
    }
    char **names;
    size_t n;
    int rc = sb_dir_read_names(d, dir, &names, &n, err);
    closedir(d);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char r[2048], full[4096];
        if ((size_t)snprintf(r, sizeof r, "%s%s%s", rel, rel[0] ? "/" : "", names[i]) >= sizeof r ||
            (size_t)snprintf(full, sizeof full, "%s/%s", root, r) >= sizeof full) {
            rc = sb_error_set(err, dir, NULL, "path too long");
            break;
        }
        entry e = {dirfd, names[i], r, full, {0}};
        if (fstatat(dirfd, names[i], &e.st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = sb_error_set(err, full, NULL, "cannot stat: %s", strerror(errno));
            break;
        }
        rc = fn(ctx, &e, err);
        if (rc != SB_OK || !S_ISDIR(e.st.st_mode))
            continue;
        int sub = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat now;
        if (sub < 0 || fstat(sub, &now) != 0 || !same_file(&now, &e.st)) {
            if (sub >= 0)
                close(sub);
            rc = sb_error_set(err, full, NULL, CHANGED);
            break;
        }
        rc = walk_fd(sub, root, r, fn, ctx, depth + 1, err);
        close(sub);
    }
    sb_dir_names_free(names, n);
    return rc;
}

static int walk(const char *root, visit_fn fn, void *ctx, sb_error *err)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_set(err, root, NULL, "cannot open folder: %s", strerror(errno));
    int rc = walk_fd(fd, root, "", fn, ctx, 0, err);
    close(fd);
    return rc;
}

typedef struct copy_ctx {
    const char *dst_root;
    int keep_exec;
} copy_ctx;

static int copy_visit(void *ctx, const entry *e, sb_error *err)
{
    const copy_ctx *c = ctx;
    char dst[4096];
    if ((size_t)snprintf(dst, sizeof dst, "%s/%s", c->dst_root, e->rel) >= sizeof dst)
        return sb_error_set(err, e->full, NULL, "path too long");
    if (S_ISDIR(e->st.st_mode)) {
        if (mkdir(dst, 0755) != 0 && errno != EEXIST)
            return sb_error_set(err, dst, NULL, "cannot create folder: %s", strerror(errno));
        return SB_OK;
    }
    int in;
    if (open_own_file(e, &in, err) != SB_OK || copy_fd(in, e->full, dst, err) != SB_OK)
        return SB_ERR;
    if (c->keep_exec && (e->st.st_mode & S_IXUSR) && chmod(dst, 0755) != 0)
        return sb_error_set(err, dst, NULL, "cannot make executable: %s", strerror(errno));
    return SB_OK;
}

static int copy_tree(const char *src, const char *dst, int keep_exec, sb_error *err)
{
    if (sb_mkdirs(dst, err) != SB_OK)
        return SB_ERR;
    copy_ctx c = {dst, keep_exec};
    return walk(src, copy_visit, &c, err);
}

int sb_forge_copy_tree(const char *src, const char *dst, sb_error *err)
{
    return copy_tree(src, dst, 0, err);
}

int sb_forge_copy_tree_exec(const char *src, const char *dst, sb_error *err)
{
    return copy_tree(src, dst, 1, err);
}

int sb_forge_remove_tree(const char *path, sb_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? SB_OK : sb_error_set(err, path, NULL, "cannot stat: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0)
            return sb_error_set(err, path, NULL, "cannot remove: %s", strerror(errno));
        return SB_OK;
    }
    DIR *d = opendir(path);
    if (!d)
        return sb_error_set(err, path, NULL, "cannot open folder: %s", strerror(errno));
    struct dirent *de;
    int rc = SB_OK;
    while (rc == SB_OK && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char child[4096];
        if ((size_t)snprintf(child, sizeof child, "%s/%s", path, de->d_name) >= sizeof child)
            rc = sb_error_set(err, path, NULL, "path too long");
        else
            rc = sb_forge_remove_tree(child, err);
    }
    closedir(d);
    if (rc == SB_OK && rmdir(path) != 0)
        rc = sb_error_set(err, path, NULL, "cannot remove folder: %s", strerror(errno));
    return rc;
}

int sb_forge_make_temp_dir(const char *prefix, char *out, size_t size, sb_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if ((size_t)snprintf(out, size, "%s/%s-XXXXXX", tmp, prefix) >= size)
        return sb_error_set(err, tmp, NULL, "path too long");
    if (!mkdtemp(out))
        return sb_error_set(err, out, NULL, "cannot create temporary folder: %s", strerror(errno));
    return SB_OK;
}

static int hash_visit(void *ctx, const entry *e, sb_error *err)
{
    json_t *obj = ctx;
    if (S_ISDIR(e->st.st_mode))
        return SB_OK;
    int in;
    if (open_own_file(e, &in, err) != SB_OK)
        return SB_ERR;
    char hex[SB_SHA256_HEX_LEN + 1];
    int rc = sb_sha256_fd_hex(in, e->full, hex, err);
    close(in);
    if (rc != SB_OK)
        return SB_ERR;
    json_object_set_new(obj, e->rel, json_string(hex));
    return SB_OK;
}

int sb_forge_hash_tree(const char *dir, json_t **out, sb_error *err)
{
    json_t *obj = json_object();
    if (!obj)
        return sb_error_set(err, dir, NULL, "out of memory");
    if (walk(dir, hash_visit, obj, err) != SB_OK) {
        json_decref(obj);
        return SB_ERR;
    }
    *out = obj;
    return SB_OK;
}

int sb_forge_find_nvcc(char *out, size_t size, sb_error *err)
{
    const char *env = getenv("SOLBOOK_NVCC");
    if (env && *env) {
        if (access(env, X_OK) != 0)
            return sb_error_set(err, env, NULL, "SOLBOOK_NVCC is not an executable file");
        snprintf(out, size, "%s", env);
        return SB_OK;
    }
    if (sb_process_find("nvcc", out, size) == SB_OK)
        return SB_OK;
    snprintf(out, size, "/usr/local/cuda/bin/nvcc");
    if (access(out, X_OK) == 0)
        return SB_OK;
    return sb_error_set(err, NULL, NULL,
                        "nvcc not found (set SOLBOOK_NVCC, or put the CUDA toolkit's bin in PATH)");
}

/* 1 when dir/rel exists. */
static int has_entry(const char *dir, const char *rel)
{
    char p[4200];
    struct stat st;
    return (size_t)snprintf(p, sizeof p, "%s/%s", dir, rel) < sizeof p && stat(p, &st) == 0;
}

/* Cuts real at its last '/': its folder ("/" for a name at the top). */
static void cut_name(char *real, size_t size)
{
    char *slash = strrchr(real, '/');
    if (!slash || slash == real)
        snprintf(real, size, "/");
    else
        *slash = '\0';
}

void sb_forge_toolkit_dir(const char *nvcc, char *out, size_t size)
{
    char real[4096], up[4096];
    if (!realpath(nvcc, real))
        snprintf(real, sizeof real, "%s", nvcc);
    cut_name(real, sizeof real); /* the folder holding nvcc */
    snprintf(up, sizeof up, "%s", real);
    cut_name(up, sizeof up);
    /* The folder above is taken only where it is a toolkit (nvcc's NVVM or
     * the runtime's headers beside its bin): a wrapper script in ~/bin
     * would otherwise open the whole home folder to every candidate. */
    if (strcmp(up, "/") != 0 && (has_entry(up, "nvvm") || has_entry(up, "include/cuda_runtime.h")))
        snprintf(out, size, "%s", up);
    else
        snprintf(out, size, "%s", real);
}

int sb_forge_have_gpu(void)
{
    const char *env = getenv("SOLBOOK_FORGE_GPU");
    if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
        return env[0] == '1';
    if (access("/dev/nvidiactl", F_OK) != 0)
        return 0;
    glob_t g;
    int found = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

int sb_forge_is_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && own_file(&st);
}

void sb_forge_file_tail(const char *path, size_t max, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    if (fseek(f, 0, SEEK_END) == 0) {
        long end = ftell(f);
        long start = end > (long)max ? end - (long)max : 0;
        fseek(f, start, SEEK_SET);
    }
    size_t n = fread(out, 1, size - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (out[i] == '\n' || out[i] == '\r' || out[i] == '\t')
            out[i] = ' ';
        else if ((unsigned char)out[i] < 0x20)
            out[i] = '?';
    while (n && out[n - 1] == ' ')
        out[--n] = '\0';
    size_t s = 0;
    while (out[s] == ' ')
        s++;
    memmove(out, out + s, n - s + 1);
}

int sb_forge_random_hex(char out[33], sb_error *err)
{
    unsigned char b[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_set(err, "/dev/urandom", NULL, "cannot open: %s", strerror(errno));
    ssize_t n = read(fd, b, sizeof b);
    close(fd);
    if (n != (ssize_t)sizeof b)
        return sb_error_set(err, "/dev/urandom", NULL, "short read");
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return SB_OK;
}
