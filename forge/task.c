/* task.c - see task.h. */
#include "task.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fsutil.h"
#include "home.h"
#include "json_file.h"
#include "json_schema.h"
#include "provenance.h"
#include "sha256.h"
#include "skills.h"
#include "sku.h"
#include "strbuf.h"
#include "template.h"

int sb_forge_path(char *buf, size_t size, const char *a, const char *b, sb_error *err)
{
    if ((size_t)snprintf(buf, size, "%s/%s", a, b) >= size)
        return sb_error_set(err, a, NULL, "path too long");
    return SB_OK;
}

static const char *const memory_ops[] = {
    "rmsnorm", "layernorm", "softmax", "rope", "swiglu", "geglu", "gelu", "silu", "relu",
    "cross_entropy", "copy", "add", "mul", "transpose", "reduce", "sum", "embedding", "dropout",
    "residual_add", "fused_add_rmsnorm", "kl_div", "jsd", "group_norm", "batch_norm", "cast",
    "quantize", "dequantize", "scale", "fill", NULL};
static const char *const compute_ops[] = {"gemm", "matmul", "bmm", "grouped_gemm", "conv",
                                          "conv2d", "conv3d", "attention", "flash_attention",
                                          "flce", "mma", NULL};

const char *sb_forge_op_bound(const char *op)
{
    for (size_t i = 0; memory_ops[i]; i++)
        if (strcmp(op, memory_ops[i]) == 0)
            return "memory";
    for (size_t i = 0; compute_ops[i]; i++)
        if (strcmp(op, compute_ops[i]) == 0)
            return "compute";
    return "unknown";
}

const char *sb_forge_nvcc_arch(const char *arch)
{
    if (strcmp(arch, "a100") == 0)
        return "sm_80";
    if (strcmp(arch, "h100") == 0 || strcmp(arch, "h200") == 0)
        return "sm_90";
    return NULL;
}

int sb_forge_parse_shape(const char *text, json_t **out, sb_error *err)
{
    *out = NULL;
    json_t *obj = json_object();
    if (!obj)
        return sb_error_set(err, NULL, NULL, "out of memory");
    const char *p = text;
    while (*p) {
        const char *eq = strchr(p, '=');
        const char *comma = strchr(p, ',');
        if (!eq || (comma && comma < eq) || eq == p) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': expected NAME=VALUE[,NAME=VALUE...]", text);
        }
        char name[32];
        size_t nlen = (size_t)(eq - p);
        if (nlen >= 17) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': dimension name longer than 16", text);
        }
        memcpy(name, p, nlen);
        name[nlen] = '\0';
        int ok = isalpha((unsigned char)name[0]) || name[0] == '_';
        for (size_t i = 1; i < nlen; i++)
            ok &= isalnum((unsigned char)name[i]) || name[i] == '_';
        if (!ok) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': '%s' is not a dimension name", text, name);
        }
        errno = 0;
        char *end;
        long long v = strtoll(eq + 1, &end, 10);
        if (errno || end == eq + 1 || v < 1 || (*end && *end != ',')) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': %s must be a positive integer", text, name);
        }
        if (json_object_get(obj, name)) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': %s given twice", text, name);
        }
        json_object_set_new(obj, name, json_integer(v));
        if (json_object_size(obj) > 8) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': more than 8 dimensions", text);
        }
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p) {
            json_decref(obj);
            return sb_error_set(err, NULL, NULL, "shape '%s': trailing comma", text);
        }
    }
    if (json_object_size(obj) == 0) {
        json_decref(obj);
        return sb_error_set(err, NULL, NULL, "shape is empty");
    }
    *out = obj;
    return SB_OK;
}

void sb_forge_shape_text(const json_t *shape, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)shape, k, v)
    {
        int n = snprintf(buf + o, o < size ? size - o : 0, "%s%s=%lld", o ? "," : "", k,
                         (long long)json_integer_value(v));
        if (n < 0 || (size_t)n >= size - o)
            return;
        o += (size_t)n;
    }
}

int sb_forge_schema_check(const char *schema_id, const json_t *doc, const char *file, sb_error *err)
{
    char rel[256], path[4096];
    snprintf(rel, sizeof rel, "schemas/%s.json", schema_id);
    if (sb_data_path(path, sizeof path, rel, err) != SB_OK)
        return SB_ERR;
    sb_schema *s = NULL;
    if (sb_schema_load_file(path, &s, err) != SB_OK)
        return SB_ERR;
    int rc = sb_schema_check(s, doc, file, err);
    sb_schema_free(s);
    return rc;
}

static int valid_id(const char *id)
{
    if (!isalnum((unsigned char)id[0]) || strlen(id) > 96)
        return 0;
    for (const char *p = id; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
            return 0;
    return 1;
}

int sb_forge_task_create(const sb_forge_task_opts *o, char *run_dir, size_t size, sb_error *err)
{
    static const char *dtypes[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8e4m3",
                                   "fp8e5m2", "int8", "mixed", NULL};
    if (!o->op || !o->sku || !o->dtype || !o->objective || o->shape_count == 0)
        return sb_error_set(err, NULL, NULL, "a task needs --op, --sku, --dtype, --objective and --shape");
    const char *mode = o->mode ? o->mode : "fwd";
    const char *language = o->language ? o->language : "cuda";
    const char *root = o->root ? o->root : "forge_runs";
    if (strcmp(o->objective, "latency") != 0 && strcmp(o->objective, "memory") != 0)
        return sb_error_set(err, NULL, NULL, "--objective must be latency or memory, not '%s'", o->objective);
    if (strcmp(language, "cuda") != 0)
        return sb_error_set(err, NULL, NULL, "--language: only cuda is supported, not '%s'", language);
    int dt_ok = 0;
    for (size_t i = 0; dtypes[i]; i++)
        dt_ok |= strcmp(o->dtype, dtypes[i]) == 0;
    if (!dt_ok)
        return sb_error_set(err, NULL, NULL, "--dtype '%s' is not one of fp64 fp32 tf32 fp16 bf16 fp8e4m3 fp8e5m2 int8 mixed", o->dtype);
    if (o->shape_count > SB_FORGE_MAX_SHAPES)
        return sb_error_set(err, NULL, NULL, "at most %d shapes", SB_FORGE_MAX_SHAPES);

    sb_sku_table *skus = NULL;
    if (sb_sku_table_load(o->skus_csv, &skus, err) != SB_OK)
        return SB_ERR;
    const sb_sku *sku = sb_sku_find(skus, o->sku);
    if (!sku) {
        char known[1024] = "";
        size_t off = 0;
        for (size_t i = 0; i < sb_sku_count(skus) && off < sizeof known; i++)
            off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", sb_sku_at(skus, i)->id);
        sb_error_set(err, NULL, NULL, "--sku '%s' is not in data/skus.csv (known: %s)", o->sku, known);
        sb_sku_table_free(skus);
        return SB_ERR;
    }
    char arch[16];
    snprintf(arch, sizeof arch, "%s", sku->arch);
    sb_sku_table_free(skus);
    const char *nvcc_arch = sb_forge_nvcc_arch(arch);
    if (!nvcc_arch)
        return sb_error_set(err, NULL, NULL, "--sku '%s' has arch '%s'; forge targets a100, h100 and h200", o->sku, arch);

    json_t *spec = json_object();
    json_t *shapes = json_array();
    if (!spec || !shapes) {
        json_decref(spec);
        json_decref(shapes);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    char shape_text[2048] = "";
    for (size_t i = 0; i < o->shape_count; i++) {
        json_t *s = NULL;
        if (sb_forge_parse_shape(o->shapes[i], &s, err) != SB_OK) {
            json_decref(spec);
            json_decref(shapes);
            return SB_ERR;
        }
        json_array_append_new(shapes, s);
        size_t l = strlen(shape_text);
        snprintf(shape_text + l, sizeof shape_text - l, "%s%s", i ? ";" : "", o->shapes[i]);
    }
    double min_speedup = o->min_speedup > 0 ? o->min_speedup : SB_FORGE_DEFAULT_MIN_SPEEDUP;
    char now[64];
    sb_time_now_rfc3339(now, sizeof now);

    char id[128];
    if (o->id) {
        if (!valid_id(o->id)) {
            json_decref(spec);
            json_decref(shapes);
            return sb_error_set(err, NULL, NULL, "--id '%s': use letters, digits, '.', '_' and '-' (at most 96)", o->id);
        }
        snprintf(id, sizeof id, "%s", o->id);
    } else {
        /* DATE-OP-HASH: the hash is of the task's content, so the same task
         * asked twice on one day names the same folder (and is refused). */
        char content[4096], hex[SB_SHA256_HEX_LEN + 1];
        snprintf(content, sizeof content, "%s|%s|%s|%s|%s|%s|%s|%g", o->op, mode, o->sku, o->dtype,
                 o->objective, language, shape_text, min_speedup);
        if (sb_sha256_hex(content, strlen(content), hex, err) != SB_OK) {
            json_decref(spec);
            json_decref(shapes);
            return SB_ERR;
        }
        snprintf(id, sizeof id, "%.4s%.2s%.2s-%.48s-%.8s", now, now + 5, now + 8, o->op, hex);
    }

    json_object_set_new(spec, "schema", json_string("solbook.forge-spec.v1"));
    json_object_set_new(spec, "run_id", json_string(id));
    json_object_set_new(spec, "created_at", json_string(now));
    json_object_set_new(spec, "op", json_string(o->op));
    json_object_set_new(spec, "mode", json_string(mode));
    json_object_set_new(spec, "sku", json_string(o->sku));
    json_object_set_new(spec, "arch", json_string(arch));
    json_object_set_new(spec, "nvcc_arch", json_string(nvcc_arch));
    json_object_set_new(spec, "dtype", json_string(o->dtype));
    json_object_set_new(spec, "shapes", shapes);
    json_object_set_new(spec, "objective", json_string(o->objective));
    json_object_set_new(spec, "language", json_string(language));
    json_object_set_new(spec, "bound", json_string(sb_forge_op_bound(o->op)));
    json_object_set_new(spec, "min_speedup", json_real(min_speedup));
    json_object_set_new(spec, "limits",
                        json_pack("{s:i, s:i, s:i}", "compile_s", o->compile_s ? o->compile_s : 300,
                                  "test_s", o->test_s ? o->test_s : 120, "bench_s",
                                  o->bench_s ? o->bench_s : 300));

    const char *ref_name = NULL;
    char *ref_bytes = NULL;
    size_t ref_len = 0;
    if (o->reference) {
        size_t rl = strlen(o->reference);
        ref_name = rl > 3 && strcmp(o->reference + rl - 3, ".cu") == 0 ? "reference.cu"
                   : rl > 2 && strcmp(o->reference + rl - 2, ".c") == 0 ? "reference.c"
                                                                          : NULL;
        char hex[SB_SHA256_HEX_LEN + 1];
        if (!ref_name) {
            json_decref(spec);
            return sb_error_set(err, o->reference, NULL, "--reference must be a .cu or .c file");
        }
        if (sb_file_read_all(o->reference, &ref_bytes, &ref_len, err) != SB_OK ||
            sb_sha256_hex(ref_bytes, ref_len, hex, err) != SB_OK) {
            free(ref_bytes);
            json_decref(spec);
            return SB_ERR;
        }
        json_object_set_new(spec, "reference", json_pack("{s:s, s:s}", "file", ref_name, "sha256", hex));
    }

    char dir[4096], path[4096];
    int rc = SB_OK;
    if (sb_forge_path(dir, sizeof dir, root, id, err) != SB_OK ||
        sb_forge_path(path, sizeof path, dir, "spec.json", err) != SB_OK) {
        rc = SB_ERR;
    } else if (sb_forge_schema_check("solbook.forge-spec.v1", spec, path, err) != SB_OK) {
        rc = SB_ERR;
    } else if (sb_mkdirs(root, err) != SB_OK) {
        rc = SB_ERR;
    } else if (mkdir(dir, 0755) != 0) {
        rc = errno == EEXIST
                 ? sb_error_set(err, dir, NULL, "run folder already exists (same task today); give --id to start another")
                 : sb_error_set(err, dir, NULL, "cannot create run folder: %s", strerror(errno));
    } else {
        char rpath[4096];
        if (ref_name && (sb_forge_path(rpath, sizeof rpath, dir, ref_name, err) != SB_OK ||
                         sb_file_write_atomic(rpath, ref_bytes, ref_len, err) != SB_OK))
            rc = SB_ERR;
        else
            rc = sb_json_write_file(path, spec, err);
    }
    free(ref_bytes);
    json_decref(spec);
    if (rc == SB_OK && (size_t)snprintf(run_dir, size, "%s", dir) >= size)
        rc = sb_error_set(err, dir, NULL, "path too long");
    return rc;
}

int sb_forge_run_dir(const char *run, const char *root, char *out, size_t size, sb_error *err)
{
    char spec[4096];
    struct stat st;
    if (snprintf(spec, sizeof spec, "%s/spec.json", run) < (int)sizeof spec && stat(spec, &st) == 0) {
        if ((size_t)snprintf(out, size, "%s", run) >= size)
            return sb_error_set(err, run, NULL, "path too long");
        return SB_OK;
    }
    if (strchr(run, '/'))
        return sb_error_set(err, run, NULL, "not a forge run folder (no spec.json)");
    char dir[4096];
    if (sb_forge_path(dir, sizeof dir, root ? root : "forge_runs", run, err) != SB_OK)
        return SB_ERR;
    if (sb_forge_path(spec, sizeof spec, dir, "spec.json", err) != SB_OK)
        return SB_ERR;
    if (stat(spec, &st) != 0)
        return sb_error_set(err, spec, NULL, "no such forge run (create it with 'solbook forge task')");
    if ((size_t)snprintf(out, size, "%s", dir) >= size)
        return sb_error_set(err, dir, NULL, "path too long");
    return SB_OK;
}

int sb_forge_run_reference(const char *run_dir, const json_t *spec, char *path, size_t size,
                           const char **name, sb_error *err)
{
    path[0] = '\0';
    *name = "";
    json_t *ref = json_object_get(spec, "reference");
    if (!ref)
        return SB_OK;
    const char *file = json_string_value(json_object_get(ref, "file"));
    const char *want = json_string_value(json_object_get(ref, "sha256"));
    if (sb_forge_path(path, size, run_dir, file, err) != SB_OK)
        return SB_ERR;
    char hex[SB_SHA256_HEX_LEN + 1];
    if (sb_sha256_file_hex(path, hex, err) != SB_OK)
        return SB_ERR;
    if (strcmp(hex, want) != 0)
        return sb_error_set(err, path, NULL,
                            "the task's reference changed since the task was created (sha256 %.12s..., spec says %.12s...)",
                            hex, want);
    *name = file;
    return SB_OK;
}

int sb_forge_spec_load(const char *run_dir, json_t **spec, sb_error *err)
{
    char path[4096];
    *spec = NULL;
    if (sb_forge_path(path, sizeof path, run_dir, "spec.json", err) != SB_OK)
        return SB_ERR;
    json_t *doc = NULL;
    if (sb_json_load_file(path, &doc, err) != SB_OK)
        return SB_ERR;
    if (sb_forge_schema_check("solbook.forge-spec.v1", doc, path, err) != SB_OK) {
        json_decref(doc);
        return SB_ERR;
    }
    *spec = doc;
    return SB_OK;
}

/* ---- prompt ---- */

int sb_forge_prompt_render(const json_t *spec, const char *playbooks_dir, const char *skus_csv,
                           char **out, char *chosen, size_t chosen_size, sb_error *err)
{
    *out = NULL;
    const char *op = json_string_value(json_object_get(spec, "op"));
    const char *sku_id = json_string_value(json_object_get(spec, "sku"));
    const char *dtype = json_string_value(json_object_get(spec, "dtype"));
    const char *objective = json_string_value(json_object_get(spec, "objective"));
    const char *language = json_string_value(json_object_get(spec, "language"));
    const char *bound = json_string_value(json_object_get(spec, "bound"));
    json_t *limits = json_object_get(spec, "limits");

    char tpl_path[4096], pb_dir[4096];
    if (sb_data_path(tpl_path, sizeof tpl_path, "templates/forge/prompt.md", err) != SB_OK)
        return SB_ERR;
    if (playbooks_dir)
        snprintf(pb_dir, sizeof pb_dir, "%s", playbooks_dir);
    else if (sb_data_path(pb_dir, sizeof pb_dir, "forge/skills", err) != SB_OK)
        return SB_ERR;
    sb_template *tpl = NULL;
    if (sb_template_load(tpl_path, &tpl, err) != SB_OK)
        return SB_ERR;

    sb_playbook_set set;
    if (sb_playbooks_load(pb_dir, &set, err) != SB_OK) {
        sb_template_free(tpl);
        return SB_ERR;
    }
    sb_playbook_query q = {op, language, bound, objective, dtype};
    size_t idx[5];
    size_t n = sb_playbooks_select(&set, &q, 3, 5, idx);

    sb_buf peaks = SB_BUF_INIT, shapes = SB_BUF_INIT, pbs = SB_BUF_INIT, list = SB_BUF_INIT,
           objtext = SB_BUF_INIT;
    sb_sku_table *skus = NULL;
    char display[128];
    snprintf(display, sizeof display, "%s", sku_id);
    if (sb_sku_table_load(skus_csv, &skus, err) != SB_OK) {
        sb_playbooks_free(&set);
        sb_template_free(tpl);
        return SB_ERR;
    }
    const sb_sku *sku = sb_sku_find(skus, sku_id);
    if (sku) {
        snprintf(display, sizeof display, "%s", sku->display);
        sb_buf_printf(&peaks, "- Datasheet peaks (data/skus.csv, dense, no sparsity): HBM %.3g TB/s, "
                        "memory %.0f GB; FP64 tensor %.4g, FP32 %.4g, TF32 %.4g, FP16 %.4g, BF16 %.4g",
                sku->hbm_tbps, sku->memory_gb, sku->fp64_tflops, sku->fp32_tflops, sku->tf32_tflops,
                sku->fp16_tflops, sku->bf16_tflops);
        if (sku->fp8_tflops > 0)
            sb_buf_printf(&peaks, ", FP8 %.4g", sku->fp8_tflops);
        sb_buf_puts(&peaks, " TFLOP/s.\n");
        double peak = sb_sku_peak_tflops(sku, dtype);
        if (peak > 0 && sku->hbm_tbps > 0)
            sb_buf_printf(&peaks, "- Ridge point for %s: %.0f FLOP per byte (%.4g TFLOP/s / %.3g TB/s); "
                            "below it a kernel is memory-bound.\n",
                    dtype, peak / sku->hbm_tbps, peak, sku->hbm_tbps);
        sb_buf_printf(&peaks, "- Source: %s.", sku->source);
    } else {
        sb_buf_printf(&peaks, "- SKU `%s` is not in data/skus.csv: no datasheet peaks are known.", sku_id);
    }
    sb_sku_table_free(skus);

    size_t i;
    json_t *shape;
    json_array_foreach(json_object_get(spec, "shapes"), i, shape)
    {
        char text[512];
        sb_forge_shape_text(shape, text, sizeof text);
        sb_buf_printf(&shapes, "%s- `%s`", i ? "\n" : "", text);
    }
    if (strcmp(objective, "latency") == 0)
        sb_buf_printf(&objtext, "Lower median latency of one launch (CUDA events, L2 flushed) than the "
                          "baseline on every shape, by at least %gx.",
                json_number_value(json_object_get(spec, "min_speedup")));
    else
        sb_buf_printf(&objtext, "Less device memory held by the op (workspace and intermediates) than the "
                          "baseline, with a median latency at least %gx the baseline's speed on every "
                          "shape: forge's promotion gate is the latency one, the memory saving is "
                          "described in metadata.json.",
                json_number_value(json_object_get(spec, "min_speedup")));
    chosen[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        const sb_playbook *pb = &set.items[idx[k]];
        sb_buf_printf(&pbs, "%s### Playbook: %s (`%s`)\n\n", k ? "\n" : "", pb->title, pb->id);
        sb_buf_puts(&pbs, pb->body);
        sb_buf_printf(&list, "%s`%s`", k ? ", " : "", pb->id);
        size_t l = strlen(chosen);
        snprintf(chosen + l, chosen_size - l, "%s%s", k ? "," : "", pb->id);
    }
    sb_playbooks_free(&set);

    char ref_row[512], ref_where[256];
    json_t *ref = json_object_get(spec, "reference");
    if (ref) {
        const char *f = json_string_value(json_object_get(ref, "file"));
        snprintf(ref_row, sizeof ref_row,
                 "| `%s` | given with this task (run folder, sha256 `%.16s...`): copy it unchanged or leave it "
                 "out; forge always builds and measures with the task's copy |",
                 f, json_string_value(json_object_get(ref, "sha256")));
        snprintf(ref_where, sizeof ref_where, "the task's `%s`, given in the run folder", f);
    } else {
        snprintf(ref_row, sizeof ref_row,
                 "| `reference.cu` | `forge_problem_create`, `forge_baseline_launch`, `forge_problem_check`, "
                 "`forge_problem_destroy`: the op's inputs, the baseline and the float64 host check |");
        snprintf(ref_where, sizeof ref_where, "the candidate folder's `reference.cu`");
    }
    /* The prompt is Markdown written verbatim: no escaping. Numbers are
     * formatted here as the prompt has always shown them. */
    json_t *data = json_object();
    sb_tpl_set_str(data, "run_id", json_string_value(json_object_get(spec, "run_id")));
    sb_tpl_set_str(data, "op", op);
    sb_tpl_set_str(data, "mode", json_string_value(json_object_get(spec, "mode")));
    sb_tpl_set_str(data, "dtype", dtype);
    sb_tpl_set_str(data, "language", language);
    sb_tpl_set_str(data, "sku", sku_id);
    sb_tpl_set_str(data, "sku_display", display);
    sb_tpl_set_str(data, "arch", json_string_value(json_object_get(spec, "arch")));
    sb_tpl_set_str(data, "nvcc_arch", json_string_value(json_object_get(spec, "nvcc_arch")));
    sb_tpl_set_str(data, "bound", bound);
    sb_tpl_set_str(data, "peaks", peaks.data);
    sb_tpl_set_str(data, "shapes", shapes.data);
    sb_tpl_set_str(data, "objective_text", objtext.data);
    sb_tpl_set_num(data, "min_speedup", "%g", json_number_value(json_object_get(spec, "min_speedup")));
    sb_tpl_set_num(data, "compile_s", "%.0f", (double)json_integer_value(json_object_get(limits, "compile_s")));
    sb_tpl_set_num(data, "test_s", "%.0f", (double)json_integer_value(json_object_get(limits, "test_s")));
    sb_tpl_set_num(data, "bench_s", "%.0f", (double)json_integer_value(json_object_get(limits, "bench_s")));
    sb_tpl_set_str(data, "playbook_list", list.data);
    sb_tpl_set_str(data, "playbooks", pbs.data);
    sb_tpl_set_str(data, "reference_row", ref_row);
    sb_tpl_set_str(data, "reference_where", ref_where);
    int rc = SB_OK;
    if (!data || sb_buf_failed(&peaks) || sb_buf_failed(&shapes) || sb_buf_failed(&objtext) ||
        sb_buf_failed(&list) || sb_buf_failed(&pbs))
        rc = sb_error_set(err, tpl_path, NULL, "out of memory");
    sb_buf md = SB_BUF_INIT;
    if (rc == SB_OK)
        rc = sb_template_render(tpl, data, SB_TPL_ESCAPE_NONE, &md, err);
    if (rc == SB_OK && sb_buf_failed(&md))
        rc = sb_error_set(err, tpl_path, NULL, "out of memory");
    json_decref(data);
    sb_template_free(tpl);
    free(peaks.data);
    free(shapes.data);
    free(pbs.data);
    free(list.data);
    free(objtext.data);
    if (rc != SB_OK) {
        free(md.data);
        return SB_ERR;
    }
    *out = md.data;
    return SB_OK;
}
