/* file_set.c - an output folder's files built in memory (file_set.h). */
#include "file_set.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_file.h"

static sb_set_file *find(const sb_file_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

int sb_file_set_add(sb_file_set *s, const char *name, const sb_buf *b, int executable, sb_error *err)
{
    if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return sb_error_set(err, NULL, NULL, "'%s' is not a file name of an output folder", name);
    if (sb_buf_failed(b))
        return sb_error_set(err, NULL, NULL, "%s: out of memory while it was built", name);
    sb_set_file *f = find(s, name);
    if (!f) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 16;
            sb_set_file *nv = realloc(s->v, cap * sizeof *nv);
            if (!nv)
                return sb_error_set(err, NULL, NULL, "out of memory");
            s->v = nv;
            s->cap = cap;
        }
        f = &s->v[s->n];
        memset(f, 0, sizeof *f);
        if (!(f->name = strdup(name)))
            return sb_error_set(err, NULL, NULL, "out of memory");
        s->n++;
    }
    sb_buf_reset(&f->data);
    sb_buf_add(&f->data, sb_buf_str(b), b->len);
    f->executable = executable;
    if (sb_buf_failed(&f->data))
        return sb_error_set(err, NULL, NULL, "out of memory");
    return SB_OK;
}

const sb_set_file *sb_file_set_get(const sb_file_set *s, const char *name)
{
    return find(s, name);
}

int sb_file_set_write(const sb_file_set *s, const char *dir, sb_error *err)
{
    for (size_t i = 0; i < s->n; i++) {
        char path[8192];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, s->v[i].name) >= sizeof path)
            return sb_error_set(err, dir, NULL, "path too long");
        if (sb_file_write_buf(path, &s->v[i].data, err) != SB_OK)
            return SB_ERR;
        if (s->v[i].executable && chmod(path, 0755) != 0)
            return sb_error_set(err, path, NULL, "cannot make it executable");
    }
    return SB_OK;
}

int sb_file_set_publish(const sb_file_set *s, const char *target, sb_stage_mode mode, sb_error *err)
{
    sb_staged_dir stage;
    if (sb_staged_dir_open(&stage, target, mode, err) != SB_OK)
        return SB_ERR;
    int rc = sb_file_set_write(s, stage.stage, err);
    if (rc == SB_OK)
        rc = sb_staged_dir_commit(&stage, err);
    sb_staged_dir_discard(&stage);
    return rc;
}

int sb_file_set_publish_new(const sb_file_set *s, const char *target, sb_error *err)
{
    DIR *d = opendir(target);
    if (!d) {
        if (errno != ENOENT)
            return sb_error_set(err, target, NULL, "cannot open output directory: %s", strerror(errno));
    } else {
        struct dirent *e;
        int empty = 1;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                empty = 0;
        closedir(d);
        if (!empty)
            return sb_error_set(err, target, NULL,
                                "output directory is not empty; this output is written into a new "
                                "or empty directory so that it holds only the files built");
    }
    return sb_file_set_publish(s, target, SB_STAGE_SWAP, err);
}

void sb_file_set_free(sb_file_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        sb_buf_free(&s->v[i].data);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}
