// TMA tile-copy kernels for the runtime tests. Each CTA loads one box with cp.async.bulk.tensor through a
// CUtensorMap passed BY VALUE (const __grid_constant__), waits on an mbarrier, un-swizzles the box from shared
// memory and stores it with plain stores into a padded output of shape grid * box, so that the out-of-bounds
// parts of the edge boxes (which TMA fills with zeros) are visible to the test.
#include "tma_common.cuh"

extern __shared__ __align__(1024) uint8_t dyn_smem[];  // the box; re-aligned to 1024 at run time anyway

template <typename T, int BR, int BC, int SW>
__device__ __forceinline__ void copy_box_2d(const CUtensorMap *tm, T *out, int out_cols) {
  __shared__ __align__(8) uint64_t mbar;
  uint8_t *box = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(dyn_smem) + 1023) & ~uintptr_t(1023));
  const uint32_t bar = smem_u32(&mbar);
  const int x = blockIdx.x * BC, y = blockIdx.y * BR;
  if (threadIdx.x == 0) mbar_init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(bar, BR * BC * sizeof(T));  // a full box, out-of-bounds parts included
    tma_load_2d(smem_u32(box), tm, bar, x, y);
  }
  mbar_wait(bar, 0);
  for (int i = threadIdx.x; i < BR * BC; i += blockDim.x) {
    const int r = i / BC, c = i % BC;
    const T v = *reinterpret_cast<const T *>(box + swizzled<SW>((r * BC + c) * sizeof(T)));
    out[(size_t)(y + r) * out_cols + x + c] = v;
  }
}

// bf16 [R, C], box [64, 64], no swizzle.
extern "C" __global__ void __launch_bounds__(128) tma_copy_2d(const __grid_constant__ CUtensorMap src, uint16_t *out,
                                                                int out_cols) {
  copy_box_2d<uint16_t, 64, 64, 0>(&src, out, out_cols);
}

// bf16 [R, C], box [64, 64] (128-byte rows), 128-byte swizzle.
extern "C" __global__ void __launch_bounds__(128) tma_copy_2d_sw128(const __grid_constant__ CUtensorMap src,
                                                                     uint16_t *out, int out_cols) {
  copy_box_2d<uint16_t, 64, 64, 128>(&src, out, out_cols);
}

// f32 [R, C], box [32, 16] (64-byte rows), 64-byte swizzle.
extern "C" __global__ void __launch_bounds__(128) tma_copy_2d_sw64_f32(const __grid_constant__ CUtensorMap src,
                                                                        uint32_t *out, int out_cols) {
  copy_box_2d<uint32_t, 32, 16, 64>(&src, out, out_cols);
}

// f16 [D, R, C], box [2, 16, 32], no swizzle; grid (C/32, R/16, D/2) rounded up.
extern "C" __global__ void __launch_bounds__(128) tma_copy_3d(const __grid_constant__ CUtensorMap src, uint16_t *out,
                                                                int out_rows, int out_cols) {
  constexpr int BD = 2, BR = 16, BC = 32;
  __shared__ __align__(8) uint64_t mbar;
  uint8_t *box = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(dyn_smem) + 1023) & ~uintptr_t(1023));
  const uint32_t bar = smem_u32(&mbar);
  const int x = blockIdx.x * BC, y = blockIdx.y * BR, z = blockIdx.z * BD;
  if (threadIdx.x == 0) mbar_init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(bar, BD * BR * BC * 2);
    tma_load_3d(smem_u32(box), &src, bar, x, y, z);
  }
  mbar_wait(bar, 0);
  const uint16_t *b = reinterpret_cast<const uint16_t *>(box);
  for (int i = threadIdx.x; i < BD * BR * BC; i += blockDim.x) {
    const int d = i / (BR * BC), r = (i / BC) % BR, c = i % BC;
    out[((size_t)(z + d) * out_rows + y + r) * out_cols + x + c] = b[i];
  }
}
