/* sha256.c - SHA-256 through OpenSSL's EVP interface. */
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_set(err, path, NULL, "cannot open: %s", strerror(errno));
    int rc = sb_sha256_fd_hex(fd, path, hex, err);
    close(fd);
    return rc;
}

int sb_sha256_fd_hex(int fd, const char *name, char hex[SB_SHA256_HEX_LEN + 1], sb_error *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(ctx);
        return sb_error_set(err, name, NULL, "sha256: libcrypto initialisation failed");
    }
    unsigned char buf[65536];
    ssize_t n;
    int ok = 1, read_error = 0;
    for (;;) {
        n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            read_error = errno;
            break;
        }
        if (n == 0)
            break;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)n)) {
            ok = 0;
            break;
        }
    }
    unsigned char d[SB_SHA256_BYTES];
    unsigned int dn = 0;
    if (ok && !read_error)
        ok = EVP_DigestFinal_ex(ctx, d, &dn) && dn == SB_SHA256_BYTES;
    EVP_MD_CTX_free(ctx);
    if (read_error)
        return sb_error_set(err, name, NULL, "read error: %s", strerror(read_error));
    if (!ok)
        return sb_error_set(err, name, NULL, "sha256: libcrypto digest failed");
    to_hex(d, hex);
    return SB_OK;
}
