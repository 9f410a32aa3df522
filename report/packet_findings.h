/* packet_findings.h - what a findings packet (liger, vllm) states, from
 * measuring sessions only (docs/SESSIONS.md, docs/REPORTS.md packet
 * section): per upstream op and SKU, the fused kernels' paired speedup over
 * each other provider of the session with its interval, worst case and
 * the cases they lose; absolute times (p50, p20-p80 of the round medians)
 * and peak memory of every provider at a few of those cases; the sessions
 * those figures come from and the session.py commands that measure them
 * again. The ops a target ships, and the modes it runs, are
 * data/templates/packets/upstream_ops.csv.
 */
#ifndef SOLBOOK_REPORT_PACKET_FINDINGS_H
#define SOLBOOK_REPORT_PACKET_FINDINGS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "claims.h"
#include "error.h"
#include "session_run.h"
#include "strbuf.h"

/* At most this many findings in a packet (one per op and SKU): with
 * the stored sessions (fourteen cited, on five cards), seven keep
 * DISCUSSION.md under the 20 KB a GitHub discussion reads well at, where
 * eight came to 20.3 KB; APPENDIX.md has the rest. */
#define SB_FINDINGS_MAX 7

/* A finding's plot (plots.h, sb_plot_case_times): written beside
 * DISCUSSION.md as file, which the finding links as an image. */
typedef struct sb_findings_plot {
    char file[32];
    sb_buf svg;
} sb_findings_plot;

typedef struct sb_findings {
    json_t *data;       /* template data: measured, sessions, findings, appendix rows */
    int64_t *runs;      /* every run of the cited sessions, ascending */
    size_t nruns;
    char **session_ids; /* the cited sessions, in start order */
    int64_t *session_first_run; /* a copy-0 run of each: its document describes the session */
    size_t nsessions;
    sb_buf commands;    /* session.py commands, one a cited session (sb_findings_describe) */
    size_t nfindings;
    sb_claims claims;   /* every figure the findings state, with the runs behind it */
    sb_findings_plot *plots; /* one a finding whose table leaves cases out */
    size_t nplots;
} sb_findings;

/* 1 when target has rows in upstream_ops.csv: its packet is findings. */
int sb_findings_target(const char *target, int *yes, sb_error *err);

/* Fills *out (zeroed first) for target from the sessions' runs; op and
 * baseline (NULL: all) narrow it to one op or one baseline. nfindings 0:
 * nothing to state. */
int sb_findings_build(const sb_session_runs *runs, const char *target, const char *op, const char *baseline,
                      sb_findings *out, sb_error *err);

/* What was measured (cards, driver, commit, protocol, the sessions) and
 * the session.py commands, from the stored document of each cited
 * session's session_first_run (docs[0..nsessions)). */
int sb_findings_describe(sb_findings *f, const sb_session_runs *runs, const json_t *const *docs, sb_error *err);
void sb_findings_free(sb_findings *f);

#endif
