/* sbk_cpu.c - float64 references and fp32 CPU implementations of the
 * solbench kernels. Semantics and rounding points: docs/KERNELS.md. */
#include "sbk_cpu.h"

#include <math.h>
#include <stdlib.h>

/* ---- float64 references ---------------------------------------------- */

int sbk_ref_rmsnorm_fwd(const double *x, const double *w, double *y,
                        double *rstd, int64_t M, int64_t N, double eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        const double *xr = x + r * N;
        double ss = 0.0;
        for (int64_t j = 0; j < N; j++) ss += xr[j] * xr[j];
        double rs = 1.0 / sqrt(ss / (double)N + eps);
        if (rstd) rstd[r] = rs;
        for (int64_t j = 0; j < N; j++) y[r * N + j] = xr[j] * rs * w[j];
    }
    return 0;
}

int sbk_ref_rmsnorm_bwd(const double *dy, const double *x, const double *w,
                        double *dx, double *dw, int64_t M, int64_t N,
                        double eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t j = 0; j < N; j++) dw[j] = 0.0;
    for (int64_t r = 0; r < M; r++) {
        const double *xr = x + r * N, *gr = dy + r * N;
        double ss = 0.0, gx = 0.0;
        for (int64_t j = 0; j < N; j++) {
            ss += xr[j] * xr[j];
            gx += gr[j] * w[j] * xr[j];
        }
        double rs = 1.0 / sqrt(ss / (double)N + eps);
        double c = rs * rs * rs * gx / (double)N;
        for (int64_t j = 0; j < N; j++) {
            dx[r * N + j] = rs * gr[j] * w[j] - c * xr[j];
            dw[j] += gr[j] * xr[j] * rs;
        }
    }
    return 0;
}

int sbk_ref_add_rmsnorm(const double *x, const double *res, const double *w,
                        double *x_out, double *res_out, int64_t M, int64_t N,
                        double eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t i = 0; i < M * N; i++) res_out[i] = x[i] + res[i];
    return sbk_ref_rmsnorm_fwd(res_out, w, x_out, NULL, M, N, eps);
}

int sbk_ref_layernorm_fwd(const double *x, const double *w, const double *b,
                          double *y, int64_t M, int64_t N, double eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        const double *xr = x + r * N;
        double mean = 0.0, var = 0.0;
        for (int64_t j = 0; j < N; j++) mean += xr[j];
        mean /= (double)N;
        for (int64_t j = 0; j < N; j++) var += (xr[j] - mean) * (xr[j] - mean);
        double rs = 1.0 / sqrt(var / (double)N + eps);
        for (int64_t j = 0; j < N; j++)
            y[r * N + j] = (xr[j] - mean) * rs * w[j] + b[j];
    }
    return 0;
}

int sbk_ref_softmax_fwd(const double *x, double *y, int64_t M, int64_t N)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        const double *xr = x + r * N;
        double mx = xr[0], s = 0.0;
        for (int64_t j = 1; j < N; j++) mx = xr[j] > mx ? xr[j] : mx;
        for (int64_t j = 0; j < N; j++) s += exp(xr[j] - mx);
        for (int64_t j = 0; j < N; j++) y[r * N + j] = exp(xr[j] - mx) / s;
    }
    return 0;
}

int sbk_ref_softmax_bwd(const double *dy, const double *y, double *dx,
                        int64_t M, int64_t N)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        double dot = 0.0;
        for (int64_t j = 0; j < N; j++) dot += dy[r * N + j] * y[r * N + j];
        for (int64_t j = 0; j < N; j++)
            dx[r * N + j] = y[r * N + j] * (dy[r * N + j] - dot);
    }
    return 0;
}

int sbk_ref_rope(const double *x, const double *cos_t, const double *sin_t,
                 double *out, int64_t B, int64_t T, int64_t H, int64_t D,
                 int inverse)
{
    if (B <= 0 || T <= 0 || H <= 0 || D <= 0 || D % 2) return -1;
    int64_t half = D / 2;
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < T; t++)
            for (int64_t h = 0; h < H; h++) {
                const double *xv = x + ((b * T + t) * H + h) * D;
                double *o = out + ((b * T + t) * H + h) * D;
                const double *c = cos_t + t * D, *s = sin_t + t * D;
                for (int64_t i = 0; i < half; i++) {
                    double x1 = xv[i], x2 = xv[i + half];
                    if (!inverse) {
                        o[i] = x1 * c[i] - x2 * s[i];
                        o[i + half] = x2 * c[i + half] + x1 * s[i + half];
                    } else {
                        /* transpose of the forward map */
                        o[i] = x1 * c[i] + x2 * s[i + half];
                        o[i + half] = x2 * c[i + half] - x1 * s[i];
                    }
                }
            }
    return 0;
}

static double sigmoid_d(double a) { return 1.0 / (1.0 + exp(-a)); }

int sbk_ref_swiglu_fwd(const double *a, const double *b, double *c, int64_t n)
{
    if (n <= 0) return -1;
    for (int64_t i = 0; i < n; i++) c[i] = a[i] * sigmoid_d(a[i]) * b[i];
    return 0;
}

int sbk_ref_swiglu_bwd(const double *dc, const double *a, const double *b,
                       double *da, double *db, int64_t n)
{
    if (n <= 0) return -1;
    for (int64_t i = 0; i < n; i++) {
        double s = sigmoid_d(a[i]);
        db[i] = dc[i] * a[i] * s;
        da[i] = dc[i] * b[i] * s * (1.0 + a[i] * (1.0 - s));
    }
    return 0;
}

static int64_t count_valid(const int64_t *target, int64_t M, int64_t V,
                           int *bad)
{
    int64_t n = 0;
    *bad = 0;
    for (int64_t r = 0; r < M; r++) {
        if (target[r] == SBK_IGNORE_INDEX) continue;
        if (target[r] < 0 || target[r] >= V) *bad = 1;
        n++;
    }
    return n;
}

int sbk_ref_cross_entropy(const double *logits, const int64_t *target,
                          int64_t M, int64_t V, double *loss, double *dx)
{
    if (M <= 0 || V <= 0) return -1;
    int bad;
    int64_t nv = count_valid(target, M, V, &bad);
    if (bad) return -1;
    double total = 0.0;
    for (int64_t r = 0; r < M; r++) {
        const double *x = logits + r * V;
        double *g = dx ? dx + r * V : NULL;
        if (target[r] == SBK_IGNORE_INDEX) {
            if (g) for (int64_t j = 0; j < V; j++) g[j] = 0.0;
            continue;
        }
        double mx = x[0], s = 0.0;
        for (int64_t j = 1; j < V; j++) mx = x[j] > mx ? x[j] : mx;
        for (int64_t j = 0; j < V; j++) s += exp(x[j] - mx);
        double lse = mx + log(s);
        total += lse - x[target[r]];
        if (g) {
            for (int64_t j = 0; j < V; j++)
                g[j] = exp(x[j] - lse) / (double)nv;
            g[target[r]] -= 1.0 / (double)nv;
        }
    }
    *loss = nv ? total / (double)nv : 0.0;
    return 0;
}

int sbk_ref_flce(const double *h, const double *w, const int64_t *target,
                 int64_t BT, int64_t H, int64_t V, double *loss, double *dh,
                 double *dw)
{
    if (BT <= 0 || H <= 0 || V <= 0) return -1;
    int bad;
    int64_t nv = count_valid(target, BT, V, &bad);
    if (bad) return -1;
    double *lg = malloc((size_t)V * sizeof *lg);
    if (!lg) return -1;
    if (dw) for (int64_t i = 0; i < V * H; i++) dw[i] = 0.0;
    double total = 0.0;
    for (int64_t r = 0; r < BT; r++) {
        const double *hr = h + r * H;
        if (dh) for (int64_t k = 0; k < H; k++) dh[r * H + k] = 0.0;
        if (target[r] == SBK_IGNORE_INDEX) continue;
        double mx = -INFINITY, s = 0.0;
        for (int64_t v = 0; v < V; v++) {
            double acc = 0.0;
            for (int64_t k = 0; k < H; k++) acc += hr[k] * w[v * H + k];
            lg[v] = acc;
            mx = acc > mx ? acc : mx;
        }
        for (int64_t v = 0; v < V; v++) s += exp(lg[v] - mx);
        double lse = mx + log(s);
        total += lse - lg[target[r]];
        for (int64_t v = 0; v < V; v++) {
            double g = (exp(lg[v] - lse) - (v == target[r] ? 1.0 : 0.0)) /
                       (double)nv;
            if (dh) for (int64_t k = 0; k < H; k++) dh[r * H + k] += g * w[v * H + k];
            if (dw) for (int64_t k = 0; k < H; k++) dw[v * H + k] += g * hr[k];
        }
    }
    free(lg);
    *loss = nv ? total / (double)nv : 0.0;
    return 0;
}

/* ---- CPU implementations ----------------------------------------------- */

#define LD(p, dt, i) sbk_load((p), (dt), (size_t)(i))
#define ST(p, dt, i, v) sbk_store((p), (dt), (size_t)(i), (v))

static float row_rstd(const void *x, sbk_dtype dt, int64_t off, int64_t N,
                      float eps)
{
    float ss = 0.0f;
    for (int64_t j = 0; j < N; j++) {
        float v = LD(x, dt, off + j);
        ss += v * v;
    }
    return 1.0f / sqrtf(ss / (float)N + eps);
}

int sbk_cpu_rmsnorm_fwd(const void *x, sbk_dtype dt, const void *w,
                        sbk_dtype wdt, void *y, int64_t M, int64_t N,
                        float eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        float rs = row_rstd(x, dt, r * N, N, eps);
        for (int64_t j = 0; j < N; j++)
            ST(y, dt, r * N + j, LD(x, dt, r * N + j) * rs * LD(w, wdt, j));
    }
    return 0;
}

int sbk_cpu_rmsnorm_bwd(const void *dy, const void *x, sbk_dtype dt,
                        const void *w, sbk_dtype wdt, void *dx, void *dw,
                        int64_t M, int64_t N, float eps)
{
    if (M <= 0 || N <= 0) return -1;
    float *acc = calloc((size_t)N, sizeof *acc);
    if (!acc) return -1;
    for (int64_t r = 0; r < M; r++) {
        float rs = row_rstd(x, dt, r * N, N, eps);
        float gx = 0.0f;
        for (int64_t j = 0; j < N; j++)
            gx += LD(dy, dt, r * N + j) * LD(w, wdt, j) * LD(x, dt, r * N + j);
        float c = rs * rs * gx / (float)N;
        for (int64_t j = 0; j < N; j++) {
            float xv = LD(x, dt, r * N + j), g = LD(dy, dt, r * N + j);
            ST(dx, dt, r * N + j, rs * (g * LD(w, wdt, j) - c * xv));
            acc[j] += g * xv * rs;
        }
    }
    for (int64_t j = 0; j < N; j++) ST(dw, wdt, j, acc[j]);
    free(acc);
    return 0;
}

int sbk_cpu_add_rmsnorm(void *x, void *res, sbk_dtype dt, const void *w,
                        sbk_dtype wdt, int64_t M, int64_t N, float eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        for (int64_t j = 0; j < N; j++)
            ST(res, dt, r * N + j,
               LD(x, dt, r * N + j) + LD(res, dt, r * N + j));
        float rs = row_rstd(res, dt, r * N, N, eps);
        for (int64_t j = 0; j < N; j++)
            ST(x, dt, r * N + j, LD(res, dt, r * N + j) * rs * LD(w, wdt, j));
    }
    return 0;
}

int sbk_cpu_layernorm_fwd(const void *x, sbk_dtype dt, const void *w,
                          const void *b, sbk_dtype wdt, void *y, int64_t M,
                          int64_t N, float eps)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        float mean = 0.0f, var = 0.0f;
        for (int64_t j = 0; j < N; j++) mean += LD(x, dt, r * N + j);
        mean /= (float)N;
        for (int64_t j = 0; j < N; j++) {
            float d = LD(x, dt, r * N + j) - mean;
            var += d * d;
        }
        float rs = 1.0f / sqrtf(var / (float)N + eps);
        for (int64_t j = 0; j < N; j++)
            ST(y, dt, r * N + j,
               (LD(x, dt, r * N + j) - mean) * rs * LD(w, wdt, j) +
                   LD(b, wdt, j));
    }
    return 0;
}

int sbk_cpu_softmax_fwd(const void *x, sbk_dtype dt, void *y, int64_t M,
                        int64_t N)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        float mx = -INFINITY, s = 0.0f;
        for (int64_t j = 0; j < N; j++) mx = fmaxf(mx, LD(x, dt, r * N + j));
        for (int64_t j = 0; j < N; j++) s += expf(LD(x, dt, r * N + j) - mx);
        float inv = 1.0f / s;
        for (int64_t j = 0; j < N; j++)
            ST(y, dt, r * N + j, expf(LD(x, dt, r * N + j) - mx) * inv);
    }
    return 0;
}

int sbk_cpu_softmax_bwd(const void *dy, const void *y, sbk_dtype dt, void *dx,
                        int64_t M, int64_t N)
{
    if (M <= 0 || N <= 0) return -1;
    for (int64_t r = 0; r < M; r++) {
        float dot = 0.0f;
        for (int64_t j = 0; j < N; j++)
            dot += LD(dy, dt, r * N + j) * LD(y, dt, r * N + j);
        for (int64_t j = 0; j < N; j++)
            ST(dx, dt, r * N + j,
               LD(y, dt, r * N + j) * (LD(dy, dt, r * N + j) - dot));
    }
    return 0;
}

static void rope_one(const void *x, void *o, const void *c, const void *s,
                     sbk_dtype dt, int64_t B, int64_t T, int64_t H, int64_t D,
                     int inverse)
{
    int64_t half = D / 2;
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < T; t++)
            for (int64_t h = 0; h < H; h++) {
                int64_t base = ((b * T + t) * H + h) * D, cb = t * D;
                for (int64_t i = 0; i < half; i++) {
                    float x1 = LD(x, dt, base + i), x2 = LD(x, dt, base + i + half);
                    float c1 = LD(c, dt, cb + i), c2 = LD(c, dt, cb + i + half);
                    float s1 = LD(s, dt, cb + i), s2 = LD(s, dt, cb + i + half);
                    if (!inverse) {
                        ST(o, dt, base + i, x1 * c1 - x2 * s1);
                        ST(o, dt, base + i + half, x2 * c2 + x1 * s2);
                    } else {
                        ST(o, dt, base + i, x1 * c1 + x2 * s2);
                        ST(o, dt, base + i + half, x2 * c2 - x1 * s1);
                    }
                }
            }
}

int sbk_cpu_rope(const void *q, const void *k, const void *cos_t,
                 const void *sin_t, sbk_dtype dt, void *q_out, void *k_out,
                 int64_t B, int64_t T, int64_t Hq, int64_t Hk, int64_t D,
                 int inverse)
{
    if (B <= 0 || T <= 0 || Hq <= 0 || Hk <= 0 || D <= 0 || D % 2) return -1;
    rope_one(q, q_out, cos_t, sin_t, dt, B, T, Hq, D, inverse);
    rope_one(k, k_out, cos_t, sin_t, dt, B, T, Hk, D, inverse);
    return 0;
}

static float sigmoid_f(float a) { return 1.0f / (1.0f + expf(-a)); }

int sbk_cpu_swiglu_fwd(const void *a, const void *b, sbk_dtype dt, void *c,
                       int64_t n)
{
    if (n <= 0) return -1;
    for (int64_t i = 0; i < n; i++) {
        float av = LD(a, dt, i);
        ST(c, dt, i, av * sigmoid_f(av) * LD(b, dt, i));
    }
    return 0;
}

int sbk_cpu_swiglu_bwd(const void *dc, const void *a, const void *b,
                       sbk_dtype dt, void *da, void *db, int64_t n)
{
    if (n <= 0) return -1;
    for (int64_t i = 0; i < n; i++) {
        float av = LD(a, dt, i), bv = LD(b, dt, i), g = LD(dc, dt, i);
        float s = sigmoid_f(av);
        ST(db, dt, i, g * av * s);
        ST(da, dt, i, g * bv * s * (1.0f + av * (1.0f - s)));
    }
    return 0;
}

/* One row of fused cross entropy on fp32 logits: returns lse - x[t] and,
 * if g != NULL, writes (softmax - onehot) * scale into g (stored in gdt). */
static float ce_row(const float *x, int64_t V, int64_t t, float scale,
                    void *g, sbk_dtype gdt, int64_t goff)
{
    float mx = -INFINITY, s = 0.0f;
    for (int64_t j = 0; j < V; j++) {
        float nm = fmaxf(mx, x[j]);
        s = s * expf(mx - nm) + expf(x[j] - nm);
        mx = nm;
    }
    float lse = mx + logf(s);
    if (g)
        for (int64_t j = 0; j < V; j++)
            ST(g, gdt, goff + j,
               (expf(x[j] - lse) - (j == t ? 1.0f : 0.0f)) * scale);
    return lse - x[t];
}

int sbk_cpu_cross_entropy(const void *logits, sbk_dtype dt,
                          const int64_t *target, int64_t M, int64_t V,
                          float *loss, float *loss_rows, void *dx)
{
    if (M <= 0 || V <= 0) return -1;
    int bad;
    int64_t nv = count_valid(target, M, V, &bad);
    if (bad) return -1;
    float *row = malloc((size_t)V * sizeof *row);
    if (!row) return -1;
    float total = 0.0f, scale = nv ? 1.0f / (float)nv : 0.0f;
    for (int64_t r = 0; r < M; r++) {
        if (target[r] == SBK_IGNORE_INDEX) {
            if (dx) for (int64_t j = 0; j < V; j++) ST(dx, dt, r * V + j, 0.0f);
            if (loss_rows) loss_rows[r] = 0.0f;
            continue;
        }
        for (int64_t j = 0; j < V; j++) row[j] = LD(logits, dt, r * V + j);
        float l = ce_row(row, V, target[r], scale, dx, dt, r * V);
        if (loss_rows) loss_rows[r] = l;
        total += l;
    }
    free(row);
    *loss = total * scale;
    return 0;
}

/* v rounded to dt and widened back. */
static float round_to(sbk_dtype dt, float v)
{
    switch (dt) {
    case SBK_F16: return sbk_half_to_float(sbk_float_to_half(v));
    case SBK_BF16: return sbk_bf16_to_float(sbk_float_to_bf16(v));
    case SBK_F32: break;
    }
    return v;
}

int sbk_cpu_flce(const void *h, const void *w, sbk_dtype dt,
                 const int64_t *target, int64_t BT, int64_t H, int64_t V,
                 float *loss, float *loss_rows, void *dh, void *dw)
{
    if (BT <= 0 || H <= 0 || V <= 0) return -1;
    int bad;
    int64_t nv = count_valid(target, BT, V, &bad);
    if (bad) return -1;
    size_t need = (size_t)V * 2 + (size_t)H * 2 + (dw ? (size_t)V * H : 0);
    float *buf = calloc(need, sizeof *buf);
    if (!buf) return -1;
    float *lg = buf, *gq = lg + V, *hr = gq + V, *dhr = hr + H;
    float *dwacc = dw ? dhr + H : NULL;
    float total = 0.0f, scale = nv ? 1.0f / (float)nv : 0.0f;
    for (int64_t r = 0; r < BT; r++) {
        for (int64_t k = 0; k < H; k++) dhr[k] = 0.0f;
        if (loss_rows) loss_rows[r] = 0.0f;
        if (target[r] != SBK_IGNORE_INDEX) {
            for (int64_t k = 0; k < H; k++) hr[k] = LD(h, dt, r * H + k);
            for (int64_t v = 0; v < V; v++) {
                float acc = 0.0f;
                for (int64_t k = 0; k < H; k++) acc += hr[k] * LD(w, dt, v * H + k);
                lg[v] = acc;
            }
            /* gradient of the logits rounded to dt, as the fused GPU path
             * stores it before the two gradient GEMMs */
            float mx = -INFINITY, s = 0.0f;
            for (int64_t v = 0; v < V; v++) {
                float nm = fmaxf(mx, lg[v]);
                s = s * expf(mx - nm) + expf(lg[v] - nm);
                mx = nm;
            }
            float lse = mx + logf(s);
            total += lse - lg[target[r]];
            if (loss_rows) loss_rows[r] = lse - lg[target[r]];
            for (int64_t v = 0; v < V && (dh || dw); v++) {
                float g = (expf(lg[v] - lse) - (v == target[r] ? 1.0f : 0.0f)) * scale;
                gq[v] = round_to(dt, g);
                if (gq[v] == 0.0f) continue;
                for (int64_t k = 0; k < H; k++) {
                    dhr[k] += gq[v] * LD(w, dt, v * H + k);
                    if (dwacc) dwacc[v * H + k] += gq[v] * hr[k];
                }
            }
        }
        if (dh) for (int64_t k = 0; k < H; k++) ST(dh, dt, r * H + k, dhr[k]);
    }
    if (dw) for (int64_t i = 0; i < V * H; i++) ST(dw, dt, i, dwacc[i]);
    free(buf);
    *loss = total * scale;
    return 0;
}
