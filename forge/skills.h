/* skills.h - the playbook library (data/forge/skills/NAME.md).
 *
 * A playbook is Markdown with a front matter block:
 *     ---
 *     id: warp-reductions
 *     title: Warp and block reductions
 *     concepts: [reduction, shuffle]
 *     languages: [cuda]
 *     ops: [rmsnorm, layernorm, softmax]
 *     bound: [memory]
 *     objectives: [latency]
 *     dtypes: [any]
 *     always: false
 *     ---
 * Every key is required; lists are [a, b, c]; "any" matches everything.
 * A playbook with always: true is part of every prompt whose language it
 * lists.
 */
#ifndef SOLBOOK_FORGE_SKILLS_H
#define SOLBOOK_FORGE_SKILLS_H

#include <stddef.h>

#include "error.h"

#define SB_PLAYBOOK_MAX_TAGS 24

typedef struct sb_playbook {
    char id[64];
    char title[160];
    char path[1024];
    char concepts[SB_PLAYBOOK_MAX_TAGS][32];
    size_t nconcepts;
    char languages[SB_PLAYBOOK_MAX_TAGS][32];
    size_t nlanguages;
    char ops[SB_PLAYBOOK_MAX_TAGS][32];
    size_t nops;
    char bound[SB_PLAYBOOK_MAX_TAGS][32];
    size_t nbound;
    char objectives[SB_PLAYBOOK_MAX_TAGS][32];
    size_t nobjectives;
    char dtypes[SB_PLAYBOOK_MAX_TAGS][32];
    size_t ndtypes;
    int always;
    char *body;         /* Markdown after the front matter */
} sb_playbook;

typedef struct sb_playbook_set {
    sb_playbook *items;
    size_t count;
} sb_playbook_set;

/* What a task asks for; the selection scores tag overlap with it. */
typedef struct sb_playbook_query {
    const char *op, *language, *bound, *objective, *dtype;
} sb_playbook_query;

/* Loads every DIR/NAME.md, sorted by id; refuses duplicate ids and malformed
 * front matter (naming file and line). */
int sb_playbooks_load(const char *dir, sb_playbook_set *set, sb_error *err);
void sb_playbooks_free(sb_playbook_set *set);

/* Parses one playbook from a buffer (path used in errors). */
int sb_playbook_parse(const char *path, const char *text, sb_playbook *pb, sb_error *err);

/* Score of a playbook for a query: -1 when its languages exclude the
 * query's; else 3 per op match, 2 bound, 1 objective, 1 dtype (an "any"
 * tag counts half of a named match, rounded down, so named matches rank
 * first). */
int sb_playbook_score(const sb_playbook *pb, const sb_playbook_query *q);

/* Chooses between min and max playbooks: every always-playbook of the
 * language, then the best scores (ties by id) while the score is positive,
 * then the best remaining until min is reached. Writes indexes into set
 * to idx (max entries) and returns how many. */
size_t sb_playbooks_select(const sb_playbook_set *set, const sb_playbook_query *q, size_t min,
                           size_t max, size_t *idx);

#endif
