/* fuzz_import.c - one importer of other tools' output (ingest/import.h),
 * chosen at build time (FUZZ_IMPORT_FORMAT: liger-csv, nvbench-json,
 * gbench-json, triton-perf-csv): any file converts to solbook.result.v1 documents or is
 * refused with one error, never a crash, leak or undefined behaviour. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "fuzz_input_file.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size, FUZZ_IMPORT_SUFFIX);
    sb_import_options o = {0};
    o.dtype = "fp32";
    o.y_unit = "us"; /* triton-perf-csv's; the other formats pass them over */
    o.y_stat = "median";
    o.skus_csv = SOLBOOK_SOURCE_DIR "/data/skus.csv";
    o.op_names_csv = SOLBOOK_SOURCE_DIR "/data/import_op_names.csv";
    json_t *docs = NULL;
    sb_error err;
    if (sb_import_convert(path, FUZZ_IMPORT_FORMAT, &o, &docs, NULL, &err) != SB_OK) {
        fuzz_assert_one_line_error(err);
        json_decref(docs);
        return 0;
    }
    /* a conversion gives result documents, each naming its schema */
    fuzz_assert(json_is_array(docs));
    size_t i;
    json_t *d;
    json_array_foreach(docs, i, d) {
        fuzz_assert(json_is_object(d));
        const char *schema = json_string_value(json_object_get(d, "schema"));
        fuzz_assert(schema && strcmp(schema, "solbook.result.v1") == 0);
    }
    json_decref(docs);
    return 0;
}
