/* site_weekly_read.h - the stored rows of one week's writeup
 * (report/weekly.h), read once before it is built: the snapshot of its
 * runs (model/weekly_snapshot.h) with the regressions up to the week's
 * end, and the cards, samples and A/A noise the check of the steps it
 * names takes (sb_weekly_steps), which `report weekly` and the site's
 * weekly pages hand to sb_weekly_build read-only.
 */
#ifndef SOLBOOK_SITE_WEEKLY_READ_H
#define SOLBOOK_SITE_WEEKLY_READ_H

#include "error.h"
#include "plaus_snap.h"
#include "regress.h"
#include "sku.h"
#include "store.h"
#include "weekly.h"
#include "weekly_snapshot.h"

/* One week's rows, and what the check of the steps it names takes of
 * them. Free with sb_site_weekly_free. */
typedef struct sb_site_weekly {
    sb_weekly_snapshot snap;
    const sb_rg_list *regressions; /* rg, or the rg_all given */
    sb_rg_list rg;                 /* the regressions walked or read here */
    sb_result_set upto;            /* every run up to the week's end, which rg points into */
    sb_weekly_steps steps;         /* its aa is the weekly options', or own_aa */
    sb_rg_aa *own_aa;
} sb_site_weekly;

/* Reads the rows of the week of o (its year, week, all, sessions_all and
 * rg) from db into *out, the verdicts judged against skus. rg_all: the whole history (sb_site_rg_history) over o->all with o->rg,
 * or NULL; a week whose runs up to its end are all of o->all (the
 * newest) takes it instead of walking the same history again. db and
 * rg_all must outlive *out. */
int sb_site_weekly_read(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o, const sb_rg_list *rg_all,
                        sb_site_weekly *out, sb_error *err);
/* What the weekly writeups of one site share: the runs of all and
 * sessions_all (o->all and o->sessions_all of each week's options) by
 * the time they finished, so that a week picks its runs from those of
 * its own and the previous week instead of from every run; the GEMM
 * gate's runs, picked once. all and sessions_all must outlive it. */
typedef struct sb_site_weeks sb_site_weeks;
int sb_site_weeks_new(const sb_result_set *all, const sb_result_set *sessions_all, sb_site_weeks **out,
                      sb_error *err);
void sb_site_weeks_free(sb_site_weeks *w); /* accepts NULL */

/* sb_site_weekly_read with what the weeks share (sh; NULL: nothing),
 * the week's regressions taken from asof (sb_rg_asof_new over o->all and
 * rg_all; NULL: none) where it serves the week's end. */
int sb_site_weekly_read_shared(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o, const sb_rg_list *rg_all,
                               const sb_site_weeks *sh, const sb_rg_asof *asof, sb_site_weekly *out,
                               sb_error *err);
void sb_site_weekly_free(sb_site_weekly *w);

#endif
