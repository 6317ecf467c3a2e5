// A TMA descriptor built on the device (tl.make_tensor_descriptor), written
// without its slot as the frontend writes it: txl-global-scratch appends the
// kernel's !txl.ptr<i8> parameter marked txl.global_scratch, which the
// sidecar describes as a "global_scratch" parameter of N bytes per CTA, which
// the launcher allocates and passes (it is not a user argument); the PTX
// builds the tensor map there and ptxas accepts it.
//
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --emit=cubin -o %t/k.ptx 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/k.json
// RUN: %python -c "import json, sys; sys.path.insert(0, r'%txl_src/python'); from txl.runtime.launcher import parse_sidecar; m = parse_sidecar(json.load(open(r'%t/k.json'))); print(m.signature(), m.global_scratch)" | FileCheck %s --check-prefix=PARSED

// PTX: .entry device_desc(
// PTX: .param .u64 .ptr .global .align 1 device_desc_param_3
// PTX: st.global.v4.b32
// PTX: tensormap.replace.tile.global_address.global.b1024.b64
// PTX: tensormap.replace.tile.rank.global.b1024.b32 [%rd{{[0-9]+}}], 1;
// PTX: tensormap.replace.tile.box_dim.global.b1024.b32 [%rd{{[0-9]+}}], 0, 64;
// PTX: tensormap.replace.tile.elemtype.global.b1024.b32 [%rd{{[0-9]+}}], 10;
// PTX: tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd{{[0-9]+}}], 3;
// PTX: fence.proxy.tensormap::generic.release.gpu;
// PTX: fence.proxy.tensormap::generic.acquire.gpu
// PTX: cp.async.bulk.tensor.2d

// JSON: "params": [
// JSON-NEXT: {"name": "arg0", "kind": "ptr", "dtype": "bf16"},
// JSON-NEXT: {"name": "arg1", "kind": "scalar", "dtype": "i64"},
// JSON-NEXT: {"name": "arg2", "kind": "ptr", "dtype": "f32"},
// JSON-NEXT: {"name": "arg3", "kind": "global_scratch", "dtype": "i8", "bytes": 128}
// JSON-NEXT: ]

// PARSED: device_desc(arg0: *bf16, arg1: i64, arg2: *f32) (3, 128)

#sw128 = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @device_desc(%a: !txl.ptr<bf16>, %m: i64, %out: !txl.ptr<f32>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16, #sw128>
    %buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %v = txl.get_buffer %buf[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    txl.mbar_expect %bar, 8192
    txl.tma_load %d[%c0, %c0], %v, %bar : !txl.tensordesc<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128>
    txl.mbar_wait %bar, %c0 : i32
    %x = txl.smem_load %v : !txl.smem<64x64xbf16, #sw128> -> tensor<64x64xbf16>
    %y = arith.extf %x : tensor<64x64xbf16> to tensor<64x64xf32>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %r1 = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %c64i = arith.constant dense<64> : tensor<64x1xi32>
    %rs = arith.muli %r1, %c64i : tensor<64x1xi32>
    %rb = txl.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
    %c = txl.make_range 0, 64 : tensor<64xi32>
    %c1d = txl.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cb = txl.broadcast %c1d : tensor<1x64xi32> -> tensor<64x64xi32>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32>
    %op = txl.splat %out : !txl.ptr<f32> -> tensor<64x64x!txl.ptr<f32>>
    %p = txl.addptr %op, %offs : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xi32>
    txl.store %p, %y : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
    return
  }
}
