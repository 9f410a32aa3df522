/* site_rg.c - the regression walk's inputs read, and its stored steps
 * written, on a connection (site_rg.h). */
#include "site_rg.h"

#include <stdlib.h>
#include <string.h>

#include "commits.h"
#include "results_query.h"
#include "rg_settle.h"
#include "rg_steps.h"
#include "rg_stored_db.h"
#include "rg_ask_read.h"
#include "run_devices.h"
#include "session_query.h"

/* ---- walks: what they take, read as they name it ---- */

/* Runs w to its end, reading the samples of the runs it names. */
static int walk_to_end(sb_db *db, sb_rg_walk *w, sb_error *err)
{
    sb_run_samples have = {0};
    const long long *ids;
    size_t n;
    int rc = sb_rg_walk_next(w, NULL, &ids, &n, err);
    while (rc == SB_OK && n) {
        rc = sb_run_samples_load_ids(db, ids, n, &have, err);
        if (rc == SB_OK)
            rc = sb_rg_walk_next(w, &have, &ids, &n, err);
        sb_run_samples_free(&have);
    }
    return rc;
}

/* The runs in a set from which its cards are read in one scan of all. */
#define RG_CARDS_SCAN 65536

int sb_site_rg_inputs(sb_db *db, const sb_result_set *set, sb_rg_read *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    /* one scan of every run's card costs less than a lookup a run once
     * the set is large; the cards of runs outside it are never asked */
    int rc = set->n >= RG_CARDS_SCAN ? sb_run_devices_load(db, &out->dev, err)
                                     : sb_run_devices_load_set(db, set, &out->dev, err);
    if (rc == SB_OK)
        rc = sb_commit_ordinals_load_set(db, set, &out->git, err);
    if (rc != SB_OK)
        sb_site_rg_inputs_free(out);
    return rc;
}

void sb_site_rg_inputs_free(sb_rg_read *r)
{
    sb_run_devices_free(&r->dev);
    sb_commit_ordinals_free(&r->git);
}

int sb_site_rg_history(sb_db *db, const sb_result_set *set, const sb_rg_inputs *in, const sb_rg_opts *o,
                       const sb_rg_aa *aa, sb_rg_list *out, sb_error *err)
{
    sb_rg_read own = {0};
    sb_rg_inputs own_in = {&own.dev, &own.git};
    sb_rg_walk *w = NULL;
    int rc = SB_OK;
    memset(out, 0, sizeof *out);
    if (!in) {
        rc = sb_site_rg_inputs(db, set, &own, err);
        in = &own_in;
    }
    if (rc == SB_OK)
        rc = sb_rg_walk_open(set, in, o, aa, out, &w, err);
    if (rc == SB_OK)
        rc = walk_to_end(db, w, err);
    sb_rg_walk_free(w);
    sb_site_rg_inputs_free(&own);
    if (rc != SB_OK)
        sb_rg_free(out);
    return rc;
}

int sb_site_rg_latest(sb_db *db, const sb_rg_stored *stored, const sb_rg_opts *o, long long upto, sb_rg_list *out,
                      int *found, sb_error *err)
{
    memset(out, 0, sizeof *out);
    *found = 0;
    int fresh = 0, rc = sb_rg_fresh(stored, o, &fresh, err);
    if (rc != SB_OK || !fresh)
        return rc;
    /* the runs the latest steps name */
    long long *ids = NULL;
    size_t n = 0;
    sb_result_set runs = {0};
    sb_result_filter all = {0};
    if (stored->steps_read)
        rc = sb_rg_stored_latest_runs(stored, &ids, &n, err);
    if (rc == SB_OK && n)
        rc = sb_results_load_ids(db, &all, ids, n, &runs, err);
    free(ids);
    if (rc == SB_OK)
        rc = sb_rg_latest(stored, &runs, sb_db_path(db), o, upto, out, found, err);
    sb_results_free(&runs);
    if (rc != SB_OK || !*found)
        return rc;
    /* the regressions confirmed or refuted by paired runs: those runs
     * only, with their cards */
    sb_result_set paired = {0};
    sb_run_devices dev = {0};
    sb_rg_walk *w = NULL;
    sb_result_filter f = {0};
    f.suite = SB_RG_CONFIRM_SUITE;
    rc = sb_results_load(db, &f, &paired, err);
    if (rc == SB_OK)
        rc = sb_run_devices_load_set(db, &paired, &dev, err);
    if (rc == SB_OK)
        rc = sb_rg_confirm_open(out, &paired, &dev, o, &w, err);
    if (rc == SB_OK)
        rc = walk_to_end(db, w, err);
    sb_rg_walk_free(w);
    sb_run_devices_free(&dev);
    sb_results_free(&paired);
    if (rc != SB_OK) {
        sb_rg_free(out);
        *found = 0;
    }
    return rc;
}

int sb_site_rg_aa(sb_db *db, const sb_rg_opts *o, sb_rg_aa **out, sb_error *err)
{
    sb_session_runs runs = {0};
    *out = NULL;
    int rc = sb_session_runs_load(db, NULL, 0, &runs, err);
    if (rc == SB_OK)
        rc = sb_rg_aa_new(&runs, o, out, err);
    sb_session_runs_free(&runs);
    return rc;
}

/* ---- storing an update (sb_rg_update's writes) ---- */

/* The stored ids of the commits, classes and thresholds the batches
 * name, by their place in a batch; n* of each stored so far. */
typedef struct write_ids {
    long long *commit, *cls, *noise;
    size_t ncommit, ncls, nnoise;
} write_ids;

static void write_ids_free(write_ids *ids)
{
    free(ids->commit);
    free(ids->cls);
    free(ids->noise);
}

static int grow_ids(long long **v, size_t n, sb_error *err)
{
    long long *nv = realloc(*v, (n ? n : 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    *v = nv;
    return SB_OK;
}

/* Stores the names w holds past those stored, in the order w holds them. */
static int store_names(sb_db *db, const sb_rg_writes *w, write_ids *ids, sb_error *err)
{
    if (grow_ids(&ids->commit, w->ncommits, err) != SB_OK || grow_ids(&ids->cls, w->nclasses, err) != SB_OK ||
        grow_ids(&ids->noise, w->nnoise, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    for (; rc == SB_OK && ids->ncommit < w->ncommits; ids->ncommit++)
        rc = sb_rg_commit_put(db, w->commits[ids->ncommit].sha, w->commits[ids->ncommit].first_epoch,
                              &ids->commit[ids->ncommit], err);
    for (; rc == SB_OK && ids->ncls < w->nclasses; ids->ncls++)
        rc = sb_rg_class_id(db, w->classes[ids->ncls], &ids->cls[ids->ncls], err);
    for (; rc == SB_OK && ids->nnoise < w->nnoise; ids->nnoise++)
        rc = sb_rg_noise_put(db, &w->noise[ids->nnoise], &ids->noise[ids->nnoise], err);
    return rc;
}

/* The stored id of the name at 1 + index ref of v (0: none). */
static long long id_of(const long long *v, long long ref)
{
    return ref ? v[ref - 1] : 0;
}

/* Every group's steps of w, with the stored ids in place of w's indexes:
 * through bulk (a full walk's writes), else in place of each group's
 * stored steps or after them. */
static int store_groups(sb_db *db, const sb_rg_writes *w, const write_ids *ids, sb_rg_bulk *bulk, sb_error *err)
{
    sb_rg_step_rec *recs = NULL;
    size_t cap = 0;
    int rc = SB_OK;
    for (size_t g = 0; rc == SB_OK && g < w->ngroups; g++) {
        const sb_rg_write_group *wg = &w->groups[g];
        if (wg->n > cap) {
            sb_rg_step_rec *nv = realloc(recs, wg->n * sizeof *nv);
            if (!nv) {
                rc = sb_error_set(err, NULL, NULL, "out of memory");
                break;
            }
            recs = nv;
            cap = wg->n;
        }
        for (size_t k = 0; k < wg->n; k++) {
            sb_rg_step_rec s = w->steps[wg->first + k];
            s.old_commit = id_of(ids->commit, s.old_commit);
            s.new_commit = id_of(ids->commit, s.new_commit);
            s.drift_class = id_of(ids->cls, s.drift_class);
            s.noise = id_of(ids->noise, s.noise);
            recs[k] = s;
        }
        if (bulk)
            rc = sb_rg_bulk_group(bulk, wg->case_key, wg->provider, wg->sku, wg->series_git, wg->series_measured,
                                  recs, wg->n, err);
        else if (wg->grp)
            rc = sb_rg_group_append(db, wg->grp, recs, wg->n, err);
        else
            rc = sb_rg_group_put(db, wg->case_key, wg->provider, wg->sku, wg->series_git, wg->series_measured,
                                 recs, wg->n, err);
    }
    free(recs);
    return rc;
}

static int add_class(long long **v, size_t *n, size_t *cap, long long cls, sb_error *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        long long *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = cls;
    return SB_OK;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The family (old_commit, new_commit) adjusted and stored; the drift
 * classes of its drift members added to *cls. */
static int settle_family(sb_db *db, const sb_rg_opts *o, long long old_commit, long long new_commit, long long **cls,
                         size_t *ncls, size_t *clscap, sb_error *err)
{
    sb_rg_member *m = NULL, **mp = NULL;
    size_t n = 0;
    if (sb_rg_family_read(db, old_commit, new_commit, &m, &n, err) != SB_OK)
        return SB_ERR;
    int rc = (mp = malloc((n ? n : 1) * sizeof *mp)) ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t k = 0; rc == SB_OK && k < n; k++)
        mp[k] = &m[k];
    if (rc == SB_OK)
        rc = sb_rg_adjust_family(mp, n, o->alpha, err);
    for (size_t k = 0; rc == SB_OK && k < n; k++)
        if (m[k].cause == SB_RG_DRIFT && m[k].drift_class)
            rc = add_class(cls, ncls, clscap, m[k].drift_class, err);
    if (rc == SB_OK)
        rc = sb_rg_family_put(db, m, n, err);
    free(mp);
    free(m);
    return rc;
}

/* The figures of class cls, from its stored steps, stored. */
static int settle_class(sb_db *db, const sb_rg_opts *o, long long cls, sb_error *err)
{
    sb_rg_member top[2];
    size_t ntop = 0;
    long long tested = 0;
    if (sb_rg_class_top(db, cls, SB_RG_DRIFT_MIN_CLASS + 1, &tested, top, &ntop, err) != SB_OK)
        return SB_ERR;
    sb_rg_class_figs f;
    double min_abs;
    sb_rg_class_figs_of(cls, tested, top, ntop, o->min_effect, &f, &min_abs);
    sb_rg_member *m = NULL;
    size_t n = 0;
    if (sb_rg_class_steps(db, cls, min_abs, &m, &n, err) != SB_OK)
        return SB_ERR;
    sb_rg_class_flagged(&f, m, n, o->alpha, o->min_effect);
    free(m);
    return sb_rg_class_figs_put(db, &f, err);
}

/* Settles each class of cls (n ids, repeats allowed) once, in id order. */
static int settle_classes(sb_db *db, const sb_rg_opts *o, long long *cls, size_t n, sb_error *err)
{
    if (n)
        qsort(cls, n, sizeof *cls, cmp_ll);
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < n; i++)
        if (!i || cls[i] != cls[i - 1])
            rc = settle_class(db, o, cls[i], err);
    return rc;
}

/* Settles the families and classes whose steps changed since the last
 * settling. */
static int settle_stored(sb_db *db, const sb_rg_opts *o, sb_error *err)
{
    long long *fam = NULL, *cls = NULL;
    size_t nfam = 0, ncls = 0;
    if (sb_rg_dirty_take(db, &fam, &nfam, &cls, &ncls, err) != SB_OK)
        return SB_ERR;
    size_t clscap = ncls;
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < nfam; i++)
        rc = settle_family(db, o, fam[2 * i], fam[2 * i + 1], &cls, &ncls, &clscap, err);
    if (rc == SB_OK)
        rc = settle_classes(db, o, cls, ncls, err);
    free(fam);
    free(cls);
    return rc;
}

/* Members by family, then in (grp, seq) order within one: the order a
 * family's read gives them. */
static int cmp_family(const void *x, const void *y)
{
    const sb_rg_member *a = *(const sb_rg_member *const *)x, *b = *(const sb_rg_member *const *)y;
    if (a->old_commit != b->old_commit)
        return (a->old_commit > b->old_commit) - (a->old_commit < b->old_commit);
    if (a->new_commit != b->new_commit)
        return (a->new_commit > b->new_commit) - (a->new_commit < b->new_commit);
    if (a->grp != b->grp)
        return (a->grp > b->grp) - (a->grp < b->grp);
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* settle_stored after a full walk written through bulk: every family
 * and every class, read in one pass over the steps instead of a family
 * and a class at a time. The adjusted p-values are stored in (grp, seq)
 * order, before the steps' indexes are made again; the classes are
 * settled from those indexes, as settle_stored settles them. */
static int settle_all(sb_db *db, const sb_rg_opts *o, sb_rg_bulk *bulk, sb_error *err)
{
    sb_rg_member *m = NULL, **fam = NULL;
    long long *cls = NULL;
    size_t n = 0, nfam = 0, ncls = 0;
    if (sb_rg_bulk_steps(bulk, &m, &n, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    if (!(fam = malloc((n ? n : 1) * sizeof *fam)) || !(cls = malloc((n ? n : 1) * sizeof *cls)))
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t k = 0; rc == SB_OK && k < n; k++) {
        if (sb_rg_family_member(m[k].verdict, m[k].old_commit, m[k].p))
            fam[nfam++] = &m[k];
        if (m[k].drift_class)
            cls[ncls++] = m[k].drift_class;
    }
    if (rc == SB_OK && nfam)
        qsort(fam, nfam, sizeof *fam, cmp_family);
    for (size_t a = 0; rc == SB_OK && a < nfam;) {
        size_t b = a + 1;
        while (b < nfam && fam[b]->old_commit == fam[a]->old_commit && fam[b]->new_commit == fam[a]->new_commit)
            b++;
        rc = sb_rg_adjust_family(fam + a, b - a, o->alpha, err);
        a = b;
    }
    /* the members alone, back in (grp, seq) order */
    size_t nm = 0;
    for (size_t k = 0; rc == SB_OK && k < n; k++)
        if (sb_rg_family_member(m[k].verdict, m[k].old_commit, m[k].p))
            m[nm++] = m[k];
    if (rc == SB_OK)
        rc = sb_rg_family_put(db, m, nm, err);
    free(fam);
    free(m);
    if (rc == SB_OK)
        rc = sb_rg_bulk_finish(bulk, err);
    if (rc == SB_OK)
        rc = settle_classes(db, o, cls, ncls, err);
    free(cls);
    return rc;
}

/* The steps an update gives in one batch, at most: the records of more
 * steps than this are never held at once. */
#define UPDATE_BATCH_STEPS 1024

/* Answers what u asks from db until it gives its next batch (*w NULL
 * after the last). */
static int update_batch(sb_db *db, sb_rg_update *u, const sb_rg_writes **w, sb_error *err)
{
    sb_rg_answer a = {0};
    const sb_rg_ask *ask;
    int rc = sb_rg_update_next(u, UPDATE_BATCH_STEPS, NULL, &ask, w, err);
    while (rc == SB_OK && ask) {
        rc = sb_rg_answer_read(db, ask, &a, err);
        if (rc == SB_OK)
            rc = sb_rg_update_next(u, UPDATE_BATCH_STEPS, &a, &ask, w, err);
        sb_rg_answer_free(&a);
    }
    /* what the update finds wrong in the stored steps is in db */
    if (rc != SB_OK)
        sb_error_set_file(err, sb_db_path(db));
    return rc;
}

/* What an update of db's stored steps starts from (sb_rg_update_basis);
 * the stored commits and groups only where the steps do not hold. */
static int update_basis(sb_db *db, const sb_rg_opts *o, sb_rg_update_basis *b, sb_error *err)
{
    memset(b, 0, sizeof *b);
    sb_rg_stored s;
    int fresh = 0, rc = sb_rg_stored_read(db, 0, &s, err);
    if (rc == SB_OK) {
        b->then = s.then;
        b->now = s.now;
        b->found = s.found;
        rc = sb_rg_fresh(&s, o, &fresh, err);
    }
    sb_rg_stored_free(&s);
    if (rc != SB_OK || fresh)
        return rc;
    rc = sb_rg_runs_after(db, b->then.last_run, &b->added, &b->sessions, err);
    if (rc == SB_OK)
        rc = sb_rg_commits_read(db, &b->commits, &b->ncommits, err);
    if (rc == SB_OK)
        rc = sb_rg_groups_read(db, &b->groups, &b->ngroups, err);
    return rc;
}

/* Stores what *u gives (its database's transaction open), a batch at a
 * time: the names, the groups' steps; then frees *u, whose runs are read
 * no more (settling every step takes the memory they held), settles the
 * families and classes the steps change and stores the basis. */
static int store_update(sb_db *db, const sb_rg_opts *o, sb_rg_update **u, sb_rg_update_info *info, sb_error *err)
{
    const sb_rg_writes *w = NULL;
    int rc = update_batch(db, *u, &w, err);
    sb_rg_update_info_get(*u, info);
    if (rc != SB_OK || !w)
        return rc;
    sb_rg_bulk *bulk = NULL;
    write_ids ids = {0};
    sb_rg_state state = w->state;
    rc = w->clear ? sb_rg_clear(db, err) : SB_OK;
    if (rc == SB_OK && w->clear)
        rc = sb_rg_bulk_open(db, &bulk, err);
    while (rc == SB_OK && w) {
        rc = store_names(db, w, &ids, err);
        if (rc == SB_OK)
            rc = store_groups(db, w, &ids, bulk, err);
        if (rc == SB_OK)
            rc = update_batch(db, *u, &w, err);
    }
    write_ids_free(&ids);
    sb_rg_update_free(*u);
    *u = NULL;
    if (rc == SB_OK)
        rc = bulk ? settle_all(db, o, bulk, err) : settle_stored(db, o, err);
    sb_rg_bulk_close(bulk);
    if (rc == SB_OK)
        rc = sb_rg_state_write(db, &state, err);
    return rc;
}

int sb_site_rg_update(sb_db *db, const sb_rg_opts *o, const sb_rg_aa *aa, sb_rg_update_info *info, sb_error *err)
{
    memset(info, 0, sizeof *info);
    if (sb_db_begin(db, err) != SB_OK)
        return SB_ERR;
    sb_rg_update_basis b;
    sb_rg_update *u = NULL;
    int rc = update_basis(db, o, &b, err);
    if (rc == SB_OK)
        rc = sb_rg_update_open(o, aa, &b, &u, err);
    sb_rg_commits_free(b.commits, b.ncommits);
    sb_rg_groups_free(b.groups, b.ngroups);
    if (rc == SB_OK)
        rc = store_update(db, o, &u, info, err);
    sb_rg_update_free(u);
    if (rc == SB_OK)
        return sb_db_commit(db, err);
    sb_db_rollback(db);
    memset(info, 0, sizeof *info);
    return SB_ERR;
}
