/* repro.c - reproduce commands and output helpers (repro.h). */
#include "repro.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


struct sb_repro {
    sb_template *solbench;
    sb_template *imported;
};

int sb_repro_open(sb_repro **out, sb_error *err)
{
    *out = NULL;
    sb_repro *r = calloc(1, sizeof *r);
    if (!r)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (sb_template_load_home("reproduce/solbench-case.tmpl", &r->solbench, err) != SB_OK ||
        sb_template_load_home("reproduce/imported-case.tmpl", &r->imported, err) != SB_OK) {
        sb_repro_close(r);
        return SB_ERR;
    }
    *out = r;
    return SB_OK;
}

void sb_repro_close(sb_repro *r)
{
    if (!r)
        return;
    sb_template_free(r->solbench);
    sb_template_free(r->imported);
    free(r);
}

static void set_int(json_t *obj, const char *key, long long v)
{
    char num[32] = "";
    if (v >= 0)
        snprintf(num, sizeof num, "%lld", v);
    json_object_set_new(obj, key, json_string(num));
}

/* solbench's own options (add_common_options in bench/solbench.c, and
 * --mode, --dtype, --spec and --help): a params or shape member of one of these
 * names, or of a prefix of one (solbench takes an unambiguous prefix for
 * the whole name), would set that option instead of a parameter. */
static const char *const solbench_options[] = {
    "provider", "warmup", "warmup-ms", "settle-ms", "iters", "repeats", "l2", "hold",
    "input-sets", "check-rows", "device", "calibration", "out", "suite", "seed",
    "test-corrupt-output", "help", "mode", "dtype", "spec", "gpus", "preset", NULL,
};

/* 1 when k can be written as "--k=VALUE": a letter, then letters, digits,
 * '_' and '-', at most 64 bytes, and no option of solbench's own. */
static int plain_param_name(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n > 64 || !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z')))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-'))
            return 0;
    }
    for (const char *const *o = solbench_options; *o; o++)
        if (strncmp(*o, k, n) == 0)
            return 0;
    return 1;
}

/* A canonical JSON object (shape or params) as solbench flags: one shell
 * word "--NAME=VALUE" for each member, so no value, whatever its first
 * character, is read as an option; "" when empty. SB_ERR, with *bad the
 * member's name (cut to 79 bytes), when a name is not plain_param_name. */
static int object_flags(const char *json_text, sb_buf *out, char bad[80])
{
    json_error_t je;
    json_t *p = json_loads(json_text, 0, &je);
    if (!json_is_object(p)) {
        json_decref(p);
        return SB_OK;
    }
    const char *k;
    json_t *v;
    sb_buf word = SB_BUF_INIT;
    /* The stored JSON is canonical (sorted keys) and jansson keeps the
     * order it read, so the flags come out sorted. */
    json_object_foreach(p, k, v) {
        if (!plain_param_name(k)) {
            snprintf(bad, 80, "%s", k);
            sb_buf_free(&word);
            json_decref(p);
            return SB_ERR;
        }
        if (out->len)
            sb_buf_putc(out, ' ');
        sb_buf_reset(&word);
        sb_buf_printf(&word, "--%s=", k);
        if (json_is_string(v)) {
            sb_buf_puts(&word, json_string_value(v));
        } else if (json_is_real(v)) {
            /* shortest form that reads back as the same double in
             * practice: 1e-06, not 9.9999999999999995e-07 */
            sb_buf_printf(&word, "%.15g", json_real_value(v));
        } else {
            char *s = json_dumps(v, JSON_ENCODE_ANY);
            sb_buf_puts(&word, s ? s : "");
            free(s);
        }
        sb_enc_shell_arg(out, sb_buf_str(&word));
    }
    sb_buf_free(&word);
    json_decref(p);
    return SB_OK;
}

/* The line for a run whose shape or params solbench cannot be given
 * safely: a comment naming the run and the member. */
static void not_reproduced(const sb_result *r, const char *what, const char *name, sb_buf *out)
{
    sb_buf t = SB_BUF_INIT;
    sb_buf_printf(&t, " run %lld is not reproduced: its %s member \"%s\" is not a parameter "
                      "solbench can be given",
                  (long long)r->run_id, what, name);
    sb_buf_putc(out, '#');
    sb_enc_shell_comment(out, sb_buf_str(&t), 400);
    sb_buf_free(&t);
}

int sb_repro_case(const sb_repro *rp, const sb_result *r, sb_buf *out, sb_error *err)
{
    json_t *d = json_object();
    if (!d)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_tpl_set_str(d, "suite", r->suite);
    sb_tpl_set_str(d, "op", r->op);
    sb_tpl_set_str(d, "mode", r->mode);
    sb_tpl_set_str(d, "dtype", r->dtype);
    sb_tpl_set_str(d, "provider", r->provider);
    sb_tpl_set_str(d, "backend", r->backend);
    sb_tpl_set_str(d, "shape", r->shape_key);
    int is_solbench = strcmp(r->source_format, "solbook") == 0 && strcmp(r->tool_name, "solbench") == 0;
    sb_buf pt = SB_BUF_INIT;
    char bad[80] = "";
    const char *bad_in = "shape";
    int refused = 1;
    if (object_flags(r->shape_json, &pt, bad) == SB_OK) {
        json_object_set_new(d, "shape_flags", json_string(sb_buf_str(&pt)));
        sb_buf_reset(&pt);
        bad_in = "params";
        if (object_flags(r->params_json, &pt, bad) == SB_OK) {
            json_object_set_new(d, "params_flags", json_string(sb_buf_str(&pt)));
            refused = 0;
        }
    }
    sb_buf_free(&pt);
    if (refused && !is_solbench) {
        /* an imported run's line is a comment that names no flags */
        json_object_set_new(d, "shape_flags", json_string(""));
        json_object_set_new(d, "params_flags", json_string(""));
    } else if (refused) {
        not_reproduced(r, bad_in, bad, out);
        json_decref(d);
        return SB_OK;
    }
    /* Of run_params only the seed is an input; the rest (workspace, scratch,
     * versions) is what the provider reported of itself. */
    char seed[32] = "";
    json_t *run = r->run_params_json ? json_loads(r->run_params_json, 0, NULL) : NULL;
    if (json_is_integer(json_object_get(run, "seed")))
        snprintf(seed, sizeof seed, "%lld", (long long)json_integer_value(json_object_get(run, "seed")));
    json_decref(run);
    sb_tpl_set_str(d, "seed", seed);
    /* solbench takes --l2 cold|warm; "unknown" (imports, CPU) is left out */
    sb_tpl_set_str(d, "l2", strcmp(r->l2, "unknown") == 0 ? "" : r->l2);
    sb_tpl_set_str(d, "device", strcmp(r->arch, "cpu") == 0 ? "cpu" : "");
    sb_tpl_set_str(d, "timer", r->timer);
    set_int(d, "warmup_iters", r->warmup_iters);
    char ms[32] = "";
    if (r->warmup_ms > 0)
        snprintf(ms, sizeof ms, "%.6g", r->warmup_ms);
    json_object_set_new(d, "warmup_ms", json_string(ms));
    /* the settle phase is part of the protocol: the GEMM spec's 2000 ms
     * changes its clocks, so a reproduction must settle as long */
    char settle[32] = "";
    if (r->settle_ms > 0)
        snprintf(settle, sizeof settle, "%.6g", r->settle_ms);
    json_object_set_new(d, "settle_ms", json_string(settle));
    /* --hold changes how the repeats are queued, and so what they measure */
    json_object_set_new(d, "hold", json_boolean(r->launch_hold));
    set_int(d, "iters", r->iters);
    set_int(d, "repeats", r->repeats);
    set_int(d, "input_sets", r->input_sets);
    json_object_set_new(d, "graph", json_boolean(r->graph == 1));
    sb_tpl_set_str(d, "source_format", r->source_format);
    /* the file by its name: the folder it sat in is a path of the machine
     * that ingested it, not of the reader's */
    const char *base = strrchr(r->source_path, '/');
    sb_tpl_set_str(d, "source_path", base ? base + 1 : r->source_path);
    sb_tpl_set_str(d, "tool_name", r->tool_name);
    sb_tpl_set_str(d, "tool_version", r->tool_version);
    sb_tpl_set_str(d, "git_sha", r->git_sha);
    json_object_set_new(d, "run_id", json_integer(r->run_id));
    sb_buf line = SB_BUF_INIT;
    int rc = sb_template_render(is_solbench ? rp->solbench : rp->imported, d,
                                is_solbench ? SB_TPL_ESCAPE_SHELL_ARG : SB_TPL_ESCAPE_SHELL_COMMENT,
                                &line, err);
    json_decref(d);
    if (rc == SB_OK) {
        /* one line: drop the template file's trailing newline(s) */
        const char *s = sb_buf_str(&line);
        size_t n = strlen(s);
        while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
            n--;
        sb_buf_add(out, s, n);
    }
    sb_buf_free(&line);
    return rc;
}

int sb_repro_session(const sb_session_runs *runs, const char *session_id, const json_t *doc, sb_buf *out,
                     sb_error *err)
{
    const json_t *session = json_object_get(doc, "session"), *protocol = json_object_get(doc, "protocol");
    const json_t *providers = json_object_get(session, "providers");
    const json_t *iters = json_object_get(protocol, "iters"), *warmup = json_object_get(protocol, "warmup_iters");
    const json_t *seed = json_object_get(json_object_get(json_object_get(doc, "config"), "run_params"), "seed");
    /* The schema takes an integral number of any size as an integer
     * ("iters": 1e308), which jansson holds as a real: such a session is
     * named in a comment instead of a command, and the packet goes on. */
    if (!json_is_array(providers) || !json_is_integer(iters) || !json_is_integer(json_object_get(session, "rounds"))) {
        sb_buf t = SB_BUF_INIT;
        sb_buf_printf(&t, " session %.8s is not measured again: its results lack session.providers, "
                          "or an integer session.rounds or protocol.iters",
                      session_id);
        sb_buf_putc(out, '#');
        sb_enc_shell_comment(out, sb_buf_str(&t), 400);
        sb_buf_putc(out, '\n');
        sb_buf_free(&t);
        (void)err;
        return SB_OK;
    }
    sb_buf w = SB_BUF_INIT;
    /* every case once (the runs come ordered by case within a session, so
     * by op), kept where the script's arguments name its op (want, in the
     * script's head): one loop an op over its cases, a few to a line, so
     * that a packet citing hundreds of cases stays a short script */
    sb_buf_puts(out, "set --\n");
    const char *last = NULL, *op = NULL;
    size_t line = 0;
    for (size_t i = 0; i < runs->n; i++) {
        const sb_session_run *r = &runs->v[i];
        if (strcmp(r->session_id, session_id) || (last && strcmp(last, r->case_key) == 0))
            continue;
        last = r->case_key;
        if (!op || strcmp(op, r->op) != 0) {
            if (op)
                sb_buf_puts(out, "; do set -- \"$@\" --case \"$c\"; done\n");
            op = r->op;
            sb_buf_puts(out, "want ");
            sb_enc_shell_arg(out, r->op);
            sb_buf_puts(out, " && for c in");
            line = 80; /* a new line for the first case */
        }
        sb_buf_reset(&w);
        sb_buf_printf(&w, "%s:%s:%s:%s", r->op, r->mode, r->dtype, r->shape_key);
        if (line + w.len > 76) {
            sb_buf_puts(out, " \\\n ");
            line = 1;
        }
        sb_buf_putc(out, ' ');
        size_t before = out->len;
        sb_enc_shell_arg(out, sb_buf_str(&w));
        line += 1 + out->len - before;
    }
    if (op)
        sb_buf_puts(out, "; do set -- \"$@\" --case \"$c\"; done\n");
    sb_buf_reset(&w);
    sb_buf_printf(&w, "sessions/%.8s", session_id);
    sb_buf_puts(out, "[ $# -eq 0 ] || python3 bench/scripts/session.py --out ");
    sb_enc_shell_arg(out, sb_buf_str(&w));
    sb_buf_puts(out, " --solbench .carry/bin/solbench");
    sb_buf_reset(&w);
    for (size_t i = 0; i < json_array_size(providers); i++)
        if (json_is_string(json_array_get(providers, i)))
            sb_buf_printf(&w, "%s%s", i ? "," : "", json_string_value(json_array_get(providers, i)));
    sb_buf_puts(out, " --providers ");
    sb_enc_shell_arg(out, sb_buf_str(&w));
    sb_buf_printf(out, " --rounds %lld --iters %lld",
                  (long long)json_integer_value(json_object_get(session, "rounds")),
                  (long long)json_integer_value(iters));
    if (json_is_integer(warmup))
        sb_buf_printf(out, " --warmup %lld", (long long)json_integer_value(warmup));
    if (json_is_integer(seed))
        sb_buf_printf(out, " --seed %lld", (long long)json_integer_value(seed));
    int aa = 0;
    for (size_t i = 0; i < runs->n; i++)
        aa |= strcmp(runs->v[i].session_id, session_id) == 0 && runs->v[i].copy != 0;
    if (aa)
        sb_buf_puts(out, " --aa");
    sb_buf_puts(out, " \"$@\"");
    sb_buf_putc(out, '\n');
    sb_buf_free(&w);
    return SB_OK;
}

int sb_render_home(const char *rel, const json_t *data, sb_tpl_escape esc, sb_buf *out,
                   sb_error *err)
{
    sb_template *t = NULL;
    if (sb_template_load_home(rel, &t, err) != SB_OK)
        return SB_ERR;
    int rc = sb_template_render(t, data, esc, out, err);
    sb_template_free(t);
    return rc;
}
