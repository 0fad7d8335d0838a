/* Memory helpers shared by the tuned kernels: N consecutive elements as one
 * aligned vector, and a cp.async whose tail is zero-filled. */
#ifndef TSK_COPY_CUH
#define TSK_COPY_CUH

#include <cuda_runtime.h>

/* N consecutive elements of T, aligned to their total size: one load or
 * store moves them all. */
template <typename T, int N> struct alignas(N * sizeof(T)) tsk_vec {
    T e[N];
};

/* cp.async of BYTES (4, 8 or 16) from src to shared dst, of which the first
 * `valid` come from src and the rest are zero (tails of k, columns or rows
 * past the matrix; src must stay a valid address).  The source size is a
 * register operand: __pipeline_memcpy_async takes a zero-fill count instead
 * and compiles to a branch over its possible values on every copy, which
 * slowed the copy-bound kernels.  16-byte copies bypass L1 and ask L2 to
 * fetch L2PF (128 or 256) bytes on a miss: the kernels read their long
 * operands whole.  Which size is faster depends on the kernel's walk, not
 * on an obvious rule: 128 for the TSM2 and TSMTTSM rings, 256 for the ISM2
 * DMMA kernel (docs/kernels.md, 'Measurements behind the code's choices'). */
template <int BYTES, int L2PF = 128>
__device__ __forceinline__ void tsk_cp_async(void *dst, const void *src, int valid)
{
    static_assert(L2PF == 128 || L2PF == 256, "L2 prefetch sizes of cp.async");
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if (BYTES == 16 && L2PF == 256)
        asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid));
    else if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(BYTES), "r"(valid));
}

#endif
