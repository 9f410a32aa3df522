/* fuzz_input_file.h - for fuzz targets whose code under test reads a file:
 * the input written to one temporary file per process (header-only, each
 * target is one translation unit). */
#ifndef SOLBOOK_FUZZ_INPUT_FILE_H
#define SOLBOOK_FUZZ_INPUT_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes data to a file named with suffix (the importers look at
 * extensions only for messages) and returns its path, reused by every
 * call of the process; aborts when the file cannot be written, since then
 * nothing is being tested. */
static char fuzz_input_path[256];

static void fuzz_input_remove(void)
{
    unlink(fuzz_input_path);
}

static const char *fuzz_input_file(const uint8_t *data, size_t size, const char *suffix)
{
    char *path = fuzz_input_path;
    if (!path[0]) {
        snprintf(path, sizeof fuzz_input_path, "/tmp/solbook-fuzz-%ld%s", (long)getpid(), suffix);
        atexit(fuzz_input_remove);
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
