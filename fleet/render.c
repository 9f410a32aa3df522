/* render.c - Kubernetes Job and Slurm batch script of an experiment. */
#include "render.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "strbuf.h"

static int safe_char(char c)
{
    return isalnum((unsigned char)c) || strchr("_./:=,+-@%", c) != NULL;
}

char *sb_fleet_shell_quote(const char *word)
{
    int safe = *word != '\0';
    for (const char *p = word; *p; p++)
        safe &= safe_char(*p);
    if (safe)
        return strdup(word);
    /* in single quotes, or as $'...' where the word holds a character that
     * would drive a terminal, end the line or reorder it (both scripts run
     * under bash): a script printed with --print or a line of experiments
     * explain shows no such character raw */
    sb_buf t = SB_BUF_INIT;
    sb_enc_shell_arg(&t, word);
    if (sb_buf_failed(&t)) {
        sb_buf_free(&t);
        return NULL;
    }
    return sb_buf_take(&t);
}

static void put_quoted(sb_buf *t, const char *word)
{
    char *q = sb_fleet_shell_quote(word);
    if (!q) {
        t->failed = 1;
        return;
    }
    sb_buf_puts(t, q);
    free(q);
}

/* A word of the experiment as bash text: literal parts quoted, the
 * placeholders as the script's variables. */
static void put_script_word(sb_buf *t, const char *word)
{
    static const char *const names[][2] = {{"{out}", "\"$CASE_OUT\""},           {"{arch}", "\"$ARCH\""},
                                           {"{experiment}", "\"$EXPERIMENT\""}, {"{case}", "\"$CASE_ID\""},
                                           {"{gpus}", "\"$GPUS\""}};
    char lit[4096];
    size_t n = 0;
    int any = 0;
    for (const char *p = word;;) {
        const char *var = NULL;
        size_t plen = 0;
        for (size_t i = 0; i < sizeof names / sizeof *names && *p == '{'; i++)
            if (strncmp(p, names[i][0], strlen(names[i][0])) == 0) {
                var = names[i][1];
                plen = strlen(names[i][0]);
            }
        if (var || !*p || n + 1 >= sizeof lit) {
            if (n) {
                lit[n] = '\0';
                put_quoted(t, lit);
                n = 0;
                any = 1;
            }
            if (!*p)
                break;
            if (var) {
                sb_buf_puts(t, var);
                p += plen;
                any = 1;
            }
            continue;
        }
        lit[n++] = *p++;
    }
    if (!any)
        sb_buf_puts(t, "''");
}

char *sb_render_out_dir(const sb_render_opts *o, sb_engine engine)
{
    sb_buf t = SB_BUF_INIT;
    const char *root = engine == SB_ENGINE_KUBERNETES ? SB_K8S_RESULTS_MOUNT
                                                      : (o->root ? o->root : SB_SLURM_DEFAULT_ROOT);
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    sb_buf_printf(&t, "%.*s/%s/%s/%s", (int)rl, root, o->exp->name, o->arch->arch, o->run_id);
    return sb_buf_take(&t);
}

int sb_render_job_name(const sb_render_opts *o, char *out, size_t size, sb_error *err)
{
    char name[128];
    int n = snprintf(name, sizeof name, "sb-%s-%s-%s", o->exp->name, o->arch->arch, o->run_id);
    /* An Indexed Job's pods are named NAME-INDEX, a host name of at most
     * 63 characters. */
    int digits = 1;
    for (size_t k = o->exp->n_cases - 1; k >= 10; k /= 10)
        digits++;
    int max = 63 - 1 - digits;
    if (n < 0 || (size_t)n >= sizeof name || n > max || (size_t)n >= size)
        return sb_error_set(err, o->exp->path, NULL,
                            "job name sb-%s-%s-%s is longer than %d characters (pods add -INDEX); use a "
                            "shorter --run-id",
                            o->exp->name, o->arch->arch, o->run_id, max);
    for (int i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)name[i]);
        if (!isalnum((unsigned char)c) && c != '-')
            return sb_error_set(err, NULL, NULL, "job name %s: only letters, digits and '-' may be used", name);
        out[i] = c;
    }
    out[n] = '\0';
    return SB_OK;
}

/* The directories to create before a case runs: each write path up to the
 * last '/' before its first pattern character. */
static void put_mkdirs(sb_buf *t, const sb_exp_case *c)
{
    char dirs[32][512];
    size_t nd = 0;
    for (size_t i = 0; i < c->n_writes && nd < 32; i++) {
        const char *w = c->writes[i];
        size_t glob = strcspn(w, "*?[");
        size_t end = 0;
        for (size_t k = 0; k < glob; k++)
            if (w[k] == '/')
                end = k;
        if (end == 0 || end >= sizeof dirs[0])
            continue;
        char d[512];
        memcpy(d, w, end);
        d[end] = '\0';
        int dup = 0;
        for (size_t k = 0; k < nd; k++)
            dup |= strcmp(dirs[k], d) == 0;
        if (!dup)
            memcpy(dirs[nd++], d, end + 1);
    }
    if (nd == 0)
        return;
    sb_buf_puts(t, "    mkdir -p");
    for (size_t k = 0; k < nd; k++) {
        sb_buf_puts(t, " \"$CASE_OUT\"/");
        put_script_word(t, dirs[k]);
    }
    sb_buf_puts(t, "\n");
}

static int any_profiled(const sb_render_opts *o)
{
    for (size_t i = 0; i < o->exp->n_cases; i++)
        if (sb_exp_case_profiled(&o->exp->cases[i], o->arch))
            return 1;
    return 0;
}

static void put_metrics(sb_buf *t, const sb_exp_ncu *n)
{
    for (size_t i = 0; i < n->n_metrics; i++)
        sb_buf_printf(t, "%s%s", i ? "," : "", n->metrics[i]);
}

/* The script variable that names a case's program (the first word of
 * its command): the scheduler's environment may point it elsewhere. */
static const char *program_variable(const char *program)
{
    if (strcmp(program, "solbench-spread") == 0)
        return "\"$SOLBENCH_SPREAD\"";
    if (strcmp(program, "llama-fsdp") == 0)
        return "\"$LLAMA_FSDP\"";
    return "\"$SOLBENCH\"";
}

static int uses_program(const sb_experiment *e, const char *program)
{
    for (size_t i = 0; i < e->n_cases; i++)
        for (size_t k = 0; k < e->cases[i].n_commands; k++)
            if (strcmp(e->cases[i].commands[k].argv[0], program) == 0)
                return 1;
    return 0;
}


static int task_selected(const sb_render_opts *o, size_t i)
{
    if (!o->only)
        return 1;
    for (size_t k = 0; k < o->n_only; k++)
        if (o->only[k] == i)
            return 1;
    return 0;
}

/* The task's bookkeeping: its own directory CASE_OUT = OUT/CASE_ID, an
 * earlier unfinished attempt moved aside to OUT/.superseded/, and the task
 * record CASE_OUT/solbook-task.json (running, then done, failed or
 * cancelled), written whole through a temporary file and a rename. */
static void put_task_bookkeeping(sb_buf *t, const sb_render_opts *o, sb_engine engine)
{
    const sb_experiment *e = o->exp;
    sb_buf_puts(t, "CASE_IDS=(");
    for (size_t i = 0; i < e->n_cases; i++) {
        sb_buf_puts(t, i ? " " : "");
        put_quoted(t, e->cases[i].id);
    }
    sb_buf_puts(t, ")\n");
    sb_buf_printf(t,
                  "if [[ ! $CASE =~ ^[0-9]+$ ]] || (( CASE >= ${#CASE_IDS[@]} )); then\n"
                  "    echo \"solbook: $EXPERIMENT has no case $CASE (cases 0-%zu)\" >&2\n"
                  "    exit 2\n"
                  "fi\n",
                  e->n_cases - 1);
    sb_buf_puts(t, "CASE_ID=${CASE_IDS[$CASE]}\nCASE_OUT=$OUT/$CASE_ID\n");
    if (engine == SB_ENGINE_SLURM)
        sb_buf_puts(t, "ENGINE=slurm\nJOB_ID=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-unknown}}\n");
    else
        sb_buf_puts(t, "ENGINE=kubernetes\nJOB_ID=${SOLBOOK_JOB_NAME:-unknown}\n");
    sb_buf_puts(t, "JOB_ID=$(printf '%s' \"$JOB_ID\" | tr -cd 'A-Za-z0-9._-')\n"
                   "HOST=$(hostname | tr -cd 'A-Za-z0-9._-')\n");

    /* The record's fixed fields as JSON text, one shell word. */
    json_t *fixed = json_pack("{s:s,s:s,s:s,s:s}", "schema", "solbook.fleet-task.v1", "experiment", e->name, "arch",
                              o->arch->arch, "run_id", o->run_id);
    json_t *ids = json_array();
    for (size_t i = 0; ids && i < e->n_cases; i++)
        json_array_append_new(ids, json_string(e->cases[i].id));
    if (fixed && ids)
        json_object_set_new(fixed, "cases", ids);
    else
        json_decref(ids);
    char *text = fixed ? json_dumps(fixed, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(fixed);
    if (!text) {
        t->failed = 1;
        return;
    }
    text[strlen(text) - 1] = '\0'; /* the closing brace: the task's fields follow */
    sb_buf_puts(t, "TASK_FIXED=");
    put_quoted(t, text);
    free(text);
    sb_buf_puts(t,
                "\n"
                "# task_record STATE [EXIT_STATUS]: CASE_OUT/solbook-task.json, which `solbook ingest\n"
                "# --fleet` and `solbook submit --status` read; only a done task's files are gathered.\n"
                "task_record() {\n"
                "    local tmp=$CASE_OUT/solbook-task.json.tmp.$$ finished=null\n"
                "    [[ $1 == running ]] || finished=\\\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\\\"\n"
                "    printf '%s,\"index\":%d,\"case\":\"%s\",\"engine\":\"%s\",\"job_id\":\"%s\",\"host\":\"%s\","
                "\"state\":\"%s\",\"exit_status\":%s,\"started_at\":\"%s\",\"finished_at\":%s}\\n' \\\n"
                "        \"$TASK_FIXED\" \"$CASE\" \"$CASE_ID\" \"$ENGINE\" \"$JOB_ID\" \"$HOST\" \"$1\" \"${2:-null}\" "
                "\"$STARTED\" \"$finished\" >\"$tmp\"\n"
                "    mv -f \"$tmp\" \"$CASE_OUT/solbook-task.json\"\n"
                "}\n"
                "# task_end STATUS: the last record, then exit. Slurm signals every process of\n"
                "# the job in no set order, so a cancel reaches here either from the TERM trap\n"
                "# or through the command it killed (status 143, or 130 for SIGINT); from here\n"
                "# on TERM and INT are ignored (by the commands that write the record too), so\n"
                "# a signal that comes late cannot cut the record short.\n"
                "task_end() {\n"
                "    trap '' TERM INT\n"
                "    trap - EXIT\n"
                "    local status=$1 state=failed\n"
                "    if ((status == 0)); then state=done\n"
                "    elif [[ -n ${STOPPED:-} ]] || ((status == 143 || status == 130)); then state=cancelled; fi\n"
                "    task_record \"$state\" \"$status\"\n"
                "    exit \"$status\"\n"
                "}\n"
                "if [[ -f $CASE_OUT/solbook-task.json ]] && grep -q '\"state\":\"done\"' \"$CASE_OUT/solbook-task.json\"; then\n"
                "    echo \"solbook: case $CASE_ID of run $RUN_ID is done already ($CASE_OUT); not run again\"\n"
                "    exit 0\n"
                "fi\n"
                "if [[ -e $CASE_OUT ]]; then # an attempt that did not finish: kept aside, never gathered\n"
                "    mkdir -p \"$OUT/.superseded\"\n"
                "    mv \"$CASE_OUT\" \"$OUT/.superseded/$CASE_ID-$(date -u +%Y%m%dT%H%M%SZ)-$$\"\n"
                "fi\n"
                "mkdir -p \"$CASE_OUT\"\n"
                "STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)\n"
                "task_record running\n"
                "trap 'task_end $?' EXIT\n"
                "# scancel, the time limit and preemption send SIGTERM: the record says cancelled\n"
                "trap 'STOPPED=1; task_end 143' TERM INT\n");
}

char *sb_render_script(const sb_render_opts *o, sb_engine engine, sb_error *err)
{
    const sb_experiment *e = o->exp;
    const sb_exp_arch *a = o->arch;
    char job[80];
    if (sb_render_job_name(o, job, sizeof job, err) != SB_OK)
        return NULL;
    const char *time = o->time ? o->time : a->time;
    char *out = sb_render_out_dir(o, engine);
    if (!out) {
        sb_error_set(err, NULL, NULL, "out of memory");
        return NULL;
    }
    sb_buf t = SB_BUF_INIT;
    sb_buf_puts(&t, "#!/usr/bin/env bash\n");
    if (engine == SB_ENGINE_SLURM) {
        sb_buf_printf(&t, "#SBATCH --job-name=%s\n", job);
        if (o->only) {
            sb_buf_puts(&t, "#SBATCH --array=");
            for (size_t k = 0; k < o->n_only; k++)
                sb_buf_printf(&t, "%s%zu", k ? "," : "", o->only[k]);
            sb_buf_puts(&t, "\n");
        } else {
            sb_buf_printf(&t, "#SBATCH --array=0-%zu\n", e->n_cases - 1);
        }
        sb_buf_printf(&t, "#SBATCH --gres=gpu:%ld\n", a->gpus);
        sb_buf_printf(&t, "#SBATCH --cpus-per-task=%ld\n", a->cpus);
        sb_buf_printf(&t, "#SBATCH --mem=%ldG\n", a->memory_gb);
        sb_buf_printf(&t, "#SBATCH --time=%s\n", time);
        if (o->partition)
            sb_buf_printf(&t, "#SBATCH --partition=%s\n", o->partition);
        sb_buf_printf(&t, "#SBATCH --output=%s-%%A_%%a.out\n", job);
        sb_buf_puts(&t, "#SBATCH --no-requeue\n");
    }
    sb_buf_printf(&t, "# solbook experiment %s on %s, run %s: %zu case%s, one per array index.\n", e->name, a->arch,
                   o->run_id, e->n_cases, e->n_cases == 1 ? "" : "s");
    sb_buf_printf(&t, "# Rendered by `solbook submit` from data/experiments/%s.json; case i writes into OUT/CASE_ID.\n",
                  e->name);
    sb_buf_puts(&t, "set -euo pipefail\n");
    sb_buf_puts(&t, "export SOLBENCH=${SOLBENCH:-solbench}\n");
    sb_buf_puts(&t, "SOLBENCH_SPREAD=${SOLBENCH_SPREAD:-solbench-spread}\n");
    if (uses_program(e, "llama-fsdp"))
        sb_buf_puts(&t, "LLAMA_FSDP=${LLAMA_FSDP:-run_llama_fsdp.sh}\n");
    sb_buf_puts(&t, "EXPERIMENT=");
    put_quoted(&t, e->name);
    sb_buf_puts(&t, "\nARCH=");
    put_quoted(&t, a->arch);
    sb_buf_puts(&t, "\nRUN_ID=");
    put_quoted(&t, o->run_id);
    sb_buf_printf(&t, "\nGPUS=%ld\n", a->gpus);
    sb_buf_puts(&t, "OUT=");
    put_quoted(&t, out);
    sb_buf_puts(&t, "\n");
    if (engine == SB_ENGINE_SLURM)
        sb_buf_puts(&t, "CASE=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it is a job array, one task per case}\n");
    else
        sb_buf_puts(&t, "CASE=${JOB_COMPLETION_INDEX:?run this script as an Indexed Job: one completion index per case}\n");
    put_task_bookkeeping(&t, o, engine);
    if (any_profiled(o)) {
        sb_buf_puts(&t, "NCU=${NCU:-ncu}\nNCU_METRICS=");
        put_metrics(&t, &a->ncu);
        sb_buf_puts(&t, "\n");
        sb_buf_puts(&t,
                     "# profile NAME.json COMMAND...: COMMAND under Nsight Compute; the raw CSV of the\n"
                     "# profiled launches goes to NAME.ncu.csv, where `solbook ingest` attaches it.\n"
                     "profile() {\n"
                     "    local result=$1 rep\n"
                     "    shift\n"
                     "    rep=$(mktemp -d)\n");
        sb_buf_printf(&t,
                       "    \"$NCU\" --clock-control none --metrics \"$NCU_METRICS\" --launch-skip %ld --launch-count %ld \\\n"
                       "        --export \"$rep/profile\" --force-overwrite \"$@\"\n",
                       a->ncu.launch_skip, a->ncu.launch_count);
        sb_buf_puts(&t,
                     "    \"$NCU\" --import \"$rep/profile.ncu-rep\" --csv --page raw --metrics \"$NCU_METRICS\" \\\n"
                     "        > \"${result%.json}.ncu.csv.tmp.$$\"\n"
                     "    mv \"${result%.json}.ncu.csv.tmp.$$\" \"${result%.json}.ncu.csv\"\n"
                     "    rm -rf \"$rep\"\n"
                     "}\n");
    }
    sb_buf_puts(&t, "echo \"solbook: $EXPERIMENT on $ARCH, run $RUN_ID, case $CASE ($CASE_ID), $ENGINE job $JOB_ID, host $HOST, into $CASE_OUT\"\n");
    sb_buf_puts(&t, "case \"$CASE\" in\n");
    for (size_t i = 0; i < e->n_cases; i++) {
        const sb_exp_case *c = &e->cases[i];
        if (!task_selected(o, i))
            continue;
        sb_buf_printf(&t, "  %zu)\n    # %s: ", i, c->id);
        sb_enc_shell_comment(&t, c->what, 0);
        sb_buf_puts(&t, "\n");
        put_mkdirs(&t, c);
        int prof = sb_exp_case_profiled(c, a);
        for (size_t k = 0; k < c->n_commands; k++) {
            const sb_exp_command *cmd = &c->commands[k];
            sb_buf_puts(&t, "    ");
            if (prof) {
                sb_buf_puts(&t, "profile ");
                put_script_word(&t, sb_exp_case_result_out(c));
                sb_buf_puts(&t, " ");
            }
            sb_buf_puts(&t, program_variable(cmd->argv[0]));
            for (size_t w = 1; w < cmd->argc; w++) {
                sb_buf_puts(&t, " ");
                put_script_word(&t, cmd->argv[w]);
            }
            sb_buf_puts(&t, "\n");
        }
        sb_buf_puts(&t, "    ;;\n");
    }
    sb_buf_puts(&t, "  *)\n    echo \"solbook: case $CASE ($CASE_ID) is not in this submission\" >&2\n    exit 2\n    ;;\nesac\n");
    free(out);
    char *s = sb_buf_take(&t);
    if (!s)
        sb_error_set(err, NULL, NULL, "out of memory");
    return s;
}

char *sb_render_command_line(const sb_exp_case *c, size_t k, const sb_exp_arch *a, const sb_exp_vars *vars)
{
    sb_buf t = SB_BUF_INIT;
    const sb_exp_command *cmd = &c->commands[k];
    int prof = sb_exp_case_profiled(c, a);
    if (prof)
        sb_buf_printf(&t,
                       "ncu --clock-control none --metrics \"$NCU_METRICS\" --launch-skip %ld --launch-count %ld "
                       "--export REPORT --force-overwrite ",
                       a->ncu.launch_skip, a->ncu.launch_count);
    for (size_t w = 0; w < cmd->argc; w++) {
        char *x = sb_exp_expand(cmd->argv[w], vars);
        if (!x) {
            sb_buf_free(&t);
            return NULL;
        }
        if (w)
            sb_buf_puts(&t, " ");
        put_quoted(&t, x);
        free(x);
    }
    if (prof) {
        char *res = sb_exp_expand(sb_exp_case_result_out(c), vars);
        if (!res) {
            sb_buf_free(&t);
            return NULL;
        }
        size_t n = strlen(res) - 5;
        res[n] = '\0';
        sb_buf_puts(&t, "\nncu --import REPORT.ncu-rep --csv --page raw --metrics \"$NCU_METRICS\" > ");
        char csv[4200];
        snprintf(csv, sizeof csv, "%s.ncu.csv", res);
        put_quoted(&t, csv);
        free(res);
    }
    return sb_buf_take(&t);
}

/* ------------------------------------------------------------ Kubernetes */

static json_t *labels(const sb_render_opts *o)
{
    json_t *l = json_object();
    json_object_set_new(l, "app.kubernetes.io/name", json_string("solbench"));
    json_object_set_new(l, "app.kubernetes.io/part-of", json_string("solbook"));
    json_object_set_new(l, "solbook.dev/experiment", json_string(o->exp->name));
    json_object_set_new(l, "solbook.dev/arch", json_string(o->arch->arch));
    json_object_set_new(l, "solbook.dev/run-id", json_string(o->run_id));
    return l;
}

json_t *sb_render_k8s_job(const sb_render_opts *o, sb_error *err)
{
    const sb_exp_arch *a = o->arch;
    char name[80];
    if (!o->image || !*o->image) {
        sb_error_set(err, NULL, NULL, "a Kubernetes Job needs --image (an image with solbench%s on PATH)",
                     any_profiled(o) ? " and ncu" : "");
        return NULL;
    }
    if (o->n_products == 0) {
        sb_error_set(err, NULL, NULL, "no nvidia.com/gpu.product values for %s", a->arch);
        return NULL;
    }
    if (sb_render_job_name(o, name, sizeof name, err) != SB_OK)
        return NULL;
    long seconds = o->time ? sb_exp_parse_time(o->time) : a->time_seconds;
    if (seconds <= 0) {
        sb_error_set(err, NULL, NULL, "--time %s: expected a positive HH:MM:SS", o->time);
        return NULL;
    }
    /* The limit is per case; the cases may wait for GPUs and run one after
     * another, so the Job's deadline is the sum of theirs. */
    long long deadline = (long long)seconds * (long long)o->exp->n_cases;
    char *script = sb_render_script(o, SB_ENGINE_KUBERNETES, err);
    if (!script)
        return NULL;

    json_t *meta = json_object();
    json_object_set_new(meta, "name", json_string(name));
    if (o->namespace_)
        json_object_set_new(meta, "namespace", json_string(o->namespace_));
    json_t *ml = labels(o);
    if (o->queue)
        json_object_set_new(ml, "kueue.x-k8s.io/queue-name", json_string(o->queue));
    json_object_set_new(meta, "labels", ml);
    json_t *ann = json_object();
    char exp_file[128];
    snprintf(exp_file, sizeof exp_file, "data/experiments/%s.json", o->exp->name);
    json_object_set_new(ann, "solbook.dev/experiment-file", json_string(exp_file));
    json_object_set_new(meta, "annotations", ann);

    json_t *products = json_array();
    for (size_t i = 0; i < o->n_products; i++)
        json_array_append_new(products, json_string(o->products[i]));
    json_t *affinity =
        json_pack("{s:{s:{s:[{s:[{s:s,s:s,s:o}]}]}}}", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                  "nodeSelectorTerms", "matchExpressions", "key", "nvidia.com/gpu.product", "operator", "In", "values",
                  products);

    char mem[32], cpu[32];
    snprintf(mem, sizeof mem, "%ldGi", a->memory_gb);
    snprintf(cpu, sizeof cpu, "%ld", a->cpus);
    json_t *limits = json_pack("{s:I,s:s,s:s}", "nvidia.com/gpu", (json_int_t)a->gpus, "memory", mem, "cpu", cpu);
    json_t *requests = json_pack("{s:I,s:s,s:s}", "nvidia.com/gpu", (json_int_t)a->gpus, "memory", mem, "cpu", cpu);
    char out_root[64];
    snprintf(out_root, sizeof out_root, "%s", SB_K8S_RESULTS_MOUNT);
    json_t *container = json_pack(
        "{s:s,s:s,s:[s,s,s],s:{s:o,s:o},s:[{s:s,s:s}],s:[{s:s,s:s}]}", "name", "solbench", "image", o->image,
        "command", "/bin/bash", "-c", script, "resources", "limits", limits, "requests", requests, "volumeMounts",
        "name", "results", "mountPath", out_root, "env", "name", "SOLBOOK_RUN_ID", "value", o->run_id);
    /* The job id of provenance.scheduler and of the task records. */
    json_array_append_new(json_object_get(container, "env"), json_pack("{s:s,s:s}", "name", "SOLBOOK_JOB_NAME", "value", name));
    free(script);
    if (any_profiled(o)) {
        /* ncu reads the GPU performance counters, which the driver keeps to
         * CAP_SYS_ADMIN unless the node sets
         * NVreg_RestrictProfilingToAdminUsers=0 (docs/FLEET.md). */
        json_object_set_new(container, "securityContext",
                            json_pack("{s:{s:[s]}}", "capabilities", "add", "SYS_ADMIN"));
    }
    const char *claim = o->claim ? o->claim : SB_K8S_DEFAULT_CLAIM;
    json_t *pod_spec = json_pack("{s:s,s:o,s:[o],s:[{s:s,s:{s:s}}]}", "restartPolicy", "Never", "affinity", affinity,
                                 "containers", container, "volumes", "name", "results", "persistentVolumeClaim",
                                 "claimName", claim);
    json_t *spec = json_pack("{s:s,s:I,s:I,s:i,s:I,s:I,s:{s:o,s:o}}", "completionMode", "Indexed", "completions",
                             (json_int_t)o->exp->n_cases, "parallelism", (json_int_t)o->exp->n_cases, "backoffLimit", 0,
                             "ttlSecondsAfterFinished", (json_int_t)SB_K8S_TTL_SECONDS, "activeDeadlineSeconds",
                             (json_int_t)deadline, "template", "metadata", json_pack("{s:o}", "labels", labels(o)),
                             "spec", pod_spec);
    if (o->queue)
        json_object_set_new(spec, "suspend", json_true()); /* Kueue admits it by unsuspending */
    json_t *job = json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "batch/v1", "kind", "Job", "metadata", meta, "spec",
                            spec);
    if (!job || !affinity || !container || !pod_spec || !spec)
        sb_error_set(err, NULL, NULL, "out of memory while building the Job");
    return job;
}
