/* sku.c - the SKU table (data/skus.csv): loading (csv_rows.h), identification
 * of a card from its NVML name / PCI device id / memory size, and peaks. */
#include "sku.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_rows.h"
#include "home.h"
#include "json_file.h"

/* Columns of skus.csv, all required, in any order; no others allowed so a
 * misspelt column is an error rather than a silently missing figure. */
enum {
    COL_SKU, COL_ARCH, COL_DISPLAY, COL_MATCH_NAMES, COL_PCI_IDS, COL_MEMORY_GB,
    COL_FP64, COL_FP64_VECTOR, COL_FP32, COL_TF32, COL_FP16, COL_BF16, COL_FP8,
    COL_HBM_TBPS, COL_SOURCE, NCOLS
};

static const char *const col_names[NCOLS] = {
    "sku", "arch", "display", "match_names", "pci_device_ids", "memory_gb",
    "fp64_tflops", "fp64_vector_tflops", "fp32_tflops", "tf32_tflops",
    "fp16_tflops", "bf16_tflops", "fp8_tflops", "hbm_tbps", "source",
};

#define MAX_MATCH 8
#define MAX_PCI 8
#define MATCH_NAME_SIZE 96
/* Relative tolerance when comparing a reported memory size (GiB) with the
 * table's nominal GB: an 80GB H100 reports 79.6 GiB, an 80GB A100 80.0 GiB. */
#define MEMORY_TOLERANCE 0.10

typedef struct sku_row {
    sb_sku pub;
    char match[MAX_MATCH][MATCH_NAME_SIZE];
    size_t n_match;
    uint32_t pci[MAX_PCI];
    size_t n_pci;
} sku_row;

struct sb_sku_table {
    sku_row *rows;
    size_t n, cap;
};

/* ---- small text helpers ---- */

void sb_sku_slug(const char *text, char *out, size_t size)
{
    size_t n = 0;
    int dash = 0;
    if (size == 0)
        return;
    out[0] = '\0';
    for (const char *p = text ? text : ""; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isascii(c) && isalnum(c)) {
            if (dash && n > 0) {
                if (n + 1 >= size)
                    break;
                out[n++] = '-';
            }
            dash = 0;
            if (n + 1 >= size)
                break;
            out[n++] = (char)tolower(c);
        } else {
            dash = 1;
        }
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

/* Copies s without leading/trailing white space into dst. */
static void copy_trimmed(char *dst, size_t size, const char *s)
{
    size_t len;
    while (*s && isspace((unsigned char)*s))
        s++;
    len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= size)
        len = size - 1;
    memcpy(dst, s, len);
    dst[len] = '\0';
}

const char *sb_sku_arch_from_name(const char *gpu_name)
{
    char slug[256];
    static const char *const archs[] = {"a100", "h100", "h200"};
    sb_sku_slug(gpu_name, slug, sizeof slug);
    for (char *tok = slug; *tok;) {
        char *end = strchr(tok, '-');
        size_t len = end ? (size_t)(end - tok) : strlen(tok);
        for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
            if (len == strlen(archs[i]) && strncmp(tok, archs[i], len) == 0)
                return archs[i];
        if (!end)
            break;
        tok = end + 1;
    }
    return "unknown";
}

static int id_is_valid(const char *s)
{
    if (!s[0] || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) ||
              *s == '.' || *s == '_' || *s == '+' || *s == '-'))
            return 0;
    return 1;
}

/* "0x233010DE" (any case) -> 0x233010DE. */
static int parse_pci_id(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v;
    if (strlen(s) != 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return -1;
    for (int i = 2; i < 10; i++)
        if (!isxdigit((unsigned char)s[i]))
            return -1;
    errno = 0;
    v = strtoul(s + 2, &end, 16);
    if (errno || *end)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* A non-negative decimal number; no hex, inf, nan or trailing junk. */
static int parse_figure(const char *s, double *out)
{
    char *end;
    double v;
    if (!s[0])
        return -1;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* ---- loading ---- */

typedef struct load_ctx {
    const char *path;
    sb_sku_table *t;
    sb_error *err;
    size_t header_line;  /* 0 until the header is read */
    int col[NCOLS];      /* field index of each column */
    size_t n_header;
} load_ctx;

static int is_column(const char *name)
{
    for (int k = 0; k < NCOLS; k++)
        if (strcmp(name, col_names[k]) == 0)
            return 1;
    return 0;
}

static int take_header(load_ctx *c, const char *const *fields, size_t n, size_t line)
{
    size_t repeated = sb_csv_find_columns(fields, n, col_names, NCOLS, c->col);
    for (size_t i = 0; i < n; i++) {
        if (!is_column(fields[i]))
            return sb_csv_line_error(c->err, c->path, line,
                                     "unknown column \"%s\" in header", fields[i]);
        if (i == repeated)
            return sb_csv_line_error(c->err, c->path, line,
                                     "column \"%s\" appears twice in header", fields[i]);
    }
    for (int k = 0; k < NCOLS; k++)
        if (c->col[k] < 0)
            return sb_csv_line_error(c->err, c->path, line,
                                     "header lacks column \"%s\"", col_names[k]);
    c->n_header = n;
    c->header_line = line;
    return SB_OK;
}

static int split_list(load_ctx *c, size_t line, const char *col, const char *text,
                      char out[][MATCH_NAME_SIZE], size_t max, size_t *n)
{
    const char *p = text;
    *n = 0;
    for (;;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char item[MATCH_NAME_SIZE];
        if (len >= sizeof item)
            return sb_csv_line_error(c->err, c->path, line,
                                     "%s: entry longer than 95 characters: %s",
                                     col, text);
        memcpy(item, p, len);
        item[len] = '\0';
        copy_trimmed(out[*n], MATCH_NAME_SIZE, item);
        if (!out[*n][0])
            return sb_csv_line_error(c->err, c->path, line, "%s: empty entry in \"%s\"", col, text);
        if (++*n > max - 1 && bar)
            return sb_csv_line_error(c->err, c->path, line, "%s: too many entries (at most 8): %s",
                                     col, text);
        if (!bar)
            return SB_OK;
        p = bar + 1;
    }
}

static int take_row(load_ctx *c, const char *const *fields, size_t n, size_t line)
{
    const char *f[NCOLS];
    sku_row row;
    char pci_text[MAX_PCI][MATCH_NAME_SIZE];
    double *figures[] = {
        &row.pub.memory_gb, &row.pub.fp64_tflops, &row.pub.fp64_vector_tflops,
        &row.pub.fp32_tflops, &row.pub.tf32_tflops, &row.pub.fp16_tflops,
        &row.pub.bf16_tflops, &row.pub.fp8_tflops, &row.pub.hbm_tbps,
    };
    static const int figure_cols[] = {
        COL_MEMORY_GB, COL_FP64, COL_FP64_VECTOR, COL_FP32, COL_TF32,
        COL_FP16, COL_BF16, COL_FP8, COL_HBM_TBPS,
    };

    if (n != c->n_header)
        return sb_csv_line_error(c->err, c->path, line,
                                 "expected 15 fields as in the header, found %zu", n);
    memset(&row, 0, sizeof row);
    for (int k = 0; k < NCOLS; k++)
        f[k] = fields[c->col[k]];

    if (!id_is_valid(f[COL_SKU]))
        return sb_csv_line_error(c->err, c->path, line,
                                 "sku \"%s\" is not a valid id (lower-case letters, digits, . _ + -)",
                                 f[COL_SKU]);
    if (strlen(f[COL_SKU]) >= sizeof row.pub.id)
        return sb_csv_line_error(c->err, c->path, line, "sku \"%s\" is longer than 63 characters",
                                 f[COL_SKU]);
    if (sb_sku_find(c->t, f[COL_SKU]))
        return sb_csv_line_error(c->err, c->path, line, "sku \"%s\" appears twice", f[COL_SKU]);
    if (!id_is_valid(f[COL_ARCH]) || strlen(f[COL_ARCH]) >= sizeof row.pub.arch)
        return sb_csv_line_error(c->err, c->path, line,
                                 "arch \"%s\" is not a valid label (lower-case, at most 15 characters)",
                                 f[COL_ARCH]);
    if (!f[COL_DISPLAY][0] || strlen(f[COL_DISPLAY]) >= sizeof row.pub.display)
        return sb_csv_line_error(c->err, c->path, line, "display must be 1 to 95 characters");
    if (!f[COL_SOURCE][0] || strlen(f[COL_SOURCE]) >= sizeof row.pub.source)
        return sb_csv_line_error(c->err, c->path, line,
                                 "source must name the datasheet (1 to 511 characters)");
    strcpy(row.pub.id, f[COL_SKU]);
    strcpy(row.pub.arch, f[COL_ARCH]);
    strcpy(row.pub.display, f[COL_DISPLAY]);
    strcpy(row.pub.source, f[COL_SOURCE]);

    if (split_list(c, line, "match_names", f[COL_MATCH_NAMES], row.match, MAX_MATCH,
                   &row.n_match) != SB_OK)
        return SB_ERR;
    if (f[COL_PCI_IDS][0]) {
        if (split_list(c, line, "pci_device_ids", f[COL_PCI_IDS], pci_text, MAX_PCI,
                       &row.n_pci) != SB_OK)
            return SB_ERR;
        for (size_t i = 0; i < row.n_pci; i++)
            if (parse_pci_id(pci_text[i], &row.pci[i]) != 0)
                return sb_csv_line_error(c->err, c->path, line,
                                         "pci_device_ids: \"%s\" is not of the form 0x233010DE",
                                         pci_text[i]);
    }
    for (size_t i = 0; i < sizeof figure_cols / sizeof figure_cols[0]; i++) {
        if (parse_figure(f[figure_cols[i]], figures[i]) != 0)
            return sb_csv_line_error(c->err, c->path, line,
                                     "%s: \"%s\" is not a non-negative decimal number",
                                     col_names[figure_cols[i]], f[figure_cols[i]]);
    }
    if (row.pub.memory_gb <= 0)
        return sb_csv_line_error(c->err, c->path, line, "memory_gb must be greater than 0");
    if (row.pub.hbm_tbps <= 0)
        return sb_csv_line_error(c->err, c->path, line, "hbm_tbps must be greater than 0");

    if (c->t->n == c->t->cap) {
        size_t cap = c->t->cap ? c->t->cap * 2 : 16;
        sku_row *r = realloc(c->t->rows, cap * sizeof *r);
        if (!r)
            return sb_csv_line_error(c->err, c->path, line, "out of memory");
        c->t->rows = r;
        c->t->cap = cap;
    }
    c->t->rows[c->t->n++] = row;
    return SB_OK;
}

static int on_record(void *v, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    load_ctx *c = v;
    (void)err;  /* the same as c->err */
    return c->header_line ? take_row(c, fields, n, line) : take_header(c, fields, n, line);
}

int sb_sku_table_load(const char *path, sb_sku_table **out, sb_error *err)
{
    char def[4096];
    load_ctx c;
    sb_sku_table *t;
    int rc;

    *out = NULL;
    if (!path) {
        if (sb_data_path(def, sizeof def, "skus.csv", err) != SB_OK)
            return SB_ERR;
        path = def;
    }
    t = calloc(1, sizeof *t);
    if (!t)
        return sb_error_set(err, path, NULL, "out of memory");
    memset(&c, 0, sizeof c);
    c.path = path;
    c.t = t;
    c.err = err;
    rc = sb_csv_read_file(path, NULL, on_record, &c, err);
    if (rc == SB_OK && !c.header_line)
        rc = sb_csv_line_error(err, path, 1, "empty file: no header row");
    if (rc == SB_OK && t->n == 0)
        rc = sb_csv_line_error(err, path, c.header_line + 1, "no SKU rows after the header");
    if (rc != SB_OK) {
        sb_sku_table_free(t);
        return SB_ERR;
    }
    *out = t;
    return SB_OK;
}

void sb_sku_table_free(sb_sku_table *t)
{
    if (!t)
        return;
    free(t->rows);
    free(t);
}

size_t sb_sku_count(const sb_sku_table *t)
{
    return t ? t->n : 0;
}

const sb_sku *sb_sku_at(const sb_sku_table *t, size_t i)
{
    return (t && i < t->n) ? &t->rows[i].pub : NULL;
}

const sb_sku *sb_sku_find(const sb_sku_table *t, const char *id)
{
    if (!t || !id)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].pub.id, id) == 0)
            return &t->rows[i].pub;
    return NULL;
}

/* ---- identification ---- */

static int memory_fits(const sku_row *r, long long memory_bytes)
{
    double gib = (double)memory_bytes / (1024.0 * 1024.0 * 1024.0);
    return fabs(gib - r->pub.memory_gb) <= MEMORY_TOLERANCE * r->pub.memory_gb;
}

static int name_matches(const sku_row *r, const char *name)
{
    for (size_t i = 0; i < r->n_match; i++)
        if (strcasecmp(r->match[i], name) == 0)
            return 1;
    return 0;
}

static int has_word(const char *slug, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = slug; (p = strstr(p, word)) != NULL; p++)
        if ((p == slug || p[-1] == '-') && (p[wl] == '\0' || p[wl] == '-'))
            return 1;
    return 0;
}

/* Form factor word of a row id or a device-name slug: sxm, pcie, nvl, or
 * NULL. */
static const char *form_factor(const char *slug)
{
    if (has_word(slug, "nvl"))
        return "nvl";
    if (has_word(slug, "pcie"))
        return "pcie";
    for (const char *p = slug; (p = strstr(p, "sxm")) != NULL; p++)
        if (p == slug || p[-1] == '-')
            return "sxm";
    return NULL;
}

static void set_unknown(const char *name, char *unknown_id, size_t id_size,
                        char *unknown_arch, size_t arch_size)
{
    char slug[128];
    sb_sku_slug(name, slug, sizeof slug);
    if (unknown_id && id_size) {
        if (!slug[0] || strcmp(slug, "unknown") == 0) {
            snprintf(unknown_id, id_size, "unknown");
        } else {
            snprintf(unknown_id, id_size, "unknown-%s", slug);
            /* a cut may leave a trailing '-' */
            for (size_t n = strlen(unknown_id); n > 0 && unknown_id[n - 1] == '-'; n--)
                unknown_id[n - 1] = '\0';
        }
    }
    if (unknown_arch && arch_size)
        snprintf(unknown_arch, arch_size, "%s", sb_sku_arch_from_name(name));
}

const sb_sku *sb_sku_identify(const sb_sku_table *t, const char *gpu_name,
                              const char *pci_device_id, long long memory_bytes,
                              char *unknown_id, size_t id_size,
                              char *unknown_arch, size_t arch_size)
{
    char name[256];
    uint32_t pci = 0;
    int have_pci = pci_device_id && parse_pci_id(pci_device_id, &pci) == 0;
    const sku_row *hit = NULL;
    size_t hits = 0;

    copy_trimmed(name, sizeof name, gpu_name ? gpu_name : "");
    if (unknown_id && id_size)
        unknown_id[0] = '\0';
    if (unknown_arch && arch_size)
        unknown_arch[0] = '\0';
    if (!t)
        goto unknown;

    /* 1. The PCI device id names the board exactly. Should two rows share
     * one, the name and then the memory size choose between them. */
    if (have_pci) {
        for (size_t i = 0; i < t->n; i++)
            for (size_t k = 0; k < t->rows[i].n_pci; k++)
                if (t->rows[i].pci[k] == pci) {
                    if (!hit || (name_matches(&t->rows[i], name) && !name_matches(hit, name)) ||
                        (memory_bytes > 0 && memory_fits(&t->rows[i], memory_bytes) &&
                         !memory_fits(hit, memory_bytes)))
                        hit = &t->rows[i];
                }
        if (hit)
            return &hit->pub;
    }

    /* 2. The exact NVML name, unless the memory size says it is another
     * variant sold under the same name. */
    for (size_t i = 0; i < t->n; i++)
        if (name[0] && name_matches(&t->rows[i], name)) {
            if (memory_bytes > 0 && !memory_fits(&t->rows[i], memory_bytes))
                continue;
            return &t->rows[i].pub;
        }

    /* 3. Last resort: the arch word in the name, the form factor word if
     * any, and the memory size, when exactly one row fits all three
     * (tells an A100 40GB from an 80GB one under an unfamiliar name). */
    if (memory_bytes > 0) {
        char slug[256];
        const char *arch = sb_sku_arch_from_name(name);
        const char *ff;
        sb_sku_slug(name, slug, sizeof slug);
        ff = form_factor(slug);
        if (strcmp(arch, "unknown") != 0) {
            for (size_t i = 0; i < t->n; i++) {
                const sku_row *r = &t->rows[i];
                const char *rff = form_factor(r->pub.id);
                if (strcmp(r->pub.arch, arch) != 0 || !memory_fits(r, memory_bytes))
                    continue;
                if (ff && (!rff || strcmp(ff, rff) != 0))
                    continue;
                hit = r;
                hits++;
            }
            if (hits == 1)
                return &hit->pub;
        }
    }

unknown:
    set_unknown(name, unknown_id, id_size, unknown_arch, arch_size);
    return NULL;
}

double sb_sku_peak_tflops(const sb_sku *s, const char *dtype)
{
    if (!s || !dtype)
        return 0;
    if (strcmp(dtype, "fp16") == 0)
        return s->fp16_tflops;
    if (strcmp(dtype, "bf16") == 0)
        return s->bf16_tflops;
    if (strcmp(dtype, "tf32") == 0)
        return s->tf32_tflops;
    if (strcmp(dtype, "fp32") == 0)
        return s->fp32_tflops;
    if (strcmp(dtype, "fp64") == 0)
        return s->fp64_tflops;
    if (strcmp(dtype, "fp64-vector") == 0)
        return s->fp64_vector_tflops;
    if (strcmp(dtype, "fp8e4m3") == 0 || strcmp(dtype, "fp8e5m2") == 0 ||
        strcmp(dtype, "fp8") == 0)
        return s->fp8_tflops;
    return 0;
}
