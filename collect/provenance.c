/* provenance.c - the provenance block: git state, tool, host, software and
 * device identity, timestamps. */
#include "provenance.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "process.h"
#include "sku.h"

extern char **environ;

/* Largest command output kept; the rest is read and dropped so the child
 * never blocks on a full pipe. */
#define CAPTURE_MAX 4096

void sb_time_now_rfc3339(char *buf, size_t size)
{
    struct timespec ts;
    struct tm tm;
    char secs[32];
    if (size == 0)
        return;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
        ts.tv_sec = time(NULL);
        ts.tv_nsec = 0;
    }
    if (!gmtime_r(&ts.tv_sec, &tm) || strftime(secs, sizeof secs, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
        snprintf(buf, size, "1970-01-01T00:00:00.000Z");
        return;
    }
    snprintf(buf, size, "%s.%03ldZ", secs, (long)(ts.tv_nsec / 1000000));
}

/* ---- running a program without a shell ---- */

typedef struct captured {
    char out[CAPTURE_MAX + 1];
    size_t len;       /* bytes kept in out */
    size_t total;     /* bytes the program wrote */
} captured;

/* Runs argv[0] (found in PATH) with argv, stdin from /dev/null, stderr
 * dropped, stdout captured. 0 when it ran and exited with status 0. */
static int run_capture(const char *const argv[], captured *cap)
{
    const char **env;
    size_t nenv = 0, k = 0;

    cap->len = cap->total = 0;
    cap->out[0] = '\0';
    for (char **e = environ; e && *e; e++)
        nenv++;
    env = calloc(nenv + 3, sizeof *env);
    if (!env)
        return -1;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "GIT_OPTIONAL_LOCKS=", 19) != 0 && strncmp(*e, "GIT_TERMINAL_PROMPT=", 20) != 0)
            env[k++] = *e;
    env[k++] = "GIT_OPTIONAL_LOCKS=0";
    env[k++] = "GIT_TERMINAL_PROMPT=0";
    env[k] = NULL;

    sb_error err;
    int status;
    int rc = sb_process_capture(argv, env, 0, cap->out, CAPTURE_MAX + 1, &cap->total, &status, &err);
    free(env);
    cap->len = strlen(cap->out);
    return rc == SB_OK && status == 0 ? 0 : -1;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

static int is_sha(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isdigit((unsigned char)s[n]) && !(s[n] >= 'a' && s[n] <= 'f'))
            return 0;
    return n == 40;
}

json_t *sb_provenance_git(const char *dir)
{
    captured *cap = malloc(sizeof *cap);
    json_t *git = json_object();
    const char *d = dir && *dir ? dir : ".";
    const char *rev[] = {"git", "-C", d, "rev-parse", "--verify", "HEAD", NULL};
    const char *status[] = {"git", "-C", d, "status", "--porcelain", NULL};
    const char *describe[] = {"git", "-C", d, "describe", "--always", "--dirty", NULL};

    if (!cap || !git) {
        free(cap);
        json_decref(git);
        return NULL;
    }
    /* Whoever copied the tree may state its commit (a GPU host, a
     * container): the statement wins over whatever .git is there, since a
     * stale .git on a lent machine once recorded an old commit for a whole
     * run. Recorded as stated, and said so in describe. */
    const char *env_sha = getenv("SOLBOOK_GIT_SHA");
    const char *env_dirty = getenv("SOLBOOK_GIT_DIRTY");
    if (env_sha && is_sha(env_sha)) {
        json_object_set_new(git, "sha", json_string(env_sha));
        json_object_set_new(git, "dirty", env_dirty && (!strcmp(env_dirty, "0") || !strcmp(env_dirty, "1"))
                                              ? json_boolean(env_dirty[0] == '1') : json_null());
        json_object_set_new(git, "describe", json_string("stated by SOLBOOK_GIT_SHA"));
        free(cap);
        return git;
    }
    if (run_capture(rev, cap) == 0 && cap->total == cap->len && (chomp(cap->out), is_sha(cap->out)))
        json_object_set_new(git, "sha", json_string(cap->out));
    else
        json_object_set_new(git, "sha", json_string("unknown"));
    if (run_capture(status, cap) == 0)
        json_object_set_new(git, "dirty", json_boolean(cap->total > 0));
    else
        json_object_set_new(git, "dirty", json_null());
    if (run_capture(describe, cap) == 0 && cap->total == cap->len) {
        chomp(cap->out);
        if (cap->out[0] && !strchr(cap->out, '\n'))
            json_object_set_new(git, "describe", json_string(cap->out));
    }
    free(cap);
    if (json_object_size(git) < 2) {
        json_decref(git);
        return NULL;
    }
    return git;
}

/* ---- host ---- */

/* Copies s into dst with white-space runs folded to one space and no
 * leading or trailing space. */
static void fold_spaces(char *dst, size_t size, const char *s)
{
    size_t n = 0;
    int space = 0;
    if (size == 0)
        return;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) {
            space = n > 0;
            continue;
        }
        if (space && n + 1 < size)
            dst[n++] = ' ';
        space = 0;
        if (n + 1 < size)
            dst[n++] = *s;
    }
    dst[n] = '\0';
}

/* Value of the first line "KEY<spaces/tabs>: value" in /proc/cpuinfo. */
static int cpuinfo_value(const char *key, char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[1024];
    size_t kl = strlen(key);
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = line + kl;
        if (strncmp(line, key, kl) != 0)
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        fold_spaces(out, size, p + 1);
        found = out[0] != '\0';
    }
    fclose(f);
    return found;
}

static void cpu_model(char *out, size_t size)
{
    static const char *const keys[] = {"model name", "Model", "cpu model", "Processor"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (cpuinfo_value(keys[i], out, size))
            return;
    snprintf(out, size, "unknown");
}

void sb_provenance_cpu_sku(const char *model, char *out, size_t size)
{
    char words[512], slug[60]; /* ids stay under 64 characters */
    char *save = NULL;
    size_t n = 0;
    char copy[512];
    snprintf(copy, sizeof copy, "%s", model);
    words[0] = '\0';
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        char clean[128];
        size_t k = 0;
        if (w[0] == '@')
            break; /* the nominal clock and anything after it */
        /* drop (R), (TM), (tm), (r) wherever they are glued on */
        for (char *p = w; *p && k + 1 < sizeof clean;) {
            if (strncasecmp(p, "(r)", 3) == 0) {
                p += 3;
            } else if (strncasecmp(p, "(tm)", 4) == 0) {
                p += 4;
            } else {
                clean[k++] = *p++;
            }
        }
        clean[k] = '\0';
        if (!clean[0] || strcasecmp(clean, "cpu") == 0 || strcasecmp(clean, "processor") == 0)
            continue;
        {
            size_t len = strlen(clean);
            if (len > 5 && strcasecmp(clean + len - 5, "-core") == 0)
                continue; /* "48-Core" */
        }
        n += (size_t)snprintf(words + n, n < sizeof words ? sizeof words - n : 0, "%s ", clean);
        if (n >= sizeof words)
            break;
    }
    sb_sku_slug(words, slug, sizeof slug);
    snprintf(out, size, "cpu-%s", slug[0] ? slug : "unknown");
}

/* PRETTY_NAME from os-release, unquoted ("Debian GNU/Linux 12 (bookworm)"). */
static int os_pretty_name(char *out, size_t size)
{
    static const char *const paths[] = {"/etc/os-release", "/usr/lib/os-release"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = fopen(paths[i], "r");
        char line[1024];
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            char *v, quote = 0;
            size_t n = 0;
            if (strncmp(line, "PRETTY_NAME=", 12) != 0)
                continue;
            v = line + 12;
            chomp(v);
            if (*v == '"' || *v == '\'')
                quote = *v++;
            for (; *v && n + 1 < size; v++) {
                if (quote && *v == quote)
                    break;
                if (quote == '"' && *v == '\\' && v[1])
                    v++;
                out[n++] = *v;
            }
            out[n] = '\0';
            fclose(f);
            return n > 0;
        }
        fclose(f);
    }
    return 0;
}

static long long meminfo_total_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return (kb > 0 && kb < (1LL << 53) / 1024) ? kb * 1024 : -1;
}

static json_t *host_object(void)
{
    char host[256] = "", os[600], pretty[256], cpu[256];
    struct utsname u;
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    if (uname(&u) == 0) {
        if (os_pretty_name(pretty, sizeof pretty))
            snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, pretty);
        else
            snprintf(os, sizeof os, "%s %s", u.sysname, u.release);
    } else if (os_pretty_name(pretty, sizeof pretty)) {
        snprintf(os, sizeof os, "%s", pretty);
    } else {
        snprintf(os, sizeof os, "unknown");
    }
    cpu_model(cpu, sizeof cpu);
    return json_pack("{s:s,s:s,s:s}", "hostname", host, "os", os, "cpu", cpu);
}

/* ---- scheduler ---- */

static int env_index(const char *name, json_int_t *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || x < 0)
        return 0;
    *out = (json_int_t)x;
    return 1;
}

/* The job a batch scheduler started us in: Slurm's environment, or the
 * Indexed Job that solbook submit renders (it sets SOLBOOK_JOB_NAME beside
 * Kubernetes' JOB_COMPLETION_INDEX). NULL when there is none. */
static json_t *scheduler_object(void)
{
    const char *array_job = getenv("SLURM_ARRAY_JOB_ID");
    const char *job = array_job && *array_job ? array_job : getenv("SLURM_JOB_ID");
    json_int_t index;
    if (job && *job) {
        json_t *s = json_pack("{s:s,s:s}", "engine", "slurm", "job_id", job);
        if (s)
            json_object_set_new(s, "array_task_id",
                                env_index("SLURM_ARRAY_TASK_ID", &index) ? json_integer(index) : json_null());
        return s;
    }
    const char *k8s_job = getenv("SOLBOOK_JOB_NAME");
    if (k8s_job && *k8s_job && env_index("JOB_COMPLETION_INDEX", &index))
        return json_pack("{s:s,s:s,s:I}", "engine", "kubernetes", "job_id", k8s_job, "array_task_id", index);
    return NULL;
}

/* ---- device ---- */

static json_t *cpu_device(void)
{
    char model[256], sku[96];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long long mem = meminfo_total_bytes();
    cpu_model(model, sizeof model);
    sb_provenance_cpu_sku(model, sku, sizeof sku);
    return json_pack("{s:s,s:n,s:s,s:s,s:s,s:s,s:o,s:o,s:n,s:s,s:s,s:s,s:n,s:n,s:n}",
                     "kind", "cpu", "index", "name", model, "arch", "cpu", "sku", sku,
                     "compute_capability", "unknown",
                     "sm_count", cores > 0 ? json_integer(cores) : json_null(),
                     "memory_bytes", mem > 0 ? json_integer(mem) : json_null(),
                     "l2_bytes", "pci_device_id", "unknown", "board_part_number", "unknown",
                     "uuid", "unknown", "power_limit_w", "ecc", "mig");
}

static json_t *gpu_device_template(int index)
{
    return json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:n,s:n,s:n,s:s,s:s,s:s,"
                     "s:{s:n,s:n,s:n,s:n},s:n,s:n,s:n}",
                     "kind", "gpu", "index", index, "name", "unknown", "arch", "unknown",
                     "sku", "unknown", "compute_capability", "unknown", "sm_count",
                     "memory_bytes", "l2_bytes", "pci_device_id", "unknown",
                     "board_part_number", "unknown", "uuid", "unknown", "clocks", "sm_mhz",
                     "mem_mhz", "sm_max_mhz", "mem_max_mhz", "power_limit_w", "ecc", "mig");
}

/* Sets dev.sku and dev.arch from the SKU table. */
static int identify_sku(const sb_provenance_opts *opts, json_t *dev, sb_error *err)
{
    const char *name = json_string_value(json_object_get(dev, "name"));
    const char *pci = json_string_value(json_object_get(dev, "pci_device_id"));
    json_t *mem = json_object_get(dev, "memory_bytes");
    sb_sku_table *t;
    const sb_sku *s;
    char uid[64], uarch[16];

    if (!name || strcmp(name, "unknown") == 0)
        return SB_OK; /* nothing to identify: sku and arch stay "unknown" */
    if (sb_sku_table_load(opts->skus_csv, &t, err) != SB_OK)
        return SB_ERR;
    s = sb_sku_identify(t, name, pci, json_is_integer(mem) ? json_integer_value(mem) : 0,
                        uid, sizeof uid, uarch, sizeof uarch);
    json_object_set_new(dev, "sku", json_string(s ? s->id : uid));
    json_object_set_new(dev, "arch", json_string(s ? s->arch : uarch));
    sb_sku_table_free(t);
    return SB_OK;
}

int sb_provenance_collect_nvml(const sb_provenance_opts *opts, sb_nvml *nvml,
                               json_t **out, sb_error *err)
{
    json_t *prov = NULL, *git, *host, *dev, *sw;
    char now[40], driver[96] = "unknown", cuda_driver[32] = "";

    *out = NULL;
    if (!opts || !opts->tool_name || !opts->tool_name[0] || !opts->tool_version ||
        !opts->tool_version[0])
        return sb_error_set(err, NULL, NULL, "provenance needs a tool name and version");
    if (!opts->device_is_cpu && opts->device_index < 0)
        return sb_error_set(err, NULL, NULL, "device index %d is negative", opts->device_index);

    git = sb_provenance_git(opts->git_dir);
    host = host_object();
    if (opts->device_is_cpu) {
        dev = cpu_device();
    } else {
        dev = gpu_device_template(opts->device_index);
        if (dev && nvml) {
            if (sb_nvml_device_identity(nvml, opts->device_index, dev, err) != SB_OK)
                goto fail;
            sb_nvml_driver_version(nvml, driver, sizeof driver);
            sb_nvml_cuda_driver_version(nvml, cuda_driver, sizeof cuda_driver);
        }
        if (dev && identify_sku(opts, dev, err) != SB_OK)
            goto fail;
    }
    sw = json_pack("{s:s,s:s,s:s}", "driver_version", driver, "cuda_runtime_version", "unknown",
                   "cublas_version", "unknown");
    if (sw && cuda_driver[0])
        json_object_set_new(sw, "cuda_driver_api_version", json_string(cuda_driver));
    sb_time_now_rfc3339(now, sizeof now);
    if (git && host && dev && sw)
        prov = json_pack("{s:O,s:{s:s,s:s},s:O,s:O,s:O,s:s,s:s}", "git", git, "tool", "name",
                         opts->tool_name, "version", opts->tool_version, "host", host,
                         "software", sw, "device", dev, "started_at", now, "finished_at", now);
    json_decref(git);
    json_decref(host);
    json_decref(dev);
    json_decref(sw);
    json_t *sched = prov ? scheduler_object() : NULL;
    if (sched)
        json_object_set_new(prov, "scheduler", sched);
    if (!prov)
        return sb_error_set(err, NULL, NULL, "out of memory building the provenance");
    *out = prov;
    return SB_OK;

fail:
    json_decref(git);
    json_decref(host);
    json_decref(dev);
    return SB_ERR;
}

int sb_provenance_collect(const sb_provenance_opts *opts, json_t **out, sb_error *err)
{
    sb_nvml *nvml = NULL;
    sb_error ignored;
    int rc;
    if (opts && !opts->device_is_cpu && sb_nvml_open(&nvml, &ignored) != SB_OK)
        nvml = NULL; /* no NVML: the device fields stay "unknown" */
    rc = sb_provenance_collect_nvml(opts, nvml, out, err);
    sb_nvml_close(nvml);
    return rc;
}

int sb_provenance_finish(json_t *prov, sb_error *err)
{
    char now[40];
    if (!json_is_object(prov))
        return sb_error_set(err, NULL, NULL, "provenance is not a JSON object");
    sb_time_now_rfc3339(now, sizeof now);
    if (json_object_set_new(prov, "finished_at", json_string(now)) != 0)
        return sb_error_set(err, NULL, NULL, "out of memory setting finished_at");
    return SB_OK;
}
