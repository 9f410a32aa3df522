/* result_filter.c - which stored runs a filter keeps, on loaded runs
 * (result_filter.h). */
#include "result_filter.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int str_is(const char *want, const char *have)
{
    return !want || strcmp(want, have) == 0;
}

int sb_result_matches(const sb_result *r, const sb_result_filter *f)
{
    if (!f)
        return 1;
    if (!str_is(f->suite, r->suite) || !str_is(f->op, r->op) ||
        !str_is(f->provider, r->provider) || !str_is(f->arch, r->arch) || !str_is(f->sku, r->sku))
        return 0;
    if (f->branch && (!r->git_branch || strcmp(f->branch, r->git_branch) != 0))
        return 0;
    if (f->sha) {
        size_t n = strlen(f->sha);
        /* git_sha >= sha AND git_sha < sha || 'g' */
        if (strcmp(r->git_sha, f->sha) < 0)
            return 0;
        int k = strncmp(r->git_sha, f->sha, n);
        if (k > 0 || (k == 0 && strlen(r->git_sha) > n && (unsigned char)r->git_sha[n] >= 'g'))
            return 0;
    }
    if (!f->with_profiled && r->profiler)
        return 0;
    if (!f->with_sessions && !f->only_sessions && r->session_id)
        return 0;
    if (f->only_sessions && !r->session_id)
        return 0;
    if (f->has_range && (r->finished_epoch == LLONG_MIN || r->finished_epoch < f->from ||
                         r->finished_epoch >= f->to))
        return 0;
    if (f->after_run > 0 && r->run_id <= f->after_run)
        return 0;
    if (f->up_to_run > 0 && r->run_id > f->up_to_run)
        return 0;
    return 1;
}

int sb_results_pick(const sb_result_set *all, const sb_result_filter *f, sb_result_set *out,
                    sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->borrowed = 1;
    size_t n = 0, nl = 0;
    for (size_t i = 0; i < all->n; i++)
        n += sb_result_matches(&all->v[i], f);
    for (size_t i = 0; i < all->n_left_out; i++)
        nl += sb_result_matches(&all->left_out[i], f);
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    out->left_out = malloc((nl ? nl : 1) * sizeof *out->left_out);
    if (!out->v || !out->left_out) {
        sb_results_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < all->n; i++)
        if (sb_result_matches(&all->v[i], f))
            out->v[out->n++] = all->v[i];
    for (size_t i = 0; i < all->n_left_out; i++)
        if (sb_result_matches(&all->left_out[i], f))
            out->left_out[out->n_left_out++] = all->left_out[i];
    return SB_OK;
}
