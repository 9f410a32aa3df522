/* test_kernels_cpu.c - the CPU implementations of the solbench kernels
 * (bench/kernels/sbk_cpu.c) against their float64 references, the
 * references against finite differences and known analytic cases, and the
 * element conversions. No GPU needed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sbk_cpu.h"
#include "sbk_types.h"

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state = 0x12345678u;
static double urand(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1.0p-53;
}

/* n random elements of dt in [lo, hi): the stored buffer and its exact
 * float64 widening */
static void *rand_typed(sbk_dtype dt, size_t n, double lo, double hi, double **wide)
{
    void *p = malloc(n * sbk_dtype_size(dt));
    double *w = malloc(n * sizeof *w);
    assert_non_null(p);
    assert_non_null(w);
    for (size_t i = 0; i < n; i++) {
        sbk_store(p, dt, i, (float)urand(lo, hi));
        w[i] = sbk_load(p, dt, i);
    }
    *wide = w;
    return p;
}

static double *widen(const void *p, sbk_dtype dt, size_t n)
{
    double *w = malloc(n * sizeof *w);
    assert_non_null(w);
    for (size_t i = 0; i < n; i++)
        w[i] = sbk_load(p, dt, i);
    return w;
}

/* relative L2 error of out against ref */
static double rel_l2(const double *out, const double *ref, size_t n)
{
    double e = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        e += (out[i] - ref[i]) * (out[i] - ref[i]);
        r += ref[i] * ref[i];
    }
    return r > 0 ? sqrt(e / r) : sqrt(e);
}

static double tol(sbk_dtype dt)
{
    return dt == SBK_BF16 ? 8e-3 : dt == SBK_F16 ? 1.5e-3 : 2e-6;
}

static const sbk_dtype all_dtypes[] = {SBK_F32, SBK_F16, SBK_BF16};

/* ---- element conversions -------------------------------------------------- */

static void test_conversions(void **st)
{
    (void)st;
    assert_int_equal(sbk_float_to_bf16(1.0f), 0x3f80);
    assert_int_equal(sbk_float_to_half(1.0f), 0x3c00);
    assert_int_equal(sbk_float_to_half(65504.0f), 0x7bff);
    assert_int_equal(sbk_float_to_half(65520.0f), 0x7c00);       /* rounds to infinity */
    assert_int_equal(sbk_float_to_half(5.9604645e-8f), 0x0001);  /* smallest subnormal */
    assert_int_equal(sbk_float_to_half(2.9802322e-8f), 0x0000);  /* half of it: tie to even, 0 */
    assert_int_equal(sbk_float_to_half(-2.0f), 0xc000);
    /* 1 + 2^-8 is halfway between two bf16 values: ties to even (1.0) */
    assert_int_equal(sbk_float_to_bf16(1.00390625f), 0x3f80);
    assert_int_equal(sbk_float_to_bf16(1.01171875f), 0x3f82);    /* 1 + 3 * 2^-8: up to even */
    assert_true(isnan(sbk_bf16_to_float(sbk_float_to_bf16(NAN))));
    assert_true(isnan(sbk_half_to_float(sbk_float_to_half(NAN))));
    for (uint32_t h = 0; h < 0x7c00; h++) /* every finite positive half round-trips */
        assert_int_equal(sbk_float_to_half(sbk_half_to_float((uint16_t)h)), h);
    sbk_dtype d;
    assert_int_equal(sbk_dtype_parse("bf16", &d), 0);
    assert_int_equal(d, SBK_BF16);
    assert_int_equal(sbk_dtype_parse("fp8", &d), -1);
    assert_string_equal(sbk_dtype_name(SBK_F16), "fp16");
}

/* ---- softmax ------------------------------------------------------------ */

static void test_softmax(void **st)
{
    (void)st;
    const int64_t M = 5, N = 67;
    for (size_t k = 0; k < 3; k++) {
        sbk_dtype dt = all_dtypes[k];
        double *xw, *dyw;
        void *x = rand_typed(dt, (size_t)(M * N), -6, 6, &xw);
        void *dy = rand_typed(dt, (size_t)(M * N), -1, 1, &dyw);
        double *ref = malloc(sizeof(double) * (size_t)(M * N));
        void *y = malloc(sizeof(float) * (size_t)(M * N));
        assert_int_equal(sbk_ref_softmax_fwd(xw, ref, M, N), 0);
        for (int64_t r = 0; r < M; r++) { /* rows sum to 1 */
            double s = 0;
            for (int64_t j = 0; j < N; j++)
                s += ref[r * N + j];
            assert_true(fabs(s - 1.0) < 1e-12);
        }
        assert_int_equal(sbk_cpu_softmax_fwd(x, dt, y, M, N), 0);
        double *yw = widen(y, dt, (size_t)(M * N));
        assert_true(rel_l2(yw, ref, (size_t)(M * N)) < tol(dt));
        /* backward from the stored y */
        double *dref = malloc(sizeof(double) * (size_t)(M * N));
        void *dx = malloc(sizeof(float) * (size_t)(M * N));
        assert_int_equal(sbk_ref_softmax_bwd(dyw, yw, dref, M, N), 0);
        assert_int_equal(sbk_cpu_softmax_bwd(dy, y, dt, dx, M, N), 0);
        double *dxw = widen(dx, dt, (size_t)(M * N));
        assert_true(rel_l2(dxw, dref, (size_t)(M * N)) < 2 * tol(dt));
        /* the gradient of each row sums to 0 (y sums to 1) */
        for (int64_t r = 0; r < M; r++) {
            double s = 0, a = 0;
            for (int64_t j = 0; j < N; j++) {
                s += dref[r * N + j];
                a += fabs(dref[r * N + j]);
            }
            assert_true(fabs(s) < 1e-3 * a + 1e-6);
        }
        free(x); free(xw); free(dy); free(dyw); free(ref); free(y); free(yw);
        free(dref); free(dx); free(dxw);
    }
}

/* ---- RMSNorm -------------------------------------------------------------- */

static double rms_loss(const double *x, const double *w, const double *dy, int64_t M, int64_t N, double eps)
{
    double *y = malloc(sizeof(double) * (size_t)(M * N));
    assert_non_null(y);
    sbk_ref_rmsnorm_fwd(x, w, y, NULL, M, N, eps);
    double l = 0;
    for (int64_t i = 0; i < M * N; i++)
        l += dy[i] * y[i];
    free(y);
    return l;
}

static void test_rmsnorm_ref_finite_differences(void **st)
{
    (void)st;
    const int64_t M = 3, N = 11;
    const double eps = 1e-6, h = 1e-6;
    double x[33], w[11], dy[33], dx[33], dw[11];
    for (int i = 0; i < 33; i++) {
        x[i] = urand(-2, 2);
        dy[i] = urand(-1, 1);
    }
    for (int i = 0; i < 11; i++)
        w[i] = urand(0.5, 1.5);
    assert_int_equal(sbk_ref_rmsnorm_bwd(dy, x, w, dx, dw, M, N, eps), 0);
    for (int i = 0; i < 33; i++) {
        double s = x[i];
        x[i] = s + h;
        double lp = rms_loss(x, w, dy, M, N, eps);
        x[i] = s - h;
        double lm = rms_loss(x, w, dy, M, N, eps);
        x[i] = s;
        assert_true(fabs((lp - lm) / (2 * h) - dx[i]) < 1e-6);
    }
    for (int j = 0; j < 11; j++) {
        double s = w[j];
        w[j] = s + h;
        double lp = rms_loss(x, w, dy, M, N, eps);
        w[j] = s - h;
        double lm = rms_loss(x, w, dy, M, N, eps);
        w[j] = s;
        assert_true(fabs((lp - lm) / (2 * h) - dw[j]) < 1e-6);
    }
}

static void test_rmsnorm_cpu(void **st)
{
    (void)st;
    const int64_t M = 7, N = 96;
    const size_t mn = (size_t)(M * N);
    for (size_t k = 0; k < 3; k++)
        for (int wf = 0; wf < 2; wf++) {
            sbk_dtype dt = all_dtypes[k], wdt = wf ? SBK_F32 : dt;
            double *xw, *ww, *dyw;
            void *x = rand_typed(dt, mn, -2, 2, &xw);
            void *w = rand_typed(wdt, (size_t)N, 0.5, 1.5, &ww);
            void *dy = rand_typed(dt, mn, -1, 1, &dyw);
            double *yr = malloc(mn * sizeof *yr), *dxr = malloc(mn * sizeof *dxr), dwr[96];
            double rstd[7];
            void *y = malloc(mn * 4), *dx = malloc(mn * 4), *dwb = malloc((size_t)N * 4);
            assert_int_equal(sbk_ref_rmsnorm_fwd(xw, ww, yr, rstd, M, N, 1e-6), 0);
            assert_int_equal(sbk_cpu_rmsnorm_fwd(x, dt, w, wdt, y, M, N, 1e-6f), 0);
            double *yw = widen(y, dt, mn);
            assert_true(rel_l2(yw, yr, mn) < tol(dt));
            /* y / w has mean square 1 per row (up to eps) */
            for (int64_t r = 0; r < M; r++) {
                double ms = 0;
                for (int64_t j = 0; j < N; j++)
                    ms += (yr[r * N + j] / ww[j]) * (yr[r * N + j] / ww[j]);
                assert_true(fabs(ms / (double)N - 1.0) < 1e-4);
            }
            assert_int_equal(sbk_ref_rmsnorm_bwd(dyw, xw, ww, dxr, dwr, M, N, 1e-6), 0);
            assert_int_equal(sbk_cpu_rmsnorm_bwd(dy, x, dt, w, wdt, dx, dwb, M, N, 1e-6f), 0);
            double *dxw = widen(dx, dt, mn), *dww = widen(dwb, wdt, (size_t)N);
            assert_true(rel_l2(dxw, dxr, mn) < 2 * tol(dt));
            assert_true(rel_l2(dww, dwr, (size_t)N) < 2 * tol(wdt));
            free(x); free(xw); free(w); free(ww); free(dy); free(dyw); free(yr); free(dxr);
            free(y); free(dx); free(dwb); free(yw); free(dxw); free(dww);
        }
}

static void test_add_rmsnorm_in_place(void **st)
{
    (void)st;
    const int64_t M = 4, N = 64;
    const size_t mn = (size_t)(M * N);
    for (size_t k = 0; k < 3; k++) {
        sbk_dtype dt = all_dtypes[k];
        double *xw, *rw, *ww;
        void *x = rand_typed(dt, mn, -2, 2, &xw);
        void *res = rand_typed(dt, mn, -2, 2, &rw);
        void *w = rand_typed(SBK_F32, (size_t)N, 0.5, 1.5, &ww);
        double *xo = malloc(mn * sizeof *xo), *ro = malloc(mn * sizeof *ro);
        assert_int_equal(sbk_ref_add_rmsnorm(xw, rw, ww, xo, ro, M, N, 1e-6), 0);
        assert_int_equal(sbk_cpu_add_rmsnorm(x, res, dt, w, SBK_F32, M, N, 1e-6f), 0);
        double *xn = widen(x, dt, mn), *rn = widen(res, dt, mn);
        /* residual now holds x + residual, rounded once to the dtype */
        for (size_t i = 0; i < mn; i++) {
            uint32_t cell = 0;
            sbk_store(&cell, dt, 0, (float)(xw[i] + rw[i]));
            assert_true(rn[i] == sbk_load(&cell, dt, 0));
        }
        assert_true(rel_l2(rn, ro, mn) < tol(dt));
        assert_true(rel_l2(xn, xo, mn) < 2 * tol(dt));
        free(x); free(xw); free(res); free(rw); free(w); free(ww); free(xo); free(ro); free(xn); free(rn);
    }
}

static void test_layernorm(void **st)
{
    (void)st;
    const int64_t M = 6, N = 80;
    const size_t mn = (size_t)(M * N);
    for (size_t k = 0; k < 3; k++) {
        sbk_dtype dt = all_dtypes[k];
        double *xw, *ww, *bw;
        void *x = rand_typed(dt, mn, 1, 3, &xw); /* mean far from 0 */
        void *w = rand_typed(dt, (size_t)N, 0.5, 1.5, &ww);
        void *b = rand_typed(dt, (size_t)N, -0.5, 0.5, &bw);
        double *yr = malloc(mn * sizeof *yr);
        void *y = malloc(mn * 4);
        assert_int_equal(sbk_ref_layernorm_fwd(xw, ww, bw, yr, M, N, 1e-5), 0);
        /* (y - b) / w has mean 0 and variance 1 per row */
        for (int64_t r = 0; r < M; r++) {
            double m = 0, v = 0;
            for (int64_t j = 0; j < N; j++)
                m += (yr[r * N + j] - bw[j]) / ww[j];
            for (int64_t j = 0; j < N; j++) {
                double z = (yr[r * N + j] - bw[j]) / ww[j];
                v += z * z;
            }
            assert_true(fabs(m / (double)N) < 1e-9);
            assert_true(fabs(v / (double)N - 1.0) < 1e-3);
        }
        assert_int_equal(sbk_cpu_layernorm_fwd(x, dt, w, b, dt, y, M, N, 1e-5f), 0);
        double *yw = widen(y, dt, mn);
        assert_true(rel_l2(yw, yr, mn) < tol(dt));
        free(x); free(xw); free(w); free(ww); free(b); free(bw); free(yr); free(y); free(yw);
    }
}

/* ---- RoPE ------------------------------------------------------------------- */

static void hf_cos_sin(double *c, double *s, int64_t T, int64_t D)
{
    for (int64_t t = 0; t < T; t++)
        for (int64_t i = 0; i < D; i++) {
            double inv = pow(10000.0, -2.0 * (double)(i % (D / 2)) / (double)D);
            c[t * D + i] = cos((double)t * inv);
            s[t * D + i] = sin((double)t * inv);
        }
}

static void test_rope(void **st)
{
    (void)st;
    const int64_t B = 2, T = 5, Hq = 4, Hk = 2, D = 16;
    const size_t nq = (size_t)(B * T * Hq * D), nk = (size_t)(B * T * Hk * D), nt = (size_t)(T * D);
    double c[80], s[80];
    hf_cos_sin(c, s, T, D);
    double *q = malloc(nq * sizeof *q), *o = malloc(nq * sizeof *o), *back = malloc(nq * sizeof *back);
    for (size_t i = 0; i < nq; i++)
        q[i] = urand(-2, 2);
    assert_int_equal(sbk_ref_rope(q, c, s, o, B, T, Hq, D, 0), 0);
    /* position 0 is the identity */
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < Hq * D; i++)
            assert_true(o[(b * T) * Hq * D + i] == q[(b * T) * Hq * D + i]);
    /* a rotation: the backward (transpose) undoes it, norms are kept */
    assert_int_equal(sbk_ref_rope(o, c, s, back, B, T, Hq, D, 1), 0);
    for (size_t i = 0; i < nq; i++)
        assert_true(fabs(back[i] - q[i]) < 1e-12);
    /* <R x, y> = <x, R^T y> for the pair (fwd, bwd) */
    double *y = malloc(nq * sizeof *y), *rty = malloc(nq * sizeof *rty);
    for (size_t i = 0; i < nq; i++)
        y[i] = urand(-1, 1);
    sbk_ref_rope(y, c, s, rty, B, T, Hq, D, 1);
    double l = 0, r = 0;
    for (size_t i = 0; i < nq; i++) {
        l += o[i] * y[i];
        r += q[i] * rty[i];
    }
    assert_true(fabs(l - r) < 1e-9);
    /* CPU against the reference, every dtype, both directions */
    for (size_t k = 0; k < 3; k++)
        for (int inv = 0; inv < 2; inv++) {
            sbk_dtype dt = all_dtypes[k];
            double *qw, *kw;
            void *qb = rand_typed(dt, nq, -2, 2, &qw), *kb = rand_typed(dt, nk, -2, 2, &kw);
            void *cb = malloc(nt * 4), *sb = malloc(nt * 4);
            for (size_t i = 0; i < nt; i++) {
                sbk_store(cb, dt, i, (float)c[i]);
                sbk_store(sb, dt, i, (float)s[i]);
            }
            double *cw = widen(cb, dt, nt), *sw = widen(sb, dt, nt);
            void *qo = malloc(nq * 4), *ko = malloc(nk * 4);
            assert_int_equal(sbk_cpu_rope(qb, kb, cb, sb, dt, qo, ko, B, T, Hq, Hk, D, inv), 0);
            double *qr = malloc(nq * sizeof *qr), *kr = malloc(nk * sizeof *kr);
            sbk_ref_rope(qw, cw, sw, qr, B, T, Hq, D, inv);
            sbk_ref_rope(kw, cw, sw, kr, B, T, Hk, D, inv);
            double *qow = widen(qo, dt, nq), *kow = widen(ko, dt, nk);
            assert_true(rel_l2(qow, qr, nq) < tol(dt));
            assert_true(rel_l2(kow, kr, nk) < tol(dt));
            free(qb); free(qw); free(kb); free(kw); free(cb); free(sb); free(cw); free(sw);
            free(qo); free(ko); free(qr); free(kr); free(qow); free(kow);
        }
    assert_int_equal(sbk_ref_rope(q, c, s, o, B, T, Hq, 15, 0), -1); /* odd head_dim */
    free(q); free(o); free(back); free(y); free(rty);
}

/* ---- SwiGLU ------------------------------------------------------------------ */

static void test_swiglu(void **st)
{
    (void)st;
    const int64_t n = 301;
    /* the reference backward against finite differences of sum(dc * c) */
    double a[301], b[301], dc[301], c[301], da[301], db[301];
    for (int i = 0; i < n; i++) {
        a[i] = urand(-4, 4);
        b[i] = urand(-2, 2);
        dc[i] = urand(-1, 1);
    }
    assert_int_equal(sbk_ref_swiglu_bwd(dc, a, b, da, db, n), 0);
    const double h = 1e-6;
    for (int i = 0; i < n; i++) {
        double cp, cm, s = a[i];
        a[i] = s + h;
        sbk_ref_swiglu_fwd(a + i, b + i, &cp, 1);
        a[i] = s - h;
        sbk_ref_swiglu_fwd(a + i, b + i, &cm, 1);
        a[i] = s;
        assert_true(fabs(dc[i] * (cp - cm) / (2 * h) - da[i]) < 1e-6);
        sbk_ref_swiglu_fwd(a + i, b + i, &cp, 1);
        assert_true(fabs(dc[i] * cp / b[i] - db[i]) < 1e-9 * (1 + fabs(db[i]))); /* linear in b */
    }
    sbk_ref_swiglu_fwd(a, b, c, n);
    for (size_t k = 0; k < 3; k++) {
        sbk_dtype dt = all_dtypes[k];
        double *aw, *bw, *gw;
        void *ab = rand_typed(dt, (size_t)n, -4, 4, &aw), *bb = rand_typed(dt, (size_t)n, -2, 2, &bw);
        void *gb = rand_typed(dt, (size_t)n, -1, 1, &gw);
        void *cb = malloc((size_t)n * 4), *dab = malloc((size_t)n * 4), *dbb = malloc((size_t)n * 4);
        double cr[301], dar[301], dbr[301];
        sbk_ref_swiglu_fwd(aw, bw, cr, n);
        sbk_ref_swiglu_bwd(gw, aw, bw, dar, dbr, n);
        assert_int_equal(sbk_cpu_swiglu_fwd(ab, bb, dt, cb, n), 0);
        assert_int_equal(sbk_cpu_swiglu_bwd(gb, ab, bb, dt, dab, dbb, n), 0);
        double *cw = widen(cb, dt, (size_t)n), *daw = widen(dab, dt, (size_t)n), *dbw = widen(dbb, dt, (size_t)n);
        assert_true(rel_l2(cw, cr, (size_t)n) < tol(dt));
        assert_true(rel_l2(daw, dar, (size_t)n) < tol(dt));
        assert_true(rel_l2(dbw, dbr, (size_t)n) < tol(dt));
        free(ab); free(aw); free(bb); free(bw); free(gb); free(gw); free(cb); free(dab); free(dbb);
        free(cw); free(daw); free(dbw);
    }
}

/* ---- cross entropy ------------------------------------------------------------ */

static void test_cross_entropy_analytic(void **st)
{
    (void)st;
    enum { M = 3, V = 50 };
    double x[M * V];
    int64_t t[M] = {7, SBK_IGNORE_INDEX, 49};
    /* row 0: one-hot logit of 30 at the target; row 2: uniform logits */
    for (int j = 0; j < M * V; j++)
        x[j] = 0.0;
    x[0 * V + 7] = 30.0;
    for (int j = 0; j < V; j++)
        x[1 * V + j] = urand(-5, 5); /* ignored */
    double loss, dx[M * V];
    assert_int_equal(sbk_ref_cross_entropy(x, t, M, V, &loss, dx), 0);
    double l0 = log1p((V - 1) * exp(-30.0)), l2 = log((double)V);
    assert_true(fabs(loss - (l0 + l2) / 2.0) < 1e-12);
    for (int j = 0; j < V; j++)
        assert_true(dx[1 * V + j] == 0.0); /* ignored row: no gradient */
    assert_true(fabs(dx[2 * V + 49] - (1.0 / V - 1.0) / 2.0) < 1e-12);
    assert_true(fabs(dx[2 * V + 3] - (1.0 / V) / 2.0) < 1e-12);
    /* every row of the gradient sums to 0 */
    for (int r = 0; r < M; r++) {
        double s = 0;
        for (int j = 0; j < V; j++)
            s += dx[r * V + j];
        assert_true(fabs(s) < 1e-12);
    }
    int64_t bad[M] = {7, 50, 0};
    assert_int_equal(sbk_ref_cross_entropy(x, bad, M, V, &loss, dx), -1);
    int64_t none[M] = {SBK_IGNORE_INDEX, SBK_IGNORE_INDEX, SBK_IGNORE_INDEX};
    assert_int_equal(sbk_ref_cross_entropy(x, none, M, V, &loss, dx), 0);
    assert_true(loss == 0.0);
}

static void test_cross_entropy_cpu(void **st)
{
    (void)st;
    const int64_t M = 9, V = 203;
    const size_t mv = (size_t)(M * V);
    int64_t t[9];
    for (int r = 0; r < M; r++)
        t[r] = r == 4 ? SBK_IGNORE_INDEX : (int64_t)(urand(0, 1) * V) % V;
    for (size_t k = 0; k < 3; k++) {
        sbk_dtype dt = all_dtypes[k];
        double *xw;
        void *x = rand_typed(dt, mv, -8, 8, &xw);
        double lr, *dr = malloc(mv * sizeof *dr);
        assert_int_equal(sbk_ref_cross_entropy(xw, t, M, V, &lr, dr), 0);
        /* the gradient against finite differences of the mean loss */
        for (int i = 0; i < 40; i++) {
            size_t e = (size_t)(urand(0, 1) * (double)mv) % mv;
            double s = xw[e], lp, lm, h = 1e-5;
            xw[e] = s + h;
            sbk_ref_cross_entropy(xw, t, M, V, &lp, NULL);
            xw[e] = s - h;
            sbk_ref_cross_entropy(xw, t, M, V, &lm, NULL);
            xw[e] = s;
            assert_true(fabs((lp - lm) / (2 * h) - dr[e]) < 1e-8);
        }
        float l, rows[9];
        void *dx = malloc(mv * 4);
        assert_int_equal(sbk_cpu_cross_entropy(x, dt, t, M, V, &l, rows, dx), 0);
        assert_true(fabs(l - lr) < 1e-5 * fabs(lr) + 1e-6);
        double srows = 0;
        for (int r = 0; r < M; r++)
            srows += rows[r];
        assert_true(rows[4] == 0.0f);
        assert_true(fabs(srows / 8.0 - lr) < 1e-5 * fabs(lr));
        double *dxw = widen(dx, dt, mv);
        assert_true(rel_l2(dxw, dr, mv) < tol(dt));
        free(x); free(xw); free(dr); free(dx); free(dxw);
    }
}

static void test_flce(void **st)
{
    (void)st;
    const int64_t BT = 6, H = 24, V = 37;
    int64_t t[6] = {0, 36, SBK_IGNORE_INDEX, 5, 17, 36};
    for (size_t k = 0; k < 3; k++) {
        sbk_dtype dt = all_dtypes[k];
        double *hw, *ww;
        void *h = rand_typed(dt, (size_t)(BT * H), -1, 1, &hw);
        void *w = rand_typed(dt, (size_t)(V * H), -0.5, 0.5, &ww);
        double loss, *dh = malloc(sizeof(double) * (size_t)(BT * H)), *dw = malloc(sizeof(double) * (size_t)(V * H));
        assert_int_equal(sbk_ref_flce(hw, ww, t, BT, H, V, &loss, dh, dw), 0);
        /* equals cross entropy of the explicit logits, and its chain rule */
        double *lg = calloc((size_t)(BT * V), sizeof *lg), *dl = malloc(sizeof(double) * (size_t)(BT * V)), l2;
        for (int64_t r = 0; r < BT; r++)
            for (int64_t v = 0; v < V; v++)
                for (int64_t q = 0; q < H; q++)
                    lg[r * V + v] += hw[r * H + q] * ww[v * H + q];
        sbk_ref_cross_entropy(lg, t, BT, V, &l2, dl);
        assert_true(fabs(loss - l2) < 1e-12);
        for (int64_t r = 0; r < BT; r++)
            for (int64_t q = 0; q < H; q++) {
                double s = 0;
                for (int64_t v = 0; v < V; v++)
                    s += dl[r * V + v] * ww[v * H + q];
                assert_true(fabs(s - dh[r * H + q]) < 1e-12);
            }
        for (int64_t v = 0; v < V; v++)
            for (int64_t q = 0; q < H; q++) {
                double s = 0;
                for (int64_t r = 0; r < BT; r++)
                    s += dl[r * V + v] * hw[r * H + q];
                assert_true(fabs(s - dw[v * H + q]) < 1e-12);
            }
        float lc, rows[6];
        void *dhc = malloc((size_t)(BT * H) * 4), *dwc = malloc((size_t)(V * H) * 4);
        assert_int_equal(sbk_cpu_flce(h, w, dt, t, BT, H, V, &lc, rows, dhc, dwc), 0);
        assert_true(fabs(lc - loss) < 1e-5 * fabs(loss) + 1e-6);
        assert_true(rows[2] == 0.0f);
        double *dhw = widen(dhc, dt, (size_t)(BT * H)), *dww = widen(dwc, dt, (size_t)(V * H));
        assert_true(rel_l2(dhw, dh, (size_t)(BT * H)) < 2 * tol(dt) + 1e-6);
        assert_true(rel_l2(dww, dw, (size_t)(V * H)) < 2 * tol(dt) + 1e-6);
        free(h); free(hw); free(w); free(ww); free(dh); free(dw); free(lg); free(dl);
        free(dhc); free(dwc); free(dhw); free(dww);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_rmsnorm_ref_finite_differences),
        cmocka_unit_test(test_rmsnorm_cpu),
        cmocka_unit_test(test_add_rmsnorm_in_place),
        cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_rope),
        cmocka_unit_test(test_swiglu),
        cmocka_unit_test(test_cross_entropy_analytic),
        cmocka_unit_test(test_cross_entropy_cpu),
        cmocka_unit_test(test_flce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
