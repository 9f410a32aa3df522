/* commits.h - the git history of the measured code (table commits,
 * migration 010): reading `git log --format='%H %P %ct'` text, ordering
 * it, storing it, and giving the order of a list of SHAs. solbook never
 * runs git itself; `solbook commits import` reads the text a user's git
 * printed. */
#ifndef SOLBOOK_DB_COMMITS_H
#define SOLBOOK_DB_COMMITS_H

#include <stddef.h>

#include "commit_ordinals.h"
#include "error.h"
#include "stored_result.h"
#include "store.h"

typedef struct sb_commit {
    char sha[41];
    char *parents;          /* parent SHAs separated by spaces, "" for a root */
    long long committed_at; /* Unix seconds */
    long long ordinal;      /* topological order, from 0 */
} sb_commit;

/* The memory a history may hold while parsed and ordered: the text, each
 * commit's record, parents and ordering arrays, so that an import stays
 * under 512 MiB. A history of 1.3 million commits of one parent each
 * holds about 360 MiB. */
#define SB_COMMITS_MAX_HELD ((size_t)448 << 20)

typedef struct sb_commit_list {
    sb_commit *v;
    size_t n;
} sb_commit_list;

/* Parses text (len bytes) of lines "SHA [PARENT...] UNIX_TIME", one commit
 * a line, as `git log --format='%H %P %ct'` prints them (blank lines are
 * skipped), and gives every commit its ordinal: parents before children
 * (a parent not in the text is outside the history and ignored); among
 * commits whose parents are all placed, the earliest committed_at first,
 * then the SHA. SB_ERR naming the line for a malformed line, a SHA twice,
 * or a cycle; `name` is the file name for errors. Refuses a history whose
 * text and commits together would hold more than SB_COMMITS_MAX_HELD
 * bytes while it is ordered (short lines cost more held than read). */
int sb_commits_parse(const char *text, size_t len, const char *name, sb_commit_list *out,
                     sb_error *err);
void sb_commits_free(sb_commit_list *l);

/* Replaces the commits table with l, in one transaction. */
int sb_commits_store(sb_db *db, const sb_commit_list *l, sb_error *err);

/* ordinal[i] = the ordinal of shas[i] in the commits table, or -1 when it
 * holds no such commit. */
int sb_commits_ordinals(sb_db *db, const char *const *shas, size_t n, long long *ordinal,
                        sb_error *err);

/* The ordinals of the commits of the runs of set (those that name one),
 * into out. */
int sb_commit_ordinals_load_set(sb_db *db, const sb_result_set *set, sb_commit_ordinals *out, sb_error *err);

/* sb_commits_ordinals, and committed_at[i] = the commit time of shas[i]
 * (Unix seconds; -1 where the table holds no such commit), for charts
 * that label commits with their dates. */
int sb_commits_lookup(sb_db *db, const char *const *shas, size_t n, long long *ordinal,
                      long long *committed_at, sb_error *err);

#endif
