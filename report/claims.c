/* claims.c - names and paths in written text (claims.h). */
#define _GNU_SOURCE /* strcasestr */
#include "claims.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "geomean.h"
#include "home.h"
#include "names_query.h"
#include "sessions.h"

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static void names_free(names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int names_has(const names *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcasecmp(s->v[i], x) == 0)
            return 1;
    return 0;
}

static int names_add(names *s, const char *x)
{
    if (!x || !*x || names_has(s, x))
        return 0;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        char **nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = nc;
    }
    if (!(s->v[s->n] = strdup(x)))
        return -1;
    s->n++;
    return 0;
}

static void add_upper(names *s, const char *arch)
{
    char b[32];
    size_t i = 0;
    for (; arch[i] && i + 1 < sizeof b; i++)
        b[i] = (char)toupper((unsigned char)arch[i]);
    b[i] = '\0';
    names_add(s, b);
}

/* The display and match names of a SKU id (match names are '|'-separated). */
static void add_sku_names(names *s, const sb_sku_table *skus, const char *id)
{
    names_add(s, id);
    const sb_sku *k = skus ? sb_sku_find(skus, id) : NULL;
    if (!k)
        return;
    names_add(s, k->display);
    add_upper(s, k->arch);
}

static void add_packages(names *s, const char *packages_json)
{
    json_t *o = packages_json ? json_loads(packages_json, 0, NULL) : NULL;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) names_add(s, k);
    json_decref(o);
}

static int word_char(const char *t, size_t i)
{
    unsigned char c = (unsigned char)t[i];
    if (isalnum(c) || c == '_' || c == '-')
        return 1;
    return c == '.' && isalnum((unsigned char)t[i + 1]);
}

/* Markdown escapes punctuation with a backslash: read "sw\_x" as "sw_x". */
static char *unescape(const char *text)
{
    size_t n = strlen(text);
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\\' && text[i + 1] && ispunct((unsigned char)text[i + 1]))
            i++;
        o[k++] = text[i];
    }
    o[k] = '\0';
    return o;
}

/* 1 when name stands as a word in t (no case). */
static int names_word(const char *t, const char *name)
{
    size_t ln = strlen(name);
    for (const char *p = t; (p = strcasestr(p, name)) != NULL; p++) {
        size_t at = (size_t)(p - t);
        if (at > 0 && word_char(t, at - 1))
            continue;
        if (word_char(t, at + ln))
            continue;
        return 1;
    }
    return 0;
}

static void mask(char *t, const char *allowed)
{
    size_t ln = strlen(allowed);
    if (!ln)
        return;
    for (char *p = t; (p = strstr(p, allowed)) != NULL; p += ln)
        memset(p, ' ', ln);
}

static void provider_name(void *ctx, const char *name)
{
    names_add(ctx, name);
}

/* The card and package names of one provenance row. */
typedef struct card_names {
    names *card, *pkg;
} card_names;

static void card_name(void *ctx, const char *gpu_name, const char *sku, const char *arch,
                      const char *packages_json)
{
    card_names *c = ctx;
    /* the device name is free text a driver or a person wrote ("the" is
     * one): cards are known by the structured SKU id and arch only */
    (void)gpu_name;
    names_add(c->card, sku);
    if (arch && strcmp(arch, "unknown"))
        add_upper(c->card, arch);
    add_packages(c->pkg, packages_json);
}

static int vocabulary(sqlite3 *db, names *prov, names *pkg, names *card, sb_error *err)
{
    card_names cn = {card, pkg};
    if (sb_providers_each(db, provider_name, prov, err) != SB_OK ||
        sb_cards_each(db, card_name, &cn, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; sb_headline_baselines[i]; i++)
        names_add(prov, sb_headline_baselines[i]);
    names_add(prov, SB_DIAGNOSTIC_PROVIDER);
    return SB_OK;
}

int sb_claims_check(sqlite3 *db, const sb_sku_table *skus, const sb_result *const *cited,
                    size_t ncited, const sb_training_set *training, const char *const *allowed,
                    const char *text, const char *what, sb_error *err)
{
    names prov = {0}, pkg = {0}, card = {0}, cprov = {0}, cpkg = {0}, ccard = {0};
    char *t = NULL;
    int rc = SB_ERR;
    if (vocabulary(db, &prov, &pkg, &card, err) != SB_OK)
        goto done;
    for (size_t i = 0; skus && i < sb_sku_count(skus); i++) {
        const sb_sku *k = sb_sku_at(skus, i);
        names_add(&card, k->id);
        names_add(&card, k->display);
        add_upper(&card, k->arch);
    }
    for (size_t i = 0; i < ncited; i++) {
        names_add(&cprov, cited[i]->provider);
        add_packages(&cpkg, cited[i]->packages_json);
        names_add(&ccard, cited[i]->gpu_name);
        add_sku_names(&ccard, skus, cited[i]->sku);
        add_upper(&ccard, cited[i]->arch);
    }
    for (size_t i = 0; training && i < training->n; i++) {
        const sb_training *r = &training->v[i];
        names_add(&cprov, r->patch_name);
        names_add(&ccard, r->gpu_name);
        add_sku_names(&ccard, skus, r->sku);
        add_upper(&ccard, r->arch);
    }
    if (!(t = unescape(text))) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; allowed && allowed[i]; i++)
        mask(t, allowed[i]);
    const struct {
        const names *all, *have;
        const char *kind;
    } kinds[] = {{&prov, &cprov, "provider"}, {&card, &ccard, "card"}, {&pkg, &cpkg, "package"}};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < kinds[k].all->n; i++) {
            const char *nm = kinds[k].all->v[i];
            /* one word can be two things: "torch" is both the provider of
             * torch.matmul runs and the package the Python providers record */
            if (names_has(&cprov, nm) || names_has(&cpkg, nm) || names_has(&ccard, nm) || !names_word(t, nm))
                continue;
            sb_error_set(err, NULL, NULL, "%s names %s '%s', which none of its %zu cited runs has",
                         what, kinds[k].kind, nm, ncited);
            goto done;
        }
    rc = SB_OK;
done:
    free(t);
    names_free(&prov);
    names_free(&pkg);
    names_free(&card);
    names_free(&cprov);
    names_free(&cpkg);
    names_free(&ccard);
    return rc;
}

static int holds(const char *text, const char *path, const char *what, sb_error *err)
{
    char abs[PATH_MAX];
    if (!path || !*path)
        return SB_OK;
    if (!realpath(path, abs))
        snprintf(abs, sizeof abs, "%s", path);
    /* "/" alone or a one-letter root is no machine-specific path */
    if (strlen(abs) < 3 || abs[0] != '/')
        return SB_OK;
    if (strstr(text, abs))
        return sb_error_set(err, NULL, NULL, "%s holds '%s', a path of this machine", what, abs);
    return SB_OK;
}

int sb_paths_check(const char *const *paths, const char *text, const char *what, sb_error *err)
{
    for (size_t i = 0; paths && paths[i]; i++)
        if (holds(text, paths[i], what, err) != SB_OK)
            return SB_ERR;
    char cwd[PATH_MAX];
    if (holds(text, sb_home(), what, err) != SB_OK ||
        (getcwd(cwd, sizeof cwd) && holds(text, cwd, what, err) != SB_OK) ||
        holds(text, getenv("HOME"), what, err) != SB_OK)
        return SB_ERR;
    return SB_OK;
}

int sb_claims_pair_check(const sb_session_run *p, const sb_session_run *b, sb_error *err)
{
    const struct {
        const char *what, *x, *y;
    } sides[] = {{"GPU UUID", p->gpu_uuid, b->gpu_uuid},
                 {"session", p->session_id, b->session_id},
                 {"timing method", p->timing_method, b->timing_method},
                 {"correctness check", p->check_version, b->check_version}};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        const char *x = sides[i].x, *y = sides[i].y;
        if (x && y && strcmp(x, y) == 0)
            continue;
        return sb_error_set(err, NULL, NULL,
                            "headline pair %s over %s (%s %s %s %s, runs %lld and %lld) is not like with like: "
                            "%s %s against %s",
                            p->provider, b->provider, p->op, p->mode, p->dtype, p->shape_key, (long long)p->run_id,
                            (long long)b->run_id, sides[i].what, x ? x : "(none)", y ? y : "(none)");
    }
    return SB_OK;
}

int sb_claims_headlines_check(const struct sb_session_headlines *h, sb_error *err)
{
    for (size_t k = 0; k < h->n; k++)
        for (size_t c = 0; c < h->v[k].count; c++) {
            const sb_session_pair *p = &h->report.pairs[h->v[k].pair[c]];
            if (sb_claims_pair_check(p->target, p->base, err) != SB_OK)
                return SB_ERR;
        }
    return SB_OK;
}

int sb_claims_headlines_read(sqlite3 *db, const char *suite, const char *op, const char *baseline, long long from,
                             long long to, struct sb_session_headlines *out, sb_error *err)
{
    sb_session_runs runs = {0};
    const char *one[] = {baseline, NULL};
    memset(out, 0, sizeof *out);
    if (sb_session_runs_select(db, NULL, 0, &runs, err) != SB_OK) {
        sb_session_runs_free(&runs);
        return SB_ERR;
    }
    sb_session_runs_keep_suite(&runs, suite);
    if (sb_session_headlines_take(&runs, op, baseline ? one : sb_headline_baselines, from, to, out, err) != SB_OK)
        return SB_ERR;
    if (sb_claims_headlines_check(out, err) != SB_OK) {
        sb_session_headlines_free(out);
        return SB_ERR;
    }
    return SB_OK;
}
