/* sha256.c - SHA-256 through OpenSSL's EVP interface. */
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

int sb_sha256(const void *data, size_t len, unsigned char out[SB_SHA256_BYTES],
              sb_error *err)
{
    unsigned int n = 0;
    if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) || n != SB_SHA256_BYTES)
        return sb_error_set(err, NULL, NULL, "sha256: libcrypto EVP_Digest failed");
    return SB_OK;
}

static void to_hex(const unsigned char *d, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < SB_SHA256_BYTES; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[SB_SHA256_HEX_LEN] = '\0';
}

int sb_sha256_hex(const void *data, size_t len, char hex[SB_SHA256_HEX_LEN + 1],
                  sb_error *err)
{
    unsigned char d[SB_SHA256_BYTES];
    if (sb_sha256(data, len, d, err) != SB_OK)
        return SB_ERR;
    to_hex(d, hex);
    return SB_OK;
}

int sb_sha256_file_hex(const char *path, char hex[SB_SHA256_HEX_LEN + 1],
                       sb_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sb_error_set(err, path, NULL, "cannot open: %s", strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(ctx);
        fclose(f);
        return sb_error_set(err, path, NULL, "sha256: libcrypto initialisation failed");
    }
    unsigned char buf[65536];
    size_t n;
    int ok = 1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (!EVP_DigestUpdate(ctx, buf, n)) {
            ok = 0;
            break;
        }
    int read_error = ferror(f);
    int saved = errno;
    fclose(f);
    unsigned char d[SB_SHA256_BYTES];
    unsigned int dn = 0;
    if (ok && !read_error)
        ok = EVP_DigestFinal_ex(ctx, d, &dn) && dn == SB_SHA256_BYTES;
    EVP_MD_CTX_free(ctx);
    if (read_error)
        return sb_error_set(err, path, NULL, "read error: %s", strerror(saved));
    if (!ok)
        return sb_error_set(err, path, NULL, "sha256: libcrypto digest failed");
    to_hex(d, hex);
    return SB_OK;
}
