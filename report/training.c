/* training.c - the end-to-end training section's figures (training.h). */
#include "training.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geomean.h"
#include "geomean_render.h"
#include "paired.h"
#include "result_filter.h"
#include "results.h"
#include "stats.h"
#include "template.h"

/* The op-level rows set beside a patch: the patch provider against this
 * baseline, forward and backward together, as a training step runs them. */
#define OP_BASELINE "huggingface"
#define OP_MODE "full"

/* Runs compared with each other: same model, workload, shape of the step,
 * spread and card. */
static int same_experiment(const sb_training *a, const sb_training *b)
{
    return strcmp(a->model_name, b->model_name) == 0 && strcmp(a->scope, b->scope) == 0 && strcmp(a->mode, b->mode) == 0 &&
           strcmp(a->dtype, b->dtype) == 0 && strcmp(a->strategy, b->strategy) == 0 &&
           strcmp(a->sku, b->sku) == 0 && a->seq_len == b->seq_len && a->micro_batch_size == b->micro_batch_size &&
           a->world_size == b->world_size;
}

static int usable(const sb_training *t)
{
    return strcmp(t->status, "passed") == 0 && t->median_step_ms > 0 && t->tokens_per_s > 0;
}

static int newer(const sb_training *a, const sb_training *b)
{
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch > b->finished_epoch;
    return a->run_id > b->run_id;
}

/* A passing run outside any training session: one the sequential, not
 * paired comparison may take. A session's launches are read as its
 * rounds only. */
static int sequential(const sb_training *t)
{
    return usable(t) && !t->session_id;
}

/* The newest passing run outside sessions of the experiment of t with
 * patch name `patch`. */
static const sb_training *newest(const sb_training_set *r, const sb_training *t, const char *patch)
{
    const sb_training *best = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *c = &r->v[i];
        if (sequential(c) && strcmp(c->patch_name, patch) == 0 && same_experiment(c, t) &&
            (!best || newer(c, best)))
            best = c;
    }
    return best;
}

static int same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* The baseline run t's loss gate was checked against, where it is a
 * passing run of the same experiment on the same card at the same commit:
 * the run t was measured beside, one process after the other. NULL: none. */
static const sb_training *gated_baseline(const sb_training_set *r, const sb_training *t)
{
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *c = &r->v[i];
        if (sequential(c) && strcmp(c->patch_name, "none") == 0 && same_experiment(c, t) &&
            same_text(c->run_uuid, t->against_run_uuid) && same_text(c->gpu_uuid, t->gpu_uuid) &&
            strcmp(c->git_sha, t->git_sha) == 0)
            return c;
    }
    return NULL;
}

static double peak_max_gb(const sb_training *t)
{
    double best = t->peak_device_bytes >= 0 ? (double)t->peak_device_bytes : NAN;
    if (t->peaks_json) {
        json_t *a = json_loads(t->peaks_json, 0, NULL);
        size_t i;
        json_t *v;
        json_array_foreach(a, i, v)
        {
            if (json_is_integer(v) && (isnan(best) || (double)json_integer_value(v) > best))
                best = (double)json_integer_value(v);
        }
        json_decref(a);
    }
    return best / 1e9;
}

static const char *gate_text(const sb_training *t)
{
    return t->loss_gate == 1 ? "passed" : t->loss_gate == 0 ? "failed" : "-";
}

static char *kernels_text(const char *kernels_json)
{
    json_t *a = json_loads(kernels_json, 0, NULL);
    sb_buf b = SB_BUF_INIT;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (i)
            sb_buf_puts(&b, ", ");
        sb_buf_puts(&b, json_string_value(v) ? json_string_value(v) : "?");
    }
    json_decref(a);
    if (b.len == 0)
        sb_buf_puts(&b, "-");
    return sb_buf_take(&b);
}

/* One training session's rounds, paired: round k's baseline base[i] and
 * patched launch patched[i], for the n rounds where both passed, alike.
 * Rounds are like with like when both launches ran the session's
 * experiment on its earliest launch's GPU, at its commit, under its timer,
 * and the patched launch passed its loss gate against a baseline of the
 * session; the others are counted in refused, and the rounds up to the
 * highest recorded that lack a side in missing. */
typedef struct session_pairs {
    const sb_training **base, **patched;
    size_t n, rounds, refused, missing;
} session_pairs;

static const sb_training *session_launch(const sb_training_set *r, const char *id, long long round, int patched)
{
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *c = &r->v[i];
        if (same_text(c->session_id, id) && c->session_round == round &&
            (strcmp(c->patch_name, "none") != 0) == patched)
            return c;
    }
    return NULL;
}

static int gated_in_session(const sb_training_set *r, const sb_training *t)
{
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *c = &r->v[i];
        if (same_text(c->session_id, t->session_id) && strcmp(c->patch_name, "none") == 0 &&
            same_text(c->run_uuid, t->against_run_uuid))
            return 1;
    }
    return 0;
}

static int alike(const sb_training *a, const sb_training *b)
{
    return same_experiment(a, b) && same_text(a->gpu_uuid, b->gpu_uuid) && strcmp(a->git_sha, b->git_sha) == 0 &&
           same_text(a->timer, b->timer);
}

/* Pairs the session of id. Each round's launches are found from its
 * baseline, so a stored round number costs nothing beyond its runs. */
static int pair_session(const sb_training_set *r, const char *id, session_pairs *sp)
{
    memset(sp, 0, sizeof *sp);
    const sb_training *earliest = NULL, *patch = NULL;
    long long last = -1;
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *c = &r->v[i];
        if (!same_text(c->session_id, id))
            continue;
        if (!earliest || newer(earliest, c))
            earliest = c;
        if (!patch && strcmp(c->patch_name, "none") != 0)
            patch = c;
        if (c->session_round > last)
            last = c->session_round;
    }
    sp->rounds = (size_t)(last + 1);
    sp->base = calloc(r->n + 1, sizeof *sp->base);
    sp->patched = calloc(r->n + 1, sizeof *sp->patched);
    if (!sp->base || !sp->patched)
        return SB_ERR;
    size_t judged = 0;
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *b = &r->v[i];
        if (!same_text(b->session_id, id) || strcmp(b->patch_name, "none") != 0 || b->session_round < 0 ||
            session_launch(r, id, b->session_round, 0) != b)
            continue; /* one baseline a round: the first listed */
        const sb_training *p = session_launch(r, id, b->session_round, 1);
        if (!p)
            continue;
        judged++;
        if (!usable(b) || !usable(p) || p->loss_gate != 1 || !gated_in_session(r, p) ||
            strcmp(p->patch_name, patch->patch_name) != 0 || !alike(b, earliest) || !alike(p, earliest)) {
            sp->refused++;
            continue;
        }
        sp->base[sp->n] = b;
        sp->patched[sp->n] = p;
        sp->n++;
    }
    sp->missing = sp->rounds > judged ? sp->rounds - judged : 0;
    return SB_OK;
}

static void session_pairs_free(session_pairs *sp)
{
    free(sp->base);
    free(sp->patched);
    sp->base = sp->patched = NULL;
}

/* The experiment of a compared row: model, card, patch and the step's shape. */
static void set_experiment(json_t *o, const sb_training *t)
{
    sb_tpl_set_str(o, "model", t->model_name);
    sb_tpl_set_str(o, "sku", t->sku);
    sb_tpl_set_str(o, "patch", t->patch_name);
    json_object_set_new(o, "world_size", json_integer(t->world_size));
    json_object_set_new(o, "seq_len", json_integer(t->seq_len));
    json_object_set_new(o, "micro_batch", json_integer(t->micro_batch_size));
}

/* The row of a session with at least two paired rounds: the patched
 * launch's median step time over the baseline's, round by round
 * (model/paired.h), and the figures of its launches; its claims. */
static int session_row(const session_pairs *sp, json_t *rows, sb_claims *claims, sb_error *err)
{
    const sb_training *t = sp->patched[0];
    double *a = malloc(sp->n * sizeof *a), *b = malloc(sp->n * sizeof *b);
    int64_t *ids = malloc(2 * sp->n * sizeof *ids);
    json_t *o = json_object();
    if (!a || !b || !ids || !o) {
        free(a);
        free(b);
        free(ids);
        json_decref(o);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    double peak_base = NAN, peak_patched = NAN, worst_diff = NAN;
    for (size_t k = 0; k < sp->n; k++) {
        a[k] = sp->base[k]->median_step_ms;
        b[k] = sp->patched[k]->median_step_ms;
        ids[2 * k] = sp->base[k]->run_id;
        ids[2 * k + 1] = sp->patched[k]->run_id;
        peak_base = fmax(peak_base, peak_max_gb(sp->base[k]));
        peak_patched = fmax(peak_patched, peak_max_gb(sp->patched[k]));
        worst_diff = fmax(worst_diff, sp->patched[k]->loss_max_abs_diff);
    }
    sb_paired pr;
    int rc = sb_paired_ratio(a, b, sp->n, 0.95, &pr, err);
    if (rc == SB_OK) {
        char gpu[64], figure[32], speedup[32];
        sb_gpu_short(t->gpu_uuid, gpu, sizeof gpu);
        set_experiment(o, t);
        snprintf(figure, sizeof figure, "%.3f", pr.ratio);
        snprintf(speedup, sizeof speedup, "%.3fx", 1.0 / pr.ratio);
        sb_tpl_set_str(o, "ratio", figure);
        sb_tpl_set_num(o, "lo", "%.3f", pr.lo);
        sb_tpl_set_num(o, "hi", "%.3f", pr.hi);
        sb_tpl_set_str(o, "speedup", speedup);
        json_object_set_new(o, "paired", json_integer((json_int_t)sp->n));
        json_object_set_new(o, "rounds", json_integer((json_int_t)sp->rounds));
        sb_tpl_set_num(o, "base_ms", "%.1f", sb_median(a, sp->n));
        sb_tpl_set_num(o, "patched_ms", "%.1f", sb_median(b, sp->n));
        sb_tpl_set_num(o, "base_peak_gb", "%.1f", peak_base);
        sb_tpl_set_num(o, "patched_peak_gb", "%.1f", peak_patched);
        sb_tpl_set_num(o, "max_abs_diff", "%.3g", worst_diff);
        sb_tpl_set_str(o, "session", t->session_id);
        char short_id[9];
        snprintf(short_id, sizeof short_id, "%.8s", t->session_id);
        sb_tpl_set_str(o, "session_short", short_id);
        sb_tpl_set_str(o, "gpu", gpu);
        json_array_append_new(rows, o);
        o = NULL;
        if (claims) {
            sb_claims_add(claims, figure, t->patch_name, "none", t->sku, t->session_id, ids, 2 * sp->n);
            sb_claims_add(claims, speedup, t->patch_name, "none", t->sku, t->session_id, ids, 2 * sp->n);
        }
    }
    json_decref(o);
    free(a);
    free(b);
    free(ids);
    return rc;
}

static const char *op_dtype(const char *training_dtype)
{
    return strcmp(training_dtype, "mixed") == 0 ? "bf16" : training_dtype;
}

/* One op-level row per kernel of each compared patch on each SKU. */
static int op_rows(const sb_result_set *all, const sb_training_set *r,
                   const char *const *pair_of, json_t *ops, sb_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        const sb_training *t = &r->v[i];
        if (!pair_of[i])
            continue;
        /* once per (SKU, patch, dtype) */
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = pair_of[j] && strcmp(r->v[j].sku, t->sku) == 0 && strcmp(r->v[j].patch_name, t->patch_name) == 0 &&
                   strcmp(op_dtype(r->v[j].dtype), op_dtype(t->dtype)) == 0;
        if (seen)
            continue;
        sb_result_filter f = {0};
        f.sku = t->sku;
        sb_result_set set = {0};
        sb_pick *picks = NULL;
        size_t npicks = 0;
        sb_geo_table geo = {0};
        if (sb_results_pick(all, &f, &set, err) != SB_OK)
            return SB_ERR;
        if (sb_picks_latest(&set, &picks, &npicks, err) != SB_OK ||
            sb_geo_compute(&set, picks, npicks, OP_BASELINE, &geo, err) != SB_OK) {
            free(picks);
            sb_results_free(&set);
            return SB_ERR;
        }
        json_t *ks = json_loads(t->patch_kernels_json, 0, NULL);
        size_t k;
        json_t *kv;
        json_array_foreach(ks, k, kv)
        {
            const char *op = json_string_value(kv);
            if (!op)
                continue;
            /* kernel time where both sides measured it, else call time */
            const sb_geo_row *hit = NULL;
            for (size_t g = 0; g < geo.n; g++) {
                const sb_geo_row *gr = &geo.rows[g];
                if (strcmp(gr->op, op) == 0 && strcmp(gr->mode, OP_MODE) == 0 &&
                    strcmp(gr->dtype, op_dtype(t->dtype)) == 0 && strcmp(gr->provider, t->patch_name) == 0 &&
                    strcmp(gr->sku, t->sku) == 0 && strcmp(gr->baseline, OP_BASELINE) == 0 &&
                    (!hit || (hit->shapes == 0 && gr->shapes > 0) ||
                     (gr->shapes > 0 && gr->time == SB_TIME_KERNEL && hit->time != SB_TIME_KERNEL)))
                    hit = gr;
            }
            json_t *o = json_object();
            sb_tpl_set_str(o, "sku", t->sku);
            sb_tpl_set_str(o, "patch", t->patch_name);
            sb_tpl_set_str(o, "op", op);
            sb_tpl_set_str(o, "mode", OP_MODE);
            sb_tpl_set_str(o, "dtype", op_dtype(t->dtype));
            sb_tpl_set_str(o, "baseline", OP_BASELINE);
            sb_tpl_set_num(o, "geomean", "%.3fx", hit ? hit->geomean : NAN);
            sb_tpl_set_str(o, "time", hit && hit->shapes > 0 ? sb_time_kind_name(hit->time) : "-");
            json_object_set_new(o, "shapes", json_integer(hit ? (json_int_t)hit->shapes : 0));
            json_object_set_new(o, "measured", json_boolean(hit && hit->shapes > 0));
            json_array_append_new(ops, o);
        }
        json_decref(ks);
        sb_geo_free(&geo);
        free(picks);
        sb_results_free(&set);
    }
    return SB_OK;
}

int sb_training_view_build(const sb_training_opts *o, int pairs_only, sb_training_view *v,
                           sb_training_summary *sum, sb_error *err)
{
    memset(sum, 0, sizeof *sum);
    memset(v, 0, sizeof *v);
    const sb_training_set r = *o->runs;
    int rc = SB_ERR;
    const char **op_of = calloc(r.n ? r.n : 1, sizeof *op_of);
    const sb_training **bases = calloc(r.n ? r.n : 1, sizeof *bases);
    const sb_training **patches = calloc(r.n ? r.n : 1, sizeof *patches);
    json_t *d = json_object(), *runs = json_array(), *pairs = json_array(), *ops = json_array();
    json_t *sessions = json_array(), *thin = json_array();
    if (!op_of || !bases || !patches || !d || !runs || !pairs || !ops || !sessions || !thin) {
        json_decref(sessions);
        json_decref(thin);
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    json_object_set_new(d, "runs", runs);
    json_object_set_new(d, "pairs", pairs);
    json_object_set_new(d, "ops", ops);
    json_object_set_new(d, "sessions", sessions);
    json_object_set_new(d, "thin", thin);
    sb_evidence_labels_set(d);
    sb_tpl_set_str(d, "op_baseline", OP_BASELINE);
    sb_tpl_set_str(d, "op_mode", OP_MODE);

    /* the training sessions, each once, paired round by round */
    for (size_t i = 0; i < r.n; i++) {
        const sb_training *t = &r.v[i];
        int seen = !t->session_id;
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_text(r.v[j].session_id, t->session_id);
        if (seen)
            continue;
        session_pairs sp;
        if (pair_session(&r, t->session_id, &sp) != SB_OK) {
            session_pairs_free(&sp);
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        if (sp.n >= 2) {
            int src = session_row(&sp, sessions, o->claims, err);
            op_of[sp.patched[0] - r.v] = sp.patched[0]->patch_name;
            session_pairs_free(&sp);
            if (src != SB_OK)
                goto done;
            sum->sessions++;
            continue;
        }
        json_t *x = json_object();
        char short_id[9];
        snprintf(short_id, sizeof short_id, "%.8s", t->session_id);
        sb_tpl_set_str(x, "session_short", short_id);
        sb_tpl_set_str(x, "model", t->model_name);
        sb_tpl_set_str(x, "sku", t->sku);
        json_object_set_new(x, "paired", json_integer((json_int_t)sp.n));
        json_object_set_new(x, "rounds", json_integer((json_int_t)sp.rounds));
        json_object_set_new(x, "refused", json_integer((json_int_t)sp.refused));
        json_object_set_new(x, "missing", json_integer((json_int_t)sp.missing));
        json_array_append_new(thin, x);
        session_pairs_free(&sp);
    }
    for (size_t i = 0; i < r.n; i++) {
        const sb_training *t = &r.v[i];
        json_t *j = json_object();
        char *ks = kernels_text(t->patch_kernels_json);
        sb_tpl_set_str(j, "model", t->model_name);
        sb_tpl_set_str(j, "sku", t->sku);
        sb_tpl_set_str(j, "patch", t->patch_name);
        sb_tpl_set_str(j, "kernels", ks);
        free(ks);
        sb_tpl_set_str(j, "workload", strcmp(t->scope, "model") == 0 && strcmp(t->mode, "train-step") == 0
                                          ? "train-step"
                                          : strcmp(t->scope, "block") == 0 ? (strcmp(t->mode, "forward") == 0
                                                                                  ? "block forward"
                                                                                  : "block train-step")
                                                                           : "forward");
        sb_tpl_set_str(j, "strategy", t->strategy);
        sb_tpl_set_str(j, "dtype", t->dtype);
        sb_tpl_set_str(j, "status", t->status);
        sb_tpl_set_str(j, "reason", t->reason ? t->reason : "");
        sb_tpl_set_str(j, "git_sha", t->git_sha);
        sb_tpl_set_str(j, "gate", gate_text(t));
        sb_tpl_set_str(j, "checkpointing", t->checkpointing == 1 ? "on" : t->checkpointing == 0 ? "off" : "-");
        char sess[64] = "-";
        if (t->session_id)
            snprintf(sess, sizeof sess, "%.8s, %lld", t->session_id, t->session_round);
        sb_tpl_set_str(j, "session", sess);
        json_object_set_new(j, "seq_len", json_integer(t->seq_len));
        json_object_set_new(j, "micro_batch", json_integer(t->micro_batch_size));
        json_object_set_new(j, "world_size", json_integer(t->world_size));
        json_object_set_new(j, "run_id", json_integer(t->run_id));
        int ok = usable(t);
        sb_tpl_set_num(j, "tokens_per_s", "%.0f", ok ? t->tokens_per_s : NAN);
        sb_tpl_set_num(j, "median_ms", "%.1f", ok ? t->median_step_ms : NAN);
        char spread[64] = "-";
        if (ok && !isnan(t->p20_ms) && !isnan(t->p80_ms))
            snprintf(spread, sizeof spread, "%.1f-%.1f", t->p20_ms, t->p80_ms);
        sb_tpl_set_str(j, "spread_ms", spread);
        sb_tpl_set_num(j, "peak_gb", "%.1f", peak_max_gb(t));
        json_array_append_new(runs, j);

        /* a patched run is compared when it is the newest passing one of its patch */
        if (strcmp(t->patch_name, "none") == 0 || !ok || newest(&r, t, t->patch_name) != t)
            continue;
        const sb_training *base = gated_baseline(&r, t);
        if (!base)
            continue;
        op_of[i] = t->patch_name;
        bases[v->npairs] = base;
        patches[v->npairs++] = t;
        sum->pairs++;
        json_t *p = json_object();
        set_experiment(p, t);
        sb_tpl_set_num(p, "base_tokens", "%.0f", base->tokens_per_s);
        sb_tpl_set_num(p, "patched_tokens", "%.0f", t->tokens_per_s);
        sb_tpl_set_num(p, "speedup", "%.3fx", base->median_step_ms / t->median_step_ms);
        sb_tpl_set_num(p, "base_peak_gb", "%.1f", peak_max_gb(base));
        sb_tpl_set_num(p, "patched_peak_gb", "%.1f", peak_max_gb(t));
        sb_tpl_set_str(p, "gate", gate_text(t));
        sb_tpl_set_num(p, "max_abs_diff", "%.3g", t->loss_max_abs_diff);
        json_object_set_new(p, "base_run", json_integer(base->run_id));
        json_object_set_new(p, "patched_run", json_integer(t->run_id));
        json_array_append_new(pairs, p);
        if (o->claims) {
            int64_t both[2] = {base->run_id, t->run_id};
            sb_claims_add(o->claims, json_string_value(json_object_get(p, "speedup")), t->patch_name, "none",
                          t->sku, NULL, both, 2);
        }
    }
    sum->runs = r.n;
    if (!pairs_only && op_rows(o->all, &r, op_of, ops, err) != SB_OK)
        goto done;
    json_object_set_new(d, "pairs_only", json_boolean(pairs_only));
    json_object_set_new(d, "has_runs", json_boolean(r.n > 0));
    json_object_set_new(d, "has_pairs", json_boolean(sum->pairs > 0));
    json_object_set_new(d, "has_sessions", json_boolean(sum->sessions > 0));
    json_object_set_new(d, "has_thin", json_boolean(json_array_size(thin) > 0));
    json_object_set_new(d, "has_compared", json_boolean(sum->pairs > 0 || sum->sessions > 0));
    json_object_set_new(d, "has_ops", json_boolean(json_array_size(ops) > 0));

    v->data = d;
    v->base = bases;
    v->patched = patches;
    d = NULL;
    bases = patches = NULL;
    rc = SB_OK;
done:
    json_decref(d);
    free(op_of);
    free(bases);
    free(patches);
    if (rc != SB_OK)
        v->npairs = 0;
    return rc;
}

void sb_training_view_free(sb_training_view *v)
{
    json_decref(v->data);
    free(v->base);
    free(v->patched);
    memset(v, 0, sizeof *v);
}
