/* plausibility.c - achieved bytes/s and FLOP/s against a card's ceilings
 * (plausibility.h). */
#include "plausibility.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strbuf.h"

const char *sb_plaus_state_name(sb_plaus_state s)
{
    switch (s) {
    case SB_PLAUS_OK: return "ok";
    case SB_PLAUS_CACHE_RESIDENT: return "cache-resident";
    case SB_PLAUS_IMPLAUSIBLE: return "implausible";
    default: return "unknown";
    }
}

int sb_plaus_state_parse(const char *name, sb_plaus_state *out)
{
    static const sb_plaus_state all[] = {SB_PLAUS_OK, SB_PLAUS_CACHE_RESIDENT, SB_PLAUS_IMPLAUSIBLE,
                                         SB_PLAUS_UNKNOWN};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (name && !strcmp(name, sb_plaus_state_name(all[i]))) {
            *out = all[i];
            return 1;
        }
    return 0;
}

void sb_plaus_spread(const char *const *gpus, const double *values, size_t n, int *cards, double *lo,
                     double *hi)
{
    *cards = 0;
    *lo = *hi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(values[i]))
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && gpus[i][0] && !seen; j++)
            seen = !strcmp(gpus[j], gpus[i]) && !isnan(values[j]);
        if (seen)
            continue;
        (*cards)++;
        *lo = *cards == 1 ? values[i] : fmin(*lo, values[i]);
        *hi = *cards == 1 ? values[i] : fmax(*hi, values[i]);
    }
}

/* Seconds a GB read (*r) and a GB written (*w) that fit both copy
 * (1 read, 1 write) and add/triad (2 reads, 1 write); 0 when they do not
 * give positive costs. */
static int byte_costs(const sb_plaus_ceilings *c, double *r, double *w)
{
    if (!(c->copy_gbps > 0) || !(c->pair_gbps > 0))
        return 0;
    *r = 3.0 / c->pair_gbps - 2.0 / c->copy_gbps;
    *w = 2.0 / c->copy_gbps - *r;
    return *r > 0 && *w > 0;
}

static void bw_ceiling(const sb_plaus_input *in, const sb_plaus_ceilings *c, sb_plaus_verdict *v,
                       char *note, size_t note_size)
{
    note[0] = '\0';
    v->ceiling_gbps = c->copy_gbps;
    snprintf(v->ceiling_name, sizeof v->ceiling_name, "bw.copy");
    if (!c->measured) {
        snprintf(v->ceiling_name, sizeof v->ceiling_name, "datasheet HBM");
        return;
    }
    double rd = in->read_bytes, wr = in->write_bytes, r, w;
    if (isnan(rd) || isnan(wr) || rd < wr)
        return;
    if (wr == 0 || rd >= 4 * wr) {
        if (!isnan(c->read_gbps)) {
            v->ceiling_gbps = c->read_gbps;
            snprintf(v->ceiling_name, sizeof v->ceiling_name, "bw.read");
            return;
        }
        int n = snprintf(note, note_size,
                         "; the op reads (almost) only, and the calibration has no read ceiling "
                         "(bandwidth.read), so it is held against copy, whose writes cost more than "
                         "reads");
        if (byte_costs(c, &r, &w) && n > 0 && (size_t)n < note_size)
            snprintf(note + n, note_size - (size_t)n,
                     " (copy and add/triad together put reading alone near %.0f GB/s: %.1f%% of it)",
                     1.0 / r, 100.0 * v->gbps * r);
    } else if (rd >= 2 * wr) {
        if (c->pair_gbps > 0) {
            v->ceiling_gbps = c->pair_gbps;
            snprintf(v->ceiling_name, sizeof v->ceiling_name, "bw.add/triad");
        }
    } else if (rd > 1.05 * wr && byte_costs(c, &r, &w)) { /* within 5% of 1:1: copy */
        v->ceiling_gbps = (rd + wr) / (rd * r + wr * w);
        snprintf(v->ceiling_name, sizeof v->ceiling_name, "bw.copy+add mix");
    }
}

/* The calibration behind the ceiling bw_ceiling chose; 1 when the
 * ceilings say more of it than its run id. */
static int verdict_source(const sb_plaus_ceilings *c, sb_plaus_verdict *v)
{
    const sb_plaus_source *s = !strcmp(v->ceiling_name, "bw.read")        ? &c->read_src
                               : !strcmp(v->ceiling_name, "bw.add/triad") ? &c->pair_src
                                                                           : &c->copy_src;
    v->source = *s;
    if (!c->measured) {
        memset(&v->source, 0, sizeof v->source);
        v->source.calib_run = -1;
        return 0;
    }
    if (s->calib_run == 0) {
        v->source.calib_run = c->calib_run;
        return 0;
    }
    return 1;
}

void sb_plaus_short_gpu(const char *uuid, char *out, size_t size)
{
    snprintf(out, size, "%.*s", (int)strcspn(uuid, "-") + 9, uuid);
}

void sb_plaus_buffer_text(long long bytes, char *out, size_t size)
{
    if (bytes >= (1LL << 30))
        snprintf(out, size, "%g GiB", (double)bytes / (double)(1LL << 30));
    else
        snprintf(out, size, "%g MiB", (double)bytes / (double)(1LL << 20));
}

/* What the stored calibrations say about the uncertainty of the ceiling
 * an implausible run was held against: whose card measured it, how far
 * the SKU's calibrated cards differ on it, and the size of its buffers. */
static void source_note(const sb_plaus_verdict *v, char *out, size_t size)
{
    const sb_plaus_source *s = &v->source;
    sb_buf b = SB_BUF_INIT;
    char gpu[32], buf[32];
    sb_plaus_short_gpu(s->gpu_uuid, gpu, sizeof gpu);
    const char *what = strcmp(v->ceiling_name, "bw.copy+add mix") ? v->ceiling_name : "bw.copy";
    if (s->card == SB_PLAUS_CARD_OWN)
        sb_buf_printf(&b, "; the ceiling is the run's own card's (%s)", gpu);
    else if (s->card == SB_PLAUS_CARD_OTHER)
        sb_buf_printf(&b, "; the ceiling is another card's (%s): no calibration of the run's GPU "
                          "measured %s", gpu, what);
    else
        sb_buf_printf(&b, "; %s: whose card measured the ceiling is not known",
                      s->gpu_uuid[0] ? "the run records no GPU UUID" : "the calibration records no GPU UUID");
    if (s->card != SB_PLAUS_CARD_OWN && s->cards > 1)
        sb_buf_printf(&b, ", and %s spreads %.0f-%.0f GB/s (%.1f%%) over the SKU's %d calibrated cards",
                      what, s->lo, s->hi, 100.0 * (s->hi - s->lo) / s->lo, s->cards);
    else if (s->card != SB_PLAUS_CARD_OWN && s->cards == 1)
        sb_buf_printf(&b, ", and no other card of the SKU measured %s, so its spread between cards is "
                          "not known", what);
    sb_plaus_buffer_text(s->buffer_bytes, buf, sizeof buf);
    if (s->buffer_bytes <= 0)
        sb_buf_puts(&b, "; the calibration stores no buffer size");
    else if (s->buffer_bytes < SB_PLAUS_FULL_BUFFER)
        sb_buf_printf(&b, "; it streamed %s buffers, under 8 GiB", buf);
    else
        sb_buf_printf(&b, "; it streamed %s buffers", buf);
    snprintf(out, size, "%s", sb_buf_failed(&b) ? "" : sb_buf_str(&b));
    sb_buf_free(&b);
}

void sb_plaus_judge(const sb_plaus_input *in, const sb_plaus_ceilings *c, double margin,
                    sb_plaus_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->gbps = v->tflops = v->ceiling_gbps = v->pct_ceiling = NAN;
    v->state = SB_PLAUS_UNKNOWN;
    v->tensor = in->tensor;
    v->flop_ceiling_tflops = in->flop_ceiling_tflops > 0 ? in->flop_ceiling_tflops : NAN;
    v->pct_flop_ceiling = NAN;
    snprintf(v->flop_ceiling_name, sizeof v->flop_ceiling_name, "%s",
             in->flop_ceiling_name ? in->flop_ceiling_name : "");
    if (!(in->seconds > 0)) {
        snprintf(v->reason, sizeof v->reason, "no positive time");
        return;
    }
    if (in->flops > 0)
        v->tflops = in->flops / in->seconds / 1e12;
    if (!isnan(v->tflops) && v->flop_ceiling_tflops > 0)
        v->pct_flop_ceiling = 100.0 * v->tflops / v->flop_ceiling_tflops;
    if (in->bytes > 0)
        v->gbps = in->bytes / in->seconds / 1e9;
    char note[256];
    bw_ceiling(in, c, v, note, sizeof note);
    int source_known = verdict_source(c, v);
    if (!isnan(v->gbps) && v->ceiling_gbps > 0)
        v->pct_ceiling = 100.0 * v->gbps / v->ceiling_gbps;
    /* A schema-valid time can be so short (1e-300 ms) that a rate or its
     * share of a ceiling overflows: past every ceiling, and no number to
     * print or compare. */
    if (isinf(v->tflops) || isinf(v->gbps)) {
        v->state = SB_PLAUS_IMPLAUSIBLE;
        v->tflops = v->gbps = v->pct_flop_ceiling = v->pct_ceiling = NAN;
        snprintf(v->reason, sizeof v->reason, "a time of %.3g s is too short for a finite rate", in->seconds);
        return;
    }
    /* A finite rate's share overflows only against a subnormal ceiling
     * (one that no datasheet figure holds to the credible band): the
     * ceiling is at fault, and the rate stays. */
    if (isinf(v->pct_ceiling) || isinf(v->pct_flop_ceiling)) {
        v->state = SB_PLAUS_IMPLAUSIBLE;
        char src[64];
        if (c->measured)
            snprintf(src, sizeof src, "calibration run %lld", v->source.calib_run);
        else
            snprintf(src, sizeof src, "data/skus.csv");
        if (isinf(v->pct_ceiling))
            snprintf(v->reason, sizeof v->reason,
                     "%.0f GB/s against %s %.3g GB/s (%s): a ceiling too small for a finite share", v->gbps,
                     v->ceiling_name, v->ceiling_gbps, src);
        else
            snprintf(v->reason, sizeof v->reason,
                     "%.1f TFLOP/s against the %s ceiling %.3g TFLOP/s: a ceiling too small for a finite share",
                     v->tflops, in->flop_ceiling_name ? in->flop_ceiling_name : "compute",
                     v->flop_ceiling_tflops);
        v->pct_flop_ceiling = v->pct_ceiling = NAN;
        return;
    }

    if (!isnan(v->tflops) && in->flop_ceiling_tflops > 0 &&
        v->tflops > in->flop_ceiling_tflops * (1.0 + margin)) {
        v->state = SB_PLAUS_IMPLAUSIBLE;
        snprintf(v->reason, sizeof v->reason,
                 "%.1f TFLOP/s is %.1f%% of the %s ceiling %.1f TFLOP/s, above the %.0f%% margin",
                 v->tflops, 100.0 * v->tflops / in->flop_ceiling_tflops,
                 in->flop_ceiling_name ? in->flop_ceiling_name : "compute", in->flop_ceiling_tflops,
                 100.0 * margin);
        return;
    }
    if (isnan(v->gbps)) {
        snprintf(v->reason, sizeof v->reason, "no byte model and no bytes in the run's metrics");
        return;
    }
    int fits = in->bytes <= c->l2_bytes; /* false when l2_bytes is NAN */
    if (fits && !in->l2_cold) {
        v->state = SB_PLAUS_CACHE_RESIDENT;
        snprintf(v->reason, sizeof v->reason,
                 "%.1f MB a launch fits the %.0f MB L2 (warm): not held against HBM "
                 "(%.1f%% of %s)",
                 in->bytes / 1e6, c->l2_bytes / 1e6, v->pct_ceiling, v->ceiling_name);
        return;
    }
    if (!(v->ceiling_gbps > 0)) {
        snprintf(v->reason, sizeof v->reason, "no bandwidth ceiling for the card");
        return;
    }
    char src[64];
    if (c->measured)
        snprintf(src, sizeof src, "calibration run %lld", v->source.calib_run);
    else if (c->set_aside)
        snprintf(src, sizeof src, "data/skus.csv: the stored calibrations' bw.copy set aside");
    else
        snprintf(src, sizeof src, "data/skus.csv: no calibration stored");
    if (v->gbps > v->ceiling_gbps * (1.0 + margin)) {
        v->state = SB_PLAUS_IMPLAUSIBLE;
        char writes[128] = "";
        if (!fits && !in->l2_cold && in->write_bytes > 0 && in->write_bytes <= c->l2_bytes)
            snprintf(writes, sizeof writes,
                     "; its writes (%.1f MB) fit the L2, whose write-back can end after the launch",
                     in->write_bytes / 1e6);
        char uncertain[448] = "";
        if (source_known)
            source_note(v, uncertain, sizeof uncertain);
        snprintf(v->reason, sizeof v->reason,
                 "%.0f GB/s is %.1f%% of %s %.0f GB/s (%s), above the %.0f%% margin%s%s%s%s", v->gbps,
                 v->pct_ceiling, v->ceiling_name, v->ceiling_gbps, src, 100.0 * margin, note, writes,
                 fits ? "; it fits L2, flushed before each launch" : "", uncertain);
        return;
    }
    v->state = SB_PLAUS_OK;
    snprintf(v->reason, sizeof v->reason, "%.1f%% of %s (%s)%s", v->pct_ceiling, v->ceiling_name, src,
             note);
}

void sb_plaus_not_judged(sb_plaus_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->state = SB_PLAUS_UNKNOWN;
    v->gbps = v->tflops = v->ceiling_gbps = v->pct_ceiling = NAN;
    v->flop_ceiling_tflops = v->pct_flop_ceiling = NAN;
    v->source.lo = v->source.hi = NAN;
    snprintf(v->reason, sizeof v->reason, "not judged: the run did not pass");
}
