/* commit_ordinals.h - the place of commits in git order (the commits
 * table's ordinals, db/commits.h), by SHA, as the regression walk takes
 * them from its caller: a series follows git order where the table
 * knows every commit of it (report/regress.h). db/commits.h loads them.
 * Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_COMMIT_ORDINALS_H
#define SOLBOOK_MODEL_COMMIT_ORDINALS_H

#include <stddef.h>

#include "error.h"

typedef struct sb_commit_ordinals {
    char **sha;         /* ascending by strcmp, each once */
    long long *ordinal; /* of sha[i]; -1 where the commits table holds none */
    size_t n;
} sb_commit_ordinals;

void sb_commit_ordinals_free(sb_commit_ordinals *c); /* leaves it empty */
/* The SHAs shas[0..n) (any order, repeats allowed) with no ordinal yet
 * (-1), copied into c, which must be empty. */
int sb_commit_ordinals_name(sb_commit_ordinals *c, const char *const *shas, size_t n, sb_error *err);
/* The ordinal of sha; -1 where the table holds none or c does not name it. */
long long sb_commit_ordinal(const sb_commit_ordinals *c, const char *sha);

#endif
