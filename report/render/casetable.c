/* casetable.c - per-shape speedup tables (casetable.h). */
#include "casetable.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "geomean.h"
#include "geomean_render.h"
#include "stats.h"

void sb_case_label(const sb_result *r, sb_buf *out)
{
    sb_case_label_of(r->shape_key, r->params_json, out);
}

void sb_case_label_of(const char *shape_key, const char *params_json, sb_buf *out)
{
    sb_buf_puts(out, shape_key);
    json_t *p = params_json ? json_loads(params_json, 0, NULL) : NULL;
    const char *k;
    json_t *v;
    json_object_foreach(p, k, v) {
        sb_buf_printf(out, " %s=", k);
        if (json_is_string(v))
            sb_buf_puts(out, json_string_value(v));
        else if (json_is_integer(v))
            sb_buf_printf(out, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            sb_buf_printf(out, "%g", json_real_value(v));
        else if (json_is_boolean(v))
            sb_buf_puts(out, json_is_true(v) ? "true" : "false");
        else
            sb_buf_puts(out, "...");
    }
    json_decref(p);
}

static const sb_result *find(const sb_pick *picks, size_t n, const sb_result *c, const char *provider)
{
    const sb_pick *p = sb_pick_find(picks, n, c->case_key, provider, c->sku);
    return p ? p->r : NULL;
}

static void cell(sb_buf *out, const char *s)
{
    sb_buf_puts(out, " ");
    sb_enc_md_text(out, s, SB_TEXT_NAME_MAX);
    sb_buf_puts(out, " |");
}

size_t sb_case_table_render(const sb_pick *picks, size_t n, const char *op, const char *sku,
                            const char *provider, const char *baseline, sb_buf *out)
{
    size_t total = 0;
    const sb_result **pv = malloc((n + 1) * sizeof *pv), **bv = malloc((n + 1) * sizeof *bv);
    double *ratio = malloc((n + 1) * sizeof *ratio);
    char *done = calloc(n + 1, 1);
    if (!pv || !bv || !ratio || !done) {
        free(pv);
        free(bv);
        free(ratio);
        free(done);
        return 0;
    }
    if (strcmp(baseline, SB_DIAGNOSTIC_PROVIDER) == 0)
        sb_geo_diagnostic_note(out);
    for (size_t g = 0; g < n; g++) {
        const sb_result *head = picks[g].r;
        if (done[g] || strcmp(head->op, op) || strcmp(head->sku, sku))
            continue;
        size_t np = 0, kernel = 0, failed = 0, skipped = 0, no_base = 0, not_run = 0;
        for (size_t i = g; i < n; i++) {
            const sb_result *r = picks[i].r;
            if (strcmp(r->op, op) || strcmp(r->sku, sku) || strcmp(r->mode, head->mode) ||
                strcmp(r->dtype, head->dtype))
                continue;
            done[i] = 1;
            int is_prov = strcmp(r->provider, provider) == 0;
            if (!is_prov) {
                if (strcmp(r->provider, baseline) == 0 && r->passing && !find(picks, n, r, provider))
                    not_run++;
                continue;
            }
            const sb_result *b = find(picks, n, r, baseline);
            if (strcmp(r->status, "skipped") == 0)
                skipped++;
            else if (!r->passing)
                failed++;
            else if (!b || !b->passing || isnan(sb_speedup(r, b, SB_TIME_CALL)))
                no_base++;
            else {
                pv[np] = r;
                bv[np++] = b;
                kernel += sb_both_kernel(r, b);
            }
        }
        sb_time_kind tk = np && kernel == np ? SB_TIME_KERNEL : SB_TIME_CALL;
        sb_buf_puts(out, "### ");
        sb_enc_md_text(out, op, SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " ");
        sb_enc_md_text(out, head->mode, SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " ");
        sb_enc_md_text(out, head->dtype, SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " on ");
        sb_enc_md_text(out, sku, SB_TEXT_NAME_MAX);
        sb_buf_puts(out, ": ");
        sb_enc_md_text(out, provider, SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " against ");
        sb_enc_md_text(out, baseline, SB_TEXT_NAME_MAX);
        sb_buf_printf(out, " (%s time)\n\n", sb_time_kind_name(tk));
        if (np) {
            sb_buf_puts(out, "| suite | case | ");
            sb_enc_md_text(out, provider, SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " ms | ");
            sb_enc_md_text(out, baseline, SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " ms | speedup |\n| --- | --- | ---: | ---: | ---: |\n");
            for (size_t k = 0; k < np; k++) {
                double a = tk == SB_TIME_KERNEL ? pv[k]->kernel_median_ms : pv[k]->median_ms;
                double b = tk == SB_TIME_KERNEL ? bv[k]->kernel_median_ms : bv[k]->median_ms;
                ratio[k] = sb_speedup(pv[k], bv[k], tk);
                sb_buf label = SB_BUF_INIT;
                sb_case_label(pv[k], &label);
                sb_buf_puts(out, "|");
                cell(out, pv[k]->suite);
                cell(out, sb_buf_str(&label));
                sb_buf_free(&label);
                sb_buf_printf(out, " %.4f | %.4f | %.3f |\n", a, b, ratio[k]);
            }
            sb_buf_printf(out, "| **geomean** | %zu cases | | | **%.3f** |\n", np,
                          sb_geomean(ratio, np));
        } else {
            sb_buf_puts(out, "No case both passed.\n");
        }
        sb_buf_printf(out, "\nNot compared: %zu failed, %zu skipped, %zu without a passing "
                           "baseline run, %zu run by the baseline only.\n\n",
                      failed, skipped, no_base, not_run);
        total += np;
    }
    free(pv);
    free(bv);
    free(ratio);
    free(done);
    return total;
}
