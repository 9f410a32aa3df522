/* fuzz_archive.c - archives read where they lie (ingest/ingest_archive.h):
 * any bytes, named as any kind of archive ingest reads, give documents
 * whose bytes can all be read and at most one error in one line, never a
 * crash, a leak or a read outside what was handed over. The first byte
 * picks the kind (0 .tar.gz, 1 .tar, 2 .jsonl.gz, 3 .jsonl, by its value
 * modulo 4); the rest is the file. */
#include <stdint.h>
#include <string.h>

#include "file_name.h"
#include "fuzz_assert.h"
#include "fuzz_input_file.h"
#include "ingest_archive.h"

static const char *const SUFFIX[4] = {".tar.gz", ".tar", ".jsonl.gz", ".jsonl"};

typedef struct seen {
    int tar;
    unsigned long docs, sum;
} seen;

static int on_document(void *ctx, const char *member, const char *data, size_t len,
                       const char *ncu, size_t ncu_len, const char *nsys, size_t nsys_len)
{
    seen *s = ctx;
    fuzz_assert(member != NULL && member[0] != '\0');
    if (s->tar)
        fuzz_assert(sb_name_ends_with(member, ".json"));
    else
        fuzz_assert(strspn(member, "0123456789") == strlen(member));
    fuzz_assert(data != NULL || len == 0);
    fuzz_assert(ncu != NULL || ncu_len == 0);
    fuzz_assert(s->tar || ncu == NULL);
    fuzz_assert(nsys != NULL || nsys_len == 0);
    fuzz_assert(s->tar || nsys == NULL);
    /* every byte handed over is readable (AddressSanitizer watches) */
    for (size_t i = 0; i < len; i++)
        s->sum += (unsigned char)data[i];
    for (size_t i = 0; i < ncu_len; i++)
        s->sum += (unsigned char)ncu[i];
    for (size_t i = 0; i < nsys_len; i++)
        s->sum += (unsigned char)nsys[i];
    s->docs++;
    return SB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int kind = data[0] % 4;
    const char *path = fuzz_input_file(data + 1, size - 1, SUFFIX[kind]);
    fuzz_assert(sb_archive_named(path));
    seen s = {kind < 2, 0, 0};
    sb_error err;
    sb_error_clear(&err);
    if (sb_archive_each(path, NULL, on_document, NULL, &s, &err) != SB_OK)
        fuzz_assert_one_line_error(err);
    return 0;
}
