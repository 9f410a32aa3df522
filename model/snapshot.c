/* snapshot.c - the rows reports read, held read-only (snapshot.h). */
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

typedef struct snap_card {
    char *sku;
    sb_ceiling *latest;
    size_t nlatest;
    long long latest_run;
    sb_calibration *cals;
    size_t ncals;
} snap_card;

/* A handful of cards: looked up by a linear scan. */
struct sb_snapshot {
    snap_card *card;
    size_t ncards, cap;
};

sb_snapshot *sb_snapshot_new(void)
{
    return calloc(1, sizeof(sb_snapshot));
}

static const snap_card *card_find(const sb_snapshot *s, const char *sku)
{
    for (size_t i = 0; sku && i < s->ncards; i++)
        if (strcmp(s->card[i].sku, sku) == 0)
            return &s->card[i];
    return NULL;
}

int sb_snapshot_add_card(sb_snapshot *s, const char *sku, sb_ceiling *latest, size_t nlatest,
                         long long latest_run, sb_calibration *cals, size_t ncals, sb_error *err)
{
    if (card_find(s, sku)) {
        free(latest);
        sb_calibrations_free(cals, ncals);
        return sb_error_set(err, NULL, NULL, "snapshot: card %s added twice", sku);
    }
    char *name = strdup(sku);
    if (s->ncards == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 8;
        snap_card *v = name ? realloc(s->card, nc * sizeof *v) : NULL;
        if (v) {
            s->card = v;
            s->cap = nc;
        } else {
            free(name);
            name = NULL;
        }
    }
    if (!name) {
        free(latest);
        sb_calibrations_free(cals, ncals);
        return sb_error_set(err, NULL, NULL, "out of memory reading the calibrations");
    }
    s->card[s->ncards++] = (snap_card){name, latest, nlatest, latest_run, cals, ncals};
    return SB_OK;
}

void sb_snapshot_free(sb_snapshot *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ncards; i++) {
        free(s->card[i].sku);
        free(s->card[i].latest);
        sb_calibrations_free(s->card[i].cals, s->card[i].ncals);
    }
    free(s->card);
    free(s);
}

const sb_ceiling *sb_snapshot_ceilings(const sb_snapshot *s, const char *sku, size_t *n,
                                       long long *run_id)
{
    const snap_card *c = card_find(s, sku);
    *n = c ? c->nlatest : 0;
    *run_id = c && c->nlatest ? c->latest_run : -1;
    return c && c->nlatest ? c->latest : NULL;
}

const sb_calibration *sb_snapshot_calibrations(const sb_snapshot *s, const char *sku, size_t *n)
{
    const snap_card *c = card_find(s, sku);
    *n = c ? c->ncals : 0;
    return c && c->ncals ? c->cals : NULL;
}
