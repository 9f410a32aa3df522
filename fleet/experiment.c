/* experiment.c - loading and checking data/experiments/NAME.json files. */
#include "experiment.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "home.h"
#include "json_file.h"
#include "json_schema.h"

/* The public view plus what owns its memory. */
typedef struct exp_owner {
    sb_experiment pub;
    json_t *doc;
    char *path;
    sb_exp_arch *archs;
    sb_exp_case *cases;
    sb_exp_command *commands;   /* all cases' commands, one block */
    const char **words;         /* all argv words, metric names, writes, gate words */
} exp_owner;

void sb_experiment_free(sb_experiment *e)
{
    if (!e)
        return;
    exp_owner *o = (exp_owner *)e;
    json_decref(o->doc);
    free(o->path);
    free(o->archs);
    free(o->cases);
    free(o->commands);
    free(o->words);
    free(o);
}

long sb_exp_parse_time(const char *text)
{
    unsigned h, m, s;
    int n = 0;
    if (!text || sscanf(text, "%3u:%2u:%2u%n", &h, &m, &s, &n) != 3 || text[n] != '\0' ||
        m > 59 || s > 59 || strlen(text) < 7)
        return -1;
    return (long)h * 3600 + (long)m * 60 + (long)s;
}

static const char *const PLACEHOLDER_NAMES[] = {"out", "arch", "experiment", "case", "gpus", "sku"};
#define N_PLACEHOLDERS (sizeof PLACEHOLDER_NAMES / sizeof *PLACEHOLDER_NAMES)

/* 0 when every {...} in text is a known placeholder (allowed_mask bits in
 * the order of PLACEHOLDER_NAMES) and every brace is part of one; else the
 * offending text is copied into bad. */
static int check_placeholders(const char *text, unsigned allowed_mask, char *bad, size_t size)
{
    for (const char *p = text; *p; p++) {
        if (*p == '}') {
            snprintf(bad, size, "}");
            return -1;
        }
        if (*p != '{')
            continue;
        const char *q = strchr(p, '}');
        if (!q) {
            snprintf(bad, size, "%s", p);
            return -1;
        }
        size_t len = (size_t)(q - p - 1);
        int ok = 0;
        for (size_t i = 0; i < N_PLACEHOLDERS; i++)
            if ((allowed_mask & (1u << i)) && strlen(PLACEHOLDER_NAMES[i]) == len &&
                strncmp(p + 1, PLACEHOLDER_NAMES[i], len) == 0)
                ok = 1;
        if (!ok) {
            snprintf(bad, size, "%.*s", (int)(q - p + 1), p);
            return -1;
        }
        p = q;
    }
    return 0;
}

char *sb_exp_expand(const char *text, const sb_exp_vars *vars)
{
    const char *vals[N_PLACEHOLDERS] = {vars->out, vars->arch, vars->experiment, vars->case_id, vars->gpus,
                                        vars->sku};
    size_t cap = strlen(text) + 1;
    for (size_t i = 0; i < N_PLACEHOLDERS; i++)
        if (vals[i])
            cap += strlen(vals[i]) * (strlen(text) / 3 + 1);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = 0;
    for (const char *p = text; *p;) {
        int done = 0;
        if (*p == '{') {
            for (size_t i = 0; i < N_PLACEHOLDERS && !done; i++) {
                size_t len = strlen(PLACEHOLDER_NAMES[i]);
                if (vals[i] && strncmp(p + 1, PLACEHOLDER_NAMES[i], len) == 0 && p[1 + len] == '}') {
                    size_t vl = strlen(vals[i]);
                    memcpy(out + n, vals[i], vl);
                    n += vl;
                    p += len + 2;
                    done = 1;
                }
            }
        }
        if (!done)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return out;
}

static const char *str_at(json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* Counts the words the owner must hold. */
static size_t count_words(json_t *doc)
{
    size_t n = 0, i, j;
    json_t *c, *cmd;
    json_array_foreach(json_object_get(doc, "cases"), i, c) {
        json_array_foreach(json_object_get(c, "commands"), j, cmd)
            n += json_array_size(cmd);
        n += json_array_size(json_object_get(c, "writes"));
    }
    const char *k;
    json_t *a;
    json_object_foreach(json_object_get(doc, "archs"), k, a)
        n += json_array_size(json_object_get(json_object_get(a, "ncu"), "metrics"));
    n += json_array_size(json_object_get(json_object_get(doc, "gate"), "command"));
    return n;
}

static int known(const char *const *list, const char *s)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

#define COMMAND_PLACEHOLDERS 0x1fu /* out, arch, experiment, case, gpus */
#define GATE_PLACEHOLDERS ((1u << 1) | (1u << 2) | (1u << 5)) /* arch, experiment, sku */
#define WRITE_PLACEHOLDERS ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4))

static int fill(exp_owner *o, const char *const *known_archs, sb_error *err)
{
    json_t *doc = o->doc;
    const char *path = o->path;
    sb_experiment *e = &o->pub;
    char ptr[512], bad[128];
    e->path = o->path;
    e->name = str_at(doc, "name");
    e->description = str_at(doc, "description");

    /* The file name says the experiment's name. */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (bl < 6 || strcmp(base + bl - 5, ".json") != 0 || strlen(e->name) != bl - 5 ||
        strncmp(base, e->name, bl - 5) != 0)
        return sb_error_set(err, path, "/name", "the name is \"%s\" but the file is %s; name the file %s.json",
                            e->name, base, e->name);

    size_t nwords = count_words(doc), w = 0;
    json_t *archs = json_object_get(doc, "archs"), *cases = json_object_get(doc, "cases");
    o->words = calloc(nwords ? nwords : 1, sizeof *o->words);
    o->archs = calloc(json_object_size(archs), sizeof *o->archs);
    o->cases = calloc(json_array_size(cases), sizeof *o->cases);
    size_t ncmd = 0, i, j, k;
    json_t *c, *cmd, *word;
    json_array_foreach(cases, i, c)
        ncmd += json_array_size(json_object_get(c, "commands"));
    o->commands = calloc(ncmd ? ncmd : 1, sizeof *o->commands);
    if (!o->words || !o->archs || !o->cases || !o->commands)
        return sb_error_set(err, path, NULL, "out of memory");

    const char *an;
    json_t *a;
    json_object_foreach(archs, an, a) {
        snprintf(ptr, sizeof ptr, "/archs");
        sb_json_pointer_append(ptr, sizeof ptr, an);
        if (known_archs && !known(known_archs, an))
            return sb_error_set(err, path, ptr, "arch %s is not in data/skus.csv (its archs are the arch column)", an);
        sb_exp_arch *x = &o->archs[e->n_archs++];
        x->arch = an;
        x->gpus = (long)json_integer_value(json_object_get(a, "gpus"));
        x->cpus = (long)json_integer_value(json_object_get(a, "cpus"));
        x->memory_gb = (long)json_integer_value(json_object_get(a, "memory_gb"));
        x->time = str_at(a, "time");
        x->time_seconds = sb_exp_parse_time(x->time);
        if (x->time_seconds <= 0) {
            sb_json_pointer_append(ptr, sizeof ptr, "time");
            return sb_error_set(err, path, ptr, "time %s: expected a positive HH:MM:SS", x->time);
        }
        json_t *ncu = json_object_get(a, "ncu");
        x->ncu.enabled = json_is_true(json_object_get(ncu, "enabled"));
        json_t *metrics = json_object_get(ncu, "metrics");
        x->ncu.metrics = o->words + w;
        json_array_foreach(metrics, k, word)
            o->words[w++] = json_string_value(word);
        x->ncu.n_metrics = json_array_size(metrics);
        x->ncu.launch_skip = (long)json_integer_value(json_object_get(ncu, "launch_skip"));
        x->ncu.launch_count = (long)json_integer_value(json_object_get(ncu, "launch_count"));
    }
    e->archs = o->archs;

    sb_exp_command *next_cmd = o->commands;
    json_array_foreach(cases, i, c) {
        sb_exp_case *x = &o->cases[e->n_cases++];
        char cptr[256];
        snprintf(cptr, sizeof cptr, "/cases/%zu", i);
        x->id = str_at(c, "id");
        x->what = str_at(c, "what");
        x->profile = json_is_true(json_object_get(c, "profile"));
        for (size_t p = 0; p < i; p++)
            if (strcmp(o->cases[p].id, x->id) == 0)
                return sb_error_set(err, path, strcat(cptr, "/id"), "case id %s is used twice (also /cases/%zu)",
                                    x->id, p);
        x->commands = next_cmd;
        json_array_foreach(json_object_get(c, "commands"), j, cmd) {
            sb_exp_command *xc = next_cmd++;
            xc->argv = o->words + w;
            json_array_foreach(cmd, k, word) {
                const char *s = json_string_value(word);
                snprintf(ptr, sizeof ptr, "%s/commands/%zu/%zu", cptr, j, k);
                if (check_placeholders(s, COMMAND_PLACEHOLDERS, bad, sizeof bad))
                    return sb_error_set(err, path, ptr, "%s is not a placeholder of a command "
                                        "(known: {out} {arch} {experiment} {case} {gpus})", bad);
                if (k == 0 && strcmp(s, "solbench") != 0 && strcmp(s, "solbench-spread") != 0 &&
                    strcmp(s, "llama-fsdp") != 0)
                    return sb_error_set(err, path, ptr,
                                        "a case runs solbench, solbench-spread or llama-fsdp, not %s (the "
                                        "programs are taken from $SOLBENCH, $SOLBENCH_SPREAD and $LLAMA_FSDP)",
                                        s);
                if (k == 0 && x->profile && strcmp(s, "solbench") != 0)
                    return sb_error_set(err, path, ptr, "a profile case runs solbench itself under ncu, not %s", s);
                o->words[w++] = s;
            }
            xc->argc = json_array_size(cmd);
            x->n_commands++;
        }
        x->writes = o->words + w;
        json_array_foreach(json_object_get(c, "writes"), j, word) {
            const char *s = json_string_value(word);
            snprintf(ptr, sizeof ptr, "%s/writes/%zu", cptr, j);
            if (check_placeholders(s, WRITE_PLACEHOLDERS, bad, sizeof bad))
                return sb_error_set(err, path, ptr, "%s is not a placeholder of a path under {out} "
                                    "(known: {arch} {experiment} {case} {gpus})", bad);
            if (strstr(s, "..") || strchr(s, '\'') || strchr(s, '"') || strchr(s, '$') || strchr(s, '`') ||
                strchr(s, '\\'))
                return sb_error_set(err, path, ptr, "%s: a path under {out} without .., quotes, $, ` or \\", s);
            o->words[w++] = s;
            x->n_writes++;
        }
        if (x->profile && !sb_exp_case_result_out(x))
            return sb_error_set(err, path, strcat(cptr, "/commands/0"),
                                "a profile case needs --out NAME.json (one result file, beside which "
                                "the ncu CSV is written)");
    }
    e->cases = o->cases;

    json_t *gate = json_object_get(doc, "gate");
    e->gate_name = str_at(gate, "name");
    e->gate_reads = str_at(gate, "reads");
    e->gate_command = o->words + w;
    json_array_foreach(json_object_get(gate, "command"), j, word) {
        const char *s = json_string_value(word);
        snprintf(ptr, sizeof ptr, "/gate/command/%zu", j);
        if (check_placeholders(s, GATE_PLACEHOLDERS, bad, sizeof bad))
            return sb_error_set(err, path, ptr, "%s is not a placeholder of the gate (known: {arch} {experiment} {sku})",
                                bad);
        o->words[w++] = s;
        e->gate_argc++;
    }
    return SB_OK;
}

int sb_experiment_load(const char *path, const char *schema_path, const char *const *known_archs,
                       sb_experiment **out, sb_error *err)
{
    *out = NULL;
    char sp[4096];
    if (!schema_path) {
        if (sb_data_path(sp, sizeof sp, "schemas/solbook.experiment.v1.json", err) != SB_OK)
            return SB_ERR;
        schema_path = sp;
    }
    sb_schema *schema = NULL;
    if (sb_schema_load_file(schema_path, &schema, err) != SB_OK)
        return SB_ERR;
    json_t *doc = NULL;
    char *text = NULL;
    size_t cap = 0, len = 0;
    int loaded = sb_file_read_into_max(path, SB_EXPERIMENT_MAX_BYTES, &text, &cap, &len, err);
    if (loaded == SB_OK && len > SB_EXPERIMENT_MAX_BYTES)
        loaded = sb_error_set(err, path, NULL, "experiment file larger than %zu MiB: refused unparsed",
                              SB_EXPERIMENT_MAX_BYTES >> 20);
    if (loaded == SB_OK)
        loaded = sb_json_load_buffer(text, len, path, &doc, err);
    free(text);
    if (loaded != SB_OK) {
        sb_schema_free(schema);
        return SB_ERR;
    }
    int rc = sb_schema_check(schema, doc, path, err);
    sb_schema_free(schema);
    if (rc != SB_OK) {
        json_decref(doc);
        return SB_ERR;
    }
    exp_owner *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        json_decref(doc);
        return sb_error_set(err, path, NULL, "out of memory");
    }
    o->doc = doc;
    if (fill(o, known_archs, err) != SB_OK) {
        sb_experiment_free(&o->pub);
        return SB_ERR;
    }
    *out = &o->pub;
    return SB_OK;
}

const sb_exp_arch *sb_experiment_arch(const sb_experiment *e, const char *arch)
{
    for (size_t i = 0; i < e->n_archs; i++)
        if (strcmp(e->archs[i].arch, arch) == 0)
            return &e->archs[i];
    return NULL;
}

int sb_exp_case_profiled(const sb_exp_case *c, const sb_exp_arch *a)
{
    return c->profile && a && a->ncu.enabled;
}

const char *sb_exp_case_result_out(const sb_exp_case *c)
{
    if (c->n_commands != 1)
        return NULL;
    const sb_exp_command *cmd = &c->commands[0];
    const char *out = NULL;
    for (size_t i = 1; i < cmd->argc; i++) {
        if (strcmp(cmd->argv[i], "--out") == 0 && i + 1 < cmd->argc)
            out = cmd->argv[i + 1];
        else if (strncmp(cmd->argv[i], "--out=", 6) == 0)
            out = cmd->argv[i] + 6;
    }
    size_t n = out ? strlen(out) : 0;
    return n > 5 && strcmp(out + n - 5, ".json") == 0 ? out : NULL;
}

static int cmp_exp(const void *a, const void *b)
{
    return strcmp((*(sb_experiment *const *)a)->name, (*(sb_experiment *const *)b)->name);
}

int sb_experiment_set_load(const char *dir, const char *schema_path, const char *const *known_archs,
                           sb_experiment_set *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d)
        return sb_error_set(err, dir, NULL, "cannot open the experiments directory: %s", strerror(errno));
    struct dirent *de;
    size_t cap = 0;
    int rc = SB_OK;
    while (rc == SB_OK && (de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n <= 5 || de->d_name[0] == '.' || strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path) {
            rc = sb_error_set(err, dir, NULL, "path too long: %s", de->d_name);
            break;
        }
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (out->n == cap) {
            size_t nc = cap ? 2 * cap : 8;
            sb_experiment **v = realloc(out->v, nc * sizeof *v);
            if (!v) {
                rc = sb_error_set(err, dir, NULL, "out of memory");
                break;
            }
            out->v = v;
            cap = nc;
        }
        sb_experiment *e;
        rc = sb_experiment_load(path, schema_path, known_archs, &e, err);
        if (rc == SB_OK)
            out->v[out->n++] = e;
    }
    closedir(d);
    if (rc != SB_OK) {
        sb_experiment_set_free(out);
        return SB_ERR;
    }
    if (out->n == 0)
        return sb_error_set(err, dir, NULL, "no experiment files (*.json) in this directory");
    qsort(out->v, out->n, sizeof *out->v, cmp_exp);
    return SB_OK;
}

void sb_experiment_set_free(sb_experiment_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        sb_experiment_free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

const sb_experiment *sb_experiment_set_find(const sb_experiment_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i]->name, name) == 0)
            return s->v[i];
    return NULL;
}
