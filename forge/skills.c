/* skills.c - see skills.h. */
#include "skills.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h"

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] && isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, n - i + 1);
}

static int valid_tag(const char *t)
{
    if (!*t)
        return 0;
    for (; *t; t++)
        if (!(islower((unsigned char)*t) || isdigit((unsigned char)*t) || *t == '-' || *t == '_' ||
              *t == '.' || *t == '+'))
            return 0;
    return 1;
}

static int parse_list(const char *path, int line, const char *key, char *value,
                      char tags[][32], size_t *n, sb_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "line %d", line);
    size_t len = strlen(value);
    if (len < 2 || value[0] != '[' || value[len - 1] != ']')
        return sb_error_set(err, path, where, "%s must be a list like [a, b]", key);
    value[len - 1] = '\0';
    *n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(value + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        trim(tok);
        if (!valid_tag(tok) || strlen(tok) >= 32)
            return sb_error_set(err, path, where,
                                "%s: tag '%s' must be 1-31 characters of a-z 0-9 - _ . +", key, tok);
        if (*n == SB_PLAYBOOK_MAX_TAGS)
            return sb_error_set(err, path, where, "%s: more than %d tags", key, SB_PLAYBOOK_MAX_TAGS);
        snprintf(tags[(*n)++], 32, "%s", tok);
    }
    if (*n == 0)
        return sb_error_set(err, path, where, "%s: empty list (use [any])", key);
    return SB_OK;
}

int sb_playbook_parse(const char *path, const char *text, sb_playbook *pb, sb_error *err)
{
    memset(pb, 0, sizeof *pb);
    snprintf(pb->path, sizeof pb->path, "%s", path);
    if (strncmp(text, "---\n", 4) != 0)
        return sb_error_set(err, path, "line 1", "playbook must start with a '---' front matter line");
    const char *p = text + 4;
    int line = 2;
    enum { K_ID, K_TITLE, K_CONCEPTS, K_LANGUAGES, K_OPS, K_BOUND, K_OBJECTIVES, K_DTYPES, K_ALWAYS, K_COUNT };
    static const char *keys[K_COUNT] = {"id", "title", "concepts", "languages", "ops",
                                        "bound", "objectives", "dtypes", "always"};
    int seen[K_COUNT] = {0};
    for (;; line++) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            return sb_error_set(err, path, NULL, "front matter has no closing '---' line");
        char buf[1024];
        size_t len = (size_t)(nl - p);
        char where[64];
        snprintf(where, sizeof where, "line %d", line);
        if (len >= sizeof buf)
            return sb_error_set(err, path, where, "front matter line too long");
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = nl + 1;
        if (strcmp(buf, "---") == 0)
            break;
        trim(buf);
        if (!buf[0] || buf[0] == '#')
            continue;
        char *colon = strchr(buf, ':');
        if (!colon)
            return sb_error_set(err, path, where, "expected 'key: value'");
        *colon = '\0';
        char *key = buf, *value = colon + 1;
        trim(key);
        trim(value);
        int k = -1;
        for (int i = 0; i < K_COUNT; i++)
            if (strcmp(key, keys[i]) == 0)
                k = i;
        if (k < 0)
            return sb_error_set(err, path, where, "unknown front matter key '%s'", key);
        if (seen[k])
            return sb_error_set(err, path, where, "duplicate key '%s'", key);
        seen[k] = 1;
        int rc = SB_OK;
        switch (k) {
        case K_ID:
            if (!valid_tag(value) || strlen(value) >= sizeof pb->id)
                return sb_error_set(err, path, where, "id must be 1-63 characters of a-z 0-9 - _ . +");
            snprintf(pb->id, sizeof pb->id, "%s", value);
            break;
        case K_TITLE:
            if (!value[0] || strlen(value) >= sizeof pb->title)
                return sb_error_set(err, path, where, "title must be 1-159 characters");
            snprintf(pb->title, sizeof pb->title, "%s", value);
            break;
        case K_CONCEPTS: rc = parse_list(path, line, key, value, pb->concepts, &pb->nconcepts, err); break;
        case K_LANGUAGES: rc = parse_list(path, line, key, value, pb->languages, &pb->nlanguages, err); break;
        case K_OPS: rc = parse_list(path, line, key, value, pb->ops, &pb->nops, err); break;
        case K_BOUND: rc = parse_list(path, line, key, value, pb->bound, &pb->nbound, err); break;
        case K_OBJECTIVES: rc = parse_list(path, line, key, value, pb->objectives, &pb->nobjectives, err); break;
        case K_DTYPES: rc = parse_list(path, line, key, value, pb->dtypes, &pb->ndtypes, err); break;
        case K_ALWAYS:
            if (strcmp(value, "true") == 0)
                pb->always = 1;
            else if (strcmp(value, "false") != 0)
                return sb_error_set(err, path, where, "always must be true or false");
            break;
        default: break;
        }
        if (rc != SB_OK)
            return rc;
    }
    for (int i = 0; i < K_COUNT; i++)
        if (!seen[i])
            return sb_error_set(err, path, NULL, "front matter lacks '%s'", keys[i]);
    while (*p == '\n')
        p++;
    if (!*p)
        return sb_error_set(err, path, NULL, "playbook has no body after the front matter");
    if (!(pb->body = strdup(p)))
        return sb_error_set(err, path, NULL, "out of memory");
    return SB_OK;
}

static int cmp_pb(const void *a, const void *b)
{
    return strcmp(((const sb_playbook *)a)->id, ((const sb_playbook *)b)->id);
}

int sb_playbooks_load(const char *dir, sb_playbook_set *set, sb_error *err)
{
    memset(set, 0, sizeof *set);
    DIR *d = opendir(dir);
    if (!d)
        return sb_error_set(err, dir, NULL, "cannot open playbook folder: %s", strerror(errno));
    struct dirent *de;
    size_t cap = 0;
    int rc = SB_OK;
    while (rc == SB_OK && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 4 || strcmp(de->d_name + n - 3, ".md") != 0 || de->d_name[0] == '.')
            continue;
        if (strcmp(de->d_name, "README.md") == 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        char *text = NULL;
        size_t len = 0;
        if ((rc = sb_file_read_all(path, &text, &len, err)) != SB_OK)
            break;
        if (set->count == cap) {
            cap = cap ? cap * 2 : 16;
            sb_playbook *items = realloc(set->items, cap * sizeof *items);
            if (!items) {
                free(text);
                rc = sb_error_set(err, path, NULL, "out of memory");
                break;
            }
            set->items = items;
        }
        rc = sb_playbook_parse(path, text, &set->items[set->count], err);
        free(text);
        if (rc == SB_OK)
            set->count++;
        else
            free(set->items[set->count].body);
    }
    closedir(d);
    if (rc == SB_OK && set->count == 0)
        rc = sb_error_set(err, dir, NULL, "no playbooks (*.md) in the folder");
    if (rc == SB_OK) {
        qsort(set->items, set->count, sizeof *set->items, cmp_pb);
        for (size_t i = 1; i < set->count; i++)
            if (strcmp(set->items[i].id, set->items[i - 1].id) == 0)
                rc = sb_error_set(err, set->items[i].path, NULL, "playbook id '%s' also used by %s",
                                  set->items[i].id, set->items[i - 1].path);
    }
    if (rc != SB_OK)
        sb_playbooks_free(set);
    return rc;
}

void sb_playbooks_free(sb_playbook_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++)
        free(set->items[i].body);
    free(set->items);
    memset(set, 0, sizeof *set);
}

/* 2: named match, 1: "any", 0: none. */
static int match(char tags[][32], size_t n, const char *want)
{
    int best = 0;
    for (size_t i = 0; i < n; i++) {
        if (want && strcmp(tags[i], want) == 0)
            return 2;
        if (strcmp(tags[i], "any") == 0)
            best = 1;
    }
    return best;
}

static int weigh(int m, int w)
{
    return m == 2 ? w : m == 1 ? w / 2 : 0;
}

int sb_playbook_score(const sb_playbook *pb, const sb_playbook_query *q)
{
    if (!match((char(*)[32])pb->languages, pb->nlanguages, q->language))
        return -1;
    return weigh(match((char(*)[32])pb->ops, pb->nops, q->op), 3) +
           weigh(match((char(*)[32])pb->bound, pb->nbound, q->bound), 2) +
           weigh(match((char(*)[32])pb->objectives, pb->nobjectives, q->objective), 1) +
           weigh(match((char(*)[32])pb->dtypes, pb->ndtypes, q->dtype), 1);
}

size_t sb_playbooks_select(const sb_playbook_set *set, const sb_playbook_query *q, size_t min,
                           size_t max, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < set->count && n < max; i++)
        if (set->items[i].always && sb_playbook_score(&set->items[i], q) >= 0)
            idx[n++] = i;
    for (int pass = 0; pass < 2; pass++) {
        while (n < (pass == 0 ? max : min)) {
            size_t best = set->count;
            int best_score = pass == 0 ? 0 : -1;
            for (size_t i = 0; i < set->count; i++) {
                int taken = 0;
                for (size_t j = 0; j < n; j++)
                    taken |= idx[j] == i;
                int s = sb_playbook_score(&set->items[i], q);
                if (taken || s < 0)
                    continue;
                if (s > best_score) { /* ties keep the earlier id */
                    best_score = s;
                    best = i;
                }
            }
            if (best == set->count)
                break;
            idx[n++] = best;
        }
    }
    return n;
}
