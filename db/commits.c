/* commits.c - the git history of the measured code (commits.h). */
#include "commits.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"

void sb_commits_free(sb_commit_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].parents);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int is_sha(const char *s, size_t n)
{
    if (n != 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* One line "SHA [PARENT...] TIME" into c. */
static int parse_line(const char *s, size_t n, sb_commit *c)
{
    const char *tok[64];
    size_t len[64], nt = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        if (i == n)
            break;
        size_t st = i;
        while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            i++;
        if (nt == 64)
            return -1;
        tok[nt] = s + st;
        len[nt++] = i - st;
    }
    if (nt < 2 || !is_sha(tok[0], len[0]))
        return -1;
    long long t = 0;
    const char *ts = tok[nt - 1];
    size_t tl = len[nt - 1];
    if (tl == 0 || tl > 15)
        return -1;
    for (size_t i = 0; i < tl; i++) {
        if (!isdigit((unsigned char)ts[i]))
            return -1;
        t = t * 10 + (ts[i] - '0');
    }
    size_t plen = 0;
    for (size_t k = 1; k + 1 < nt; k++) {
        if (!is_sha(tok[k], len[k]))
            return -1;
        plen += 41;
    }
    c->parents = malloc(plen + 1);
    if (!c->parents)
        return -2;
    char *p = c->parents;
    for (size_t k = 1; k + 1 < nt; k++) {
        if (p != c->parents)
            *p++ = ' ';
        for (size_t i = 0; i < 40; i++)
            *p++ = (char)tolower((unsigned char)tok[k][i]);
    }
    *p = '\0';
    for (size_t i = 0; i < 40; i++)
        c->sha[i] = (char)tolower((unsigned char)tok[0][i]);
    c->sha[40] = '\0';
    c->committed_at = t;
    c->ordinal = -1;
    return 0;
}

typedef struct by_sha {
    const char *sha;
    size_t at;
} by_sha;

static int cmp_by_sha(const void *a, const void *b)
{
    return strcmp(((const by_sha *)a)->sha, ((const by_sha *)b)->sha);
}

/* Ready commits, earliest committed_at (then SHA) on top. */
typedef struct ready_heap {
    size_t *v;
    size_t n;
    const sb_commit *c;
} ready_heap;

static int before(const ready_heap *h, size_t a, size_t b)
{
    const sb_commit *x = &h->c[a], *y = &h->c[b];
    if (x->committed_at != y->committed_at)
        return x->committed_at < y->committed_at;
    return strcmp(x->sha, y->sha) < 0;
}

static void heap_push(ready_heap *h, size_t x)
{
    size_t i = h->n++;
    h->v[i] = x;
    while (i && before(h, h->v[i], h->v[(i - 1) / 2])) {
        size_t p = (i - 1) / 2, t = h->v[p];
        h->v[p] = h->v[i];
        h->v[i] = t;
        i = p;
    }
}

static size_t heap_pop(ready_heap *h)
{
    size_t top = h->v[0];
    h->v[0] = h->v[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && before(h, h->v[l], h->v[m]))
            m = l;
        if (r < h->n && before(h, h->v[r], h->v[m]))
            m = r;
        if (m == i)
            break;
        size_t t = h->v[m];
        h->v[m] = h->v[i];
        h->v[i] = t;
        i = m;
    }
    return top;
}

static long find(const by_sha *idx, size_t n, const char *sha)
{
    by_sha key = {sha, 0};
    const by_sha *f = n ? bsearch(&key, idx, n, sizeof key, cmp_by_sha) : NULL;
    return f ? (long)f->at : -1;
}

/* Kahn's algorithm over the parent edges inside the list. */
static int order(sb_commit_list *l, const char *name, sb_error *err)
{
    size_t n = l->n;
    by_sha *idx = malloc((n ? n : 1) * sizeof *idx);
    size_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    size_t *first = calloc(n + 1, sizeof *first);
    size_t *edges = NULL, nedges = 0;
    ready_heap h = {malloc((n ? n : 1) * sizeof(size_t)), 0, l->v};
    int rc = SB_OK;
    if (!idx || !indeg || !first || !h.v) {
        rc = sb_error_set(err, name, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (by_sha){l->v[i].sha, i};
    qsort(idx, n, sizeof *idx, cmp_by_sha);
    for (size_t i = 1; i < n; i++)
        if (strcmp(idx[i - 1].sha, idx[i].sha) == 0) {
            rc = sb_error_set(err, name, NULL, "commit %s is listed twice", idx[i].sha);
            goto done;
        }
    /* children of each commit, as ranges of edges[] (first[p]..first[p+1]) */
    for (int pass = 0; pass < 2; pass++) {
        size_t *fill = NULL;
        if (pass == 1) {
            for (size_t i = 0; i < n; i++)
                first[i + 1] += first[i];
            nedges = first[n];
            edges = malloc((nedges ? nedges : 1) * sizeof *edges);
            fill = calloc(n ? n : 1, sizeof *fill);
            if (!edges || !fill) {
                free(fill);
                rc = sb_error_set(err, name, NULL, "out of memory");
                goto done;
            }
        }
        for (size_t i = 0; i < n; i++) {
            const char *p = l->v[i].parents;
            while (*p) {
                char sha[41];
                memcpy(sha, p, 40);
                sha[40] = '\0';
                p += p[40] == ' ' ? 41 : 40;
                long at = find(idx, n, sha);
                if (at < 0)
                    continue;
                if (pass == 0) {
                    first[at + 1]++;
                    indeg[i]++;
                } else {
                    edges[first[at] + fill[at]++] = i;
                }
            }
        }
        free(fill);
    }
    for (size_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            heap_push(&h, i);
    long long next = 0;
    while (h.n) {
        size_t c = heap_pop(&h);
        l->v[c].ordinal = next++;
        for (size_t e = first[c]; e < first[c + 1]; e++)
            if (--indeg[edges[e]] == 0)
                heap_push(&h, edges[e]);
    }
    if ((size_t)next != n) {
        for (size_t i = 0; i < n; i++)
            if (l->v[i].ordinal < 0) {
                rc = sb_error_set(err, name, NULL, "commit %s is its own ancestor (a cycle)",
                                  l->v[i].sha);
                break;
            }
    }
done:
    free(idx);
    free(indeg);
    free(first);
    free(edges);
    free(h.v);
    return rc;
}

int sb_commits_parse(const char *text, size_t len, const char *name, sb_commit_list *out,
                     sb_error *err)
{
    out->v = NULL;
    out->n = 0;
    size_t cap = 0, line = 0, held = len;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        line++;
        size_t k = i;
        while (k < e && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r'))
            k++;
        if (k < e) {
            if (out->n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                sb_commit *nv = realloc(out->v, nc * sizeof *nv);
                if (!nv) {
                    sb_commits_free(out);
                    return sb_error_set(err, name, NULL, "out of memory");
                }
                out->v = nv;
                cap = nc;
            }
            int r = parse_line(text + i, e - i, &out->v[out->n]);
            if (r != 0) {
                char where[32];
                snprintf(where, sizeof where, "line %zu", line);
                sb_commits_free(out);
                return sb_error_set(err, name, where,
                                    r == -2 ? "out of memory"
                                            : "expected 'SHA [PARENT...] UNIX_TIME' with "
                                              "40-hex-digit SHAs (git log --format='%%H %%P %%ct')");
            }
            /* the record, the parents' allocation, an edge per parent and
             * the ordering's index, in-degree, edge range and heap entry
             * (6.1 million root commits measured 134 bytes each) */
            size_t plen = strlen(out->v[out->n].parents);
            held += sizeof(sb_commit) + 16 + plen + plen / 41 * sizeof(size_t) + 48;
            out->n++;
            if (held > SB_COMMITS_MAX_HELD) {
                char where[32];
                snprintf(where, sizeof where, "line %zu", line);
                sb_commits_free(out);
                return sb_error_set(err, name, where,
                                    "the history would hold more than %zu MiB while ordered; import "
                                    "a shorter one (git log --format='%%H %%P %%ct' REV_RANGE)",
                                    SB_COMMITS_MAX_HELD >> 20);
            }
        }
        i = e + 1;
    }
    if (order(out, name, err) != SB_OK) {
        sb_commits_free(out);
        return SB_ERR;
    }
    return SB_OK;
}

int sb_commits_store(sb_db *db, const sb_commit_list *l, sb_error *err)
{
    if (sb_db_begin(db, err) != SB_OK)
        return SB_ERR;
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(sb_db_handle(db), "DELETE FROM commits", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sb_db_handle(db),
                           "INSERT INTO commits (sha, parents, committed_at, ordinal) "
                           "VALUES (?1, ?2, ?3, ?4)",
                           -1, &st, NULL) != SQLITE_OK) {
        sb_db_fail(db, err, "storing commits");
        sb_db_rollback(db);
        return SB_ERR;
    }
    for (size_t i = 0; i < l->n; i++) {
        const sb_commit *c = &l->v[i];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, c->sha, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, c->parents, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, c->committed_at);
        sqlite3_bind_int64(st, 4, c->ordinal);
        if (sqlite3_step(st) != SQLITE_DONE) {
            sb_db_fail(db, err, "storing commits");
            sqlite3_finalize(st);
            sb_db_rollback(db);
            return SB_ERR;
        }
    }
    sqlite3_finalize(st);
    return sb_db_commit(db, err);
}

int sb_commits_ordinals(sb_db *db, const char *const *shas, size_t n, long long *ordinal,
                        sb_error *err)
{
    return sb_commits_lookup(db, shas, n, ordinal, NULL, err);
}

int sb_commit_ordinals_load_set(sb_db *db, const sb_result_set *set, sb_commit_ordinals *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    const char **shas = malloc((set->n ? set->n : 1) * sizeof *shas);
    if (!shas)
        return sb_error_set(err, NULL, NULL, "out of memory reading the commit order");
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].git_sha && strcmp(set->v[i].git_sha, "unknown") != 0)
            shas[n++] = set->v[i].git_sha;
    int rc = sb_commit_ordinals_name(out, shas, n, err);
    free(shas);
    if (rc == SB_OK)
        rc = sb_commits_ordinals(db, (const char *const *)out->sha, out->n, out->ordinal, err);
    if (rc != SB_OK)
        sb_commit_ordinals_free(out);
    return rc;
}

int sb_commits_lookup(sb_db *handle, const char *const *shas, size_t n, long long *ordinal,
                      long long *committed_at, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT ordinal, committed_at FROM commits WHERE sha = lower(?1)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the commit order");
    for (size_t i = 0; i < n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, shas[i], -1, SQLITE_STATIC);
        int r = sqlite3_step(st);
        if (r == SQLITE_ROW) {
            ordinal[i] = sqlite3_column_int64(st, 0);
            if (committed_at)
                committed_at[i] = sqlite3_column_int64(st, 1);
        } else if (r == SQLITE_DONE) {
            ordinal[i] = -1;
            if (committed_at)
                committed_at[i] = -1;
        } else {
            sb_db_conn_fail(db, err, "reading the commit order");
            sqlite3_finalize(st);
            return SB_ERR;
        }
    }
    sqlite3_finalize(st);
    return SB_OK;
}
