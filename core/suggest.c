/* suggest.c - edit distance and the closest known word. */
#include "suggest.h"

#include <stdlib.h>
#include <string.h>

/* Beyond this length the words are not command or option names. */
#define SUGGEST_MAX_LEN 64

size_t sb_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > SUGGEST_MAX_LEN || m > SUGGEST_MAX_LEN)
        return n > m ? n : m;
    /* d[i][j]: distance between the first i bytes of a and j of b. */
    size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *sb_suggest(const char *word, const char *const *candidates)
{
    const char *best = NULL, *prefixed = NULL;
    size_t best_d = (size_t)-1, len = strlen(word), n_prefixed = 0;
    int tie = 0;
    if (len == 0)
        return NULL;
    for (const char *const *c = candidates; *c; c++) {
        if (strcmp(*c, word) == 0)
            continue;
        if (strncmp(*c, word, len) == 0) {
            prefixed = *c;
            n_prefixed++;
        }
        size_t d = sb_edit_distance(word, *c);
        if (d < best_d) {
            best_d = d;
            best = *c;
            tie = 0;
        } else if (d == best_d && strcmp(*c, best) != 0) {
            tie = 1;
        }
    }
    if (best && !tie && best_d <= 2 && best_d < len)
        return best;
    return n_prefixed == 1 ? prefixed : NULL;
}
