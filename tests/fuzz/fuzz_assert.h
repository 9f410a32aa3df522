/* fuzz_assert.h - the fuzz targets' assertion. assert() is compiled out in
 * the RelWithDebInfo builds the targets use (NDEBUG); a broken promise must
 * still stop libFuzzer with the input that broke it. */
#ifndef SOLBOOK_FUZZ_ASSERT_H
#define SOLBOOK_FUZZ_ASSERT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define fuzz_assert(cond)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: fuzz_assert(%s) failed\n", __FILE__, __LINE__, \
                    #cond);                                                      \
            abort();                                                             \
        }                                                                        \
    } while (0)

/* A refusal says why, in one line. */
#define fuzz_assert_one_line_error(err) \
    fuzz_assert((err).msg[0] != '\0' && strchr((err).msg, '\n') == NULL)

#endif
