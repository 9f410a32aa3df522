/* bench_config.c - see bench_config.h. */
#include "bench_config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "json_file.h"

int sb_forge_bench_config_load(const char *path, sb_forge_bench_config *c, sb_error *err)
{
    c->warmup_iters = 20;
    c->iters = 50;
    c->repeats = 5;
    c->cold_l2 = 1;
    c->seed = 1234;
    json_t *doc = NULL;
    if (sb_json_load_file(path, &doc, err) != SB_OK)
        return SB_ERR;
    if (!json_is_object(doc)) {
        json_decref(doc);
        return sb_error_set(err, path, "/", "bench config must be a JSON object");
    }
    const char *key;
    json_t *v;
    int rc = SB_OK;
    json_object_foreach(doc, key, v)
    {
        char where[128];
        snprintf(where, sizeof where, "/%s", key);
        struct { const char *name; long long lo, hi; int *out; } ints[] = {
            {"warmup_iters", 0, 10000, &c->warmup_iters},
            {"iters", 1, 10000, &c->iters},
            {"repeats", 1, 100, &c->repeats},
        };
        int known = 0;
        for (size_t i = 0; i < 3; i++) {
            if (strcmp(key, ints[i].name) != 0)
                continue;
            known = 1;
            if (!json_is_integer(v) || json_integer_value(v) < ints[i].lo || json_integer_value(v) > ints[i].hi)
                rc = sb_error_set(err, path, where, "must be an integer from %lld to %lld", ints[i].lo, ints[i].hi);
            else
                *ints[i].out = (int)json_integer_value(v);
        }
        if (strcmp(key, "l2") == 0) {
            known = 1;
            const char *s = json_string_value(v);
            if (!s || (strcmp(s, "cold") != 0 && strcmp(s, "warm") != 0))
                rc = sb_error_set(err, path, where, "must be \"cold\" or \"warm\"");
            else
                c->cold_l2 = strcmp(s, "cold") == 0;
        } else if (strcmp(key, "seed") == 0) {
            known = 1;
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (1LL << 53))
                rc = sb_error_set(err, path, where, "must be an integer from 0 to 2^53");
            else
                c->seed = (unsigned long long)json_integer_value(v);
        }
        if (!known)
            rc = sb_error_set(err, path, where,
                              "unknown key (allowed: warmup_iters, iters, repeats, l2, seed)");
        if (rc != SB_OK)
            break;
    }
    if (rc == SB_OK && (long long)c->iters * c->repeats > 100000)
        rc = sb_error_set(err, path, "/iters", "iters x repeats must be at most 100000");
    json_decref(doc);
    return rc;
}
