/* fuzz_import.c - one importer of other tools' output (ingest/import.h),
 * chosen at build time (FUZZ_IMPORT_FORMAT: liger-csv, nvbench-json,
 * gbench-json): any file converts to solbook.result.v1 documents or is
 * refused with one error, never a crash, leak or undefined behaviour. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input_file.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size, FUZZ_IMPORT_SUFFIX);
    sb_import_options o = {0};
    o.dtype = "fp32";
    o.skus_csv = SOLBOOK_SOURCE_DIR "/db/skus.csv";
    o.op_names_csv = SOLBOOK_SOURCE_DIR "/db/import_op_names.csv";
    json_t *docs = NULL;
    sb_error err;
    if (sb_import_convert(path, FUZZ_IMPORT_FORMAT, &o, &docs, NULL, &err) != SB_OK && !err.msg[0])
        abort(); /* a refusal says why */
    json_decref(docs);
    return 0;
}
