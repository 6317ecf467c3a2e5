// Helpers for the runtime's GPU test kernels: TMA (cp.async.bulk.tensor) into shared memory completing on an
// mbarrier, with a bounded wait that traps instead of hanging when the expected bytes never arrive.
#pragma once
#include <cuda.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t mbar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mbar), "r"(count));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint32_t mbar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(bytes) : "memory");
}

// Spin on the phase; trap after ~2e9 cycles (about a second) so that a wrong descriptor fails the launch.
__device__ __forceinline__ void mbar_wait(uint32_t mbar, uint32_t phase) {
  long long start = clock64();
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(mbar), "r"(phase)
                 : "memory");
    if (!done && clock64() - start > 2000000000LL) asm volatile("trap;");
  }
}

__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *tm, uint32_t mbar, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(tm)), "r"(x), "r"(y), "r"(mbar)
               : "memory");
}

__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap *tm, uint32_t mbar, int x, int y, int z) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(tm)), "r"(x), "r"(y), "r"(z), "r"(mbar)
               : "memory");
}

// Byte offset of the element at linear byte offset `off` of a box in shared memory under the TMA swizzle of
// SW bytes (CUTLASS Swizzle<log2(SW/16), 4, 3>: bits [4, 4+B) ^= bits [7, 7+B)); the box base is 1024-aligned.
template <int SW> __device__ __forceinline__ uint32_t swizzled(uint32_t off) {
  return SW == 0 ? off : off ^ (((off >> 7) & (SW / 16 - 1)) << 4);
}
