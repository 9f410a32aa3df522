/* error.h - the one error type every solbook module fills.
 *
 * Library functions never print and never exit: they return SB_OK or SB_ERR
 * and, on SB_ERR, fill an sb_error saying which file, where in it, and what
 * went wrong. The CLI prints it once, as a single line:
 *     FILE: WHERE: MESSAGE      (parts that are empty are left out)
 */
#ifndef SOLBOOK_CORE_ERROR_H
#define SOLBOOK_CORE_ERROR_H

#include <stdio.h>

enum { SB_OK = 0, SB_ERR = -1 };

typedef struct sb_error {
    char file[1024];  /* the file the problem is in, or "" */
    char where[512];  /* "line 3, column 7", a JSON pointer, a row number, or "" */
    char msg[1024];   /* what is wrong, one line, no trailing period needed */
} sb_error;

/* Clears all three parts. Accepts NULL. */
void sb_error_clear(sb_error *e);

/* Fills e (if not NULL) and returns SB_ERR, so callers can write
 *     return sb_error_set(err, path, "", "cannot open: %s", strerror(errno));
 * file and where may be NULL. Newlines in the message are folded to spaces so
 * the printed error is always one line. */
int sb_error_set(sb_error *e, const char *file, const char *where,
                 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Sets the file part only when it is still empty: lets a caller that knows
 * the path add it to an error raised by code that did not. */
void sb_error_set_file(sb_error *e, const char *file);

/* Writes the one-line form, without a trailing newline, into buf. */
void sb_error_format(const sb_error *e, char *buf, size_t size);

/* Prints "solbook: " + the one-line form + newline to f. */
void sb_error_print(const sb_error *e, FILE *f);

#endif
