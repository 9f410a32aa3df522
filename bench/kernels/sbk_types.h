/* sbk_types.h - element types shared by the solbench kernels (C and CUDA).
 *
 * Every kernel in bench/kernels/ takes its tensors as untyped pointers plus
 * an sbk_dtype. Storage is the IEEE / bfloat16 bit pattern; arithmetic is
 * fp32 on the GPU and on the CPU path, fp64 in the host references.
 */
#ifndef SOLBOOK_BENCH_KERNELS_SBK_TYPES_H
#define SOLBOOK_BENCH_KERNELS_SBK_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sbk_dtype {
    SBK_F32 = 0,  /* IEEE binary32 */
    SBK_F16 = 1,  /* IEEE binary16 */
    SBK_BF16 = 2  /* bfloat16: the top 16 bits of a binary32 */
} sbk_dtype;

/* Bytes per element: 4, 2 or 2; 0 for a value outside the enum. */
size_t sbk_dtype_size(sbk_dtype dt);

/* "fp32", "fp16", "bf16" (the names the result schema uses); NULL otherwise. */
const char *sbk_dtype_name(sbk_dtype dt);

/* Parses "fp32"/"fp16"/"bf16"; returns 0 on success, -1 otherwise. */
int sbk_dtype_parse(const char *name, sbk_dtype *out);

/* Scalar conversions, round to nearest even, NaN and infinity kept. */
float sbk_half_to_float(uint16_t h);
uint16_t sbk_float_to_half(float f);
float sbk_bf16_to_float(uint16_t b);
uint16_t sbk_float_to_bf16(float f);

/* Element i of a typed buffer, as float / stored from float (rounded). */
float sbk_load(const void *p, sbk_dtype dt, size_t i);
void sbk_store(void *p, sbk_dtype dt, size_t i, float v);

/* ignore_index of the cross-entropy ops, as in torch.nn.CrossEntropyLoss. */
#define SBK_IGNORE_INDEX (-100)

#ifdef __cplusplus
}
#endif

#endif
