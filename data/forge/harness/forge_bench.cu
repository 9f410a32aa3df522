/* forge_bench.cu - forge's timing harness (docs/FORGE.md, "Bench").
 *
 * Compiled by `solbook forge bench` together with the candidate's kernel.cu
 * and reference.cu, with -DFORGE_CANDIDATE_ENTRY=<metadata entry_point>.
 * For each shape it creates --input-sets problems from different seeds
 * (the same sets for both providers), checks the candidate and the baseline
 * against the reference before any timing (outputs poisoned first), then
 * times both on the same stream of the same card: warm-up launches, then
 * `repeats` rounds of `iters` launches, each launch between its own pair of
 * CUDA events and on the next input set in turn, the two providers
 * alternating order from round to round. With --l2 cold a buffer twice the
 * size of L2 is written before every sample, outside the events.
 *
 * A launcher that only did its work once could pass the checked run and
 * then time nothing: an output cached between calls, or work skipped when
 * an input pointer comes back. So in --fresh-checks rounds spread over the
 * repeats, one input set gets new random inputs written into its buffers
 * (same pointers, a new seed) just before a provider's round, and after the
 * round the outputs its timed launches left are checked against the
 * reference of the new inputs. A mismatch fails the provider, with a
 * reason that says so.
 *
 * Output (--out FILE) is forge's raw measurement JSON; `solbook forge bench`
 * turns it into solbook.result.v1 documents (stats, metrics, provenance) and
 * ingests them. Exit status: 0 output written (verdicts inside), 2 error.
 */
#include <cuda_runtime.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forge_abi.h"

#ifndef FORGE_CANDIDATE_ENTRY
#error "compile with -DFORGE_CANDIDATE_ENTRY=<entry_point from metadata.json>"
#endif

extern "C" cudaError_t FORGE_CANDIDATE_ENTRY(const forge_problem *p, cudaStream_t stream);

#define FORGE_MAX_SHAPES 16
#define FORGE_MAX_SETS 8

struct options {
    const char *out;
    int warmup, iters, repeats, cold_l2, input_sets, fresh_checks;
    unsigned long long seed;
    forge_shape shapes[FORGE_MAX_SHAPES];
    int shape_count;
};

struct provider_result {
    const char *name;
    forge_launch_fn launch;
    char error[512];        /* launch or check failure, "" when none */
    forge_check check;
    int checked;
    float *samples;         /* repeats * iters, row per repeat */
    int fresh_count;        /* fresh-input checks made */
    struct fresh_result {
        int round, set;
        unsigned long long seed;
        forge_check check;
    } fresh[1000];
};

/* The input sets of one shape. sets[k] owns the buffers that are launched
 * on; after a refresh, renewed[k] owns the host state describing the new
 * inputs now in those buffers. view[k] is what launchers and checks get:
 * sets[k]'s input and output pointers with the description of what the
 * inputs hold. */
struct input_sets {
    int count;
    forge_problem sets[FORGE_MAX_SETS], renewed[FORGE_MAX_SETS], view[FORGE_MAX_SETS];
    int is_renewed[FORGE_MAX_SETS];
    unsigned long long refreshes;
};

static int fail(const char *what, cudaError_t e)
{
    fprintf(stderr, "forge_bench: %s: %s\n", what, cudaGetErrorString(e));
    return 2;
}

static int parse_shape(const char *text, forge_shape *s)
{
    memset(s, 0, sizeof *s);
    const char *p = text;
    while (*p) {
        if (s->count == FORGE_MAX_DIMS)
            return -1;
        const char *eq = strchr(p, '=');
        if (!eq || eq == p || (size_t)(eq - p) >= FORGE_DIM_NAME)
            return -1;
        memcpy(s->names[s->count], p, (size_t)(eq - p));
        errno = 0;
        char *end;
        long long v = strtoll(eq + 1, &end, 10);
        if (errno || end == eq + 1 || v < 1 || (*end && *end != ','))
            return -1;
        s->values[s->count++] = v;
        p = *end ? end + 1 : end;
    }
    return s->count ? 0 : -1;
}

static int parse_int(const char *text, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || end == text || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->warmup = 20;
    o->iters = 50;
    o->repeats = 5;
    o->cold_l2 = 1;
    o->seed = 1234;
    o->input_sets = 3;
    o->fresh_checks = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "forge_bench: %s needs a value\n", a);
            return -1;
        }
        i++;
        if (strcmp(a, "--out") == 0) {
            o->out = v;
        } else if (strcmp(a, "--warmup") == 0) {
            if (parse_int(v, 0, 100000, &o->warmup)) goto bad;
        } else if (strcmp(a, "--iters") == 0) {
            if (parse_int(v, 1, 100000, &o->iters)) goto bad;
        } else if (strcmp(a, "--repeats") == 0) {
            if (parse_int(v, 1, 1000, &o->repeats)) goto bad;
        } else if (strcmp(a, "--input-sets") == 0) {
            if (parse_int(v, 1, FORGE_MAX_SETS, &o->input_sets)) goto bad;
        } else if (strcmp(a, "--fresh-checks") == 0) {
            if (parse_int(v, 0, 1000, &o->fresh_checks)) goto bad;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 10);
            if (errno || *end || end == v) goto bad;
        } else if (strcmp(a, "--l2") == 0) {
            if (strcmp(v, "cold") == 0) o->cold_l2 = 1;
            else if (strcmp(v, "warm") == 0) o->cold_l2 = 0;
            else goto bad;
        } else if (strcmp(a, "--shape") == 0) {
            if (o->shape_count == FORGE_MAX_SHAPES || parse_shape(v, &o->shapes[o->shape_count]))
                goto bad;
            o->shape_count++;
        } else {
            fprintf(stderr, "forge_bench: unknown option %s\n", a);
            return -1;
        }
        continue;
    bad:
        fprintf(stderr, "forge_bench: bad value for %s: %s\n", a, v);
        return -1;
    }
    if (!o->out || o->shape_count == 0) {
        fprintf(stderr, "forge_bench: --out FILE and at least one --shape are needed\n");
        return -1;
    }
    if (o->fresh_checks > o->repeats)
        o->fresh_checks = o->repeats; /* at most one a round */
    return 0;
}

static void put_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Checked run: poison, launch, wait, compare. */
static void check_provider(const forge_problem *p, cudaStream_t stream, provider_result *r)
{
    cudaError_t e = forge_poison_outputs(p, stream);
    if (e == cudaSuccess)
        e = r->launch(p, stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(r->error, sizeof r->error, "launch failed: %s", cudaGetErrorString(e));
        return;
    }
    char msg[256] = "";
    if (forge_problem_check(p, &r->check, msg, sizeof msg) != 0) {
        snprintf(r->error, sizeof r->error, "reference check could not run: %s", msg);
        return;
    }
    r->checked = 1;
    if (!r->check.passed)
        snprintf(r->error, sizeof r->error,
                 "output differs from the reference (max_abs_err %g, atol %g, rtol %g, unwritten %lld)",
                 r->check.max_abs_err, r->check.atol, r->check.rtol, r->check.unwritten);
}

/* The input set launch i of round rep runs on: the sets in turn. */
static int set_of(const options *o, const input_sets *in, int rep, int i)
{
    return (int)(((long long)rep * o->iters + i) % in->count);
}

static int time_round(const input_sets *in, cudaStream_t stream, const options *o,
                      void *flush, size_t flush_bytes, cudaEvent_t *ev, provider_result *r,
                      int rep)
{
    for (int i = 0; i < o->iters; i++) {
        cudaError_t e = cudaSuccess;
        if (flush)
            e = cudaMemsetAsync(flush, (rep * o->iters + i) & 0xFF, flush_bytes, stream);
        if (e == cudaSuccess) e = cudaEventRecord(ev[2 * i], stream);
        if (e == cudaSuccess) e = r->launch(&in->view[set_of(o, in, rep, i)], stream);
        if (e == cudaSuccess) e = cudaEventRecord(ev[2 * i + 1], stream);
        if (e != cudaSuccess) {
            snprintf(r->error, sizeof r->error, "timed launch failed: %s", cudaGetErrorString(e));
            return -1;
        }
    }
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        snprintf(r->error, sizeof r->error, "timed launches failed: %s", cudaGetErrorString(e));
        return -1;
    }
    for (int i = 0; i < o->iters; i++) {
        float ms = 0;
        e = cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
        if (e != cudaSuccess) {
            snprintf(r->error, sizeof r->error, "event timing failed: %s", cudaGetErrorString(e));
            return -1;
        }
        r->samples[(size_t)rep * o->iters + i] = ms;
    }
    return 0;
}

static void destroy_sets(input_sets *in)
{
    for (int k = 0; k < in->count; k++) {
        forge_problem_destroy(&in->sets[k]);
        if (in->is_renewed[k])
            forge_problem_destroy(&in->renewed[k]);
    }
    in->count = 0;
}

/* Creates count sets of shape s, seeds apart, each within the device
 * memory that is free; fewer when the card cannot hold them (at least
 * one). 0 on success, else the reason in msg. */
static int create_sets(const options *o, int s, input_sets *in, char *msg, size_t msg_size)
{
    memset(in, 0, sizeof *in);
    for (int k = 0; k < o->input_sets; k++) {
        if (k > 0) {
            size_t free_b = 0, total_b = 0, held = in->sets[0].workspace_bytes;
            for (int i = 0; i < in->sets[0].input_count; i++) held += in->sets[0].input_bytes[i];
            for (int i = 0; i < in->sets[0].output_count; i++) held += in->sets[0].output_bytes[i];
            /* a set, and room for the one a refresh creates beside it */
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || 3 * held > free_b)
                break;
        }
        unsigned long long seed = o->seed + (unsigned long long)s + 1000003ULL * (unsigned long long)k;
        if (forge_problem_create(&o->shapes[s], seed, &in->sets[k], msg, msg_size) != 0) {
            destroy_sets(in);
            return -1;
        }
        in->view[k] = in->sets[k];
        in->count = k + 1;
    }
    return 0;
}

/* Writes new random inputs into set k's buffers: a problem of the same
 * shape from a new seed gives the inputs (copied into set k's buffers, so
 * the pointers a launcher sees stay the same) and the host state that
 * describes them. 0 on success, else the reason in msg. */
static int refresh_set(const options *o, int s, input_sets *in, int k, unsigned long long *seed_out, char *msg,
                       size_t msg_size)
{
    forge_problem q;
    /* seeds past every set's, small enough for a JSON integer */
    unsigned long long seed = o->seed + (unsigned long long)s + 1000003ULL * (FORGE_MAX_SETS + ++in->refreshes);
    if (forge_problem_create(&o->shapes[s], seed, &q, msg, msg_size) != 0)
        return -1;
    const forge_problem *p = &in->sets[k];
    if (q.input_count != p->input_count || q.output_count != p->output_count) {
        snprintf(msg, msg_size, "forge_problem_create gave another buffer layout for seed %llu", seed);
        forge_problem_destroy(&q);
        return -1;
    }
    for (int i = 0; i < p->input_count; i++) {
        cudaError_t e = q.input_bytes[i] == p->input_bytes[i]
                            ? cudaMemcpy(p->inputs[i], q.inputs[i], p->input_bytes[i], cudaMemcpyDeviceToDevice)
                            : cudaErrorInvalidValue;
        if (e != cudaSuccess) {
            snprintf(msg, msg_size, "copying fresh input %d: %s", i, cudaGetErrorString(e));
            forge_problem_destroy(&q);
            return -1;
        }
    }
    if (in->is_renewed[k])
        forge_problem_destroy(&in->renewed[k]);
    in->renewed[k] = q;
    in->is_renewed[k] = 1;
    forge_problem v = q;
    memcpy(v.inputs, p->inputs, sizeof v.inputs);
    memcpy(v.outputs, p->outputs, sizeof v.outputs);
    in->view[k] = v;
    *seed_out = seed;
    return 0;
}

/* Whether round rep is one of the fresh-input rounds: fresh_checks of
 * them, spread evenly over the repeats, the first and the last included. */
static int is_fresh_round(const options *o, int rep)
{
    if (o->fresh_checks <= 0)
        return 0;
    if (o->fresh_checks == 1)
        return rep == o->repeats - 1;
    for (int j = 0; j < o->fresh_checks; j++)
        if (rep == (int)((long long)j * (o->repeats - 1) / (o->fresh_checks - 1)))
            return 1;
    return 0;
}

/* One timed round of r; in a fresh round, set k's inputs are renewed
 * before it and the outputs its timed launches left are checked after. */
static void provider_round(const options *o, int s, input_sets *in, cudaStream_t stream, void *flush,
                           size_t flush_bytes, cudaEvent_t *ev, provider_result *r, int rep)
{
    int fresh = is_fresh_round(o, rep) && r->fresh_count < (int)(sizeof r->fresh / sizeof r->fresh[0]);
    int k = set_of(o, in, rep, 0); /* the round's first launch runs on it */
    unsigned long long seed = 0;
    char msg[256] = "";
    if (fresh && refresh_set(o, s, in, k, &seed, msg, sizeof msg) != 0) {
        snprintf(r->error, sizeof r->error, "fresh inputs for timed round %d could not be made: %s", rep, msg);
        return;
    }
    if (time_round(in, stream, o, flush, flush_bytes, ev, r, rep) != 0 || !fresh)
        return;
    struct provider_result::fresh_result *fr = &r->fresh[r->fresh_count++];
    fr->round = rep;
    fr->set = k;
    fr->seed = seed;
    if (forge_problem_check(&in->view[k], &fr->check, msg, sizeof msg) != 0) {
        snprintf(r->error, sizeof r->error, "fresh-input check after timed round %d could not run: %s", rep, msg);
        return;
    }
    if (!fr->check.passed)
        snprintf(r->error, sizeof r->error,
                 "fresh-input check failed: after new inputs were written into input set %d before timed "
                 "round %d, the outputs its timed launches left differ from the reference of those inputs "
                 "(max_abs_err %g, unwritten %lld): the launcher returns a cached output or skips work when "
                 "inputs repeat, so its times are not the op's",
                 k, rep, fr->check.max_abs_err, fr->check.unwritten);
}

static void put_check(FILE *f, const forge_check *c)
{
    fprintf(f, "{\"reference\": ");
    put_string(f, c->reference[0] ? c->reference : "reference.cu");
    fprintf(f, ", \"checked_elements\": %lld, \"max_abs_err\": ", c->checked);
    put_number(f, c->max_abs_err);
    fprintf(f, ", \"max_rel_err\": ");
    put_number(f, c->max_rel_err);
    fprintf(f, ", \"rel_l2_err\": ");
    put_number(f, c->rel_l2_err);
    fprintf(f, ", \"atol\": ");
    put_number(f, c->atol);
    fprintf(f, ", \"rtol\": ");
    put_number(f, c->rtol);
    fprintf(f, ", \"unwritten\": %lld, \"finite\": %s, \"passed\": %s}", c->unwritten,
            c->finite ? "true" : "false", c->passed ? "true" : "false");
}

static void write_provider(FILE *f, const options *o, const provider_result *r)
{
    fprintf(f, "{\"name\": ");
    put_string(f, r->name);
    fprintf(f, ", \"error\": ");
    if (r->error[0]) put_string(f, r->error); else fputs("null", f);
    fprintf(f, ", \"check\": ");
    if (r->checked)
        put_check(f, &r->check);
    else
        fputs("null", f);
    fprintf(f, ", \"fresh_checks\": [");
    for (int i = 0; i < r->fresh_count; i++) {
        fprintf(f, "%s{\"round\": %d, \"input_set\": %d, \"seed\": %llu, \"check\": ", i ? ", " : "",
                r->fresh[i].round, r->fresh[i].set, r->fresh[i].seed);
        put_check(f, &r->fresh[i].check);
        fputc('}', f);
    }
    fputc(']', f);
    fprintf(f, ", \"samples\": ");
    if (r->error[0]) {
        fputs("null", f);
    } else {
        fputc('[', f);
        for (int rep = 0; rep < o->repeats; rep++) {
            fputs(rep ? ", [" : "[", f);
            for (int i = 0; i < o->iters; i++) {
                if (i) fputs(", ", f);
                put_number(f, (double)r->samples[(size_t)rep * o->iters + i]);
            }
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o))
        return 2;

    cudaDeviceProp prop;
    int dev = 0, rt = 0, drv = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
    if (e != cudaSuccess)
        return fail("no usable CUDA device", e);
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);

    cudaStream_t stream;
    if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess)
        return fail("cudaStreamCreate", e);
    void *flush = NULL;
    size_t flush_bytes = 0;
    if (o.cold_l2) {
        flush_bytes = 2 * (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 64 << 20);
        if ((e = cudaMalloc(&flush, flush_bytes)) != cudaSuccess)
            return fail("L2 flush buffer", e);
    }
    cudaEvent_t *ev = (cudaEvent_t *)calloc(2 * (size_t)o.iters, sizeof *ev);
    if (!ev) {
        fprintf(stderr, "forge_bench: out of memory\n");
        return 2;
    }
    for (int i = 0; i < 2 * o.iters; i++)
        if ((e = cudaEventCreate(&ev[i])) != cudaSuccess)
            return fail("cudaEventCreate", e);

    FILE *f = fopen(o.out, "w");
    if (!f) {
        fprintf(stderr, "forge_bench: cannot write %s: %s\n", o.out, strerror(errno));
        return 2;
    }
    char uuid[64];
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(uuid, sizeof uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
    fprintf(f, "{\"harness\": \"forge_bench\", \"harness_version\": 1,\n \"device\": {\"index\": %d, \"name\": ", dev);
    put_string(f, prop.name);
    fprintf(f, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"memory_bytes\": %zu, "
               "\"l2_bytes\": %d, \"uuid\": \"%s\", \"cuda_runtime_version\": \"%d.%d\", "
               "\"cuda_driver_api_version\": \"%d.%d\"},\n",
            prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem, prop.l2CacheSize,
            uuid, rt / 1000, (rt % 1000) / 10, drv / 1000, (drv % 1000) / 10);
    fprintf(f, " \"protocol\": {\"warmup_iters\": %d, \"iters\": %d, \"repeats\": %d, \"l2\": \"%s\", "
               "\"input_sets\": %d, \"fresh_checks\": %d, \"graph\": false, \"seed\": %llu},\n \"cases\": [",
            o.warmup, o.iters, o.repeats, o.cold_l2 ? "cold" : "warm", o.input_sets, o.fresh_checks, o.seed);

    /* large (the fresh-check records): on the heap, reused shape by shape */
    input_sets *sets = (input_sets *)calloc(1, sizeof *sets);
    provider_result *r = (provider_result *)calloc(2, sizeof *r);
    if (!sets || !r) {
        fprintf(stderr, "forge_bench: out of memory\n");
        fclose(f);
        return 2;
    }
    for (int s = 0; s < o.shape_count; s++) {
        input_sets &in = *sets;
        char msg[256] = "";
        if (create_sets(&o, s, &in, msg, sizeof msg) != 0) {
            fprintf(stderr, "forge_bench: forge_problem_create: %s\n", msg);
            fclose(f);
            return 2;
        }
        const forge_problem &p = in.sets[0];
        memset(r, 0, 2 * sizeof *r);
        r[0].name = "candidate";
        r[0].launch = FORGE_CANDIDATE_ENTRY;
        r[1].name = "baseline";
        r[1].launch = forge_baseline_launch;
        for (int k = 0; k < 2; k++) {
            r[k].samples = (float *)calloc((size_t)o.repeats * o.iters, sizeof(float));
            if (!r[k].samples) {
                fprintf(stderr, "forge_bench: out of memory\n");
                return 2;
            }
            check_provider(&in.view[0], stream, &r[k]);
            if (r[k].error[0])
                continue;
            for (int w = 0; w < o.warmup && !r[k].error[0]; w++)
                if ((e = r[k].launch(&in.view[w % in.count], stream)) != cudaSuccess)
                    snprintf(r[k].error, sizeof r[k].error, "warm-up launch failed: %s", cudaGetErrorString(e));
            if (!r[k].error[0] && (e = cudaStreamSynchronize(stream)) != cudaSuccess)
                snprintf(r[k].error, sizeof r[k].error, "warm-up failed: %s", cudaGetErrorString(e));
        }
        for (int rep = 0; rep < o.repeats; rep++)
            for (int j = 0; j < 2; j++) {
                provider_result *pr = &r[(rep & 1) ? 1 - j : j];
                if (!pr->error[0])
                    provider_round(&o, s, &in, stream, flush, flush_bytes, ev, pr, rep);
            }
        fprintf(f, "%s\n  {\"shape\": {", s ? "," : "");
        for (int d = 0; d < o.shapes[s].count; d++)
            fprintf(f, "%s\"%s\": %lld", d ? ", " : "", o.shapes[s].names[d], o.shapes[s].values[d]);
        fprintf(f, "}, \"bytes\": ");
        put_number(f, p.bytes_model);
        fprintf(f, ", \"flops\": ");
        put_number(f, p.flops_model);
        fprintf(f, ", \"input_sets\": %d", in.count);
        size_t held = p.workspace_bytes;
        for (int i = 0; i < p.input_count; i++) held += p.input_bytes[i];
        for (int i = 0; i < p.output_count; i++) held += p.output_bytes[i];
        fprintf(f, ", \"problem_device_bytes\": %zu, \"providers\": [", held);
        for (int k = 0; k < 2; k++) {
            if (k) fputs(", ", f);
            write_provider(f, &o, &r[k]);
            free(r[k].samples);
        }
        fputs("]}", f);
        destroy_sets(&in);
    }
    free(sets);
    free(r);
    fputs("\n ]\n}\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "forge_bench: cannot write %s: %s\n", o.out, strerror(errno));
        return 2;
    }
    return 0;
}
