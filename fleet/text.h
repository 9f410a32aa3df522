/* text.h - a growable string for the renderers (fleet-internal). An
 * allocation failure is remembered and reported once by sb_text_take. */
#ifndef SOLBOOK_FLEET_TEXT_H
#define SOLBOOK_FLEET_TEXT_H

#include <stddef.h>

typedef struct sb_text {
    char *s;
    size_t len, cap;
    int failed;
} sb_text;

void sb_text_puts(sb_text *t, const char *s);
void sb_text_printf(sb_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string over (NULL after an allocation failure) and resets t. */
char *sb_text_take(sb_text *t);
void sb_text_free(sb_text *t);

#endif
