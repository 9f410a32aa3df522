/* file_name.c - see file_name.h. */
#include "file_name.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

void sb_slug(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < size; p++) {
        char c = (char)tolower((unsigned char)*p);
        out[n++] = (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-') ? c : '-';
    }
    out[n] = '\0';
}

uint64_t sb_name_hash48(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h & 0xffffffffffffull;
}

void sb_hashed_name(const char *s, char out[SB_SAFE_NAME_SIZE])
{
    char slug[SB_NAME_SLUG_MAX + 1];
    sb_slug(s, slug, sizeof slug);
    snprintf(out, SB_SAFE_NAME_SIZE, "%s-%012llx", slug, (unsigned long long)sb_name_hash48(s));
}

void sb_safe_name(const char *s, char out[SB_SAFE_NAME_SIZE])
{
    char slug[SB_NAME_SLUG_MAX + 1];
    sb_slug(s, slug, sizeof slug);
    if (strcmp(slug, s) == 0 && slug[0] && slug[0] != '.')
        snprintf(out, SB_SAFE_NAME_SIZE, "%s", slug);
    else
        sb_hashed_name(s, out);
}

int sb_name_ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n >= m && strcmp(name + n - m, suffix) == 0;
}

char *sb_name_resuffixed(const char *name, const char *from, const char *to)
{
    if (!sb_name_ends_with(name, from))
        return NULL;
    size_t base = strlen(name) - strlen(from), m = strlen(to);
    char *s = malloc(base + m + 1);
    if (!s)
        return NULL;
    memcpy(s, name, base);
    memcpy(s + base, to, m + 1);
    return s;
}

/* The site names a value's folder by its id (ops/ID/) and the value's
 * page ID.html beside it, so an id never ends in ".html": else a value
 * "gemm.html" would have the folder that is the page of "gemm". */
#define PAGE_SUFFIX ".html"

static int page_id_kept(const char *s, size_t i, size_t len, int reserved)
{
    unsigned char c = (unsigned char)s[i];
    if (i == 0 && (reserved || c == '.'))
        return 0;
    if (c == '.')
        return !(len - i == sizeof PAGE_SUFFIX - 1 && strcmp(s + i, PAGE_SUFFIX) == 0);
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

void sb_page_id(const char *s, char out[SB_PAGE_ID_SIZE])
{
    static const char hex[] = "0123456789abcdef";
    if (!s[0]) {
        snprintf(out, SB_PAGE_ID_SIZE, "~-");
        return;
    }
    int reserved = strcmp(s, "index") == 0;
    size_t len = strlen(s), total = 0;
    for (size_t i = 0; s[i]; i++)
        total += page_id_kept(s, i, len, reserved) ? 1 : 3;
    /* a value that does not fit leaves room for "~h" and 16 hex digits */
    size_t room = total > SB_PAGE_ID_MAX ? SB_PAGE_ID_MAX - 18 : SB_PAGE_ID_MAX;
    size_t n = 0, i = 0;
    for (; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        int keep = page_id_kept(s, i, len, reserved);
        if (n + (keep ? 1 : 3) > room)
            break;
        if (keep) {
            out[n++] = (char)c;
        } else {
            out[n++] = '~';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
    }
    if (s[i]) {
        unsigned char d[SB_SHA256_BYTES];
        sb_error err;
        if (sb_sha256(s, len, d, &err) != SB_OK) {
            uint64_t h = sb_name_hash48(s);
            for (int k = 0; k < 8; k++)
                d[k] = (unsigned char)(h >> (8 * k));
        }
        out[n++] = '~';
        out[n++] = 'h';
        for (int k = 0; k < 8; k++) {
            out[n++] = hex[d[k] >> 4];
            out[n++] = hex[d[k] & 15];
        }
    }
    out[n] = '\0';
}

void sb_page_id_paged(const char *s, size_t page, char out[SB_PAGE_ID_SIZE])
{
    sb_page_id(s, out);
    if (page > 1) {
        size_t n = strlen(out);
        snprintf(out + n, SB_PAGE_ID_SIZE - n, "~p%zu", page);
    }
}
