/* repro.h - the command lines that reproduce stored results, rebuilt from
 * each run's config and protocol through the templates in data/templates/reproduce/ (so the
 * wording follows solbench's options without code changes), plus small
 * output helpers shared by the weekly writeup and packets.
 */
#ifndef SOLBOOK_REPORT_REPRO_H
#define SOLBOOK_REPORT_REPRO_H

#include "encode.h"
#include "file_name.h"
#include "results.h"
#include "session_run.h"
#include "strbuf.h"
#include "mkdirs.h"
#include "template.h"

typedef struct sb_repro sb_repro;

/* Loads data/templates/reproduce/solbench-case.tmpl and imported-case.tmpl. */
int sb_repro_open(sb_repro **out, sb_error *err);
void sb_repro_close(sb_repro *r);

/* Appends one line (no newline) reproducing run r: the solbench
 * invocation for solbench runs (every value one shell word,
 * sb_enc_shell_arg), a comment naming the source tool and file for
 * imported runs (every value comment text, sb_enc_shell_comment). No value
 * can end the line. */
int sb_repro_case(const sb_repro *rp, const sb_result *r, sb_buf *out, sb_error *err);

/* Appends the lines that measure session_id of runs again: each case it
 * measured appended to the positional parameters where the script's
 * want() takes its op, then the bench/scripts/session.py command (when
 * some case was kept) with the providers, rounds, calls a turn, warm-up
 * calls, seed and A/A copies its runs record (doc: one of its results,
 * as stored), into sessions/ID8. Every value is one shell word. A session
 * whose results lack the providers or an integer rounds or iters (an
 * integral 1e308 passes the schema) gets a comment line instead. */
int sb_repro_session(const sb_session_runs *runs, const char *session_id, const json_t *doc, sb_buf *out,
                     sb_error *err);

/* Renders data/templates/REL with data into out (escape as given). */
int sb_render_home(const char *rel, const json_t *data, sb_tpl_escape esc, sb_buf *out,
                   sb_error *err);

#endif
