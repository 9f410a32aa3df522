/* suggest.h - "did you mean": the known word closest to a mistyped one.
 *
 * Closeness is the optimal-string-alignment (restricted Damerau-
 * Levenshtein) distance: insertions, deletions, substitutions and swaps of
 * two neighbouring characters each cost 1, so "ingset" is 1 from "ingest".
 */
#ifndef SOLBOOK_CORE_SUGGEST_H
#define SOLBOOK_CORE_SUGGEST_H

#include <stddef.h>

/* The edit distance between a and b (bytes), as above. */
size_t sb_edit_distance(const char *a, const char *b);

/* The candidate closest to word when it is near enough to be what was
 * meant: at most 2 edits and fewer edits than word has characters, or
 * word is the start of exactly one candidate. NULL when none qualifies or
 * two candidates tie. candidates is NULL-terminated; entries equal to
 * word are never suggested. */
const char *sb_suggest(const char *word, const char *const *candidates);

#endif
