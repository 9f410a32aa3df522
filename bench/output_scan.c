/* output_scan.c - the host side of output_scan.h (the CPU path, and the
 * definition the device kernel must agree with). */
#include "output_scan.h"

#include <string.h>

static uint64_t load_bits(const unsigned char *p, size_t es)
{
    uint64_t b = 0;
    switch (es) {
    case 1: b = p[0]; break;
    case 2: { uint16_t v; memcpy(&v, p, 2); b = v; break; }
    case 4: { uint32_t v; memcpy(&v, p, 4); b = v; break; }
    default: memcpy(&b, p, 8); break;
    }
    return b;
}

void sb_output_scan_host(const void *buf, int64_t rows, int64_t cols, int64_t ld, sb_dtype d,
                         uint64_t index_base, sb_output_scan *out)
{
    memset(out, 0, sizeof *out);
    size_t es = sb_dtype_size(d);
    const unsigned char *base = buf;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < cols; j++) {
            uint64_t bits = load_bits(base + ((size_t)r * (size_t)ld + (size_t)j) * es, es);
            if (sb_bits_poison(bits, es))
                out->poison++;
            else if (sb_bits_nonfinite(bits, d))
                out->nonfinite++;
            out->checksum += sb_checksum_term(index_base + (uint64_t)(r * cols + j), bits);
        }
}
