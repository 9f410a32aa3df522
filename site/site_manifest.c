/* site_manifest.c - what each page family of a build was made from, and
 * taking pages over from the earlier build when that has not changed.
 *
 * The output folder holds MANIFEST: a build key (the solbook binary, the
 * templates these pages are rendered with, the options they depend on)
 * and one line per page group (a block of run pages, the pages of one
 * history) with the SHA-256 of everything the group is rendered from.
 * A build into a folder whose manifest has the same build key hard-links
 * a group's files from the earlier site into the new one where the
 * group's fingerprint is the same, instead of rendering them again, so
 * adding runs rewrites only the pages those runs change. The manifest is
 * written sorted, so a build that takes pages over and one that renders
 * everything give the same bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "home.h"
#include "json_file.h"
#include "sha256.h"
#include "site_parts.h"

#define MANIFEST ".solbook-manifest"
#define MANIFEST_HEAD "solbook site manifest 1\n"

static int fp_cmp(const void *x, const void *y)
{
    const site_fp *a = x, *b = y;
    return strcmp(a->key, b->key);
}

int site_fps_add(site_fps *s, const char *key, const char *fp)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 256;
        site_fp *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return SB_ERR;
        s->v = nv;
        s->cap = nc;
    }
    char *k = strdup(key);
    if (!k)
        return SB_ERR;
    s->v[s->n].key = k;
    snprintf(s->v[s->n].fp, sizeof s->v[s->n].fp, "%s", fp);
    s->n++;
    return SB_OK;
}

int site_fps_merge(site_fps *into, site_fps *from)
{
    int rc = SB_OK;
    for (size_t i = 0; i < from->n && rc == SB_OK; i++)
        rc = site_fps_add(into, from->v[i].key, from->v[i].fp);
    site_fps_free(from);
    return rc;
}

void site_fps_free(site_fps *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].key);
    free(s->v);
    memset(s, 0, sizeof *s);
}

int site_fp_hex(const sb_buf *inputs, char fp[SITE_FP_SIZE], sb_error *err)
{
    if (sb_buf_failed(inputs))
        return sb_error_set(err, NULL, NULL, "out of memory");
    return sb_sha256_hex(inputs->data ? inputs->data : "", inputs->len, fp, err);
}

int site_fp_unchanged(const site_ctx *c, const char *key, const char *fp)
{
    if (!c->old || !c->old->n)
        return 0;
    site_fp k = {(char *)(uintptr_t)key, {0}};
    const site_fp *f = bsearch(&k, c->old->v, c->old->n, sizeof *f, fp_cmp);
    return f && strcmp(f->fp, fp) == 0;
}

const char *site_fp_find(const site_ctx *c, const char *prefix, const char *fp)
{
    if (!c->old || !c->old->n)
        return NULL;
    size_t lo = 0, hi = c->old->n, len = strlen(prefix);
    while (lo < hi) { /* the first key not before prefix */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->old->v[mid].key, prefix) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < c->old->n && strncmp(c->old->v[lo].key, prefix, len) == 0; lo++)
        if (strcmp(c->old->v[lo].fp, fp) == 0)
            return c->old->v[lo].key;
    return NULL;
}

/* Hard-links OLD/rel to STAGE/rel (a copy where the file system has no
 * links between them), counted as written. *found = 0 when the earlier
 * site has no such file. */
int site_take_over(site_ctx *c, const char *rel, int *found, sb_error *err)
{
    char from[8192], to[8192];
    *found = 0;
    if ((size_t)snprintf(from, sizeof from, "%s/%s", c->old_dir, rel) >= sizeof from ||
        (size_t)snprintf(to, sizeof to, "%s/%s", c->out, rel) >= sizeof to)
        return sb_error_set(err, c->out, NULL, "path too long: %s", rel);
    struct stat st;
    if (stat(from, &st) != 0 || !S_ISREG(st.st_mode))
        return SB_OK;
    if (site_make_dir(c, to, err) != SB_OK)
        return SB_ERR;
    if (link(from, to) != 0) {
        char *data = NULL;
        size_t len = 0;
        if (errno != EXDEV && errno != EPERM && errno != EMLINK)
            return sb_error_set(err, to, NULL, "cannot link %s: %s", from, strerror(errno));
        if (sb_file_read_all(from, &data, &len, err) != SB_OK)
            return SB_ERR;
        int rc = site_write(c, rel, data, len, err);
        free(data);
        if (rc != SB_OK)
            return SB_ERR;
        c->sum->reused++;
        *found = 1;
        return SB_OK;
    }
    *found = 1;
    c->sum->reused++;
    site_count_file(c, rel, (size_t)st.st_size);
    return SB_OK;
}

/* The build key: the binary that renders (any change to the code gives
 * new pages), the templates of the pages that can be taken over, and the
 * options those pages depend on. Empty when the binary cannot be read:
 * then nothing is taken over. */
static int build_key(const site_ctx *c, char key[SITE_FP_SIZE], sb_error *err)
{
    static const char *const TEMPLATES[] = {"templates/site/layout.html.tmpl",
                                            "templates/site/runs-page.html.tmpl",
                                            "templates/site/history.html.tmpl", NULL};
    sb_buf in = SB_BUF_INIT;
    char hex[SITE_FP_SIZE];
    sb_error ignored;
    key[0] = '\0';
    if (sb_sha256_file_hex("/proc/self/exe", hex, &ignored) != SB_OK)
        return SB_OK;
    sb_buf_printf(&in, "exe %s\n", hex);
    for (size_t i = 0; TEMPLATES[i]; i++) {
        char path[4096];
        if (sb_data_path(path, sizeof path, TEMPLATES[i], err) != SB_OK ||
            sb_sha256_file_hex(path, hex, err) != SB_OK) {
            sb_buf_free(&in);
            return SB_ERR;
        }
        sb_buf_printf(&in, "%s %s\n", TEMPLATES[i], hex);
    }
    sb_buf_printf(&in, "page_rows %zu\nrepo_url %s\n", c->page_rows,
                  c->rg_opts.repo_url ? c->rg_opts.repo_url : "");
    int rc = site_fp_hex(&in, key, err);
    sb_buf_free(&in);
    return rc;
}

int site_manifest_open(site_ctx *c, int earlier_site, site_fps *old, sb_error *err)
{
    memset(old, 0, sizeof *old);
    if (build_key(c, c->build_key, err) != SB_OK)
        return SB_ERR;
    if (!earlier_site || !c->build_key[0])
        return SB_OK;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", c->old_dir, MANIFEST);
    char *data = NULL;
    size_t len = 0;
    sb_error ignored;
    if (access(path, F_OK) != 0 || sb_file_read_all(path, &data, &len, &ignored) != SB_OK)
        return SB_OK; /* an earlier site without a manifest: everything is rendered */
    size_t hl = strlen(MANIFEST_HEAD);
    char want[SITE_FP_SIZE + 8];
    snprintf(want, sizeof want, "build %s\n", c->build_key);
    int rc = SB_OK;
    if (len > hl && memcmp(data, MANIFEST_HEAD, hl) == 0 && strncmp(data + hl, want, strlen(want)) == 0) {
        char *line = data + hl + strlen(want);
        while (*line && rc == SB_OK) {
            char *nl = strchr(line, '\n');
            if (!nl)
                break;
            *nl = '\0';
            char *sp = strrchr(line, ' ');
            if (sp && strlen(sp + 1) == SITE_FP_SIZE - 1) {
                *sp = '\0';
                if (site_fps_add(old, line, sp + 1) != SB_OK)
                    rc = sb_error_set(err, NULL, NULL, "out of memory");
            }
            line = nl + 1;
        }
    }
    free(data);
    if (rc != SB_OK) {
        site_fps_free(old);
        return SB_ERR;
    }
    if (old->n)
        qsort(old->v, old->n, sizeof *old->v, fp_cmp);
    return SB_OK;
}

int site_manifest_write(site_ctx *c, sb_error *err)
{
    site_fps *s = &c->fps;
    if (s->n)
        qsort(s->v, s->n, sizeof *s->v, fp_cmp);
    sb_buf b = SB_BUF_INIT;
    sb_buf_puts(&b, MANIFEST_HEAD);
    sb_buf_printf(&b, "build %s\n", c->build_key);
    for (size_t i = 0; i < s->n; i++) {
        sb_buf_puts(&b, s->v[i].key);
        sb_buf_putc(&b, ' ');
        sb_buf_puts(&b, s->v[i].fp);
        sb_buf_putc(&b, '\n');
    }
    int rc = sb_buf_failed(&b) ? sb_error_set(err, NULL, NULL, "out of memory")
                               : site_write(c, MANIFEST, sb_buf_str(&b), b.len, err);
    sb_buf_free(&b);
    return rc;
}
