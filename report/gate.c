/* gate.c - `solbook validate-results` (gate.h). */
#include "gate.h"

#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "ncu_csv.h"
#include "results.h"

static const sb_gate_spec GEMM_SPEC = {
    .suite = "gemm-spec",
    .op = "gemm",
    .mode = "fwd",
    .dtype = "fp16",
    .shape_key = "K=4096,M=4096,N=4096",
    .provider = "cublas",
    .warmup_iters = 10,
    .iters = 50,
    .repeats = 5,
};

const sb_gate_spec *sb_gate_spec_for(const char *op)
{
    return strcmp(op, "gemm") == 0 ? &GEMM_SPEC : NULL;
}

/* Names of the SOL metrics a run lacks (no value on any kernel),
 * comma-separated into missing; returns how many are missing. */
static int missing_sol(const sb_run_details *det, long long run_id, sb_buf *missing)
{
    int count = 0;
    for (size_t i = 0; i < SB_NCU_SOL_METRIC_COUNT; i++) {
        const double *v;
        const char *unit;
        if (sb_run_details_values(det, run_id, SB_NCU_SOL_METRICS[i], &v, &unit) == 0) {
            if (count++)
                sb_buf_puts(missing, ", ");
            sb_buf_puts(missing, SB_NCU_SOL_METRICS[i]);
        }
    }
    return count;
}

/* Appends the problems of one candidate to probs; returns their number. */
static int candidate_problems(const sb_run_details *det, const sb_sku_table *skus,
                              const sb_gate_spec *spec, const sb_result *r, const char *arch,
                              sb_buf *probs)
{
    int n = 0;
#define PROB(...)                                    \
    do {                                             \
        sb_buf_printf(probs, "    - run %lld: ", r->run_id); \
        sb_buf_printf(probs, __VA_ARGS__);           \
        sb_buf_puts(probs, "\n");                    \
        n++;                                         \
    } while (0)
    /* stored text goes to the terminal: one line each, escapes visible */
    sb_buf txt = SB_BUF_INIT, sku = SB_BUF_INIT;
    sb_enc_terminal(&sku, r->sku, SB_TEXT_NAME_MAX);
    if (strcmp(r->status, "passed") != 0) {
        sb_enc_terminal(&txt, r->status, SB_TEXT_NAME_MAX);
        if (r->reason) {
            sb_buf_puts(&txt, ": ");
            sb_enc_terminal(&txt, r->reason, SB_TEXT_NOTE_MAX);
        }
        PROB("status is %s", sb_buf_str(&txt));
    }
    sb_buf_free(&txt);
    if (r->correct != 1)
        PROB("correctness %s", r->correct == 0 ? "failed" : "not recorded");
    if (r->warmup_iters != spec->warmup_iters || r->iters != spec->iters ||
        r->repeats != spec->repeats)
        PROB("protocol is %lld warm-up + %lld x %lld, the spec is %lld warm-up + %lld x %lld",
             r->warmup_iters, r->iters, r->repeats, spec->warmup_iters, spec->iters,
             spec->repeats);
    const sb_sku *s = skus ? sb_sku_find(skus, r->sku) : NULL;
    if (!s)
        PROB("SKU '%s' is not in data/skus.csv, so its arch cannot be confirmed", sb_buf_str(&sku));
    else if (strcmp(s->arch, arch) != 0)
        PROB("SKU '%s' is a %s card but provenance says %s", sb_buf_str(&sku), s->arch, arch);
    sb_buf_free(&sku);
    sb_buf miss = SB_BUF_INIT;
    int m = missing_sol(det, r->run_id, &miss);
    if (m == SB_NCU_SOL_METRIC_COUNT)
        PROB("no ncu speed-of-light metrics attached (ingest with the profile CSV)");
    else if (m > 0)
        PROB("ncu metrics missing: %s", sb_buf_str(&miss));
    sb_buf_free(&miss);
#undef PROB
    return n;
}

/* The runs of the spec on arch, in the order sb_results_load gives them. */
static int spec_runs(const sb_result_set *all, const sb_gate_spec *spec, const char *arch,
                     sb_result_set *set, sb_error *err)
{
    sb_result_filter f = {0};
    f.suite = spec->suite;
    f.op = spec->op;
    f.provider = spec->provider;
    f.arch = arch;
    return sb_results_pick(all, &f, set, err);
}

static int is_candidate(const sb_result *r, const sb_gate_spec *spec)
{
    return strcmp(r->mode, spec->mode) == 0 && strcmp(r->dtype, spec->dtype) == 0 &&
           strcmp(r->shape_key, spec->shape_key) == 0;
}

/* One arch: its verdict, and the problems of every candidate in probs. */
static int check_arch(const sb_result_set *all, const sb_run_details *det,
                      const sb_sku_table *skus, const sb_gate_spec *spec, const char *arch,
                      sb_gate_verdict *v, sb_buf *probs, sb_error *err)
{
    memset(v, 0, sizeof *v);
    snprintf(v->arch, sizeof v->arch, "%s", arch);
    v->run_id = -1;
    sb_result_set set;
    if (spec_runs(all, spec, arch, &set, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < set.n; i++) {
        const sb_result *r = &set.v[i];
        if (!is_candidate(r, spec))
            continue;
        v->candidates++;
        if (candidate_problems(det, skus, spec, r, arch, probs) == 0) {
            v->complete++;
            v->run_id = r->run_id;
            snprintf(v->sku, sizeof v->sku, "%s", r->sku);
        }
    }
    sb_results_free(&set);
    v->state = v->complete == 1 ? SB_GATE_OK : v->complete == 0 ? SB_GATE_MISSING : SB_GATE_AMBIGUOUS;
    if (v->state != SB_GATE_OK) {
        v->run_id = -1;
        v->sku[0] = '\0';
    }
    return SB_OK;
}

int sb_gate_ask(const sb_result_set *all, const sb_gate_spec *spec, const char *arch_list,
                sb_details_ask *ask, sb_error *err)
{
    ask->metrics = SB_NCU_SOL_METRICS;
    ask->nmetrics = SB_NCU_SOL_METRIC_COUNT;
    char *list = strdup(arch_list);
    if (!list)
        return sb_error_set(err, NULL, NULL, "out of memory");
    char *save = NULL;
    int rc = SB_OK;
    for (char *arch = strtok_r(list, ",", &save); arch && rc == SB_OK;
         arch = strtok_r(NULL, ",", &save)) {
        sb_result_set set;
        if (!*arch)
            continue;
        if (spec_runs(all, spec, arch, &set, err) != SB_OK) {
            rc = SB_ERR;
            break;
        }
        for (size_t i = 0; i < set.n && rc == SB_OK; i++)
            if (is_candidate(&set.v[i], spec))
                rc = sb_details_ask_run(ask, set.v[i].run_id, err);
        sb_results_free(&set);
    }
    free(list);
    return rc;
}

int sb_gate_verdicts(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                     const sb_gate_spec *spec, const char *arch_list, sb_gate_verdict **out, size_t *n, sb_error *err)
{
    *out = NULL;
    *n = 0;
    char *list = strdup(arch_list);
    sb_gate_verdict *v = calloc(strlen(arch_list) + 1, sizeof *v);
    if (!list || !v) {
        free(list);
        free(v);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    char *save = NULL;
    for (char *arch = strtok_r(list, ",", &save); arch; arch = strtok_r(NULL, ",", &save)) {
        if (!*arch)
            continue;
        sb_buf probs = SB_BUF_INIT;
        int rc = check_arch(all, det, skus, spec, arch, &v[*n], &probs, err);
        sb_buf_free(&probs);
        if (rc != SB_OK) {
            free(list);
            free(v);
            *n = 0;
            return SB_ERR;
        }
        (*n)++;
    }
    free(list);
    *out = v;
    return SB_OK;
}

int sb_gate_check(const sb_result_set *all, const sb_run_details *det, const sb_sku_table *skus,
                  const sb_gate_spec *spec, const char *arch_list, int *ok, sb_buf *out, sb_error *err)
{
    *ok = 1;
    char *list = strdup(arch_list);
    if (!list)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_buf_printf(out,
                  "GEMM spec: suite %s, %s %s %s %s, provider %s, %lld warm-up + %lld x %lld\n",
                  spec->suite, spec->op, spec->mode, spec->dtype, spec->shape_key,
                  spec->provider, spec->warmup_iters, spec->iters, spec->repeats);
    char *save = NULL;
    int rc = SB_OK;
    for (char *arch = strtok_r(list, ",", &save); arch; arch = strtok_r(NULL, ",", &save)) {
        if (!*arch)
            continue;
        sb_buf probs = SB_BUF_INIT;
        sb_gate_verdict v;
        if (check_arch(all, det, skus, spec, arch, &v, &probs, err) != SB_OK) {
            sb_buf_free(&probs);
            rc = SB_ERR;
            break;
        }
        if (v.state == SB_GATE_OK) {
            sb_buf_printf(out, "%s: ok: run %lld on ", arch, v.run_id);
            sb_enc_terminal(out, v.sku, SB_TEXT_NAME_MAX);
            sb_buf_puts(out, "\n");
        } else {
            *ok = 0;
            if (v.candidates == 0)
                sb_buf_printf(out, "%s: missing: no GEMM spec result stored for this arch\n", arch);
            else if (v.complete == 0)
                sb_buf_printf(out, "%s: missing: %zu GEMM spec result(s), none complete:\n%s", arch,
                              v.candidates, sb_buf_str(&probs));
            else
                sb_buf_printf(out,
                              "%s: ambiguous: %zu complete GEMM spec results, expected "
                              "exactly one (remove the extra runs or keep one database "
                              "per release)\n",
                              arch, v.complete);
        }
        sb_buf_free(&probs);
    }
    free(list);
    if (rc == SB_OK && sb_buf_failed(out))
        return sb_error_set(err, NULL, NULL, "out of memory");
    return rc;
}
