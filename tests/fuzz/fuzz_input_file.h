/* fuzz_input_file.h - for fuzz targets whose code under test reads a file:
 * the input written to a temporary file per process and name suffix
 * (header-only, each target is one translation unit). */
#ifndef SOLBOOK_FUZZ_INPUT_FILE_H
#define SOLBOOK_FUZZ_INPUT_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_INPUT_SUFFIXES 4

/* The files written so far, one per suffix, removed at exit. */
static char fuzz_input_paths[FUZZ_INPUT_SUFFIXES][256];

static void fuzz_input_remove(void)
{
    for (int k = 0; k < FUZZ_INPUT_SUFFIXES; k++)
        if (fuzz_input_paths[k][0])
            unlink(fuzz_input_paths[k]);
}

/* Writes data to a file whose name ends with suffix (the importers look at
 * extensions only for messages; the archive readers choose the format by
 * it) and returns its path, reused by every call of the process with that
 * suffix; aborts when the file cannot be written, or for more suffixes than
 * FUZZ_INPUT_SUFFIXES, since then nothing is being tested. */
static const char *fuzz_input_file(const uint8_t *data, size_t size, const char *suffix)
{
    char want[256];
    snprintf(want, sizeof want, "/tmp/solbook-fuzz-%ld%s", (long)getpid(), suffix);
    char *path = NULL;
    for (int k = 0; k < FUZZ_INPUT_SUFFIXES && !path; k++) {
        if (!fuzz_input_paths[k][0]) {
            if (k == 0)
                atexit(fuzz_input_remove);
            snprintf(fuzz_input_paths[k], sizeof fuzz_input_paths[k], "%s", want);
        }
        if (strcmp(fuzz_input_paths[k], want) == 0)
            path = fuzz_input_paths[k];
    }
    if (!path)
        abort();
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
