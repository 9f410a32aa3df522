/* term.h - messages that carry stored data, printed for a terminal.
 *
 * A file name, a JSON key, a task record's field or a reason read from a
 * result can hold newlines, ESC sequences and bidi controls; printed raw
 * they could clear the screen, recolour the output or write a fake line
 * ("x.json: valid") over the real error. Every message that carries such
 * text is built by printf from a format and then written whole through
 * sb_enc_terminal (encode.h): each message is exactly one line, every
 * control character in it visible as an escape (\n, \e, \u{202E}, ...),
 * a backslash doubled. */
#ifndef SOLBOOK_CORE_TERM_H
#define SOLBOOK_CORE_TERM_H

#include <stdarg.h>
#include <stdio.h>

#include "strbuf.h"

/* Writes the message made from fmt, encoded, and a newline to f. */
void sb_term_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same, appended to b (newline included), for text printed later. */
void sb_term_append(sb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
