/* sha256.h - SHA-256 digests (OpenSSL libcrypto EVP), as raw bytes or as
 * 64 lowercase hex digits. Used for content keys of stored runs and for
 * naming calibration files and packets by their content. */
#ifndef SOLBOOK_CORE_SHA256_H
#define SOLBOOK_CORE_SHA256_H

#include <stddef.h>

#include "error.h"

#define SB_SHA256_BYTES 32
#define SB_SHA256_HEX_LEN 64   /* hex digits, without the NUL */

/* Digest of len bytes at data into out. SB_ERR (err filled) only when
 * libcrypto fails. */
int sb_sha256(const void *data, size_t len, unsigned char out[SB_SHA256_BYTES],
              sb_error *err);

/* Digest as lowercase hex, NUL-terminated, into hex (65 bytes). */
int sb_sha256_hex(const void *data, size_t len, char hex[SB_SHA256_HEX_LEN + 1],
                  sb_error *err);

/* Digest of a whole file's bytes as lowercase hex. */
int sb_sha256_file_hex(const char *path, char hex[SB_SHA256_HEX_LEN + 1],
                       sb_error *err);

/* The same of what fd reads from where it stands to its end; name is used
 * in errors. */
int sb_sha256_fd_hex(int fd, const char *name, char hex[SB_SHA256_HEX_LEN + 1], sb_error *err);

#endif
