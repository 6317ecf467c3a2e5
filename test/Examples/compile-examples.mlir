// Every example compiles through the whole pipeline (txlc) to PTX, and ptxas
// accepts it for its target: sm_90a for the Hopper kernels, sm_100a for the
// Blackwell tcgen05 GEMM (nothing here can run it; ptxas is the check).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %txl_src/examples/gemm_sm90.mlir --arch=sm_90a --emit=cubin -o %t/gemm_sm90.ptx
// The persistent WS GEMM compiles without ptxas warnings (it used to spill:
// LLVM hoisted the epilogue's per-register shared-memory addresses out of
// the tile loop; smem_store now pins the thread index where it runs).
// RUN: txlc %txl_src/examples/gemm_ws_persistent_sm90.mlir --arch=sm_90a --emit=cubin -o %t/ws.ptx 2>&1 | count 0
// RUN: txlc %txl_src/examples/flash_attention_fwd_sm90.mlir --arch=sm_90a --emit=cubin -o %t/fa.ptx
// RUN: txlc %txl_src/examples/flash_attention_fwd_hd64_sm90.mlir --arch=sm_90a --emit=cubin -o %t/fa64.ptx
// RUN: txlc %txl_src/examples/flash_attention_fwd_causal_sm90.mlir --arch=sm_90a --emit=cubin -o %t/fac.ptx
// RUN: txlc %txl_src/examples/gemm_tcgen05_sm100.mlir --arch=sm_100a --emit=cubin -o %t/bw.ptx
// RUN: FileCheck %s --check-prefix=GEMM < %t/gemm_sm90.ptx
// RUN: FileCheck %s --check-prefix=FA < %t/fa.ptx
// RUN: FileCheck %s --check-prefix=FA64 < %t/fa64.ptx
// RUN: FileCheck %s --check-prefix=FAC < %t/fac.ptx
// RUN: FileCheck %s --check-prefix=BW < %t/bw.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/fa.json
// RUN: test -s %t/bw.cubin

// GEMM: .target sm_90a
// GEMM: .extern .shared .align 1024 .b8 txl_smem[];
// GEMM: .reqntid 128, 1, 1
// GEMM: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// GEMM: cp.async.bulk.tensor.2d.global.shared::cta

// FA: .target sm_90a
// FA: .reqntid 384, 1, 1
// FA-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}24;
// FA-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}240;
// The PV GEMM takes P from registers (RS form): four 32-bit A registers.
// FA-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd
// FA-DAG: ex2.approx

// Head dim 64: S is m64n128k16 (SS), PV m64n64k16 with A from registers.
// FA64-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd
// FA64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd

// Causal: the diagonal mask is a compare + select per element.
// FAC-DAG: setp.gt.{{[su]}}32
// FAC-DAG: selp.f32
// FAC-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// BW: .target sm_100a
// BW-DAG: tcgen05.alloc
// BW-DAG: tcgen05.mma
// BW-DAG: tcgen05.commit
// BW-DAG: tcgen05.ld
// BW-DAG: tcgen05.dealloc

// JSON: "threads": [384, 1, 1]
// JSON: "kind": "tensordesc", "dtype": "bf16", "block_shape": [64, 64], "swizzle": 128
