/* site_parts.h - what the parts of the site builder (site_*.c) share:
 * the build context, the page writer and small HTML helpers
 * (site_parts.c), and each part's entry. The build (site.c) drives the
 * parts; the parts never call the build. Not installed. */
#ifndef SOLBOOK_SITE_PARTS_H
#define SOLBOOK_SITE_PARTS_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>

#include "file_name.h"
#include "geomean.h"
#include "regress.h"
#include "results.h"
#include "sessions.h"
#include "site_opts.h"
#include "site_rg.h"
#include "sku.h"
#include "snapshot.h"
#include "store.h"
#include "strbuf.h"
#include "template.h"

/* A commit of the site's runs as the history charts place it: its git
 * ordinal and commit time from the commits table (db/commits.h), its rank
 * in the order first measured (sb_rg_order) and when that was. */
typedef struct site_commit {
    const char *sha;        /* points into the result set */
    long long git;          /* ordinal in the commits table; -1: not there */
    long long committed_at; /* Unix seconds; -1: not in the commits table */
    long rank;              /* sb_rg_order_rank */
    long long first;        /* earliest finished_epoch of its runs */
} site_commit;

typedef struct site_commits {
    site_commit *v; /* sorted by SHA */
    size_t n;
} site_commits;

/* A page group's fingerprint: the SHA-256 of what it is rendered from
 * (site_manifest.c). key names the group: "runs/G", "history/CASE-SKU". */
#define SITE_FP_SIZE 65
typedef struct site_fp {
    char *key;
    char fp[SITE_FP_SIZE];
} site_fp;
typedef struct site_fps {
    site_fp *v;
    size_t n, cap;
} site_fps;

/* The connections the site's other threads read with: opened together
 * with the first (sb_bulk_readers_open), so that every page is made from
 * one state of the database however many runs are stored meanwhile, and
 * handed out by site_ctx_clone. As many as the threads that clone: the run
 * pages (twice, when their work is split), the packets and the weekly
 * writeups. */
#define SITE_SPARE_READERS 4
typedef struct site_readers {
    pthread_mutex_t lock;
    sb_db *spare[SITE_SPARE_READERS];
    size_t n;
} site_readers;

typedef struct site_ctx {
    const sb_site_opts *o;
    sb_site_summary *sum;
    sb_db *db;
    site_readers *readers;     /* the clones' connections, shared by every context */
    const sb_snapshot *snap;   /* the cards' calibrations, shared read-only by the clones */
    sb_sku_table *skus;
    sb_template *layout;       /* data/templates/site/layout.html.tmpl */
    sb_template *runs_page;    /* data/templates/site/runs-page.html.tmpl */
    json_t *layout_data;       /* reused for every page */
    sb_result_set set;         /* every result run */
    sb_result_set session_set; /* every run of measuring sessions (the weekly writeups) */
    sb_pick *picks;            /* newest run per case, provider, SKU */
    size_t npicks;
    sb_geo_table geo;
    sb_rg_read rg_read;        /* the cards and git ordinals of set's runs, which walks take */
    sb_rg_list rg;             /* every commit against the one before (sb_site_rg_history) */
    sb_rg_order order;         /* commits in the order first measured */
    site_commits commits;      /* their git order and dates (site_commits_build) */
    sb_rg_opts rg_opts;
    sb_rg_aa *rg_aa;           /* the A/A noise of the database's sessions, which every walk takes */
    size_t page_rows;
    char out[4096];
    char lastdir[4096];        /* the folder site_write made last */
    const char *last_nav;      /* nav flags currently set in layout_data */
    sb_session_runs session_runs; /* the measuring sessions (--sessions, else the database) */
    sb_session_report sessions;   /* SB_PROJECT_PROVIDER paired with every other provider */
    char old_dir[4096];        /* the earlier site being replaced */
    const site_fps *old;       /* its manifest, sorted; NULL or empty: nothing is taken over */
    site_fps fps;              /* the groups this context built or took over */
    int fps_failed;            /* out of memory merging a clone's fps */
    char build_key[SITE_FP_SIZE];
} site_ctx;

/* The provider whose paired speedups the op pages show. */

/* Writes bytes to OUT/rel (folders made as needed), counting the file. */
int site_write(site_ctx *c, const char *rel, const char *data, size_t len, sb_error *err);
/* Makes the folder of the file at path (under OUT), unless it is the
 * one made last. */
int site_make_dir(site_ctx *c, char *path, sb_error *err);
/* Counts a file of len bytes at rel as written (pages, files, largest). */
void site_count_file(site_ctx *c, const char *rel, size_t len);

/* The manifest of page groups and taking groups over from the earlier
 * site (site_manifest.c). site_manifest_open computes c->build_key and,
 * where the earlier site (c->old_dir) was built with the same key, reads
 * its manifest into old. */
int site_manifest_open(site_ctx *c, int earlier_site, site_fps *old, sb_error *err);
/* Writes c->fps, sorted, as OUT/.solbook-manifest. */
int site_manifest_write(site_ctx *c, sb_error *err);
int site_fps_add(site_fps *s, const char *key, const char *fp);
int site_fps_merge(site_fps *into, site_fps *from); /* frees from */
void site_fps_free(site_fps *s);
/* The SHA-256 of inputs as hex. */
int site_fp_hex(const sb_buf *inputs, char fp[SITE_FP_SIZE], sb_error *err);
/* 1: the earlier site has group key with fingerprint fp. */
int site_fp_unchanged(const site_ctx *c, const char *key, const char *fp);
/* The earlier site's key that starts with prefix and has fingerprint
 * fp (a key can carry what a group's page elsewhere needs of it, as a
 * week's counts for the weekly index); NULL: none. */
const char *site_fp_find(const site_ctx *c, const char *prefix, const char *fp);
/* Links the earlier site's file rel into the new one; *found = 0 when the
 * earlier site has none (nothing done). */
int site_take_over(site_ctx *c, const char *rel, int *found, sb_error *err);

/* Renders the layout around body and writes OUT/rel. depth is the number
 * of folders rel is under (for relative links to the root); nav names the
 * menu entry to mark as current ("overview", "ops", "runs", ...). */
int site_page(site_ctx *c, const char *rel, int depth, const char *nav, const char *title,
              const sb_buf *body, sb_error *err);

/* Appends data/templates/site/NAME rendered with data, every {{value}}
 * HTML-escaped (the page wording is in the template; data never becomes
 * markup). */
int site_render(const char *name, const json_t *data, sb_buf *out, sb_error *err);

/* "../" depth times. */
void site_root(sb_buf *b, int depth);

/* HTML-escaped text, as sb_enc_xml_text writes it (faster). */
void site_esc(sb_buf *b, const char *s);
/* HTML-escaped text; NULL writes the placeholder "–" (unknown). */
void site_h(sb_buf *b, const char *s);
/* A number cell value: %.4g-like fixed figures (sb_fmt_sig3), "–" for NAN. */
void site_num(sb_buf *b, double v);
/* A status label with its class: <span class="st st-passed">passed</span>. */
void site_status(sb_buf *b, const char *cls, const char *text);
/* svg without its XML declaration (for inline use in HTML). */
const char *site_svg_element(const sb_buf *svg);
/* Appends svg without its XML declaration, in a figure. */
void site_inline_svg(sb_buf *b, const sb_buf *svg);

/* Fast appenders for the many small figures of run pages: one format pass
 * (sb_buf_printf formats twice), integers and 1-decimal coordinates without
 * printf at all. */
void site_printf(sb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void site_put_ll(sb_buf *b, long long v);
void site_put_coord(sb_buf *b, double v); /* like %.1f without a trailing ".0" */

/* File names (names from data: core/file_name.h). Runs go
 * SITE_RUNS_PER_PAGE to a page by id: runs/G.html, G = id /
 * SITE_RUNS_PER_PAGE, each run a row with anchor rID (site_runs.c). */
#define SITE_RUNS_PER_PAGE 100
long long site_run_page(long long run_id);
void site_run_path(char *buf, size_t size, long long run_id); /* runs/G.html#rID */
void site_case_id(const char *case_key, char *buf, size_t size);               /* hash */
void site_history_path(char *buf, size_t size, const char *case_key, const char *sku,
                       size_t page);                        /* history/CASE-SKU[~pN].html */
void site_op_path(char *buf, size_t size, const char *op);                     /* ops/OP.html */

/* Pager links: "page 3 of 9" with first/prev/next/last; name_fn builds the
 * file name of page i (1-based) relative to the page's folder. */
typedef void (*site_page_name_fn)(char *buf, size_t size, size_t page, const void *arg);
void site_pager(sb_buf *b, size_t page, size_t pages, site_page_name_fn fn, const void *arg);
/* The pager of a page of a listing that grows at its end: "page 3",
 * first/prev, and next where more pages follow (more), but no page count
 * and no last page, so that the page reads the same once pages are
 * added after it. */
void site_pager_open(sb_buf *b, size_t page, int more, site_page_name_fn fn, const void *arg);

/* The pages of a listing keyed by two names (a case and a SKU, an op and
 * a SKU): path gives page i's path from the site root, and
 * site_keyed_page_name, a site_page_name_fn taking a site_keyed_pages,
 * its file name. */
typedef void (*site_keyed_path_fn)(char *buf, size_t size, const char *a, const char *b,
                                   size_t page);
typedef struct site_keyed_pages {
    site_keyed_path_fn path;
    const char *a, *b;
} site_keyed_pages;
void site_keyed_page_name(char *buf, size_t size, size_t page, const void *arg);

/* A context for another thread: the same options, data and template, its
 * own connection, layout data, folder cache and counts (in sum). Release
 * merges the counts into c's summary and closes the connection. */
int site_ctx_clone(const site_ctx *c, site_ctx *out, sb_site_summary *sum, sb_error *err);
void site_ctx_release(site_ctx *c, site_ctx *clone);

/* The commits of set's runs ("unknown" left out), with ord's ranks and
 * the commits table's ordinals and times (site_chart.c). */
int site_commits_build(sb_db *db, const sb_result_set *set, const sb_rg_order *ord,
                       site_commits *out, sb_error *err);
const site_commit *site_commits_find(const site_commits *cm, const char *sha);
void site_commits_free(site_commits *cm);

/* The history chart of one case on one SKU (site_chart.c), drawn inline
 * and styled by assets/site.css: runs are every run of the case on the
 * SKU (any provider, any order), cm the commits, steps the verdict rows
 * whose new run may be among runs, sorted by new_run->run_id
 * (sb_history_sort_steps). Commits go along x in git order where the
 * commits table knows every commit drawn (*git_order = 1; may be NULL),
 * else in the order first measured (0). *points gets the points drawn
 * (0: nothing passed at a known commit; then nothing is written). */
void site_history_chart(const sb_result *const *runs, size_t n, const site_commits *cm,
                        const sb_rg_row *const *steps, size_t nsteps, const char *title,
                        sb_buf *out, size_t *points, int *git_order);

/* The address of commit sha in the repository (--repo-url:
 * URL/commit/SHA) into buf, or "" without a URL or for a SHA that is not
 * 40 hex digits (site_history.c). */
void site_commit_href(const site_ctx *c, const char *sha, char *buf, size_t size);

/* Compares a and b with digit runs read as numbers: "M=16384" before
 * "M=131072", "N=8" before "N=64". */
int site_natural_cmp(const char *a, const char *b);

/* The reading order of cases in tables: mode, dtype, params, then shape
 * by its numbers (site_natural_cmp). */
typedef struct site_case {
    const char *mode, *dtype, *params_json, *shape_key; /* params_json may be NULL */
} site_case;
int site_case_cmp(const site_case *a, const site_case *b);

/* A case's params (a JSON object) as "key=value" words in key order;
 * nothing for none. */
void site_params_text(const char *params_json, sb_buf *out);

/* Speedup by shape of op (on one SKU, or every SKU when sku is NULL):
 * the section rendered from data/templates/site/speedup.html.tmpl into out
 * (site_speedup.c). */
int site_speedup_section(const site_ctx *c, const char *op, const char *sku, sb_buf *out, sb_error *err);

/* Rendered Markdown (cmark-gfm's HTML, sb_markdown_to_html) into out with
 * every run id it cites linked to its run page (root: the way back to the
 * site's top folder, "../"): table cells under a head "run", "old run" or
 * "new run" that are one number, cells under "runs" that list two or
 * more, and "run N" and "run N to M" in text outside links and code
 * (site_markdown.c). */
void site_link_runs(const char *html, const char *root, sb_buf *out);

/* weekly/NAME-appendix.html (and -appendix-N.html): the appendix
 * Markdown at md_path as pages of the site, run ids linked, cut at block
 * boundaries (a long table between rows, its head repeated) so that each
 * page stays under the size budget; *pages gets their number
 * (site_markdown.c). */
int site_weekly_appendix(site_ctx *c, const char *name, const char *md_path, size_t *pages,
                         sb_error *err);

/* The parts. */
int site_build_runs(site_ctx *c, sb_error *err);      /* site_runs.c */
int site_build_history(site_ctx *c, sb_error *err);   /* site_history.c */
int site_build_regressions(site_ctx *c, sb_error *err); /* site_regress.c */
int site_build_plausibility(site_ctx *c, sb_error *err); /* site_plausible.c */
int site_build_ops(site_ctx *c, sb_error *err);       /* site_ops.c */
int site_build_overview(site_ctx *c, sb_error *err);  /* site_ops.c */
int site_build_weekly(site_ctx *c, sb_error *err);    /* site_docs.c */
int site_build_packets(site_ctx *c, sb_error *err);   /* site_docs.c */
int site_build_registry(site_ctx *c, sb_error *err);  /* site_docs.c */
int site_build_ledger(site_ctx *c, sb_error *err);    /* site_docs.c */
int site_build_roadmap(site_ctx *c, sb_error *err);   /* site_docs.c */

#endif
