/* fuzz_import_liger_csv.c - the liger-csv importer (ingest/import.h): any file
 * converts to solbook.result.v1 documents or is refused with one error,
 * never a crash, leak or undefined behaviour. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input_file.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size, ".csv");
    sb_import_options o = {0};
    o.dtype = "fp32";
    o.skus_csv = SOLBOOK_SOURCE_DIR "/db/skus.csv";
    o.op_names_csv = SOLBOOK_SOURCE_DIR "/db/import_op_names.csv";
    json_t *docs = NULL;
    sb_error err;
    if (sb_import_convert(path, "liger-csv", &o, &docs, NULL, &err) != SB_OK) {
        if (!err.msg[0])
            abort();
    }
    json_decref(docs);
    return 0;
}
