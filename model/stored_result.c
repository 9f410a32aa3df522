/* stored_result.c - freeing stored result runs and the text pool of a
 * set (stored_result.h). */
#include "stored_result.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Text is copied into chunks; shared values are found through an open
 * addressing table of (hash, text) kept at most half full. */
#define POOL_CHUNK (64 * 1024)

typedef struct pool_chunk {
    struct pool_chunk *next;
    size_t used, size;
    char data[];
} pool_chunk;

typedef struct pool_slot {
    uint64_t hash;
    const char *text; /* NULL: empty */
    size_t len;
} pool_slot;

struct sb_text_pool {
    pool_chunk *chunks;
    pool_slot *slots;
    size_t nslots, nshared;
};

sb_text_pool *sb_text_pool_new(void)
{
    return calloc(1, sizeof(sb_text_pool));
}

void sb_text_pool_free(sb_text_pool *p)
{
    if (!p)
        return;
    for (pool_chunk *c = p->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(p->slots);
    free(p);
}

/* 64-bit FNV-1a */
static uint64_t text_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static char *pool_copy(sb_text_pool *p, const char *s, size_t len)
{
    pool_chunk *c = p->chunks;
    if (!c || c->size - c->used < len + 1) {
        size_t size = len + 1 > POOL_CHUNK ? len + 1 : POOL_CHUNK;
        pool_chunk *nc = malloc(sizeof *nc + size);
        if (!nc)
            return NULL;
        nc->next = p->chunks;
        nc->used = 0;
        nc->size = size;
        p->chunks = nc;
        c = nc;
    }
    char *t = c->data + c->used;
    memcpy(t, s, len);
    t[len] = '\0';
    c->used += len + 1;
    return t;
}

static int pool_grow(sb_text_pool *p)
{
    size_t n = p->nslots ? 2 * p->nslots : 1024;
    pool_slot *v = calloc(n, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < p->nslots; i++) {
        if (!p->slots[i].text)
            continue;
        size_t k = (size_t)p->slots[i].hash & (n - 1);
        while (v[k].text)
            k = (k + 1) & (n - 1);
        v[k] = p->slots[i];
    }
    free(p->slots);
    p->slots = v;
    p->nslots = n;
    return 0;
}

char *sb_text_pool_add(sb_text_pool *p, const char *s, size_t len, int shared)
{
    if (!shared)
        return pool_copy(p, s, len);
    if (2 * (p->nshared + 1) > p->nslots && pool_grow(p) != 0)
        return NULL;
    uint64_t h = text_hash(s, len);
    size_t k = (size_t)h & (p->nslots - 1);
    for (; p->slots[k].text; k = (k + 1) & (p->nslots - 1))
        if (p->slots[k].hash == h && p->slots[k].len == len && memcmp(p->slots[k].text, s, len) == 0)
            return (char *)(uintptr_t)p->slots[k].text;
    char *t = pool_copy(p, s, len);
    if (!t)
        return NULL;
    p->slots[k] = (pool_slot){h, t, len};
    p->nshared++;
    return t;
}

void sb_result_free(sb_result *r)
{
    char **strs[] = {&r->status, &r->reason, &r->source_path, &r->source_format, &r->run_uuid,
                     &r->suite, &r->op, &r->mode, &r->provider, &r->backend, &r->dtype,
                     &r->shape_key, &r->shape_json, &r->params_json, &r->run_params_json, &r->case_key, &r->timer,
                     &r->l2, &r->git_sha, &r->tool_name, &r->tool_version, &r->driver, &r->cuda,
                     &r->cublas, &r->gpu_name, &r->arch, &r->sku, &r->hostname, &r->finished_at,
                     &r->kernel_method, &r->packages_json, &r->profiler, &r->git_branch, &r->session_id};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
}

void sb_results_free(sb_result_set *s)
{
    int each = !s->borrowed && !s->text;
    for (size_t i = 0; each && i < s->n; i++)
        sb_result_free(&s->v[i]);
    for (size_t i = 0; each && i < s->n_left_out; i++)
        sb_result_free(&s->left_out[i]);
    sb_text_pool_free(s->text);
    s->text = NULL;
    free(s->v);
    free(s->left_out);
    s->v = NULL;
    s->n = 0;
    s->left_out = NULL;
    s->n_left_out = 0;
    s->borrowed = 0;
}
