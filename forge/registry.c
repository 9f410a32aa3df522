/* registry.c - see registry.h. */
#include "registry.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "forge_kernels.h"
#include "fsutil.h"
#include "json_file.h"
#include "provenance.h"
#include "store.h"
#include "task.h"
#include "verify.h"

#define STATUS_TEXT "available, not applied"
#define EVIDENCE_TEXT "op-level microbenchmark"

void sb_forge_kernel_base_id(const json_t *spec, char *buf, size_t size)
{
    char shapes[512] = "";
    size_t o = 0, i;
    json_t *s;
    json_array_foreach(json_object_get(spec, "shapes"), i, s)
    {
        const char *k;
        json_t *v;
        if (i && o < sizeof shapes)
            o += (size_t)snprintf(shapes + o, sizeof shapes - o, "+");
        json_object_foreach(s, k, v)
        {
            for (const char *c = k; *c && o + 1 < sizeof shapes; c++)
                shapes[o++] = (char)tolower((unsigned char)*c);
            if (o < sizeof shapes)
                o += (size_t)snprintf(shapes + o, sizeof shapes - o, "%lld", (long long)json_integer_value(v));
        }
        if (o >= sizeof shapes) {
            o = sizeof shapes - 1;
            break;
        }
    }
    shapes[o < sizeof shapes ? o : sizeof shapes - 1] = '\0';
    snprintf(buf, size, "%s_%s_%s_%s_%s", json_string_value(json_object_get(spec, "language")),
             json_string_value(json_object_get(spec, "op")), json_string_value(json_object_get(spec, "sku")),
             json_string_value(json_object_get(spec, "dtype")), shapes);
}

static int refuse(int *refused, sb_error *err, const char *file, const char *fmt, const char *a,
                  const char *b)
{
    *refused = 1;
    return sb_error_set(err, file, NULL, fmt, a, b);
}

/* Checks one case of bench.json against the database; fills out. */
static int check_case(sb_db *db, const char *db_path, const json_t *spec, const json_t *c,
                      const char *baseline_provider, double min_speedup, sb_forge_cited_run *first,
                      json_t **out, int *refused, sb_error *err)
{
    char msg[2048];
    json_t *cid = json_object_get(c, "candidate_run_id"), *bid = json_object_get(c, "baseline_run_id");
    if (!json_is_integer(cid) || !json_is_integer(bid))
        return refuse(refused, err, db_path, "bench.json case %s has no database run ids%s",
                      json_string_value(json_object_get(c, "shape_key")), "");
    sb_forge_cited_run cr, br;
    if (sb_db_forge_cited_run(db, json_integer_value(cid), &cr, err) != SB_OK ||
        sb_db_forge_cited_run(db, json_integer_value(bid), &br, err) != SB_OK)
        return SB_ERR;
    const char *run_id = json_string_value(json_object_get(spec, "run_id"));
    sb_forge_cited_run *rs[2] = {&cr, &br};
    const char *want_provider[2] = {"candidate", baseline_provider};
    for (int k = 0; k < 2; k++) {
        sb_forge_cited_run *r = rs[k];
        long long id = json_integer_value(k ? bid : cid);
        if (!r->found) {
            snprintf(msg, sizeof msg, "run %lld (%s) is not in the database", id, want_provider[k]);
            return refuse(refused, err, db_path, "%s%s", msg, "");
        }
        if (strcmp(r->status, "passed") != 0 || r->passed != 1) {
            snprintf(msg, sizeof msg, "run %lld (%s) has status %s and correctness %s", id, r->provider, r->status,
                     r->passed == 1 ? "passed" : r->passed == 0 ? "failed" : "unknown");
            return refuse(refused, err, db_path, "%s%s", msg, "");
        }
        if (strcmp(r->provider, want_provider[k]) != 0 || strcmp(r->forge_run, run_id) != 0 ||
            strcmp(r->op, json_string_value(json_object_get(spec, "op"))) != 0 ||
            strcmp(r->dtype, json_string_value(json_object_get(spec, "dtype"))) != 0) {
            snprintf(msg, sizeof msg, "run %lld is %s/%s/%s of forge run '%s', not %s of this run", id, r->op, r->dtype,
                     r->provider, r->forge_run, want_provider[k]);
            return refuse(refused, err, db_path, "%s%s", msg, "");
        }
        if (strcmp(r->sku, json_string_value(json_object_get(spec, "sku"))) != 0) {
            snprintf(msg, sizeof msg, "run %lld ran on SKU %s, the task targets %s", id, r->sku,
                     json_string_value(json_object_get(spec, "sku")));
            return refuse(refused, err, db_path, "%s%s", msg, "");
        }
        if (!(r->median_ms > 0)) {
            snprintf(msg, sizeof msg, "run %lld has no positive median", id);
            return refuse(refused, err, db_path, "%s%s", msg, "");
        }
    }
    if (strcmp(cr.case_key, br.case_key) != 0) {
        snprintf(msg, sizeof msg, "runs %lld and %lld are not the same benchmark case (different session or shape)",
                 (long long)json_integer_value(cid), (long long)json_integer_value(bid));
        return refuse(refused, err, db_path, "%s%s", msg, "");
    }
    if (!first->found)
        *first = cr;
    for (int k = 0; k < 2; k++)
        if (strcmp(rs[k]->gpu_name, first->gpu_name) != 0 || strcmp(rs[k]->hostname, first->hostname) != 0 ||
            rs[k]->device_index != first->device_index || strcmp(rs[k]->sku, first->sku) != 0) {
            snprintf(msg, sizeof msg, "run %lld ran on %s #%lld of %s, not the card of the other runs (%s #%lld of %s)",
                     (long long)json_integer_value(k ? bid : cid), rs[k]->gpu_name, rs[k]->device_index,
                     rs[k]->hostname, first->gpu_name, first->device_index, first->hostname);
            return refuse(refused, err, db_path, "%s%s", msg, "");
        }
    double speedup = br.median_ms / cr.median_ms;
    if (!(speedup >= min_speedup)) {
        snprintf(msg, sizeof msg, "%s: stored medians give a speedup of %.3fx (baseline %.4g ms / candidate %.4g ms), below %.2fx",
                 cr.shape_key, speedup, br.median_ms, cr.median_ms, min_speedup);
        return refuse(refused, err, db_path, "%s%s", msg, "");
    }
    *out = json_pack("{s:O, s:s, s:I, s:I, s:s, s:f, s:f, s:f, s:o}", "shape", json_object_get(c, "shape"),
                     "shape_key", cr.shape_key, "candidate_run_id", json_integer_value(cid), "baseline_run_id",
                     json_integer_value(bid), "baseline_provider", br.provider, "candidate_median_ms", cr.median_ms,
                     "baseline_median_ms", br.median_ms, "speedup", speedup, "candidate_max_abs_err",
                     isnan(cr.max_abs_err) ? json_null() : json_real(cr.max_abs_err));
    return *out ? SB_OK : sb_error_set(err, db_path, NULL, "out of memory");
}

static int next_version(sb_db *db, const char *db_path, const char *base, const char *run_id,
                        int *version, int *refused, sb_error *err)
{
    char id[256];
    if (sb_db_forge_kernel_of_run(db, run_id, id, sizeof id, err) != SB_OK)
        return SB_ERR;
    if (id[0])
        return refuse(refused, err, db_path, "this run is already promoted as %s%s", id, "");
    return sb_db_forge_next_version(db, base, version, err);
}

static int insert_row(sb_db *db, const char *db_path, const char *base, const json_t *p, sb_error *err)
{
    json_t *cases = json_object_get(p, "cases");
    char shapes[1024] = "";
    size_t i, o = 0;
    json_t *c;
    json_array_foreach(cases, i, c) if (o < sizeof shapes) o += (size_t)snprintf(
        shapes + o, sizeof shapes - o, "%s%s", i ? ";" : "", json_string_value(json_object_get(c, "shape_key")));
    char *cases_json = json_dumps(cases, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    char *sources_json = json_dumps(json_object_get(p, "sources_sha256"), JSON_SORT_KEYS | JSON_COMPACT);
    json_t *card = json_object_get(p, "card");
#define S(k) json_string_value(json_object_get(p, k))
    sb_forge_kernel_row row = {
        .kernel_id = S("kernel_id"),
        .base_id = base,
        .version = json_integer_value(json_object_get(p, "version")),
        .language = S("language"),
        .op = S("op"),
        .sku = S("sku"),
        .dtype = S("dtype"),
        .shapes = shapes,
        .forge_run = S("forge_run"),
        .author = S("author"),
        .author_kind = S("author_kind"),
        .entry_point = S("entry_point"),
        .min_speedup = json_number_value(json_object_get(p, "min_speedup")),
        .speedup_min = json_number_value(json_object_get(p, "speedup_min")),
        .speedup_geomean = json_number_value(json_object_get(p, "speedup_geomean")),
        .gpu_name = json_string_value(json_object_get(card, "gpu_name")),
        .driver_version = json_string_value(json_object_get(card, "driver_version")),
        .git_sha = S("commit"),
        .cases_json = cases_json,
        .sources_json = sources_json,
        .registry_path = S("registry_path"),
        .status = STATUS_TEXT,
        .evidence_level = EVIDENCE_TEXT,
        .promoted_at = S("promoted_at"),
    };
#undef S
    int rc;
    if (!cases_json || !sources_json)
        rc = sb_error_set(err, db_path, NULL, "out of memory");
    else
        rc = sb_db_forge_kernel_insert(db, &row, err);
    free(cases_json);
    free(sources_json);
    return rc;
}

int sb_forge_promote(const char *run_dir, const sb_forge_promote_opts *o, int *refused,
                     json_t **promotion, sb_error *err)
{
    *refused = 0;
    if (promotion)
        *promotion = NULL;
    const char *registry = o && o->registry ? o->registry : "forge/registry";
    json_t *spec = NULL, *meta = NULL, *sources = NULL, *bench = NULL, *cases = NULL, *doc = NULL;
    sb_db *db = NULL;
    char dest[4096] = "";
    int created_dest = 0, in_tx = 0;
    int rc = SB_ERR;
    char bpath[4096];
    if (sb_forge_spec_load(run_dir, &spec, err) != SB_OK)
        goto out;
    if (sb_forge_verify_recheck(run_dir, &sources, err) != SB_OK) {
        *refused = 1;
        goto out;
    }
    if (sb_forge_metadata_load(run_dir, spec, &meta, err) != SB_OK) {
        *refused = 1;
        goto out;
    }
    if (sb_forge_path(bpath, sizeof bpath, run_dir, "bench.json", err) != SB_OK)
        goto out;
    if (!sb_forge_is_file(bpath)) {
        refuse(refused, err, bpath, "not benchmarked: run 'solbook forge bench' first%s%s", "", "");
        goto out;
    }
    if (sb_json_load_file(bpath, &bench, err) != SB_OK)
        goto out;
    const char *bverdict = json_string_value(json_object_get(bench, "verdict"));
    if (!bverdict || strcmp(bverdict, "passed") != 0) {
        json_t *reasons = json_object_get(bench, "reasons");
        refuse(refused, err, bpath, "the benchmark did not pass: %s%s",
               json_is_string(json_array_get(reasons, 0)) ? json_string_value(json_array_get(reasons, 0)) : (bverdict ? bverdict : "no verdict"),
               "");
        goto out;
    }
    if (!json_equal(json_object_get(bench, "sources"), sources)) {
        refuse(refused, err, bpath, "the benchmarked sources are not the verified ones; verify and bench again%s%s", "", "");
        goto out;
    }
    double min_speedup = json_number_value(json_object_get(bench, "min_speedup"));
    double spec_min = json_number_value(json_object_get(spec, "min_speedup"));
    if (!(min_speedup > 0)) {
        refuse(refused, err, bpath, "bench.json has no min_speedup%s%s", "", "");
        goto out;
    }
    if (min_speedup < spec_min) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%g", min_speedup);
        snprintf(b, sizeof b, "%g", spec_min);
        refuse(refused, err, bpath, "benchmarked with --min-speedup %s, below the task's %s", a, b);
        goto out;
    }
    const char *db_path = o && o->db_path ? o->db_path : json_string_value(json_object_get(bench, "database"));
    const char *baseline_provider = json_string_value(json_object_get(bench, "baseline_provider"));
    json_t *bcases = json_object_get(bench, "cases");
    if (!db_path || !baseline_provider || !json_is_array(bcases) ||
        json_array_size(bcases) != json_array_size(json_object_get(spec, "shapes"))) {
        refuse(refused, err, bpath, "bench.json lacks the database, baseline provider or one case per shape%s%s", "", "");
        goto out;
    }
    struct stat st;
    if (stat(db_path, &st) != 0) {
        refuse(refused, err, db_path, "database of the benchmark not found: %s%s", strerror(errno), "");
        goto out;
    }
    if (sb_db_open(db_path, SB_DB_WRITE, &db, err) != SB_OK)
        goto out;
    cases = json_array();
    sb_forge_cited_run first;
    memset(&first, 0, sizeof first);
    double log_sum = 0, smin = INFINITY;
    size_t i;
    json_t *c;
    json_array_foreach(bcases, i, c)
    {
        json_t *entry = NULL;
        if (check_case(db, db_path, spec, c, baseline_provider, min_speedup, &first, &entry, refused, err) != SB_OK)
            goto out;
        double s = json_number_value(json_object_get(entry, "speedup"));
        log_sum += log(s);
        if (s < smin)
            smin = s;
        json_array_append_new(cases, entry);
    }
    if (sb_db_begin(db, err) != SB_OK)
        goto out;
    in_tx = 1;
    char base[512], kernel_id[600];
    int version = 0;
    sb_forge_kernel_base_id(spec, base, sizeof base);
    const char *run_id = json_string_value(json_object_get(spec, "run_id"));
    if (next_version(db, db_path, base, run_id, &version, refused, err) != SB_OK)
        goto out;
    snprintf(kernel_id, sizeof kernel_id, "%s_v%d", base, version);
    if (sb_mkdirs(registry, err) != SB_OK || sb_forge_path(dest, sizeof dest, registry, kernel_id, err) != SB_OK)
        goto out;
    if (mkdir(dest, 0755) != 0) {
        sb_error_set(err, dest, NULL, errno == EEXIST ? "registry folder already exists but is not in the database %s"
                                                      : "cannot create registry folder: %s",
                     errno == EEXIST ? db_path : strerror(errno));
        dest[0] = '\0';
        goto out;
    }
    created_dest = 1;
    char cand[4096], srcdir[4096];
    if (sb_forge_path(cand, sizeof cand, run_dir, "candidate", err) != SB_OK ||
        sb_forge_path(srcdir, sizeof srcdir, dest, "source", err) != SB_OK || sb_forge_copy_tree(cand, srcdir, err) != SB_OK)
        goto out;
    json_t *copied = NULL;
    if (sb_forge_hash_tree(srcdir, &copied, err) != SB_OK)
        goto out;
    int same = json_equal(copied, sources);
    json_decref(copied);
    if (!same) {
        refuse(refused, err, srcdir, "copied sources do not hash like the verified ones (changed during promotion)%s%s", "", "");
        goto out;
    }
    /* The task's reference is what the candidate was built and measured
     * with: it goes into the registry over any copy the candidate carried. */
    char run_ref_path[4096], ref_dst[4096];
    const char *run_ref = "";
    if (sb_forge_run_reference(run_dir, spec, run_ref_path, sizeof run_ref_path, &run_ref, err) != SB_OK) {
        *refused = 1;
        goto out;
    }
    if (run_ref[0] && (sb_forge_path(ref_dst, sizeof ref_dst, srcdir, run_ref, err) != SB_OK ||
                       sb_forge_copy_file(run_ref_path, ref_dst, err) != SB_OK))
        goto out;
    char now[64];
    sb_time_now_rfc3339(now, sizeof now);
    doc = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:f, s:f, s:f, s:O,"
                    " s:{s:s, s:s, s:s?, s:I, s:s?, s:s?}, s:s, s:s, s:s}",
                    "schema", "solbook.forge-promotion.v1", "kernel_id", kernel_id, "version", version, "status",
                    STATUS_TEXT, "evidence_level", EVIDENCE_TEXT, "forge_run", run_id, "promoted_at", now, "op",
                    json_string_value(json_object_get(spec, "op")), "language",
                    json_string_value(json_object_get(spec, "language")), "sku",
                    json_string_value(json_object_get(spec, "sku")), "dtype",
                    json_string_value(json_object_get(spec, "dtype")), "author",
                    json_string_value(json_object_get(meta, "author")), "author_kind",
                    json_string_value(json_object_get(meta, "kind")), "entry_point",
                    json_string_value(json_object_get(meta, "entry_point")), "sources_sha256", sources,
                    "min_speedup", min_speedup, "speedup_min", smin, "speedup_geomean",
                    exp(log_sum / (double)json_array_size(cases)), "cases", cases, "card", "gpu_name",
                    first.gpu_name, "sku", first.sku, "hostname", first.hostname[0] ? first.hostname : NULL,
                    "device_index", (json_int_t)first.device_index, "driver_version",
                    first.driver[0] ? first.driver : NULL, "cuda_runtime_version",
                    first.cuda_rt[0] ? first.cuda_rt : NULL, "commit", first.git_sha[0] ? first.git_sha : "unknown",
                    "database", db_path, "registry_path", dest);
    if (!doc) {
        sb_error_set(err, dest, NULL, "cannot build promotion.json (out of memory)");
        goto out;
    }
    if (first.device_index < 0)
        json_object_set_new(json_object_get(doc, "card"), "device_index", json_null());
    if (run_ref[0])
        json_object_set(doc, "reference", json_object_get(spec, "reference"));
    if (json_is_string(json_object_get(meta, "description")))
        json_object_set(doc, "description", json_object_get(meta, "description"));
    char ppath[4096], rpath[4096];
    if (sb_forge_path(ppath, sizeof ppath, dest, "promotion.json", err) != SB_OK ||
        sb_forge_path(rpath, sizeof rpath, run_dir, "promotion.json", err) != SB_OK ||
        sb_forge_schema_check("solbook.forge-promotion.v1", doc, ppath, err) != SB_OK ||
        insert_row(db, db_path, base, doc, err) != SB_OK || sb_json_write_file(ppath, doc, err) != SB_OK ||
        sb_db_commit(db, err) != SB_OK)
        goto out;
    in_tx = 0;
    if (sb_json_write_file(rpath, doc, err) != SB_OK || sb_forge_registry_export(db_path, registry, err) != SB_OK)
        goto out;
    rc = SB_OK;
out:
    if (in_tx)
        sb_db_rollback(db);
    if (rc != SB_OK && created_dest) {
        sb_error rerr;
        sb_forge_remove_tree(dest, &rerr);
    }
    sb_db_close(db);
    json_decref(spec);
    json_decref(meta);
    json_decref(sources);
    json_decref(bench);
    json_decref(cases);
    if (rc == SB_OK && promotion)
        *promotion = doc;
    else
        json_decref(doc);
    return rc;
}

int sb_forge_registry_list(const char *db_path, json_t **kernels, sb_error *err)
{
    *kernels = NULL;
    sb_db *db = NULL;
    if (sb_db_open(db_path, SB_DB_READ, &db, err) != SB_OK)
        return SB_ERR;
    int rc = sb_db_forge_kernels(db, kernels, err);
    sb_db_close(db);
    return rc;
}

int sb_forge_registry_export(const char *db_path, const char *registry, sb_error *err)
{
    json_t *kernels = NULL;
    if (sb_forge_registry_list(db_path, &kernels, err) != SB_OK)
        return SB_ERR;
    char path[4096];
    json_t *doc = json_pack("{s:s, s:o}", "schema", "solbook.forge-registry", "kernels", kernels);
    int rc = sb_mkdirs(registry, err);
    if (rc == SB_OK)
        rc = sb_forge_path(path, sizeof path, registry, "verified_kernels.json", err);
    if (rc == SB_OK)
        rc = sb_json_write_file(path, doc, err);
    json_decref(doc);
    return rc;
}
