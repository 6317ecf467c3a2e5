// Plain kernels for the runtime tests: scalars of every width, > 48 KB of dynamic shared memory, clusters.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

// c = a + alpha * b
extern "C" __global__ void vec_add(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                                   float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + alpha * b[i];
}

// Writes each scalar argument back so the test can check how the runtime packed it.
extern "C" __global__ void scalar_probe(double *out, long long *out_i64, int a_i32, long long b_i64, float c_f32,
                                        __nv_bfloat16 d_bf16, __half e_f16, bool f_i1, signed char g_i8,
                                        double h_f64) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = a_i32;
    out[1] = (double)b_i64;
    out[2] = c_f32;
    out[3] = __bfloat162float(d_bf16);
    out[4] = __half2float(e_f16);
    out[5] = f_i1 ? 1.0 : 0.0;
    out[6] = g_i8;
    out[7] = h_f64;
    out_i64[0] = b_i64;
  }
}

// Each CTA reverses its chunk of n floats through dynamic shared memory (n * 4 bytes, more than 48 KB).
extern "C" __global__ void smem_reverse(const float *__restrict__ in, float *__restrict__ out, int n) {
  extern __shared__ float buf[];
  const float *src = in + (size_t)blockIdx.x * n;
  float *dst = out + (size_t)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) dst[i] = buf[n - 1 - i];
}

// out[linear CTA id] = 100 * (CTAs in the cluster) + rank in the cluster; launched with a runtime cluster shape.
extern "C" __global__ void cluster_info(int *out) {
  uint32_t rank, n;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  if (threadIdx.x == 0) out[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = 100 * n + rank;
}
