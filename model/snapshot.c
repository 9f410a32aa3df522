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
    sb_ceiling_aside *aside;
    size_t naside;
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

/* Appends a card's set-aside ceilings to s's (taking v). */
static int aside_add(sb_snapshot *s, sb_ceiling_aside *v, size_t n)
{
    if (!n)
        return 0;
    sb_ceiling_aside *all = realloc(s->aside, (s->naside + n) * sizeof *all);
    if (!all) {
        free(v);
        return -1;
    }
    memcpy(all + s->naside, v, n * sizeof *v);
    s->aside = all;
    s->naside += n;
    free(v);
    return 0;
}

int sb_snapshot_add_card(sb_snapshot *s, const char *sku, const sb_sku *row, sb_calibration *cals,
                         size_t ncals, sb_error *err)
{
    if (card_find(s, sku)) {
        sb_calibrations_free(cals, ncals);
        return sb_error_set(err, NULL, NULL, "snapshot: card %s added twice", sku);
    }
    sb_ceiling *latest = NULL;
    sb_ceiling_aside *aside = NULL;
    size_t nlatest = 0, naside = 0;
    long long latest_run = -1;
    char *name = strdup(sku);
    int ok = name && sb_ceilings_choose(sku, row, cals, ncals, &latest, &nlatest, &latest_run, &aside,
                                        &naside) == 0;
    if (ok && s->ncards == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 8;
        snap_card *v = realloc(s->card, nc * sizeof *v);
        if (v) {
            s->card = v;
            s->cap = nc;
        } else {
            ok = 0;
        }
    }
    if (ok)
        ok = aside_add(s, aside, naside) == 0;
    else
        free(aside);
    if (!ok) {
        free(name);
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
    free(s->aside);
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

const sb_ceiling_aside *sb_snapshot_set_aside(const sb_snapshot *s, size_t *n)
{
    *n = s->naside;
    return s->naside ? s->aside : NULL;
}
