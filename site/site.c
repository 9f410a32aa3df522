/* site.c - `solbook site`: the build and its output folder; the build
 * drives the parts (site_*.c), which share site_parts.h. */
#include "site.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "bulk_reader.h"
#include "encode.h"
#include "home.h"
#include "results_query.h"
#include "plausible.h"
#include "site_plaus.h"
#include "site_rg.h"
#include "json_file.h"
#include "staged_dir.h"
#include "repro.h"
#include "snapshot_read.h"
#include "site_parts.h"

#define MARKER ".solbook-site"
#define MARKER_TEXT "solbook site: this folder is rebuilt by `solbook site`\n"

/* ---- the output folder ----------------------------------------------- */

/* The folder must not exist, be empty, or hold an earlier site (marker
 * file). The site is built beside it and replaces it whole
 * (core/staged_dir.h), so no page of an older build survives and a failed
 * build leaves the earlier site as it was. */
static int check_out(const char *dir, int *earlier, sb_error *err)
{
    struct stat st;
    *earlier = 0;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
        return SB_OK;
    }
    if (!S_ISDIR(st.st_mode))
        return sb_error_set(err, dir, NULL, "exists and is not a directory");
    DIR *d = opendir(dir);
    if (!d)
        return sb_error_set(err, dir, NULL, "cannot read: %s", strerror(errno));
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    if (empty)
        return SB_OK;
    char marker[4608];
    snprintf(marker, sizeof marker, "%s/%s", dir, MARKER);
    if (access(marker, F_OK) != 0)
        return sb_error_set(err, dir, NULL,
                            "not empty and not an earlier site (no %s file); give a new folder",
                            MARKER);
    *earlier = 1;
    return SB_OK;
}

static int copy_asset(site_ctx *c, const char *name, sb_error *err)
{
    char rel[256], path[4096];
    snprintf(rel, sizeof rel, "templates/site/%s", name);
    if (sb_data_path(path, sizeof path, rel, err) != SB_OK)
        return SB_ERR;
    char *data = NULL;
    size_t len = 0;
    if (sb_file_read_all(path, &data, &len, err) != SB_OK)
        return SB_ERR;
    snprintf(rel, sizeof rel, "assets/%s", name);
    int rc = site_write(c, rel, data, len, err);
    free(data);
    return rc;
}

/* ---- the build --------------------------------------------------------- */

/* A part of the site built on a thread of its own, with its own context
 * (connection, layout data, counts). The weekly writeups only touch
 * weekly/ and the packets only packets/, so they run beside the pages
 * that the main thread writes. They start once the result set is loaded
 * and pick their runs from it (it is only read from then on) instead of
 * reading them from the database again for each week and packet. */
typedef struct side_job {
    site_ctx c;
    sb_site_summary sum;
    int (*build)(site_ctx *c, sb_error *err);
    sb_error err;
    int rc;
    int started;   /* 1: a thread runs it; 0: it runs at side_finish */
    pthread_t th;
} side_job;

static void *side_main(void *arg)
{
    side_job *j = arg;
    j->rc = j->build(&j->c, &j->err);
    return NULL;
}

/* Starts build on a thread (on this one at side_finish when SQLite has no
 * thread support). NULL: out of memory, or the clone failed (in err). */
static side_job *side_start(site_ctx *c, int (*build)(site_ctx *, sb_error *), sb_error *err)
{
    side_job *j = calloc(1, sizeof *j);
    if (!j) {
        sb_error_set(err, NULL, NULL, "out of memory");
        return NULL;
    }
    if (site_ctx_clone(c, &j->c, &j->sum, err) != SB_OK) {
        free(j);
        return NULL;
    }
    j->build = build;
    if (sb_bulk_readers_threaded()) {
        int e = pthread_create(&j->th, NULL, side_main, j);
        if (e != 0) {
            site_ctx_release(c, &j->c);
            free(j);
            sb_error_set(err, NULL, NULL, "cannot start a thread: %s", strerror(e));
            return NULL;
        }
        j->started = 1;
    }
    return j;
}

/* Waits for the job (or runs it, when ok and it has no thread), merges its
 * counts into c and frees it. Returns ok, or SB_ERR with the job's error
 * in err when the job failed. */
static int side_finish(site_ctx *c, side_job *j, int ok, sb_error *err)
{
    if (!j)
        return ok;
    if (j->started)
        pthread_join(j->th, NULL);
    else if (ok == SB_OK)
        side_main(j);
    else
        j->rc = SB_OK;
    site_ctx_release(c, &j->c);
    if (ok == SB_OK && j->rc != SB_OK) {
        *err = j->err;
        ok = SB_ERR;
    }
    free(j);
    return ok;
}

/* The measuring sessions' paired speedups (report/sessions.h), at 95%
 * with a 2% floor on verdicts, as `solbook session` computes them. */
static int load_sessions(site_ctx *c, sb_error *err)
{
    /* the site's own database in its read transaction, as every page
     * reads it; a sessions database of its own where one is named */
    sb_db *own = NULL;
    if (c->o->sessions_path && sb_db_open(c->o->sessions_path, SB_DB_READ, &own, err) != SB_OK)
        return SB_ERR;
    int rc = sb_site_plaus_session_runs(own ? own : c->db, NULL, 0, NULL, &c->session_runs, err);
    sb_db_close(own);
    if (rc != SB_OK)
        return SB_ERR;
    if (sb_session_compare(&c->session_runs, SB_PROJECT_PROVIDER, SB_HEADLINE_LEVEL, SB_HEADLINE_FLOOR,
                           &c->sessions, err) != SB_OK)
        return SB_ERR;
    /* the walk's thresholds take the A/A noise of the site's own
     * database, whose runs are those just read unless --sessions named
     * another */
    if (c->o->sessions_path)
        return sb_site_rg_aa(c->db, &c->rg_opts, &c->rg_aa, err);
    return sb_rg_aa_new(&c->session_runs, &c->rg_opts, &c->rg_aa, err);
}

int sb_site_build(const sb_site_opts *o, sb_site_summary *sum, sb_error *err)
{
    memset(sum, 0, sizeof *sum);
    site_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.sum = sum;
    c.page_rows = o->page_rows ? o->page_rows : 200;
    c.rg_opts.alpha = 0.01;
    c.rg_opts.min_effect = 0.03;
    if (o->repo_url && *o->repo_url && !sb_url_link_safe(o->repo_url))
        return sb_error_set(err, NULL, NULL,
                            "repository URL '%s': expected an http(s) address of URL characters only "
                            "(no spaces, quotes, brackets, '|' or parentheses)",
                            o->repo_url);
    c.rg_opts.repo_url = o->repo_url && *o->repo_url ? o->repo_url : NULL;
    if ((size_t)snprintf(c.out, sizeof c.out, "%s", o->out_dir) >= sizeof c.out)
        return sb_error_set(err, o->out_dir, NULL, "path too long");
    size_t ol = strlen(c.out);
    while (ol > 1 && c.out[ol - 1] == '/')
        c.out[--ol] = '\0';

    int rc = SB_ERR;
    sb_staged_dir stage = {0};
    site_fps old = {0};
    sb_snapshot *snap = NULL;
    site_readers readers = {.n = SITE_SPARE_READERS};
    sb_db *dbs[1 + SITE_SPARE_READERS];
    if (sb_bulk_readers_open(o->db_path, dbs, 1 + SITE_SPARE_READERS, err) != SB_OK)
        return SB_ERR;
    c.db = dbs[0];
    memcpy(readers.spare, dbs + 1, sizeof readers.spare);
    pthread_mutex_init(&readers.lock, NULL);
    c.readers = &readers;
    if (sb_sku_table_load(NULL, &c.skus, err) != SB_OK || sb_snapshot_read(c.db, c.skus, &snap, err) != SB_OK)
        goto done;
    c.snap = snap;
    if (sb_template_load_home("site/layout.html.tmpl", &c.layout, err) != SB_OK ||
        sb_template_load_home("site/runs-page.html.tmpl", &c.runs_page, err) != SB_OK)
        goto done;
    /* The data files are checked before anything is written. */
    {
        char rp[4096], lp[4096];
        if (!o->roadmap_path && sb_data_path(rp, sizeof rp, "roadmap.json", err) != SB_OK)
            goto done;
        if (!o->ledger_path && sb_data_path(lp, sizeof lp, "contributions.csv", err) != SB_OK)
            goto done;
        if (sb_site_check_roadmap(o->roadmap_path ? o->roadmap_path : rp, err) != SB_OK ||
            sb_site_check_ledger(o->ledger_path ? o->ledger_path : lp, err) != SB_OK)
            goto done;
    }
    c.layout_data = json_object();
    if (!c.layout_data) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    int earlier = 0;
    memcpy(c.old_dir, c.out, sizeof c.old_dir);
    if (check_out(c.out, &earlier, err) != SB_OK ||
        site_manifest_open(&c, earlier, &old, err) != SB_OK ||
        sb_staged_dir_open(&stage, c.out, SB_STAGE_SWAP, err) != SB_OK)
        goto done;
    c.old = &old;
    /* every page is written into the stage */
    snprintf(c.out, sizeof c.out, "%s", stage.stage);
    if (site_write(&c, MARKER, MARKER_TEXT, strlen(MARKER_TEXT), err) != SB_OK ||
        copy_asset(&c, "site.css", err) != SB_OK || copy_asset(&c, "sort.js", err) != SB_OK)
        goto done;
    /* The run pages read only the database: they are written on threads
     * of their own while this one loads and analyses the result set. */
    side_job *runs = side_start(&c, site_build_runs, err), *weekly = NULL, *packets = NULL;
    int mrc = runs ? SB_OK : SB_ERR;
    if (mrc != SB_OK || sb_results_load(c.db, NULL, &c.set, err) != SB_OK ||
        sb_results_load_sessions(c.db, &c.session_set, err) != SB_OK ||
        sb_site_plaus_mark(c.db, &c.set, err) != SB_OK ||
        sb_picks_latest(&c.set, &c.picks, &c.npicks, err) != SB_OK ||
        load_sessions(&c, err) != SB_OK ||
        !(packets = side_start(&c, site_build_packets, err)) ||
        sb_geo_compute(&c.set, c.picks, c.npicks, o->baseline, &c.geo, err) != SB_OK ||
        /* the whole history's walk fills the memo, which the weekly
         * writeups' walks up to each older week's end read (regress.h) */
        sb_rg_memo_new(&c.rg_opts.memo, err) != SB_OK || sb_site_rg_inputs(c.db, &c.set, &c.rg_read, err) != SB_OK ||
        sb_site_rg_history(c.db, &c.set, &(const sb_rg_inputs){&c.rg_read.dev, &c.rg_read.git}, &c.rg_opts,
                           c.rg_aa, &c.rg, err) != SB_OK ||
        (sb_rg_memo_freeze(c.rg_opts.memo), 0) ||
        sb_rg_order_build(&c.set, &c.order, err) != SB_OK ||
        site_commits_build(c.db, &c.set, &c.order, &c.commits, err) != SB_OK ||
        !(weekly = side_start(&c, site_build_weekly, err)) ||
        site_build_overview(&c, err) != SB_OK || site_build_ops(&c, err) != SB_OK ||
        site_build_history(&c, err) != SB_OK ||
        site_build_regressions(&c, err) != SB_OK || site_build_plausibility(&c, err) != SB_OK ||
        site_build_registry(&c, err) != SB_OK || site_build_ledger(&c, err) != SB_OK ||
        site_build_roadmap(&c, err) != SB_OK)
        mrc = SB_ERR;
    mrc = side_finish(&c, packets, mrc, err);
    mrc = side_finish(&c, weekly, mrc, err);
    mrc = side_finish(&c, runs, mrc, err);
    if (mrc == SB_OK && c.fps_failed)
        mrc = sb_error_set(err, NULL, NULL, "out of memory");
    if (mrc != SB_OK || site_manifest_write(&c, err) != SB_OK)
        goto done;
    rc = sb_staged_dir_commit(&stage, err);
done:
    sb_staged_dir_discard(&stage);
    site_fps_free(&old);
    site_fps_free(&c.fps);
    sb_session_report_free(&c.sessions);
    sb_session_runs_free(&c.session_runs);
    sb_rg_free(&c.rg);
    sb_site_rg_inputs_free(&c.rg_read);
    sb_rg_memo_free(c.rg_opts.memo);
    sb_rg_aa_free(c.rg_aa);
    sb_rg_order_free(&c.order);
    site_commits_free(&c.commits);
    sb_geo_free(&c.geo);
    free(c.picks);
    sb_results_free(&c.session_set);
    sb_results_free(&c.set);
    json_decref(c.layout_data);
    sb_template_free(c.layout);
    sb_template_free(c.runs_page);
    sb_sku_table_free(c.skus);
    sb_snapshot_free(snap);
    sb_db_close(c.db);
    while (readers.n)
        sb_db_close(readers.spare[--readers.n]);
    pthread_mutex_destroy(&readers.lock);
    return rc;
}
