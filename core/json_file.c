/* json_file.c - strict JSON reading, atomic JSON writing. */
#include "json_file.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads the open fd (named path in errors) as sb_file_read_into_max
 * describes, and closes it. */
static int read_fd_max(int fd, const char *path, size_t max, char **buf, size_t *cap, size_t *len,
                       sb_error *err)
{
    struct stat st;
    size_t got = 0;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return sb_error_set(err, path, NULL, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return sb_error_set(err, path, NULL, "is a directory, not a file");
    }
    if (st.st_size > 0 && (uint64_t)st.st_size > max) { /* larger already: nothing to read */
        close(fd);
        *len = max + 1;
        return SB_OK;
    }
    /* Otherwise the size only sizes the buffer: a file may grow after
     * fstat, and pipes and /proc say 0, so the reading goes to EOF but
     * never past max + 1 bytes, the one byte more that tells a larger
     * file. */
    size_t limit = max + 1;
    size_t hint = st.st_size > 0 ? (size_t)st.st_size : 0;
    size_t want = hint + 2; /* the text, the byte that finds EOF (or the one past max), the NUL */
    for (;;) {
        if (!*buf || *cap < want) {
            char *b = realloc(*buf, want);
            if (!b) {
                close(fd);
                return sb_error_set(err, path, NULL, "out of memory reading file");
            }
            *buf = b;
            *cap = want;
        }
        size_t room = *cap - 1 - got;
        if (room > limit - got)
            room = limit - got;
        ssize_t n = read(fd, *buf + got, room);
        if (n > 0) {
            got += (size_t)n;
            if (got == limit)
                break;
            if (got + 1 == *cap) /* full and no EOF yet: twice the size, within limit + 1 */
                want = *cap > (limit + 1) / 2 ? limit + 1 : *cap * 2;
            continue;
        }
        if (n == 0)
            break;
        if (errno == EINTR)
            continue;
        int e = errno;
        close(fd);
        return sb_error_set(err, path, NULL, "read failed: %s", strerror(e));
    }
    close(fd);
    (*buf)[got] = '\0';
    *len = got;
    return SB_OK;
}

int sb_file_read_fd_max(int fd, const char *path, size_t max, char **buf, size_t *cap, size_t *len,
                        sb_error *err)
{
    return read_fd_max(fd, path, max, buf, cap, len, err);
}

/* Where the open descriptor fd leads (/proc/self/fd): 0 and the path in
 * where, or -1 when the system cannot say. *gone: the name it was opened
 * by has been removed since (the path then ends in " (deleted)"). */
static int fd_where(int fd, char *where, size_t size, int *gone)
{
    char link[64];
    static const char deleted[] = " (deleted)";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, where, size - 1);
    if (n < 0 || (size_t)n >= size - 1)
        return -1;
    where[n] = '\0';
    *gone = (size_t)n >= sizeof deleted - 1 && strcmp(where + n - (sizeof deleted - 1), deleted) == 0;
    return 0;
}

/* 1 when the resolved path where lies below the resolved folder inside. */
static int path_below(const char *where, const char *inside)
{
    size_t k = strlen(inside);
    if (k == 1 && inside[0] == '/')
        return where[0] == '/';
    return strncmp(where, inside, k) == 0 && where[k] == '/';
}

int sb_file_open_inside(const char *path, const char *inside, int plain, int *fd, sb_error *err)
{
    *fd = -1;
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (plain ? O_NOFOLLOW : 0));
    if (f < 0) {
        int e = errno;
        if (plain && e == ELOOP)
            return sb_error_set(err, path, NULL, "a symbolic link, not followed");
        return sb_error_set(err, path, NULL, "cannot open: %s", strerror(e));
    }
    struct stat st;
    const char *why = NULL;
    char names[96], where[PATH_MAX + 1];
    /* fstat before the name: a hard link to a file elsewhere, opened and
     * then put back by its own file, has two names when counted here, or
     * is gone by the time its place is read; asked the other way round,
     * its place could be read while the link still stood and its names
     * counted once it had been put back, and the file would pass. */
    int st_rc = fstat(f, &st);
    int gone = 0, known = (plain || inside) && fd_where(f, where, sizeof where, &gone) == 0;
    if (st_rc != 0)
        why = "cannot stat it";
    else if (S_ISDIR(st.st_mode))
        why = "is a directory, not a file";
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file (a FIFO, socket or device), not read";
    else if (plain && st.st_nlink > 1) {
        snprintf(names, sizeof names, "a hard link (%ju names), not a file of its own",
                 (uintmax_t)st.st_nlink);
        why = names;
    } else if (known && gone)
        /* a hard link to a file elsewhere, say, whose name was put back
         * once opened: nothing says where the file lies */
        why = "removed or replaced while it was opened";
    else if (inside && !known)
        why = "cannot tell where it lies (/proc/self/fd)";
    else if (inside && !path_below(where, inside))
        why = "leads out of the folder given (a link or folder changed since it was listed)";
    if (why) {
        close(f);
        return sb_error_set(err, path, NULL, "%s", why);
    }
    *fd = f;
    return SB_OK;
}

int sb_file_read_into_max(const char *path, size_t max, char **buf, size_t *cap, size_t *len,
                          sb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_set(err, path, NULL, "cannot open: %s", strerror(errno));
    return read_fd_max(fd, path, max, buf, cap, len, err);
}

int sb_file_read_into(const char *path, char **buf, size_t *cap, size_t *len, sb_error *err)
{
    if (sb_file_read_into_max(path, SB_JSON_MAX_BYTES, buf, cap, len, err) != SB_OK)
        return SB_ERR;
    if (*len > SB_JSON_MAX_BYTES)
        return sb_error_set(err, path, NULL, "file is more than %u bytes: refused", SB_JSON_MAX_BYTES);
    return SB_OK;
}

int sb_file_read_all(const char *path, char **out, size_t *len, sb_error *err)
{
    char *buf = NULL;
    size_t cap = 0;
    *out = NULL;
    if (sb_file_read_into(path, &buf, &cap, len, err) != SB_OK) {
        free(buf);
        return SB_ERR;
    }
    *out = buf;
    return SB_OK;
}

/* Depth of the deepest container; stops counting past limit. */
static int json_depth_exceeds(const json_t *j, int depth, int limit)
{
    if (depth > limit)
        return 1;
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v)
            if (json_depth_exceeds(v, depth + 1, limit))
                return 1;
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
            if (json_depth_exceeds(v, depth + 1, limit))
                return 1;
    }
    return 0;
}

/* True when a NaN/Infinity literal sits at or just before pos. */
static int names_nonfinite(const char *buf, size_t len, size_t pos)
{
    size_t from = pos > 10 ? pos - 10 : 0;
    for (size_t i = from; i <= pos && i < len; i++)
        if ((len - i >= 3 && memcmp(buf + i, "NaN", 3) == 0) ||
            (len - i >= 8 && memcmp(buf + i, "Infinity", 8) == 0))
            return 1;
    return 0;
}

static int only_whitespace(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!(buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
            return 0;
    return 1;
}

/* The heap a JSON text takes parsed, over-counted from one pass over its
 * bytes: the text itself, every string's bytes again (jansson copies
 * them), twice the longest token (jansson's lexer saves each token's
 * text in a buffer grown by doubling and kept to the end: a 190 MB
 * string took 564 MB parsed), and a node for every object, array and
 * value. Measured with
 * jansson 2.14, an empty object takes about 225 bytes (its hash table),
 * an empty array 135, and a value in an array or object 40 (a number) to
 * 90 (a string); the counts below are above each, so that a text of
 * "{}," repeated, 78 times its size parsed, is told before it is parsed. */
static size_t parsed_cost(const char *buf, size_t len)
{
    size_t objects = 0, arrays = 0, values = 1, string_bytes = 0;
    size_t token_from = 0, longest = 0;
    int in_string = 0, in_token = 0;
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
            string_bytes++;
            if (!in_string && i + 1 - token_from > longest)
                longest = i + 1 - token_from;
            continue;
        }
        int plain = 0;
        switch (c) {
        case '"':
            in_string = 1;
            token_from = i;
            break;
        case '{':
            objects++;
            break;
        case '[':
            arrays++;
            break;
        case ',':
        case ':':
            values++;
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
        case '}':
        case ']':
            break;
        default:
            plain = 1; /* a number or a literal */
            break;
        }
        if (plain && !in_token)
            token_from = i;
        in_token = plain;
        if (plain && i + 1 - token_from > longest)
            longest = i + 1 - token_from;
    }
    if (in_string && len - token_from > longest)
        longest = len - token_from;
    return len + string_bytes + 2 * longest + 256 * objects + 160 * arrays + 96 * values;
}

int sb_json_parsed_cost_check(const char *buf, size_t len, const char *name, sb_error *err)
{
    /* the cost is at most about 260 bytes a byte of text ('{' alone
     * counts 256), so a text this short cannot pass the bound and is
     * not scanned */
    if (len <= SB_JSON_MAX_PARSED / 260)
        return SB_OK;
    size_t cost = parsed_cost(buf, len);
    if (cost > SB_JSON_MAX_PARSED)
        return sb_error_set(err, name, NULL,
                            "JSON text of %zu bytes would take about %zu MiB parsed, more than %zu MiB: refused "
                            "unparsed",
                            len, cost >> 20, (size_t)SB_JSON_MAX_PARSED >> 20);
    return SB_OK;
}

static int load_buffer(const char *buf, size_t len, const char *name, size_t flags,
                       json_t **out, sb_error *err)
{
    json_error_t je;
    json_t *j;
    char where[64];

    *out = NULL;
    if (only_whitespace(buf, len))
        return sb_error_set(err, name, NULL, len ? "file holds only whitespace, no JSON"
                                                 : "empty file, no JSON");
    if (sb_json_parsed_cost_check(buf, len, name, err) != SB_OK)
        return SB_ERR;
    j = json_loadb(buf, len, JSON_REJECT_DUPLICATES | flags, &je);
    if (!j) {
        snprintf(where, sizeof where, "line %d, column %d", je.line, je.column);
        /* jansson says "invalid token" for NaN/Infinity; say what it is. */
        const char *what = je.text;
        if (strstr(je.text, "invalid token") && names_nonfinite(buf, len, (size_t)je.position))
            what = "NaN and Infinity are not JSON numbers";
        return sb_error_set(err, name, where, "invalid JSON: %s", what);
    }
    if (json_depth_exceeds(j, 1, SB_JSON_MAX_DEPTH)) {
        json_decref(j);
        return sb_error_set(err, name, NULL, "JSON nested deeper than %d levels",
                            SB_JSON_MAX_DEPTH);
    }
    *out = j;
    return SB_OK;
}

int sb_json_load_buffer(const char *buf, size_t len, const char *name,
                        json_t **out, sb_error *err)
{
    return load_buffer(buf, len, name, 0, out, err);
}

int sb_json_load_buffer_any(const char *buf, size_t len, const char *name,
                            json_t **out, sb_error *err)
{
    return load_buffer(buf, len, name, JSON_DECODE_ANY, out, err);
}

static int load_file(const char *path, size_t flags, json_t **out, sb_error *err)
{
    char *buf;
    size_t len;
    int rc;
    *out = NULL;
    if (sb_file_read_all(path, &buf, &len, err) != SB_OK)
        return SB_ERR;
    rc = load_buffer(buf, len, path, flags, out, err);
    free(buf);
    return rc;
}

int sb_json_load_file(const char *path, json_t **out, sb_error *err)
{
    return load_file(path, 0, out, err);
}

int sb_json_load_plain_file(const char *path, json_t **out, sb_error *err)
{
    return sb_json_load_plain_file_max(path, SB_JSON_MAX_BYTES, out, err);
}

int sb_json_load_plain_file_max(const char *path, size_t max, json_t **out, sb_error *err)
{
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer that never comes; O_NOFOLLOW: a link at the last name fails
     * with ELOOP instead of leading anywhere. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            return sb_error_set(err, path, NULL, "a symbolic link: refused, not followed");
        return sb_error_set(err, path, NULL, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return sb_error_set(err, path, NULL, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return sb_error_set(err, path, NULL, "%s", S_ISDIR(st.st_mode)
                                                      ? "is a directory, not a file"
                                                      : "not a regular file (a FIFO, socket or device): refused unread");
    }
    char *buf = NULL;
    size_t cap = 0, len = 0;
    if (read_fd_max(fd, path, max, &buf, &cap, &len, err) != SB_OK) {
        free(buf);
        return SB_ERR;
    }
    int rc = len > max ? sb_error_set(err, path, NULL, "file is more than %zu bytes: refused", max)
                       : load_buffer(buf, len, path, 0, out, err);
    free(buf);
    return rc;
}

int sb_json_load_file_any(const char *path, json_t **out, sb_error *err)
{
    return load_file(path, JSON_DECODE_ANY, out, err);
}

int sb_file_write_atomic(const char *path, const char *data, size_t len,
                         sb_error *err)
{
    char tmp[4096];
    int fd;
    size_t off = 0;
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp)
        return sb_error_set(err, path, NULL, "path too long");
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return sb_error_set(err, path, NULL, "cannot create %s: %s", tmp, strerror(errno));
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return sb_error_set(err, path, NULL, "write failed: %s", strerror(e));
        }
        off += (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return sb_error_set(err, path, NULL, "cannot flush: %s", strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return sb_error_set(err, path, NULL, "cannot rename into place: %s", strerror(e));
    }
    return SB_OK;
}

int sb_file_write_buf(const char *path, const sb_buf *b, sb_error *err)
{
    if (sb_buf_failed(b))
        return sb_error_set(err, path, NULL, "out of memory while building the file");
    return sb_file_write_atomic(path, sb_buf_str(b), b->len, err);
}

int sb_json_write_file(const char *path, const json_t *json, sb_error *err)
{
    char *text = json_dumps(json, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    int rc;
    if (!text)
        return sb_error_set(err, path, NULL, "cannot serialise JSON (out of memory?)");
    size_t n = strlen(text);
    char *withnl = malloc(n + 2);
    if (!withnl) {
        free(text);
        return sb_error_set(err, path, NULL, "out of memory");
    }
    memcpy(withnl, text, n);
    withnl[n] = '\n';
    withnl[n + 1] = '\0';
    rc = sb_file_write_atomic(path, withnl, n + 1, err);
    free(withnl);
    free(text);
    return rc;
}

void sb_json_pointer_append(char *ptr, size_t size, const char *token)
{
    size_t n = strlen(ptr);
    if (n + 1 < size)
        ptr[n++] = '/';
    for (; *token && n + 2 < size; token++) {
        if (*token == '~') {
            ptr[n++] = '~';
            ptr[n++] = '0';
        } else if (*token == '/') {
            ptr[n++] = '~';
            ptr[n++] = '1';
        } else {
            ptr[n++] = *token;
        }
    }
    ptr[n < size ? n : size - 1] = '\0';
}

void sb_json_pointer_append_index(char *ptr, size_t size, size_t index)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", index);
    sb_json_pointer_append(ptr, size, num);
}
