/* fuzz_json_validate.c - the strict JSON loader (core/json_file.h) and the
 * JSON Schema validator (ingest/json_schema.h) against the three solbook
 * schemas: any input is refused with an error or validated, never a
 * crash, leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "json_file.h"
#include "json_schema.h"

static sb_schema_set *schemas;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sb_error err;
    if (sb_schema_set_load(SOLBOOK_SOURCE_DIR "/data/schemas", &schemas, &err) != SB_OK)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = NULL;
    sb_error err;
    if (sb_json_load_buffer((const char *)data, size, "fuzz.json", &doc, &err) != SB_OK) {
        fuzz_assert(doc == NULL); /* a refusal leaves no document */
        fuzz_assert_one_line_error(err);
        return 0;
    }
    static const char *const ids[] = {"solbook.result.v1", "solbook.training.v1",
                                      "solbook.calibration.v1"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const sb_schema *s = sb_schema_set_find(schemas, ids[i]);
        fuzz_assert(s != NULL);
        /* the count of errors and the one-error check agree */
        size_t errors = sb_schema_validate(s, doc, NULL, NULL);
        int rc = sb_schema_check(s, doc, "fuzz.json", &err);
        fuzz_assert((errors == 0) == (rc == SB_OK));
        if (rc != SB_OK)
            fuzz_assert_one_line_error(err);
    }
    json_decref(doc);
    return 0;
}
