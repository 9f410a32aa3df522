/* packet.c - upstream discussion packets (packet.h). */
#include "packet.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "file_set.h"
#include "geomean.h"
#include "geomean_render.h"
#include "json_file.h"
#include "packet_findings.h"
#include "repro.h"
#include "result_filter.h"
#include "results.h"
#include "sha256.h"
#include "stats.h"
#include "tarball.h"
#include "template.h"
#include "training_render.h"

const char *const sb_packet_targets[] = {"liger", "vllm",  "triton", "pytorch", "cutlass",
                                         "onnxruntime", "jax", "tilelang", NULL};

static const struct {
    const char *target, *project, *subject;
} PROJECTS[] = {
    {"liger", "Liger-Kernel", "liger"}, {"vllm", "vLLM", NULL},
    {"triton", "Triton", NULL},         {"pytorch", "PyTorch", NULL},
    {"cutlass", "CUTLASS", NULL},       {"onnxruntime", "ONNX Runtime", NULL},
    {"jax", "JAX", NULL},               {"tilelang", "TileLang", NULL},
};

const char *sb_packet_project(const char *target)
{
    for (size_t i = 0; i < sizeof PROJECTS / sizeof PROJECTS[0]; i++)
        if (strcmp(PROJECTS[i].target, target) == 0)
            return PROJECTS[i].project;
    return target;
}

const char *sb_packet_subject(const char *target)
{
    for (size_t i = 0; i < sizeof PROJECTS / sizeof PROJECTS[0]; i++)
        if (strcmp(PROJECTS[i].target, target) == 0)
            return PROJECTS[i].subject;
    return NULL;
}

int sb_packet_target_known(const char *target)
{
    for (size_t i = 0; sb_packet_targets[i]; i++)
        if (strcmp(sb_packet_targets[i], target) == 0)
            return 1;
    return 0;
}

/* The stored document of run_id among those handed over; NULL when the
 * caller did not read it. */
static const sb_buf *doc_of(const sb_packet_docs *d, int64_t run_id)
{
    for (size_t i = 0; d && i < d->n; i++)
        if (d->ids[i] == run_id)
            return &d->docs[i];
    return NULL;
}

static int raw_json_of(const sb_packet_docs *d, int64_t run_id, sb_buf *out, sb_error *err)
{
    const sb_buf *doc = doc_of(d, run_id);
    if (!doc)
        return sb_error_set(err, NULL, NULL, "run %lld: its stored document was not handed to the packet",
                            (long long)run_id);
    sb_buf_add(out, sb_buf_str(doc), doc->len);
    if (out->len == 0 || sb_buf_str(out)[out->len - 1] != '\n')
        sb_buf_putc(out, '\n');
    return SB_OK;
}

typedef struct manifest_entry {
    char rel[512];
    char hex[SB_SHA256_HEX_LEN + 1];
} manifest_entry;

static int me_cmp(const void *a, const void *b)
{
    return strcmp(((const manifest_entry *)a)->rel, ((const manifest_entry *)b)->rel);
}

/* Adds rel to the packet's files and records its digest. */
static int put_file(sb_file_set *fs, const char *rel, const sb_buf *b, int executable, manifest_entry *m,
                    size_t *nm, sb_error *err)
{
    if (sb_file_set_add(fs, rel, b, executable, err) != SB_OK)
        return SB_ERR;
    snprintf(m[*nm].rel, sizeof m[*nm].rel, "%s", rel);
    if (sb_sha256_hex(sb_buf_str(b), b->len, m[*nm].hex, err) != SB_OK)
        return SB_ERR;
    (*nm)++;
    return SB_OK;
}

/* data.tar.gz: the stored documents of runs ids[0..n) as
 * data/results/run-ID.json, with data/MANIFEST.sha256. */
static int add_archive(const sb_packet_docs *rd, sb_file_set *fs, const int64_t *ids, size_t n, manifest_entry *man,
                         size_t *nman, sb_error *err)
{
    sb_tarball *tb = NULL;
    sb_buf inner = SB_BUF_INIT, gz = SB_BUF_INIT, b = SB_BUF_INIT;
    int ok = sb_tarball_new(&tb, err) == SB_OK;
    for (size_t i = 0; ok && i < n; i++) {
        char hex[SB_SHA256_HEX_LEN + 1], rel[64], entry[600];
        snprintf(rel, sizeof rel, "results/run-%lld.json", (long long)ids[i]);
        snprintf(entry, sizeof entry, "%s/%s", SB_PACKET_DATA_DIR, rel);
        sb_buf_reset(&b);
        ok = raw_json_of(rd, ids[i], &b, err) == SB_OK &&
             sb_sha256_hex(sb_buf_str(&b), b.len, hex, err) == SB_OK &&
             sb_tarball_add(tb, entry, sb_buf_str(&b), b.len, err) == SB_OK;
        if (ok)
            sb_buf_printf(&inner, "%s  %s\n", hex, rel);
    }
    if (ok) {
        char entry[600];
        snprintf(entry, sizeof entry, "%s/MANIFEST.sha256", SB_PACKET_DATA_DIR);
        ok = sb_tarball_add(tb, entry, sb_buf_str(&inner), inner.len, err) == SB_OK &&
             sb_tarball_finish(tb, &gz, err) == SB_OK &&
             put_file(fs, SB_PACKET_DATA_DIR ".tar.gz", &gz, 0, man, nman, err) == SB_OK;
    }
    sb_tarball_free(tb);
    sb_buf_free(&inner);
    sb_buf_free(&gz);
    sb_buf_free(&b);
    return ok ? SB_OK : SB_ERR;
}

/* MANIFEST.sha256 of the files before it. */
static int add_manifest(sb_file_set *fs, manifest_entry *man, size_t nman, sb_error *err)
{
    qsort(man, nman, sizeof *man, me_cmp);
    sb_buf b = SB_BUF_INIT;
    for (size_t i = 0; i < nman; i++)
        sb_buf_printf(&b, "%s  %s\n", man[i].hex, man[i].rel);
    int rc = sb_file_set_add(fs, "MANIFEST.sha256", &b, 0, err);
    sb_buf_free(&b);
    return rc;
}

/* Comma list of distinct values of one field over the cited picks. */
static void distinct(const sb_pick *p, size_t n, const char *(*get)(const sb_result *),
                     sb_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (!p[i].r->passing)
            continue;
        const char *v = get(p[i].r);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = p[j].r->passing && strcmp(get(p[j].r), v) == 0;
        if (!seen)
            sb_buf_printf(out, "%s%s", out->len ? ", " : "", v);
    }
}

static const char *get_gpu(const sb_result *r) { return r->gpu_name; }
static const char *get_sku(const sb_result *r) { return r->sku; }
static const char *get_driver(const sb_result *r) { return r->driver ? r->driver : "unknown"; }
static const char *get_cuda(const sb_result *r) { return r->cuda ? r->cuda : "unknown"; }
static const char *get_op(const sb_result *r) { return r->op; }

/* What a packet cites, in place (the order kept): not the diagnostic
 * provider unless it is the baseline asked for. */
static void select_picks(sb_pick *picks, size_t *n, const sb_packet_opts *o)
{
    int diag = o->baseline && strcmp(o->baseline, SB_DIAGNOSTIC_PROVIDER) == 0;
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (diag || strcmp(picks[i].r->provider, SB_DIAGNOSTIC_PROVIDER))
            picks[kept++] = picks[i];
    *n = kept;
}

/* The `solbook packet` command that renders this packet again, after
 * prefix: every option given, each value one shell word. */
static void packet_command(sb_buf *b, const char *prefix, const sb_packet_opts *o)
{
    const char *const flags[] = {"--op", "--suite", "--baseline", "--repo"};
    const char *const values[] = {o->op, o->suite, o->baseline, o->repo};
    sb_buf_printf(b, "%s --target ", prefix);
    sb_enc_shell_arg(b, o->target);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (values[i]) {
            sb_buf_printf(b, " %s ", flags[i]);
            sb_enc_shell_arg(b, values[i]);
        }
    sb_buf_puts(b, " --out packet-rerun");
}

/* The claims of a packet of newest runs: each cited run's own figures,
 * and each geomean row over the cited runs of its group on its card. */
static void newest_claims(const sb_geo_table *geo, const sb_result *const *cited, size_t n, sb_claims *c)
{
    int64_t *ids = malloc((n + 1) * sizeof *ids);
    if (!ids) {
        c->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char figure[32];
        snprintf(figure, sizeof figure, "%.4g ms", cited[i]->median_ms);
        int64_t id = cited[i]->run_id;
        sb_claims_add(c, figure, cited[i]->provider, NULL, cited[i]->sku, NULL, &id, 1);
    }
    for (size_t g = 0; g < geo->n; g++) {
        const sb_geo_row *r = &geo->rows[g];
        if (!r->shapes)
            continue;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const sb_result *x = cited[i];
            if (!strcmp(x->op, r->op) && !strcmp(x->mode, r->mode) && !strcmp(x->dtype, r->dtype) &&
                !strcmp(x->sku, r->sku) && (!strcmp(x->provider, r->provider) || !strcmp(x->provider, r->baseline)))
                ids[k++] = x->run_id;
        }
        char figure[32];
        snprintf(figure, sizeof figure, "%.3f", r->geomean);
        sb_claims_add(c, figure, r->provider, r->baseline, r->sku, NULL, ids, k);
    }
    free(ids);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Gives each commit item (`name sha`) a `link` into the repository at
 * repo, where there is one and the SHA is a whole one ("" otherwise). */
static void commit_links(json_t *items, const char *repo)
{
    for (size_t i = 0; i < json_array_size(items); i++) {
        json_t *c = json_array_get(items, i);
        const char *sha = json_string_value(json_object_get(c, "sha"));
        size_t n = sha ? strspn(sha, "0123456789abcdef") : 0;
        sb_buf b = SB_BUF_INIT;
        if (repo && n == 40 && sha[n] == '\0') {
            size_t len = strlen(repo);
            while (len && repo[len - 1] == '/')
                len--;
            sb_buf_printf(&b, "%.*s/commit/%s", (int)len, repo, sha);
        }
        sb_tpl_set_str(c, "link", sb_buf_str(&b));
        sb_buf_free(&b);
    }
}

/* The runs of in of suite (every run where suite is NULL), sharing
 * in's text: free view->v alone. */
static int suite_view(const sb_session_runs *in, const char *suite, sb_session_runs *view, sb_error *err)
{
    view->n = 0;
    view->v = malloc((in->n + 1) * sizeof *view->v);
    if (!view->v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < in->n; i++)
        if (!suite || strcmp(in->v[i].suite, suite) == 0)
            view->v[view->n++] = in->v[i];
    return SB_OK;
}

/* The packet of a target with upstream ops (data/templates/packets/
 * upstream_ops.csv): findings from measuring sessions only
 * (packet_findings.h), the full tables in APPENDIX.md. */
static int build_findings(const sb_packet_opts *o, sb_packet_summary *sum, int *nothing,
                          sb_file_set *fs, int64_t **cited_ids, size_t *ncited_ids, sb_error *err)
{
    int rc = SB_ERR;
    sb_findings f = {0};
    sb_session_runs runs = {0};
    json_t **docs = NULL;
    sb_template *tpl = NULL;
    const sb_result_set *set = o->with_sessions;
    /* training steps only in a packet of a target whose code is a
     * provider, over all its ops */
    const sb_training_set no_training = {0};
    const sb_training_set *tr = sb_packet_subject(o->target) && !o->op && o->training ? o->training : &no_training;
    const sb_result **cited = NULL;
    manifest_entry *man = NULL;
    int64_t *ids = NULL;
    size_t nman = 0, nids = 0, ncited = 0;
    sb_buf body = SB_BUF_INIT, tmp = SB_BUF_INIT, b = SB_BUF_INIT;
    char rel[512];
    snprintf(rel, sizeof rel, "packets/%s.md.tmpl", o->target);
    if (!o->sessions || !set || !o->all)
        return sb_error_set(err, NULL, NULL, "a %s packet takes the sessions' runs and every result run",
                            o->target);
    /* --suite narrows the sessions' cases to those of one preset */
    if (sb_template_load_home(rel, &tpl, err) != SB_OK || suite_view(o->sessions, o->suite, &runs, err) != SB_OK)
        goto done;
    if (sb_findings_build(&runs, o->target, o->op, o->baseline, &f, err) != SB_OK)
        goto done;
    if (f.nfindings == 0) {
        *nothing = 1;
        sb_error_set(err, NULL, NULL,
                     "nothing to cite for a %s packet: no measuring session pairs the fused kernels with "
                     "another provider on an op %s ships%s%s%s%s%s",
                     o->target, sb_packet_project(o->target), o->op ? " (op " : "", o->op ? o->op : "",
                     o->op ? ")" : "", o->suite ? " in suite " : "", o->suite ? o->suite : "");
        goto done;
    }
    /* the cited runs: the sessions' and the training runs */
    ids = malloc((f.nruns + tr->n + 1) * sizeof *ids);
    if (!ids) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    memcpy(ids, f.runs, f.nruns * sizeof *ids);
    nids = f.nruns;
    for (size_t i = 0; i < tr->n; i++)
        ids[nids++] = tr->v[i].run_id;
    qsort(ids, nids, sizeof *ids, cmp_i64);
    if (cited_ids) {
        *cited_ids = ids;
        *ncited_ids = nids;
        ids = NULL;
        rc = SB_OK;
        goto done;
    }
    docs = calloc(f.nsessions + 1, sizeof *docs);
    if (!docs) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < f.nsessions; i++) {
        json_error_t je;
        sb_buf_reset(&b);
        if (raw_json_of(o->docs, f.session_first_run[i], &b, err) != SB_OK)
            goto done;
        docs[i] = json_loads(sb_buf_str(&b), 0, &je);
        if (!docs[i]) {
            sb_error_set(err, NULL, NULL, "run %lld: stored JSON does not parse: %s",
                         (long long)f.session_first_run[i], je.text);
            goto done;
        }
    }
    sb_buf_reset(&b);
    if (sb_findings_describe(&f, &runs, (const json_t *const *)docs, err) != SB_OK)
        goto done;
    json_t *d = f.data;
    sb_tpl_set_str(d, "target", o->target);
    sb_tpl_set_str(d, "project", sb_packet_project(o->target));
    sb_tpl_set_str(d, "repo", o->repo ? o->repo : "");
    commit_links(json_object_get(d, "commit_items"), o->repo);
    sb_evidence_labels_set(d);
    /* Training steps stand on the target's own patches: a packet of a
     * target whose code is a provider, over all its ops. */
    int with_training = 0;
    sb_tpl_set_str(d, "training_md", "");
    sb_tpl_set_str(d, "training_full_md", "");
    if (sb_packet_subject(o->target) && !o->op) {
        sb_training_opts to = {0};
        sb_training_summary ts;
        int trc = SB_OK;
        to.runs = tr;
        to.all = o->all;
        to.claims = &f.claims; /* the body's training figures, verified with the findings' */
        if (trc == SB_OK)
            trc = sb_training_render_pairs_md(&to, &tmp, &ts, err);
        to.claims = NULL;
        with_training = trc == SB_OK && ts.runs > 0;
        sb_tpl_set_str(d, "training_md", sb_buf_str(&tmp));
        sb_buf_reset(&tmp);
        if (trc == SB_OK)
            trc = sb_training_render_md(&to, &tmp, &ts, err);
        if (trc != SB_OK)
            goto done;
        sb_tpl_set_str(d, "training_full_md", sb_buf_str(&tmp));
    }
    json_object_set_new(d, "has_training", json_boolean(with_training));
    json_object_set_new(d, "cited", json_integer((json_int_t)nids));
    sum->cited = nids;
    /* the cited runs as results: the claims check and the packages */
    cited = calloc(nids + 1, sizeof *cited);
    if (!cited) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < set->n; i++) {
        int64_t id = set->v[i].run_id;
        if (bsearch(&id, ids, nids, sizeof *ids, cmp_i64))
            cited[ncited++] = &set->v[i];
    }
    for (size_t i = 0; i < ncited; i++)
        sb_packages_list(cited[i]->packages_json, &b);
    sb_tpl_set_str(d, "packages", b.len ? sb_buf_str(&b) : "none recorded");
    sb_buf_reset(&b);
    if (sb_template_render(tpl, d, SB_TPL_ESCAPE_MARKDOWN, &body, err) != SB_OK)
        goto done;
    sum->body_bytes = body.len;
    if (body.len > SB_PACKET_MAX_BYTES) {
        sb_error_set(err, NULL, NULL, "the %s packet's discussion body would be %zu bytes, over GitHub's %d",
                     o->target, body.len, SB_PACKET_MAX_BYTES);
        goto done;
    }
    {
        /* every figure the findings state rests on cited runs of its
         * providers, card and session */
        const char *paths[] = {o->out_dir, NULL};
        sb_claim_run *cr = sb_claim_runs_of(cited, ncited);
        /* and the training runs, each of its patch ("none": the baseline),
         * card and training session */
        sb_claim_run *all = cr ? realloc(cr, (ncited + tr->n + 1) * sizeof *cr) : NULL;
        if (all) {
            cr = all;
            for (size_t i = 0; i < tr->n; i++)
                cr[ncited + i] = (sb_claim_run){tr->v[i].run_id, tr->v[i].patch_name, tr->v[i].sku,
                                                tr->v[i].session_id};
        } else {
            free(cr);
            cr = NULL;
        }
        int ok = cr && sb_claims_verify(&f.claims, cr, ncited + tr->n, "the packet body", err) == SB_OK;
        if (!cr)
            sb_error_set(err, NULL, NULL, "out of memory");
        free(cr);
        if (!ok || sb_paths_check(paths, sb_buf_str(&body), "the packet body", err) != SB_OK)
            goto done;
    }
    /* reproduce.sh: the address, the sessions' commands, ingest, packet */
    if (o->repo) {
        sb_buf_puts(&b, "git clone ");
        sb_enc_shell_arg(&b, o->repo);
        sb_buf_puts(&b, " solbook\ncd solbook");
    } else {
        sb_buf_puts(&b, "cd \"${SOLBOOK_SRC:?a checkout of the solbook repository}\"");
    }
    sb_tpl_set_str(d, "clone", sb_buf_str(&b));
    sb_buf_reset(&b);
    sb_enc_shell_arg(&b, json_string_value(json_object_get(d, "archs")));
    sb_tpl_set_str(d, "arch", sb_buf_str(&b));
    sb_buf_reset(&b);
    sb_tpl_set_str(d, "commands", sb_buf_str(&f.commands));
    packet_command(&b, ".carry/bin/solbook packet --db packet.db", o);
    sb_tpl_set_str(d, "packet_command", sb_buf_str(&b));
    man = calloc(8 + f.nplots, sizeof *man);
    if (!man) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (add_archive(o->docs, fs, ids, nids, man, &nman, err) != SB_OK ||
        put_file(fs, "DISCUSSION.md", &body, 0, man, &nman, err) != SB_OK)
        goto done;
    for (size_t i = 0; i < f.nplots; i++)
        if (put_file(fs, f.plots[i].file, &f.plots[i].svg, 0, man, &nman, err) != SB_OK)
            goto done;
    /* the appendix and the script, like the body, may name no path of
     * the folder they are published into */
    const char *out_paths[] = {o->out_dir, NULL};
    sb_buf_reset(&b);
    if (sb_render_home("packets/appendix.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, &b, err) != SB_OK ||
        sb_paths_check(out_paths, sb_buf_str(&b), "the packet appendix", err) != SB_OK ||
        put_file(fs, "APPENDIX.md", &b, 0, man, &nman, err) != SB_OK)
        goto done;
    sb_buf_reset(&b);
    if (sb_render_home("packets/reproduce-sessions.sh.tmpl", d, SB_TPL_ESCAPE_SHELL_COMMENT, &b, err) != SB_OK ||
        sb_paths_check(out_paths, sb_buf_str(&b), "the packet's reproduce script", err) != SB_OK ||
        put_file(fs, "reproduce.sh", &b, 1, man, &nman, err) != SB_OK)
        goto done;
    if (add_manifest(fs, man, nman, err) != SB_OK)
        goto done;
    sum->files = nman;
    rc = SB_OK;
done:
    free(cited);
    free(ids);
    free(man);
    sb_buf_free(&body);
    sb_buf_free(&tmp);
    sb_buf_free(&b);
    sb_template_free(tpl);
    for (size_t i = 0; docs && i < f.nsessions; i++)
        json_decref(docs[i]);
    free(docs);
    sb_findings_free(&f);
    free(runs.v);
    return rc;
}

/* Builds the packet into fs; with cited_ids, stops once it knows the runs it
 * cites and hands their ids out there instead (sb_packet_cites). */
static int build(const sb_packet_opts *o, sb_packet_summary *sum, int *nothing,
                 sb_file_set *fs, int64_t **cited_ids, size_t *ncited_ids, sb_error *err)
{
    *nothing = 0;
    if (!sb_packet_target_known(o->target))
        return sb_error_set(err, NULL, NULL,
                            "unknown target '%s' (liger, vllm, triton, pytorch, cutlass, "
                            "onnxruntime, jax, tilelang)",
                            o->target);
    /* the address stands in links and in `git clone`: one rule for it,
     * as the reports and the site have (core/encode.h) */
    if (o->repo && !sb_url_link_safe(o->repo))
        return sb_error_set(err, NULL, NULL,
                            "repository URL '%s' (--repo or $SOLBOOK_REPO): expected an http(s) address of "
                            "URL characters only (no spaces, quotes, brackets, '|' or parentheses)",
                            o->repo);
    int findings = 0;
    if (sb_findings_target(o->target, &findings, err) != SB_OK)
        return SB_ERR;
    if (findings)
        return build_findings(o, sum, nothing, fs, cited_ids, ncited_ids, err);
    int rc = SB_ERR;
    sb_result_set set = {0};
    sb_pick *picks = NULL;
    size_t npicks = 0;
    sb_geo_table geo = {0};
    sb_repro *rp = NULL;
    json_t *d = NULL;
    manifest_entry *man = NULL;
    size_t nman = 0;
    sb_buf b = SB_BUF_INIT, tmp = SB_BUF_INIT;
    sb_template *tpl = NULL;
    const sb_result **cited = NULL;
    char rel[512];

    /* The template first: a missing template is a clear error before any
     * file is written. */
    snprintf(rel, sizeof rel, "packets/%s.md.tmpl", o->target);
    if (sb_template_load_home(rel, &tpl, err) != SB_OK)
        goto done;
    sb_result_filter f = {0};
    f.op = o->op;
    f.suite = o->suite;
    if (sb_results_pick(o->all, &f, &set, err) != SB_OK)
        goto done;
    if (sb_picks_latest(&set, &picks, &npicks, err) != SB_OK)
        goto done;
    select_picks(picks, &npicks, o);
    size_t passing = 0;
    for (size_t i = 0; i < npicks; i++)
        passing += picks[i].r->passing != 0;
    if (passing == 0) {
        *nothing = 1;
        sb_error_set(err, NULL, NULL,
                     "nothing to cite for a %s packet: no passing run%s%s%s%s (%zu runs found, "
                     "none passed correctness)",
                     o->target, o->op ? " of op " : "", o->op ? o->op : "",
                     o->suite ? " in suite " : "", o->suite ? o->suite : "", set.n);
        goto done;
    }
    if (cited_ids) {
        /* the passing picks, in the order the archive holds them */
        if (!(*cited_ids = malloc((passing + 1) * sizeof **cited_ids))) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        *ncited_ids = 0;
        for (size_t i = 0; i < npicks; i++)
            if (picks[i].r->passing)
                (*cited_ids)[(*ncited_ids)++] = picks[i].r->run_id;
        rc = SB_OK;
        goto done;
    }
    if (sb_geo_compute(&set, picks, npicks, o->baseline, &geo, err) != SB_OK)
        goto done;
    if (sb_repro_open(&rp, err) != SB_OK)
        goto done;
    man = calloc(passing + 4, sizeof *man);
    cited = calloc(passing + 1, sizeof *cited);
    d = json_object();
    if (!man || !cited || !d) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    sb_tpl_set_str(d, "target", o->target);
    sb_tpl_set_str(d, "project", sb_packet_project(o->target));
    sb_tpl_set_str(d, "op_filter", o->op ? o->op : "all ops");
    sb_tpl_set_str(d, "evidence_op", SB_EVIDENCE_OP);
    json_t *cites = json_array();
    json_object_set_new(d, "runs", cites);
    sb_buf cmds = SB_BUF_INIT;
    for (size_t i = 0; i < npicks; i++) {
        const sb_result *r = picks[i].r;
        if (!r->passing)
            continue;
        snprintf(rel, sizeof rel, "results/run-%lld.json", r->run_id);
        cited[sum->cited++] = r;
        json_t *c = json_object();
        json_object_set_new(c, "run_id", json_integer(r->run_id));
        sb_tpl_set_str(c, "file", rel);
        sb_tpl_set_str(c, "op", r->op);
        sb_tpl_set_str(c, "mode", r->mode);
        sb_tpl_set_str(c, "dtype", r->dtype);
        sb_tpl_set_str(c, "shape", r->shape_key);
        sb_tpl_set_str(c, "provider", r->provider);
        sb_tpl_set_str(c, "sku", r->sku);
        sb_tpl_set_str(c, "git_sha", r->git_sha);
        char sha12[16];
        snprintf(sha12, sizeof sha12, "%.12s", r->git_sha);
        sb_tpl_set_str(c, "git_sha_short", sha12);
        sb_tpl_set_num(c, "median_ms", "%.4g", r->median_ms);
        sb_tpl_set_num(c, "tflops", "%.4g", r->tflops);
        sb_tpl_set_num(c, "gbps", "%.4g", r->gbps);
        json_array_append_new(cites, c);
        sb_buf line = SB_BUF_INIT;
        if (sb_repro_case(rp, r, &line, err) != SB_OK) {
            sb_buf_free(&line);
            sb_buf_free(&cmds);
            goto done;
        }
        sb_buf_putc(&line, '\n');
        if (!strstr(sb_buf_str(&cmds), sb_buf_str(&line)))
            sb_buf_puts(&cmds, sb_buf_str(&line));
        sb_buf_free(&line);
    }
    /* not cited: counted by state so the reader knows they exist */
    size_t failed = 0, skipped = 0, stale = 0;
    for (size_t i = 0; i < npicks; i++) {
        if (picks[i].r->passing)
            stale += picks[i].stale != 0;
        else if (strcmp(picks[i].r->status, "skipped") == 0)
            skipped++;
        else
            failed++;
    }
    json_object_set_new(d, "cited", json_integer((json_int_t)sum->cited));
    json_object_set_new(d, "not_cited_failed", json_integer((json_int_t)failed));
    json_object_set_new(d, "not_cited_skipped", json_integer((json_int_t)skipped));
    json_object_set_new(d, "stale", json_integer((json_int_t)stale));
    sb_buf_reset(&tmp);
    distinct(picks, npicks, get_gpu, &tmp);
    sb_tpl_set_str(d, "cards", sb_buf_str(&tmp));
    sb_buf_reset(&tmp);
    distinct(picks, npicks, get_sku, &tmp);
    sb_tpl_set_str(d, "skus", sb_buf_str(&tmp));
    sb_buf_reset(&tmp);
    distinct(picks, npicks, get_driver, &tmp);
    sb_tpl_set_str(d, "drivers", sb_buf_str(&tmp));
    sb_buf_reset(&tmp);
    distinct(picks, npicks, get_cuda, &tmp);
    sb_tpl_set_str(d, "cuda", sb_buf_str(&tmp));
    sb_buf_reset(&tmp);
    for (size_t i = 0; i < npicks; i++) {
        char sha12[16];
        snprintf(sha12, sizeof sha12, "%.12s", picks[i].r->git_sha);
        if (picks[i].r->passing && !strstr(sb_buf_str(&tmp), sha12))
            sb_buf_printf(&tmp, "%s%s", tmp.len ? ", " : "", sha12);
    }
    sb_tpl_set_str(d, "commits", sb_buf_str(&tmp));
    sb_buf_reset(&tmp);
    distinct(picks, npicks, get_op, &tmp);
    sb_tpl_set_str(d, "ops", sb_buf_str(&tmp));
    sb_buf_reset(&tmp);
    if (geo.n)
        sb_geo_render_md_cross(&geo, &tmp);
    sb_tpl_set_str(d, "geomean_tables", sb_buf_str(&tmp));
    {
        sb_buf pk = SB_BUF_INIT;
        for (size_t i = 0; i < sum->cited; i++)
            sb_packages_list(cited[i]->packages_json, &pk);
        sb_tpl_set_str(d, "packages", pk.len ? sb_buf_str(&pk) : "none recorded");
        sb_buf_free(&pk);
    }
    json_object_set_new(d, "has_geomean", json_boolean(geo.n > 0));
    /* reproduce.sh */
    sb_buf_reset(&tmp);
    sb_buf_puts(&tmp, sb_buf_str(&cmds));
    sb_buf_free(&cmds);
    sb_buf_puts(&tmp, "solbook ingest results/\n");
    packet_command(&tmp, "solbook packet", o);
    sb_buf_putc(&tmp, '\n');
    sb_tpl_set_str(d, "commands", sb_buf_str(&tmp));
    /* a value only $'...' writes exactly makes the script bash's */
    sb_tpl_set_str(d, "interpreter", sb_shell_interpreter(sb_buf_str(&tmp)));
    /* the body first: nothing is written unless it fits and names only
     * what its cited runs have */
    sb_buf body = SB_BUF_INIT;
    if (sb_template_render(tpl, d, SB_TPL_ESCAPE_MARKDOWN, &body, err) != SB_OK) {
        sb_buf_free(&body);
        goto done;
    }
    sum->body_bytes = body.len;
    if (body.len > SB_PACKET_MAX_BYTES) {
        sb_error_set(err, NULL, NULL,
                     "the %s packet's discussion body would be %zu bytes, over GitHub's %d; "
                     "narrow it with --op or --suite",
                     o->target, body.len, SB_PACKET_MAX_BYTES);
        sb_buf_free(&body);
        goto done;
    }
    {
        const char *paths[] = {o->out_dir, NULL};
        sb_claims claims = {0};
        newest_claims(&geo, cited, sum->cited, &claims);
        sb_claim_run *cr = sb_claim_runs_of(cited, sum->cited);
        int ok = cr && sb_claims_verify(&claims, cr, sum->cited, "the packet body", err) == SB_OK;
        if (!cr)
            sb_error_set(err, NULL, NULL, "out of memory");
        free(cr);
        sb_claims_free(&claims);
        if (!ok ||
            sb_paths_check(paths, sb_buf_str(&body), "the packet body", err) != SB_OK) {
            sb_buf_free(&body);
            goto done;
        }
    }
    /* the cited documents, with their own manifest, as one archive */
    {
        int64_t *ids = malloc((sum->cited + 1) * sizeof *ids);
        for (size_t i = 0; ids && i < sum->cited; i++)
            ids[i] = cited[i]->run_id;
        int ok = ids ? add_archive(o->docs, fs, ids, sum->cited, man, &nman, err) == SB_OK
                     : sb_error_set(err, NULL, NULL, "out of memory") == SB_OK;
        free(ids);
        if (!ok) {
            sb_buf_free(&body);
            goto done;
        }
    }
    if (put_file(fs, "DISCUSSION.md", &body, 0, man, &nman, err) != SB_OK) {
        sb_buf_free(&body);
        goto done;
    }
    sb_buf_free(&body);
    sb_buf_reset(&b);
    const char *out_paths[] = {o->out_dir, NULL};
    if (sb_render_home("packets/reproduce.sh.tmpl", d, SB_TPL_ESCAPE_SHELL_COMMENT, &b, err) != SB_OK ||
        sb_paths_check(out_paths, sb_buf_str(&b), "the packet's reproduce script", err) != SB_OK ||
        put_file(fs, "reproduce.sh", &b, 1, man, &nman, err) != SB_OK)
        goto done;
    if (add_manifest(fs, man, nman, err) != SB_OK)
        goto done;
    sum->files = nman;
    rc = SB_OK;
done:
    free(cited);
    sb_template_free(tpl);
    sb_buf_free(&b);
    sb_buf_free(&tmp);
    free(man);
    json_decref(d);
    sb_repro_close(rp);
    sb_geo_free(&geo);
    free(picks);
    sb_results_free(&set);
    return rc;
}

int sb_packet_needs(const char *target, const char *op, sb_packet_inputs *needs, sb_error *err)
{
    memset(needs, 0, sizeof *needs);
    int findings = 0;
    if (sb_findings_target(target, &findings, err) != SB_OK)
        return SB_ERR;
    needs->sessions = findings;
    needs->every_run = findings;
    needs->training = findings && sb_packet_subject(target) && !op;
    return SB_OK;
}

int sb_packet_build(const sb_packet_opts *o, sb_packet_summary *sum, int *nothing, sb_file_set *out,
                    sb_error *err)
{
    memset(sum, 0, sizeof *sum);
    memset(out, 0, sizeof *out);
    *nothing = 0;
    if (!o->all || !o->docs)
        return sb_error_set(err, NULL, NULL, "a packet takes its result runs and the documents it cites");
    int rc = build(o, sum, nothing, out, NULL, NULL, err);
    if (rc != SB_OK)
        sb_file_set_free(out);
    return rc;
}

int sb_packet_cites(const sb_packet_opts *o, int64_t **ids, size_t *n, int *nothing, sb_error *err)
{
    sb_packet_summary sum;
    memset(&sum, 0, sizeof sum);
    *ids = NULL;
    *n = 0;
    *nothing = 0;
    if (!o->all)
        return sb_error_set(err, NULL, NULL, "a packet takes its result runs");
    return build(o, &sum, nothing, NULL, ids, n, err);
}
