/* cmd_submit.c - `solbook submit`: an experiment on one arch as a
 * Kubernetes Job (kubectl apply -f -) or a Slurm job array (sbatch). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "error.h"
#include "experiment.h"
#include "fleet_skus.h"
#include "home.h"
#include "render.h"
#include "spawn.h"
#include "task_status.h"
#include "term.h"

static const char *const submit_usage[] = {
    "solbook submit NAME --arch ARCH --engine kubernetes|slurm [--dry-run] [--print]",
    "               [--image IMG] [--namespace NS] [--queue Q] [--sku SKU]",
    "               [--partition P] [--time HH:MM:SS] [--output-volume CLAIM|PATH]",
    "               [--run-id ID] [--dir DIR]",
    "solbook submit NAME --arch ARCH --engine E --status RUN_ID [--output-volume PATH] [--namespace NS]",
    "solbook submit NAME --arch ARCH --engine slurm --only-missing RUN_ID [SLURM OPTIONS]",
    "",
    "Renders experiment NAME (data/experiments/NAME.json) for ARCH, one array task per",
    "case, and submits it: a batch/v1 Indexed Job piped to 'kubectl apply -f -', or",
    "a Slurm job array piped to 'sbatch'. Results go to ROOT/NAME/ARCH/RUN_ID.",
    "",
    "Exit status: 0 submitted (or printed, or the status told), 1 the run's task records",
    "were all refused (each named in one line), 2 usage error, missing kubectl/sbatch,",
    "or the submitter or the status query failed.",
    NULL,
};

static int is_dns_label(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == '.'))
            return 0;
    return 1;
}

static int is_label_value(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return 0;
    return 1;
}

static int plain_text(const char *s)
{
    if (!*s)
        return 0;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

typedef struct submit_opts {
    const char *name, *arch, *engine, *image, *namespace_, *queue, *sku, *partition, *time, *volume, *run_id, *dir;
    const char *status_of, *missing_of; /* --status RUN_ID, --only-missing RUN_ID */
    int dry_run, print;
} submit_opts;

static int check_opts(const submit_opts *o, sb_engine *engine)
{
#define BAD(...)                                \
    do {                                        \
        fprintf(stderr, "solbook submit: " __VA_ARGS__); \
        fputc('\n', stderr);                    \
        return 2;                               \
    } while (0)
    if (!o->arch)
        BAD("--arch ARCH is required (a100, h100, h200)");
    if (!o->engine)
        BAD("--engine kubernetes|slurm is required");
    if (strcmp(o->engine, "kubernetes") == 0 || strcmp(o->engine, "k8s") == 0)
        *engine = SB_ENGINE_KUBERNETES;
    else if (strcmp(o->engine, "slurm") == 0)
        *engine = SB_ENGINE_SLURM;
    else
        BAD("--engine %s: not kubernetes or slurm", o->engine);
    int k8s = *engine == SB_ENGINE_KUBERNETES;
    if (!k8s && (o->image || o->namespace_ || o->queue || o->sku))
        BAD("--image, --namespace, --queue and --sku are for --engine kubernetes");
    if (k8s && o->partition)
        BAD("--partition is for --engine slurm (Kubernetes picks nodes by nvidia.com/gpu.product)");
    if (k8s && !o->image && !o->status_of)
        BAD("--engine kubernetes needs --image IMG (an image with solbench and ncu on PATH)");
    if (o->image && !plain_text(o->image))
        BAD("--image: control characters in the image name");
    if (o->namespace_ && !is_dns_label(o->namespace_, 63))
        BAD("--namespace %s: not a Kubernetes namespace name (lower-case letters, digits, '-')", o->namespace_);
    if (o->queue && !is_label_value(o->queue))
        BAD("--queue %s: not a label value (at most 63 letters, digits, '-', '_', '.')", o->queue);
    if (o->partition && (!plain_text(o->partition) || strpbrk(o->partition, " \t")))
        BAD("--partition %s: not a partition name", o->partition);
    if (o->time && sb_exp_parse_time(o->time) <= 0)
        BAD("--time %s: expected a positive HH:MM:SS", o->time);
    if (o->volume && k8s && !is_dns_label(o->volume, 253))
        BAD("--output-volume %s: not a PersistentVolumeClaim name (lower-case letters, digits, '-', '.')",
            o->volume);
    if (o->volume && !k8s && !plain_text(o->volume))
        BAD("--output-volume: control characters in the path");
    if ((o->status_of != NULL) + (o->missing_of != NULL) + (o->run_id != NULL) > 1)
        BAD("give one of --run-id, --status RUN_ID and --only-missing RUN_ID");
    if (o->missing_of && k8s)
        BAD("--only-missing is for --engine slurm: a Kubernetes Job's indexes are not run again under its name; "
            "submit again with a new --run-id");
    if (o->status_of && (o->print || o->dry_run))
        BAD("--status asks the cluster; not with --print or --dry-run");
    const char *id = o->run_id ? o->run_id : o->status_of ? o->status_of : o->missing_of;
    if (id) {
        size_t n = strlen(id);
        int ok = n > 0 && n <= 16;
        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)id[i]) || (id[i] == '-' && i > 0 && i + 1 < n);
        if (!ok)
            BAD("run id %s: up to 16 letters, digits or inner '-'", id);
    }
    return 0;
#undef BAD
}

/* A task record refused: one line naming it (its text is data). */
static void record_refused(void *ctx, const sb_error *why)
{
    (void)ctx;
    sb_error_print(why, stderr);
}

/* Where each task of the run stands (task_status.h), into st[e->n_cases];
 * *nothing_valid is set when records were refused and none was read.
 * Returns 0, or 2 after printing why it cannot be known. */
static int task_states(const submit_opts *o, sb_engine engine, const sb_render_opts *ro, const char *job,
                       sb_task_status *st, int *nothing_valid)
{
    *nothing_valid = 0;
    sb_error err;
    sb_error_clear(&err);
    char *text = NULL;
    int status = 0;
    if (engine == SB_ENGINE_KUBERNETES) {
        char label[64];
        snprintf(label, sizeof label, "solbook.dev/run-id=%s", ro->run_id);
        const char *argv[] = {"kubectl", "get", "jobs", "-l", label, "-o", "json", NULL, NULL, NULL};
        if (o->namespace_) {
            argv[7] = "--namespace";
            argv[8] = o->namespace_;
        }
        if (sb_spawn_capture(argv, &text, &status, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            return 2;
        }
        if (status != 0) {
            fprintf(stderr, "solbook: kubectl get jobs exited with status %d\n", status);
            free(text);
            return 2;
        }
        int rc = sb_task_status_from_k8s(text, job, st, ro->exp->n_cases, &err);
        free(text);
        if (rc != SB_OK) {
            sb_error_print(&err, stderr);
            return 2;
        }
        return 0;
    }
    char *run_dir = sb_render_out_dir(ro, engine);
    struct stat sb;
    if (run_dir && stat(run_dir, &sb) != 0)
        sb_term_line(stderr, "solbook: %s: no run directory here (give --status where sbatch ran, or the "
                             "--output-volume of the submission); squeue alone answers", run_dir);
    sb_task_records rec = {.run_dir = run_dir, .exp = ro->exp, .arch = ro->arch->arch, .run_id = ro->run_id,
                           .on_refused = record_refused};
    int rc = run_dir ? sb_task_status_from_records(&rec, st, &err) : sb_error_set(&err, NULL, NULL, "out of memory");
    free(run_dir);
    if (rc != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    *nothing_valid = rec.refused > 0 && rec.valid == 0;
    char name[96];
    snprintf(name, sizeof name, "--name=%s", job);
    const char *argv[] = {"squeue", "--noheader", "--array", "--states=all", name, "--format=%F|%K|%T", NULL};
    if (sb_spawn_capture(argv, &text, &status, &err) != SB_OK || status != 0) {
        /* The records stay true without squeue; only queued and running
         * tasks go unseen. */
        sb_term_line(stderr, "solbook: %s; tasks without a record show as not started",
                     status ? "squeue failed" : err.msg);
        free(text);
        return 0;
    }
    rc = sb_task_status_merge_squeue(text, st, ro->exp->n_cases, &err);
    free(text);
    if (rc != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    return 0;
}

static void print_states(const sb_render_opts *ro, const char *job, const sb_task_status *st)
{
    static const sb_task_state order[] = {SB_TASK_DONE,   SB_TASK_RUNNING, SB_TASK_PENDING,    SB_TASK_FAILED,
                                          SB_TASK_CANCELLED, SB_TASK_STOPPED, SB_TASK_UNKNOWN,
                                          SB_TASK_NOT_STARTED};
    size_t n = ro->exp->n_cases;
    sb_buf counts = SB_BUF_INIT;
    int first = 1;
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        size_t c = 0;
        for (size_t i = 0; i < n; i++)
            c += st[i].state == order[k];
        if (c) {
            sb_buf_printf(&counts, "%s %zu %s", first ? "" : ",", c, sb_task_state_name(order[k]));
            first = 0;
        }
    }
    sb_term_line(stdout, "run %s of %s on %s (job %s): %zu task%s:%s", ro->run_id, ro->exp->name, ro->arch->arch,
                 job, n, n == 1 ? "" : "s", sb_buf_str(&counts));
    sb_buf_free(&counts);
    /* the detail quotes the task record and the scheduler: stored text */
    for (size_t i = 0; i < n; i++)
        sb_term_line(stdout, "task %zu (case %s): %s: %s", i, ro->exp->cases[i].id,
                     sb_task_state_name(st[i].state), st[i].detail);
}

static int submit(const submit_opts *o, sb_engine engine, const sb_experiment *e, const sb_exp_arch *a,
                  const sb_fleet_skus *skus)
{
    sb_error err;
    sb_error_clear(&err);
    char run_id[32];
    const char *given = o->run_id ? o->run_id : o->status_of ? o->status_of : o->missing_of;
    if (given) {
        snprintf(run_id, sizeof run_id, "%s", given);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(run_id, sizeof run_id, "%Y%m%dT%H%M%SZ", &tm);
    }
    const char *products[64];
    size_t np = 0;
    for (size_t i = 0; i < skus->n; i++) {
        const sb_fleet_sku *k = &skus->v[i];
        if (strcmp(k->arch, o->arch) != 0 || (o->sku && strcmp(k->id, o->sku) != 0))
            continue;
        for (size_t p = 0; p < k->n_products && np < 64; p++)
            products[np++] = k->products[p];
    }
    if (o->sku && np == 0) {
        fprintf(stderr, "solbook submit: --sku %s: not a SKU of %s in data/skus.csv (", o->sku, o->arch);
        int first = 1;
        for (size_t i = 0; i < skus->n; i++)
            if (strcmp(skus->v[i].arch, o->arch) == 0) {
                fprintf(stderr, "%s%s", first ? "" : ", ", skus->v[i].id);
                first = 0;
            }
        fprintf(stderr, ")\n");
        return 2;
    }
    sb_render_opts ro = {
        .exp = e,
        .arch = a,
        .run_id = run_id,
        .time = o->time,
        .image = o->image,
        .namespace_ = o->namespace_,
        .queue = o->queue,
        .claim = engine == SB_ENGINE_KUBERNETES ? o->volume : NULL,
        .products = products,
        .n_products = np,
        .partition = o->partition,
        .root = engine == SB_ENGINE_SLURM ? o->volume : NULL,
    };
    size_t *only = NULL;
    if (o->status_of || o->missing_of) {
        char job[80];
        if (sb_render_job_name(&ro, job, sizeof job, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            return 2;
        }
        sb_task_status *st = calloc(e->n_cases, sizeof *st);
        only = calloc(e->n_cases, sizeof *only);
        if (!st || !only) {
            fprintf(stderr, "solbook submit: out of memory\n");
            free(st);
            free(only);
            return 2;
        }
        int nothing_valid = 0;
        int rc = task_states(o, engine, &ro, job, st, &nothing_valid);
        if (rc == 0 && o->status_of)
            print_states(&ro, job, st);
        /* every record there refused: the run directory is not this run's
         * (or holds nothing but foreign files), so nothing is submitted */
        if (rc == 0 && nothing_valid) {
            sb_term_line(stderr, "solbook: every task record of run %s of %s on %s is refused%s", run_id, e->name,
                         o->arch, o->status_of ? "" : "; nothing submitted again");
            rc = 1;
        }
        for (size_t i = 0; rc == 0 && i < e->n_cases; i++)
            if (sb_task_needs_rerun(&st[i]))
                only[ro.n_only++] = i;
        free(st);
        if (rc != 0 || o->status_of || ro.n_only == 0) {
            if (rc == 0 && o->missing_of)
                printf("run %s of %s on %s: no task to submit again (each is done, running or pending)\n", run_id,
                       e->name, o->arch);
            free(only);
            return rc;
        }
        ro.only = only;
    }
    char *text = NULL;
    if (engine == SB_ENGINE_KUBERNETES) {
        json_t *job = sb_render_k8s_job(&ro, &err);
        if (job) {
            /* ASCII: the experiment's text is in the Job */
            text = json_dumps(job, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
            json_decref(job);
            if (!text)
                sb_error_set(&err, NULL, NULL, "out of memory");
        }
    } else {
        text = sb_render_script(&ro, SB_ENGINE_SLURM, &err);
    }
    if (!text) {
        sb_error_print(&err, stderr);
        free(only);
        return 2;
    }
    char job[80];
    sb_render_job_name(&ro, job, sizeof job, &err);
    char *out = sb_render_out_dir(&ro, engine);
    const char *tool = engine == SB_ENGINE_KUBERNETES ? "kubectl" : "sbatch";
    int rc = 0;
    if (o->print) {
        fputs(text, stdout);
        if (engine == SB_ENGINE_KUBERNETES)
            fputc('\n', stdout);
    }
    if (o->dry_run) {
        FILE *f = o->print ? stderr : stdout;
        if (engine == SB_ENGINE_KUBERNETES)
            fprintf(f, "dry run: would pipe the batch/v1 Job %s (%zu bytes; %zu indexed completion%s, %ld GPU%s each%s%s) "
                       "to 'kubectl apply -f -'; results in %s on PVC %s\n",
                    job, strlen(text), e->n_cases, e->n_cases == 1 ? "" : "s", a->gpus, a->gpus == 1 ? "" : "s",
                    o->queue ? ", Kueue queue " : "", o->queue ? o->queue : "", out,
                    o->volume ? o->volume : SB_K8S_DEFAULT_CLAIM);
        else
            fprintf(f, "dry run: would pipe the batch script of job %s (%zu bytes; array 0-%zu, gpu:%ld each) to "
                       "'sbatch'; results in %s\n",
                    job, strlen(text), e->n_cases - 1, a->gpus, out);
    } else if (!o->print) {
        const char *k8s_argv[] = {"kubectl", "apply", "-f", "-", NULL};
        const char *slurm_argv[] = {"sbatch", NULL};
        int status = 0;
        if (sb_spawn_pipe(engine == SB_ENGINE_KUBERNETES ? k8s_argv : slurm_argv, text, strlen(text), &status,
                          &err) != SB_OK) {
            fprintf(stderr, "solbook: %s; --print writes the %s to stdout, --dry-run says what would run\n",
                    err.msg, engine == SB_ENGINE_KUBERNETES ? "Job manifest" : "batch script");
            rc = 2;
        } else if (status != 0) {
            fprintf(stderr, "solbook: %s exited with status %d; nothing is known to be submitted\n", tool, status);
            rc = 2;
        } else if (ro.only) {
            printf("submitted %s again with %s for %zu task%s of run %s:", job, tool, ro.n_only,
                   ro.n_only == 1 ? "" : "s", run_id);
            for (size_t k = 0; k < ro.n_only; k++)
                printf(" %zu (%s)", ro.only[k], e->cases[ro.only[k]].id);
            printf("; results in %s\n", out);
        } else {
            printf("submitted %s (%zu case%s) with %s; results in %s\n", job, e->n_cases,
                   e->n_cases == 1 ? "" : "s", tool, out);
        }
    }
    free(out);
    free(text);
    free(only);
    return rc;
}

int cmd_submit(int argc, char **argv)
{
    submit_opts o = {0};
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('a', "arch", &o.arch, "arch", "a100, h100 or h200 (the arch column of data/skus.csv)"),
        SB_OPT_STRING(0, "engine", &o.engine, "kubernetes|slurm", "where the jobs run"),
        SB_OPT_BOOL(0, "dry-run", &o.dry_run, "contact nothing: say what would be submitted, and where"),
        SB_OPT_BOOL(0, "print", &o.print,
                    "print the Job (JSON, which kubectl takes) or the script\n"
                    "instead of submitting it"),
        SB_OPT_STRING(0, "image", &o.image, "img",
                      "kubernetes: container image with solbench (and ncu) on PATH"),
        SB_OPT_STRING(0, "namespace", &o.namespace_, "ns", "kubernetes: namespace of the Job"),
        SB_OPT_STRING(0, "queue", &o.queue, "q",
                      "kubernetes: Kueue LocalQueue (label kueue.x-k8s.io/queue-name)"),
        SB_OPT_STRING(0, "sku", &o.sku, "sku",
                      "kubernetes: only nodes of this SKU (default: every SKU of ARCH)"),
        SB_OPT_STRING(0, "partition", &o.partition, "p", "slurm: partition"),
        SB_OPT_STRING(0, "time", &o.time, "HH:MM:SS", "limit per case (default: the experiment's for ARCH)"),
        SB_OPT_STRING(0, "output-volume", &o.volume, "v",
                      "kubernetes: PVC claim mounted at /results (default solbook-results);\n"
                      "slurm: results directory (default ./solbook-results)"),
        SB_OPT_STRING(0, "run-id", &o.run_id, "id",
                      "up to 16 letters, digits or '-' (default: UTC YYYYMMDDTHHMMSSZ)"),
        SB_OPT_STRING(0, "dir", &o.dir, "dir", "experiment files (default: SOLBOOK_HOME/data/experiments)"),
        SB_OPT_STRING(0, "status", &o.status_of, "RUN_ID",
                      "where each task of the run stands (done, running, pending, failed,\n"
                      "cancelled, stopped, not started): slurm from the task records in the\n"
                      "results directory and squeue; kubernetes from 'kubectl get jobs -o json'"),
        SB_OPT_STRING(0, "only-missing", &o.missing_of, "RUN_ID",
                      "slurm: submit again only the tasks of the run that are not done,\n"
                      "running or pending, into the same run directory"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "submit", options, submit_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc != 1) {
        fprintf(stderr, "solbook submit: give one experiment NAME (solbook experiments list names them)\n");
        return 2;
    }
    o.name = argv[0];
    sb_engine engine;
    int rc = check_opts(&o, &engine);
    if (rc)
        return rc;

    sb_error err;
    sb_error_clear(&err);
    sb_fleet_skus skus;
    if (sb_fleet_skus_load(NULL, &skus, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    int arch_known = 0;
    for (size_t i = 0; skus.archs[i]; i++)
        arch_known |= strcmp(skus.archs[i], o.arch) == 0;
    if (!arch_known) {
        fprintf(stderr, "solbook submit: --arch %s: not an arch of data/skus.csv (", o.arch);
        for (size_t i = 0; skus.archs[i]; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", skus.archs[i]);
        fprintf(stderr, ")\n");
        sb_fleet_skus_free(&skus);
        return 2;
    }
    char dir[4096];
    if (o.dir)
        snprintf(dir, sizeof dir, "%s", o.dir);
    else if (sb_data_path(dir, sizeof dir, "experiments", &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_fleet_skus_free(&skus);
        return 2;
    }
    sb_experiment_set set;
    if (sb_experiment_set_load(dir, NULL, skus.archs, &set, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_fleet_skus_free(&skus);
        return strcmp(err.file, dir) == 0 ? 2 : 1;
    }
    const sb_experiment *e = sb_experiment_set_find(&set, o.name);
    const sb_exp_arch *a = e ? sb_experiment_arch(e, o.arch) : NULL;
    if (!e) {
        fprintf(stderr, "solbook submit: no experiment %s (known:", o.name);
        for (size_t i = 0; i < set.n; i++)
            fprintf(stderr, " %s", set.v[i]->name);
        fprintf(stderr, ")\n");
        rc = 2;
    } else if (!a) {
        fprintf(stderr, "solbook submit: %s: experiment %s does not run on %s (it runs on", e->path, e->name, o.arch);
        for (size_t i = 0; i < e->n_archs; i++)
            fprintf(stderr, " %s", e->archs[i].arch);
        fprintf(stderr, ")\n");
        rc = 2;
    } else {
        rc = submit(&o, engine, e, a, &skus);
    }
    sb_experiment_set_free(&set);
    sb_fleet_skus_free(&skus);
    return rc;
}
