/* fuzz_json_fast.c - ingest's fast JSON loader (ingest/json_fast.h) keeps
 * its promise on any input: it takes exactly what the strict loader takes,
 * with the same tree (values, types, key order), and refuses the rest with
 * the strict loader's own error; and the canonical text it leads to is
 * json_dumps's to the byte (core/canonical_json.h). Loaded twice more
 * through one pool of reals, the second time reusing the first's, it
 * gives the same tree again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "canonical_json.h"
#include "fuzz_assert.h"
#include "json_fast.h"
#include "json_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *strict = NULL, *fast = NULL;
    sb_error es, ef;
    memset(&es, 0, sizeof es);
    memset(&ef, 0, sizeof ef);
    int rs = sb_json_load_buffer((const char *)data, size, "fuzz.json", &strict, &es);
    int rf = sb_json_fast_load_buffer((const char *)data, size, "fuzz.json", &fast, &ef);
    fuzz_assert(rs == rf);
    if (rs != SB_OK) {
        fuzz_assert(strict == NULL && fast == NULL);
        fuzz_assert(strcmp(es.file, ef.file) == 0 && strcmp(es.where, ef.where) == 0 &&
                    strcmp(es.msg, ef.msg) == 0);
        return 0;
    }
    char *a = json_dumps(strict, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
    char *b = json_dumps(fast, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
    fuzz_assert(a && b && strcmp(a, b) == 0);
    char *want = json_dumps(fast, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
    size_t len = 0;
    char *got = sb_canonical_json(fast, &len);
    fuzz_assert(want && got && strcmp(want, got) == 0 && len == strlen(want));
    sb_json_fast_reals pool = {0};
    for (int k = 0; k < 2; k++) {
        json_t *pooled = NULL;
        fuzz_assert(sb_json_fast_load_reusing((const char *)data, size, "fuzz.json", &pool, &pooled,
                                              &ef) == SB_OK);
        char *c = json_dumps(pooled, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
        fuzz_assert(c && strcmp(a, c) == 0);
        free(c);
        json_decref(pooled);
    }
    sb_json_fast_reals_free(&pool);
    free(a);
    free(b);
    free(want);
    free(got);
    json_decref(strict);
    json_decref(fast);
    return 0;
}
