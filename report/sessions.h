/* sessions.h - what the measuring sessions say (docs/SESSIONS.md):
 * paired speedups of one provider over the others, and the noise of the
 * A/A runs. Pure: it reads the runs a query gave and computes; the
 * commands print. */
#ifndef SOLBOOK_REPORT_SESSIONS_H
#define SOLBOOK_REPORT_SESSIONS_H

#include <stddef.h>

#include "error.h"
#include "paired.h"
#include "session_run.h"
#include "strbuf.h"

/* One case of one session: the target against one baseline, both copy 0,
 * both passed, same GPU, timing method, check and rounds. */
/* The most runs one session measures of one case that are paired: a
 * session measures a case with a few providers, twice each (the stored
 * sessions hold at most 10). Pairs grow as the square of the runs, so a
 * flood of providers or copies in one case is left out, not paired. */
#define SB_SESSION_CASE_RUNS_MAX 64

typedef struct sb_session_pair {
    const sb_session_run *target, *base;
    sb_paired kernel; /* speedup in kernel time: base over target, round by round */
    sb_paired call;   /* the same in call time */
    int has_call;
    double target_ms, base_ms; /* medians of the round medians, kernel time */
    /* The smallest change the verdict counts: the larger of the floor and
     * 1.5 times the A/A change (sb_aa_change: the 95th percentile) of
     * either provider of this case on this GPU (copies 0 and 1 of one
     * session), else of every A/A change on this GPU; aa_cases says
     * which (1: the case's own A/A runs, 0: the GPU's). */
    double threshold;
    int aa_cases;
    sb_paired_verdict verdict; /* of target time over base time */
    /* 1: no later pair of the report has this pair's case, SKU, target
     * and baseline (the newest session's pair of them) */
    int newest;
} sb_session_pair;

/* The words of a pair's verdict, said of the target against its baseline
 * (docs/CLAIMS.md, rule 8): one case ("win") and a count of cases
 * ("wins"), indexed by sb_paired_verdict. data/templates/verdicts.csv holds
 * them; every report, packet and page takes them from here. */
extern const char *const sb_verdict_one[4];
extern const char *const sb_verdict_many[4];
/* "3 wins, 1 loss" */
void sb_verdict_counts(sb_buf *out, size_t wins, size_t losses);

/* The newest session's pairs of one op, SKU, target and baseline. */
typedef struct sb_session_group {
    const char *op, *sku, *provider, *baseline;
    size_t *pair;      /* indexes into pairs */
    size_t count;
    sb_paired geomean; /* of the cases' kernel-time speedups */
    size_t worst;      /* the pair with the smallest speedup */
    size_t wins, losses; /* cases the target wins or loses by the pair's verdict */
} sb_session_group;

typedef struct sb_session_report {
    sb_session_pair *pairs;
    size_t npairs;
    sb_session_group *groups;
    size_t ngroups;
    /* pairs left out: GPU, timing method, check or rounds differ; or
     * every pair of a session's case that holds more than
     * SB_SESSION_CASE_RUNS_MAX runs (counted as one) */
    size_t refused;
    /* pairs left out because a side ran faster than its card's ceilings
     * allow (sb_session_run.implausible, report/plausible.h) */
    size_t implausible;
    char first_refusal[256];
} sb_session_report;

/* Pairs target's runs (target NULL: every provider's) with every other
 * provider's runs of the same case in each session, at confidence level
 * `level`; `floor` is the smallest threshold a verdict uses (0.02). A
 * pair with an implausible side (marked by sb_plaus_mark_sessions) is
 * left out and counted, so no paired figure rests on such a run. */
int sb_session_compare(const sb_session_runs *runs, const char *target, double level, double floor,
                       sb_session_report *out, sb_error *err);
void sb_session_report_free(sb_session_report *r);

/* Of pairs[idx[0..count)] (count > 0): the geomean of their kernel-time
 * speedups at confidence level, the index of the smallest (worst), and
 * how many the target wins and loses by their verdicts (added to *wins and
 * *losses). */
int sb_session_summarize(const sb_session_pair *pairs, const size_t *idx, size_t count, double level, sb_paired *geo,
                         size_t *worst, size_t *wins, size_t *losses, sb_error *err);

/* The sessions of pairs[idx[0..count)], each once, by the first
 * SB_SESSION_SHORT characters of their ids in sorted order with ", "
 * between, appended to out: a figure taken over those pairs names them. */
void sb_session_ids_text(const sb_session_pair *pairs, const size_t *idx, size_t count, sb_buf *out);
/* ---- Headlines: every provider-against-provider figure of the reports --
 *
 * One headline is a provider over a baseline in one op x mode x dtype on
 * one SKU, from the pairs of ONE session (one process, one GPU, one
 * timing method, one correctness check: docs/CLAIMS.md, rule 8): the
 * geometric mean of its cases' paired kernel-time speedups, the interval
 * of that mean, the worst case, and the cases won and lost by each pair's
 * verdict. `solbook report geomean` and the weekly's headline table take
 * their provider-against-provider figures from here, and so can packets
 * and the site: sb_session_runs_load, sb_session_headlines_take and
 * sb_claims_headlines_check give the checked headlines, sb_session_headline_find one of them,
 * h->report.pairs[h->v[k].pair[c]] each shape's paired speedup with its
 * runs, and sb_session_headlines_cover whether a case is paired. */
typedef struct sb_session_headline {
    const char *op, *mode, *dtype, *sku, *arch, *provider, *baseline;
    /* the same on both sides of every pair (sb_session_compare refuses
     * other pairs); session_id is the full id, reports name its first
     * SB_SESSION_SHORT characters */
    const char *session_id, *gpu_uuid, *timing_method, *check_version;
    int baseline_rank;  /* position in the baselines asked for */
    size_t *pair;       /* indexes into the set's report.pairs, by case key */
    size_t count;
    sb_paired geomean;  /* of the cases' kernel-time speedups (base time / provider time) */
    size_t worst;       /* index of the pair with the smallest speedup */
    size_t wins, losses;
} sb_session_headline;

#define SB_SESSION_SHORT 8

/* The label of a table's provider-over-provider figures that no session
 * pairs (docs/CLAIMS.md, rule 8): they follow it, apart from the paired
 * ones (report standing, report evidence). */
#define SB_UNPAIRED_LABEL "**Unpaired: different runs.**"

typedef struct sb_session_headlines {
    sb_session_runs runs;     /* the runs sb_session_headlines_take took over */
    sb_session_run *window;   /* the runs of the window pairs point into (copies of runs.v's), or NULL */
    sb_session_report report; /* the pairs of every provider (sb_session_compare, target NULL) */
    sb_session_headline *v;   /* by op, mode, dtype, arch, SKU, baseline, provider, session start */
    size_t n;
} sb_session_headlines;

/* The headlines of runs (op NULL: of every op, else of that op only). For
 * each case, SKU, provider and baseline the newest session's pair counts.
 * bases: the baselines, in order, NULL-ended (the headline baselines,
 * sb_headline_baselines of report/geomean.h, or one asked for); a
 * provider is never set against itself or against a baseline that comes
 * after it in bases (torch-compile over huggingface, never huggingface
 * over torch-compile). Pairs are grouped by op, mode, dtype, SKU,
 * provider, baseline and session. level: the confidence level of the
 * intervals (0.95); floor: the smallest verdict threshold (0.02,
 * sb_session_compare). */
int sb_session_headlines_make(const sb_session_runs *runs, const char *op, const char *const *bases, double level,
                              double floor, sb_session_headlines *out, sb_error *err);
/* What a report needs: the headlines of runs (as sb_session_runs_load
 * read them from the database, db/session_query.h), at the 95% level with
 * the 2% floor, of the runs finished in [from, to) (epoch seconds: one
 * week's sessions) where to > from. Takes the runs over (*runs is left
 * empty; sb_session_headlines_free frees them), also on error. A report
 * then checks them with sb_claims_headlines_check (report/claims.h). */
#define SB_HEADLINE_LEVEL 0.95
#define SB_HEADLINE_FLOOR 0.02
int sb_session_headlines_take(sb_session_runs *runs, const char *op, const char *const *bases, long long from,
                              long long to, sb_session_headlines *out, sb_error *err);
/* Frees the headlines and the runs they took over. */
void sb_session_headlines_free(sb_session_headlines *h);

/* The headline of op, mode, dtype, SKU, provider and baseline from the
 * newest session that has one (NULL: none); mode and dtype NULL match
 * any. */
const sb_session_headline *sb_session_headline_find(const sb_session_headlines *h, const char *op,
                                                    const char *mode, const char *dtype, const char *sku,
                                                    const char *provider, const char *baseline);

/* 1 when a headline pairs provider over baseline in case case_key on sku
 * (the same op, mode, dtype and shape, and every parameter the session's
 * case names at the same value: a harness that names more, as solbench
 * does, measured the same case): a table of unpaired runs leaves such a
 * case out (it has a paired figure). */
int sb_session_headlines_cover(const sb_session_headlines *h, const char *case_key, const char *sku,
                               const char *provider, const char *baseline);

/* A/A noise: one provider measured twice, on the same card in one session
 * (copies 0 and 1, paired round by round), on the same card in two
 * sessions, and on two cards of one SKU (these two compare the round
 * medians of each side, unpaired). */
enum { SB_NOISE_SESSION, SB_NOISE_CARD, SB_NOISE_SKU, SB_NOISE_KINDS };
/* The most sessions after its own that one provider's run of a case is
 * compared with across sessions (copy 0 against copy 0), in the order the
 * sessions started: its neighbours in time, which is what a regression
 * step between two nearby commits meets, and a bound on comparisons that
 * would otherwise grow as the square of the sessions (a year of nightly
 * sessions of one case: 66,000 comparisons a provider, each a
 * Mann-Whitney test). */
#define SB_NOISE_ACROSS_SESSIONS 64

typedef struct sb_noise_opts {
    double level;            /* interval of a paired ratio (0.95) */
    double paired_threshold; /* smallest change a paired verdict counts (0.02) */
    double alpha;            /* Mann-Whitney level of the unpaired comparisons (0.01) */
    double unpaired_threshold;
} sb_noise_opts;
typedef struct sb_noise_kind {
    size_t n, flagged;
    double *abs_change; /* |ratio - 1| of each comparison, sorted */
    size_t power_n;
    size_t detected[4]; /* one side's samples slowed by 2%, 3%, 5% and 10%: comparisons that say slower */
    /* Held out: each comparison judged again with a threshold of its own,
     * derived from the A/A comparisons of the same case, provider and SKU
     * on the same relation of cards (one card: this kind and the other
     * same-card kind; two cards) in sessions other than its two: the
     * larger of the kind's threshold (paired_threshold for the paired
     * kind, unpaired_threshold for the others) and 1.5 times the 95th
     * percentile of their |ratio - 1| (sb_aa_change, model/stats.h). Comparisons with no such held-out
     * comparison are not counted; nor are those where either run's
     * held launch was let go in a round (hold_timeouts > 0: the op
     * waited on the host, so its "kernel time" holds the wait), which
     * count in let_go_* instead, judged the same way. */
    size_t derived_n, derived_flagged, derived_detected[4];
    size_t let_go_n, let_go_flagged, let_go_detected[4];
} sb_noise_kind;
extern const double sb_noise_shifts[4];
/* One A/A comparison: its kind, its two runs (b is the later copy or
 * session), |ratio - 1| of their kernel times and how its held-out
 * judgement went. */
typedef struct sb_noise_cmp {
    int kind;
    const sb_session_run *a, *b;
    double change;
    double ratio; /* b over a: the paired ratio, or the ratio of the sides' medians */
    /* the spread of each side's round medians (sb_relative_stdev) */
    double spread_a, spread_b;
    /* 1: a run's held launch was let go in a round (hold_timeouts > 0) */
    int let_go;
    /* The held-out judgement: the threshold (NAN: no held-out comparison,
     * the rest unset), the comparisons it was taken from, whether it was
     * flagged, and whether it said slower with b's samples made slower by
     * each of sb_noise_shifts. */
    double threshold;
    size_t held_out;
    int flagged, detected[4];
} sb_noise_cmp;
typedef struct sb_noise_report {
    sb_noise_kind kind[SB_NOISE_KINDS];
    sb_noise_cmp *cmp; /* every comparison, in the order measured; points into the runs */
    size_t ncmp;
} sb_noise_report;
/* 1 for the kinds on one card (SB_NOISE_SESSION, SB_NOISE_CARD). */
int sb_noise_same_card(int kind);
int sb_noise_measure(const sb_session_runs *runs, const sb_noise_opts *o, sb_noise_report *out, sb_error *err);
/* The A/A change (sb_aa_change) of r's comparisons across two cards of
 * sku whose hold was let go (let_go 1) or held (0), and how many there
 * are: the cross-card noise `report regressions` gives a step of that
 * SKU and hold without A/A runs of its case. *n 0: none (*change NAN). */
int sb_noise_sku_change(const sb_noise_report *r, const char *sku, int let_go, double *change, size_t *n,
                        sb_error *err);
void sb_noise_report_free(sb_noise_report *r);
const char *sb_noise_kind_name(int kind);

#endif
