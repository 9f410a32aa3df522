/* gpu_spread.c - a preset's cases over the host's GPUs, one solbench
 * process per GPU at a time. */
#include "gpu_spread.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nvml.h"
#include "process.h"

int sb_spread_parse_gpus(const char *text, int *gpus, int max, int *n, sb_error *err)
{
    *n = 0;
    const char *p = text;
    if (!*p)
        return sb_error_set(err, NULL, NULL, "--gpus: empty list (give all or ordinals like 0,1)");
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > 255 || (*end && *end != ',') || *p == '+' || *p == '-' || *p == ' ')
            return sb_error_set(err, NULL, NULL, "--gpus %s: expected all or CUDA ordinals 0..255 like 0,1", text);
        for (int i = 0; i < *n; i++)
            if (gpus[i] == (int)v)
                return sb_error_set(err, NULL, NULL, "--gpus %s: GPU %ld is listed twice", text, v);
        if (*n == max)
            return sb_error_set(err, NULL, NULL, "--gpus %s: more than %d GPUs", text, max);
        gpus[(*n)++] = (int)v;
        if (!*end)
            return SB_OK;
        p = end + 1;
    }
}

int sb_spread_count_gpus(int *n, sb_error *err)
{
    *n = 0;
    /* A scheduler that hands out GPUs (Slurm --gres, a container runtime)
     * may say which through CUDA_VISIBLE_DEVICES; CUDA ordinals then run
     * over that list, whatever NVML sees. */
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible) {
        for (const char *p = visible; *p;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            if (len && strncmp(p, "-1", len) == 0) /* CUDA stops at an invalid entry */
                break;
            *n += len > 0;
            if (!comma)
                break;
            p = comma + 1;
        }
        return SB_OK;
    }
    sb_nvml *nv = NULL;
    if (sb_nvml_open(&nv, err) != SB_OK)
        return SB_ERR;
    for (int i = 0; i < 256; i++) {
        json_t *d = json_object();
        sb_error ignored;
        int rc = d ? sb_nvml_device_identity(nv, i, d, &ignored) : SB_ERR;
        json_decref(d);
        if (rc != SB_OK)
            break;
        (*n)++;
    }
    sb_nvml_close(nv);
    return SB_OK;
}

void sb_spread_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

typedef struct argv_b {
    char **v;
    size_t n, cap;
    int failed;
} argv_b;

static void push(argv_b *b, const char *s, size_t len)
{
    if (b->failed)
        return;
    if (b->n + 2 > b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 32;
        char **v = realloc(b->v, nc * sizeof *v);
        if (!v) {
            b->failed = 1;
            return;
        }
        b->v = v;
        b->cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c) {
        b->failed = 1;
        return;
    }
    memcpy(c, s, len);
    c[len] = '\0';
    b->v[b->n++] = c;
    b->v[b->n] = NULL;
}

static void push_str(argv_b *b, const char *s)
{
    push(b, s, strlen(s));
}

/* "A=1,B=2" -> --A 1 --B 2; -1 on a malformed list. */
static int push_kv(argv_b *b, const char *text)
{
    for (const char *p = text; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq + 1 == p + len)
            return -1;
        char opt[128];
        if ((size_t)(eq - p) + 3 > sizeof opt)
            return -1;
        snprintf(opt, sizeof opt, "--%.*s", (int)(eq - p), p);
        push_str(b, opt);
        push(b, eq + 1, (size_t)(p + len - eq - 1));
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

char **sb_spread_case_argv(const char *solbench, const sb_spread_case *c, const char *suite, int gpu,
                           const char *out_dir, char *const *extra, size_t n_extra, sb_error *err)
{
    argv_b b = {0};
    char dev[16], out[4200];
    push_str(&b, solbench);
    push_str(&b, c->op);
    if (c->mode) {
        push_str(&b, "--mode");
        push_str(&b, c->mode);
    }
    push_str(&b, "--dtype");
    push_str(&b, c->dtype);
    if (push_kv(&b, c->shape) != 0 || (c->params && push_kv(&b, c->params) != 0)) {
        sb_spread_argv_free(b.v);
        sb_error_set(err, NULL, NULL, "case %s %s: bad shape or params text %s / %s", c->op, c->dtype, c->shape,
                     c->params ? c->params : "");
        return NULL;
    }
    push_str(&b, "--suite");
    push_str(&b, suite);
    snprintf(dev, sizeof dev, "%d", gpu);
    push_str(&b, "--device");
    push_str(&b, dev);
    size_t ol = strlen(out_dir);
    snprintf(out, sizeof out, "%s%s", out_dir, ol && out_dir[ol - 1] == '/' ? "" : "/");
    push_str(&b, "--out");
    push_str(&b, out);
    for (size_t i = 0; i < n_extra; i++)
        push_str(&b, extra[i]);
    if (b.failed) {
        sb_spread_argv_free(b.v);
        sb_error_set(err, NULL, NULL, "out of memory");
        return NULL;
    }
    return b.v;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct slot {
    pid_t pid;       /* 0: idle */
    size_t case_index;
    double started;
    int log_fd;
} slot;

/* In the child: CUDA ordinals in PCI bus order, as NVML numbers the cards,
 * unless the caller chose an order (a single-threaded parent's child, so
 * setenv is safe here). */
static void pci_bus_order(void *ctx)
{
    (void)ctx;
    if (!getenv("CUDA_DEVICE_ORDER"))
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
}

/* Starts case ci on slot s (GPU gpu). SB_ERR when it cannot. */
static int start(const sb_spread_plan *p, slot *s, int gpu, size_t ci, const char *path, sb_error *err)
{
    char **argv = sb_spread_case_argv(path, &p->cases[ci], p->suite, gpu, p->out_dir, p->extra, p->n_extra, err);
    if (!argv)
        return SB_ERR;
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        int e = errno;
        sb_spread_argv_free(argv);
        return sb_error_set(err, "/dev/null", NULL, "cannot open: %s", strerror(e));
    }
    sb_process_opts o;
    sb_process_opts_init(&o);
    o.in_fd = devnull;
    if (s->log_fd >= 0)
        o.out_fd = o.err_fd = s->log_fd;
    o.before_exec = pci_bus_order;
    pid_t pid;
    /* C converts char ** to const char *const * only by a cast. */
    int rc = sb_process_start((const char *const *)argv, &o, &pid, err);
    close(devnull);
    if (rc != SB_OK) {
        sb_spread_argv_free(argv);
        return SB_ERR;
    }
    sb_spread_argv_free(argv);
    s->pid = pid;
    s->case_index = ci;
    s->started = now_s();
    return SB_OK;
}

int sb_spread_run(const sb_spread_plan *p, sb_spread_outcome *outcomes, sb_error *err)
{
    for (size_t i = 0; i < p->n_cases; i++)
        outcomes[i] = (sb_spread_outcome){.gpu = -1, .status = -1, .seconds = 0};
    if (p->n_gpus == 0 || p->n_gpus > SB_SPREAD_MAX_GPUS)
        return sb_error_set(err, NULL, NULL, "no GPUs to spread the cases over");
    char path[4096];
    if (sb_process_find(p->solbench, path, sizeof path) != SB_OK)
        return sb_error_set(err, NULL, NULL, "%s: not found (build solbench, put it on PATH or pass --solbench PATH)",
                            p->solbench);
    slot slots[SB_SPREAD_MAX_GPUS];
    int rc = SB_OK;
    for (size_t g = 0; g < p->n_gpus; g++) {
        slots[g] = (slot){.pid = 0, .log_fd = -1};
        if (p->log_dir) {
            char log[4200];
            snprintf(log, sizeof log, "%s/spread-gpu%d.log", p->log_dir, p->gpus[g]);
            slots[g].log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (slots[g].log_fd < 0) {
                rc = sb_error_set(err, log, NULL, "cannot open the log: %s", strerror(errno));
                for (size_t k = 0; k < g; k++)
                    close(slots[k].log_fd);
                return rc;
            }
        }
    }
    size_t next = 0, running = 0;
    for (;;) {
        /* Fill idle GPUs. */
        for (size_t g = 0; g < p->n_gpus && next < p->n_cases && rc == SB_OK; g++) {
            if (slots[g].pid)
                continue;
            size_t ci = next++;
            if (start(p, &slots[g], p->gpus[g], ci, path, err) != SB_OK) {
                /* A case that cannot even be built is an outcome; fork
                 * failing ends the run. */
                if (strncmp(err->msg, "cannot start", 12) == 0) {
                    rc = SB_ERR;
                    break;
                }
                outcomes[ci].status = 2;
                if (p->progress)
                    p->progress(p->ctx, ci, &outcomes[ci]);
                g--; /* try the next case on this GPU */
                continue;
            }
            running++;
        }
        if (running == 0)
            break;
        int ws;
        pid_t pid = waitpid(-1, &ws, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            rc = sb_error_set(err, NULL, NULL, "waiting for solbench: %s", strerror(errno));
            break;
        }
        for (size_t g = 0; g < p->n_gpus; g++) {
            if (slots[g].pid != pid)
                continue;
            sb_spread_outcome *o = &outcomes[slots[g].case_index];
            o->gpu = p->gpus[g];
            o->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
            o->seconds = now_s() - slots[g].started;
            slots[g].pid = 0;
            running--;
            if (p->progress)
                p->progress(p->ctx, slots[g].case_index, o);
        }
        if (rc != SB_OK && running == 0)
            break;
    }
    /* After a broken run, wait for the children still going. */
    for (size_t g = 0; g < p->n_gpus; g++) {
        if (slots[g].pid) {
            int ws;
            while (waitpid(slots[g].pid, &ws, 0) < 0 && errno == EINTR)
                ;
        }
        if (slots[g].log_fd >= 0)
            close(slots[g].log_fd);
    }
    return rc;
}
