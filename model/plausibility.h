/* plausibility.h - is a run's achieved bandwidth and FLOP rate physically
 * possible on its card? The check on figures alone, and the spread of a
 * ceiling over a SKU's calibrated cards (docs/REPORTS.md,
 * "Plausibility"). No database, no files: report/plausible.h reads the
 * op models, cache sizes and calibrations and hands the figures here,
 * and db/run_verdicts.h stores the verdicts.
 */
#ifndef SOLBOOK_MODEL_PLAUSIBILITY_H
#define SOLBOOK_MODEL_PLAUSIBILITY_H

#include <stddef.h>

/* The margin above a ceiling that is still plausible (2%). */
#define SB_PLAUS_MARGIN 0.02

/* Buffers under this size stream a little slower than larger ones on the
 * same card (examples/h100/read-buffer, examples/h200/read-buffer): an
 * implausible row's reason says when its calibration used smaller ones. */
#define SB_PLAUS_FULL_BUFFER (8LL << 30)

/* The rule's revision, part of what a stored verdict was judged with
 * (db/run_verdicts.h): a change to sb_plaus_judge's verdicts or reasons
 * changes it, so that verdicts stored under the old rule are judged
 * again. */
#define SB_PLAUS_RULE "4"

/* Whose card a calibration measured, against the run's. */
typedef enum {
    SB_PLAUS_CARD_UNKNOWN = 0, /* the run or the calibration records no GPU UUID */
    SB_PLAUS_CARD_OWN,         /* the GPU the run ran on */
    SB_PLAUS_CARD_OTHER,       /* another card of the SKU */
} sb_plaus_card;

/* The calibration one measured ceiling comes from, and what the stored
 * calibrations say about its uncertainty. */
typedef struct sb_plaus_source {
    long long calib_run;      /* 0: the ceilings' calib_run, nothing more known; -1: the datasheet */
    char gpu_uuid[96];        /* the calibration's GPU; "" when not recorded */
    long long buffer_bytes;   /* its protocol.buffer_bytes; 0 when not recorded */
    sb_plaus_card card;
    /* The same ceiling over the SKU's calibrated cards (each card's
     * newest calibration that measured it): how many, lowest, highest. */
    int cards;
    double lo, hi;
} sb_plaus_source;

/* Ceilings of one card, NAN where unknown. Each measured bandwidth
 * ceiling comes from the run's own GPU's newest calibration that measured
 * it, else from the SKU's newest that did (copy_src, pair_src, read_src). */
typedef struct sb_plaus_ceilings {
    int measured;          /* 1: from calibration run calib_run; 0: datasheet */
    int set_aside;         /* with measured 0: the card has calibrations, and
                            * every bw.copy of them was set aside
                            * (sb_ceiling_credible) */
    long long calib_run;   /* copy's calibration */
    double copy_gbps, pair_gbps, read_gbps;
    double l2_bytes;       /* NAN when data/cache_sizes.csv has no row */
    sb_plaus_source copy_src, pair_src, read_src;
} sb_plaus_ceilings;

typedef enum {
    SB_PLAUS_OK = 0,
    SB_PLAUS_CACHE_RESIDENT, /* fits L2: not held against HBM */
    SB_PLAUS_IMPLAUSIBLE,
    SB_PLAUS_UNKNOWN,        /* no model, no time or no ceiling */
} sb_plaus_state;

const char *sb_plaus_state_name(sb_plaus_state s); /* ok | cache-resident | implausible | unknown */
/* The state sb_plaus_state_name names; 0 when name is none of them. */
int sb_plaus_state_parse(const char *name, sb_plaus_state *out);

/* What one run achieved. The bandwidth ceiling follows the op's mix of
 * reads and writes (read_bytes, write_bytes; NAN when the model has none:
 * copy):
 *   reads only, or at least 4 bytes read a byte written: bw.read; copy
 *     where no calibration of the SKU measured it, and the reason says so;
 *   2 to 4 bytes read a byte written: bw.add/triad (two reads a write);
 *   1 to 2: between copy and add/triad, from a cost a byte read and a cost
 *     a byte written that fit both measurements (bw.copy+add mix; copy
 *     itself at 1:1);
 *   more written than read: copy. */
typedef struct sb_plaus_input {
    double bytes, flops, seconds;   /* NAN when unknown */
    double read_bytes, write_bytes; /* bytes = their sum when both known */
    int l2_cold;                     /* the run flushed L2 before each launch */
    double flop_ceiling_tflops;      /* NAN when unknown */
    const char *flop_ceiling_name;   /* "measured gemm.bf16", "datasheet fp32 (CUDA cores)" */
    int tensor;                      /* 1: the op model's compute is a matmul on tensor cores */
} sb_plaus_input;

typedef struct sb_plaus_verdict {
    sb_plaus_state state;
    double gbps, tflops;            /* achieved; NAN when unknown */
    double ceiling_gbps;            /* the bandwidth ceiling held against; NAN none */
    double pct_ceiling;             /* 100 * gbps / ceiling_gbps */
    char ceiling_name[64];          /* bw.copy, bw.add/triad, datasheet HBM */
    /* The calibration of that ceiling (for bw.copy+add mix, copy's);
     * calib_run -1 for the datasheet. */
    sb_plaus_source source;
    char reason[1024];
    /* The ceiling that fits the op, for a report's "% of ceiling": the
     * matmul's (flop_ceiling_*) where the op model's compute is tensor
     * (FLCE, GEMM), the bandwidth ceiling above otherwise. */
    int tensor;
    double flop_ceiling_tflops;     /* NAN when unknown */
    double pct_flop_ceiling;        /* 100 * tflops / flop_ceiling_tflops */
    char flop_ceiling_name[64];
} sb_plaus_verdict;

/* The check itself: the verdict of in against the ceilings c with margin. */
void sb_plaus_judge(const sb_plaus_input *in, const sb_plaus_ceilings *c, double margin,
                    sb_plaus_verdict *out);

/* The verdict stored for a run that did not pass: reports check passing
 * runs only, and a failed run's time says nothing of its card. */
void sb_plaus_not_judged(sb_plaus_verdict *v);

/* How far one ceiling spreads over a SKU's cards: of n calibrations,
 * newest first, calibration i measured values[i] (NAN: not measured) on
 * the GPU gpus[i] ("" when not recorded, which counts as a card of its
 * own). Each card counts once, by its newest calibration that measured
 * the ceiling: *cards of them, lowest *lo, highest *hi (NAN when none). */
void sb_plaus_spread(const char *const *gpus, const double *values, size_t n, int *cards, double *lo,
                     double *hi);

/* The GPU UUID as the README files and reports shorten it ("GPU-8d45c405"). */
void sb_plaus_short_gpu(const char *uuid, char *out, size_t size);
/* A buffer size as reports write it: "1 GiB", "8 GiB", "512 MiB". */
void sb_plaus_buffer_text(long long bytes, char *out, size_t size);

#endif
