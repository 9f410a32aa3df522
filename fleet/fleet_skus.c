/* fleet_skus.c - SKUs per arch and their nvidia.com/gpu.product values. */
#include "fleet_skus.h"

#include <stdlib.h>
#include <string.h>

#include "csv_rows.h"
#include "home.h"
#include "sku.h"

int sb_fleet_product_label(const char *driver_name, char *out, size_t size)
{
    size_t n = strlen(driver_name);
    if (n == 0 || n > 63 || n >= size)
        return SB_ERR;
    for (size_t i = 0; i < n; i++) {
        char ch = driver_name[i] == ' ' ? '-' : driver_name[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && ch != '-' && ch != '_' && ch != '.')
            return SB_ERR;
        if (!alnum && (i == 0 || i == n - 1))
            return SB_ERR;
        out[i] = ch;
    }
    out[n] = '\0';
    return SB_OK;
}

static void take_names(sb_fleet_sku *k, const char *names)
{
    /* Driver names start with "NVIDIA "; use those where there are some. */
    int any_full = strstr(names, "NVIDIA ") != NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    char *save = NULL;
    for (char *t = strtok_r(buf, "|", &save); t && k->n_products < SB_FLEET_MAX_PRODUCTS;
         t = strtok_r(NULL, "|", &save)) {
        while (*t == ' ')
            t++;
        if (any_full && strncmp(t, "NVIDIA ", 7) != 0)
            continue;
        char label[64];
        if (sb_fleet_product_label(t, label, sizeof label) != SB_OK)
            continue;
        memcpy(k->products[k->n_products++], label, sizeof label);
    }
}

/* The sku and match_names columns of skus.csv, found by the header. */
typedef struct names_ctx {
    int col[2];          /* sku, match_names; -1 before the header */
    int header_done;
    sb_fleet_skus *skus;
} names_ctx;

static int on_record(void *vctx, const char *const *fields, size_t n, size_t line, sb_error *err)
{
    static const char *const names[2] = {"sku", "match_names"};
    names_ctx *c = vctx;
    (void)line;
    (void)err;
    if (!c->header_done) {
        sb_csv_find_columns(fields, n, names, 2, c->col);
        c->header_done = 1;
        return SB_OK;
    }
    if (c->col[0] < 0 || c->col[1] < 0 || (size_t)c->col[0] >= n || (size_t)c->col[1] >= n ||
        !fields[c->col[0]][0])
        return SB_OK;
    for (size_t i = 0; i < c->skus->n; i++)
        if (strcmp(c->skus->v[i].id, fields[c->col[0]]) == 0)
            take_names(&c->skus->v[i], fields[c->col[1]]);
    return SB_OK;
}

int sb_fleet_skus_load(const char *csv_path, sb_fleet_skus *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    char def[4096];
    if (!csv_path) {
        if (sb_data_path(def, sizeof def, "skus.csv", err) != SB_OK)
            return SB_ERR;
        csv_path = def;
    }
    sb_sku_table *t = NULL;
    if (sb_sku_table_load(csv_path, &t, err) != SB_OK)
        return SB_ERR;
    size_t n = sb_sku_count(t);
    out->v = calloc(n, sizeof *out->v);
    if (!out->v) {
        sb_sku_table_free(t);
        return sb_error_set(err, csv_path, NULL, "out of memory");
    }
    size_t n_archs = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_sku *s = sb_sku_at(t, i);
        sb_fleet_sku *k = &out->v[out->n++];
        snprintf(k->id, sizeof k->id, "%s", s->id);
        snprintf(k->arch, sizeof k->arch, "%s", s->arch);
        snprintf(k->display, sizeof k->display, "%s", s->display);
        k->memory_gb = s->memory_gb;
        int seen = 0;
        for (size_t a = 0; a < n_archs; a++)
            seen |= strcmp(out->arch_store[a], s->arch) == 0;
        if (!seen && n_archs < 15) {
            snprintf(out->arch_store[n_archs], sizeof out->arch_store[n_archs], "%s", s->arch);
            out->archs[n_archs] = out->arch_store[n_archs];
            n_archs++;
        }
    }
    sb_sku_table_free(t);

    /* The match names, which sku.h keeps to itself. */
    names_ctx c = {.col = {-1, -1}, .skus = out};
    int rc = sb_csv_read_file(csv_path, NULL, on_record, &c, err);
    if (rc == SB_OK && (c.col[0] < 0 || c.col[1] < 0))
        rc = sb_error_set(err, csv_path, "line 1", "no sku or match_names column");
    for (size_t i = 0; rc == SB_OK && i < out->n; i++)
        if (out->v[i].n_products == 0)
            rc = sb_error_set(err, csv_path, out->v[i].id,
                              "no match name of this SKU makes a nvidia.com/gpu.product label value");
    if (rc != SB_OK)
        sb_fleet_skus_free(out);
    return rc;
}

void sb_fleet_skus_free(sb_fleet_skus *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
