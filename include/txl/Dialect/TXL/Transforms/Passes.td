//===- Passes.td - txl passes ------------------------------*- tablegen -*-===//
//
// The stages of the software pipeliner (TXL's txlgpu-pipeline, one pass per
// stage) and the passes around it. The order lives in one place:
// buildTXLPipeline() in lib/Pipeline.cpp (declared in txl/Pipeline.h).
//
// Stages lower their txl ops to NVVM/LLVM ops directly. Buffers cross stage
// boundaries as `builtin.unrealized_conversion_cast`s between the txl type
// and its LLVM form (!txl.smem / !txl.mbar -> !llvm.ptr<3>, register tiles
// -> !llvm.struct of the thread's registers); convert-txl-to-nvvm removes
// the last of them.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_TRANSFORMS_PASSES_TD
#define TXL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TXLExpandBlockPointers : Pass<"txl-expand-block-pointers", "mlir::ModuleOp"> {
  let summary = "Expand block pointers into masked pointer tiles and carry their fields through scf";
  let description = [{
    Runs first, before any stage reads the IR. Every !txl.block_ptr value
    is replaced by its fields (base, shape and strides as i64, offsets as
    i32, one per dimension): txl.make_block_ptr by its operands,
    txl.advance by i32 adds to the offsets (a constant zero delta adds
    nothing). A txl.block_load / txl.block_store becomes one txl.load /
    txl.store of the pointer tile base + sum_d (offsets[d] +
    arange(block[d])) * strides[d] in i64, masked by 0 <= index < shape[d]
    on its boundary_check dimensions (no lower bound where the offset is a
    constant >= 0; no multiply for a constant unit stride), `other` the
    padding (zero or NaN) when there is one: Triton's RewriteTensorPointer.
    scf.for, scf.if and scf.while carry a block pointer as its fields, and
    then only the fields that change (the others are the values before the
    loop / both branches' one value), keeping every attribute.

    Before: `%p = txl.make_block_ptr %a, [%m], [%c1], [%o] : ...` and
    `%x = txl.block_load %p boundary_check = [0] padding zero : ...`.
    After:  `txl.load %ptrs mask %in other %zeros` of the pointer tile.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLGlobalScratch : Pass<"txl-global-scratch", "mlir::ModuleOp"> {
  let summary = "Give device-built TMA descriptors their slots of the kernel's global scratch";
  let description = [{
    Runs right after txl-expand-block-pointers. A kernel whose
    txl.make_tensor_descriptor ops have no `scratch` (the frontend writes
    them so) gets one more parameter, a
    !txl.ptr<i8> marked `txl.global_scratch = bytes per CTA` that the sidecar
    describes and the launcher allocates (bytes x CTAs per launch), and each
    such op its 128-byte slot of it: ((site * warpgroups + warpgroup) * CTAs
    + CTA) * 128, sites numbered in program order, the warpgroup the
    executing one's (txl.warpgroup_id), or 0 where the kernel's role spans
    its warpgroups (getRoleWarps: one leader builds the descriptor), CTAs and
    CTA from num_programs / program_id. Bytes per CTA: sites x warpgroups x
    128. A kernel without such ops is unchanged.

    Before: `%d = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1] : ...`.
    After:  the kernel's last parameter `%s: !txl.ptr<i8> {txl.global_scratch
            = 128 : i64}` and `txl.make_tensor_descriptor ..., %slot` with
            `%slot = txl.addptr %s, %bytes`.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect"];
}

def TXLScheduleLoops : Pass<"txl-schedule-loops", "mlir::ModuleOp"> {
  let summary = "Loop pipeliner, step 1: give loads in scf.for loops a ring of buffers and a stage";
  let description = [{
    For each scf.for whose `num_stages` (the loop's `txl.num_stages`, else the
    kernel's, as Triton's `tl.range(..., num_stages=)` and launch option) is
    at least 2, outside warp-specialized regions: every txl.desc_load in the
    loop body whose coordinates the loop can compute ahead (from the
    induction variable, loop invariants and other stage-0 values) becomes a
    ring of `num_stages` shared buffers and mbarriers allocated before the
    loop; the loop issues the TMA of iteration i + num_stages - 1 (stage 0)
    and waits for and reads iteration i's slot (stage num_stages - 1). The
    slot and phase come from a counter of the loads issued so far, carried
    through enclosing loops, so nested loops keep their phases. Before a slot
    is refilled, a CTA barrier (after the last reads of the previous
    iteration) protects it. Pointer-tile loads (tl.load) that feed a dot,
    and vectors loaded in a loop that has a dot (per-row statistics), get
    the same ring filled by cp.async copies (option pointer-loads), as wide
    as AxisInfo proves aligned. A txl.dot whose accumulator is carried by the
    loop becomes async, retired one iteration later (`txl.dot_wait 1` after
    it, `txl.dot_wait 0` after the loop), so the tensor cores overlap the
    next iteration's loads and arithmetic. A dot whose carried accumulator is
    rescaled first (attention's `acc = dot(p, v, acc * alpha)`) becomes async
    too (option rescaled-async): the next iteration retires it right before
    the rescale, after the synchronous dot its register A (P) is computed
    from has been waited for, and the module gets `txl.rescaled_async`
    so that txlc can compare the kernel with and without it (it holds P's
    registers one iteration longer). Every op of the body gets
    `txl.stage` and `txl.order`; txl-expand-loops builds the pipelined loop.

    Before: `%a = txl.desc_load %d[%m, %k]` in `scf.for %k ... {txl.num_stages = 3}`.
    After:  a 3-stage `txl.smem_alloc {txl.ring}`, and in the loop
            `txl.mbar_expect`/`txl.tma_load {txl.stage = 0}` into slot
            (i + 2) % 3, `txl.mbar_wait`/`txl.smem_load {txl.stage = 2}` of slot i % 3.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"pointerLoads", "pointer-loads", "bool", "true",
           "Also give pointer-tile loads that feed a dot a cp.async ring (false: they stay "
           "register loads, staged for the dot every iteration)">,
    Option<"rescaledAsync", "rescaled-async", "bool", "true",
           "Also make a loop-carried dot whose accumulator is rescaled before it (attention's "
           "P @ V) async, retired by the next iteration (false: it waits in its own)">,
  ];
  let statistics = [
    Statistic<"numLoops", "loops", "Loops scheduled">,
    Statistic<"numLoads", "loads", "Loads given a ring of buffers">,
    Statistic<"numAsyncDots", "async-dots", "Loop-carried dots made async">,
  ];
}

def TXLExpandLoops : Pass<"txl-expand-loops", "mlir::ModuleOp"> {
  let summary = "Loop pipeliner, step 2: build prologue and pipelined loop from the schedule";
  let description = [{
    Runs upstream MLIR's scf loop pipelining (scf::pipelineForLoop) on every
    loop txl-schedule-loops annotated, with the stages and order it
    recorded: the prologue issues stage 0 of the first num_stages - 1
    iterations; the loop runs stage 0 of iteration i + num_stages - 1 with
    stage num_stages - 1 of iteration i. Trip counts may be dynamic (and
    smaller than the stage count): stage-0 ops past the end are predicated
    off (a TMA issue under scf.if, a scalar load masked). The annotations are
    removed.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLLowerTileCopies : Pass<"txl-lower-tile-copies", "mlir::ModuleOp"> {
  let summary = "Decide how Triton-style tiles travel: desc_load/desc_store staging, dot operands";
  let description = [{
    For what the pipeliner did not take. txl.desc_load gets a staging buffer
    and an mbarrier at the kernel's entry (a stage per warpgroup that runs
    it): TMA, wait, smem_load; inside loops the group syncs before reuse and
    the mbarrier phase is carried through the enclosing loops and ifs.
    txl.desc_store goes registers -> staging buffer -> TMA store, waited. A
    txl.dot operand that is a register copy of a staging buffer is read from
    that buffer; a register B otherwise is stored to a staging buffer of its
    own (wgmma reads B from shared memory) and the dot runs synchronously.

    Before: `%a = txl.desc_load %d[%m, %k] : ... -> tensor<64x64xbf16>`.
    After:  `txl.mbar_expect %bar, 8192`, `txl.tma_load %d[%m, %k], %buf, %bar`,
            `txl.mbar_wait %bar, %phase`, `%a = txl.smem_load %buf`.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLAssignLayouts : Pass<"txl-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every register tile a layout (anchors, then propagation)";
  let description = [{
    Anchors: txl.dot results and accumulators get the wgmma accumulator layout
    (#txl.nvmma); a register A operand of txl.dot is routed through a new
    txl.relayout whose result gets the wgmma operand layout (#txl.dot_operand);
    tensor-memory tiles get the tcgen05 32x32b lane layout; layouts the author
    wrote are kept. Layouts flow through elementwise ops, addptr/load/store,
    broadcasts, scf.for/scf.if/scf.while and dot_wait, and as #txl.slice
    through reductions and expand_dims. Classes left without a layout get a
    coalesced blocked layout (16 bytes per thread along the last dimension).
    Two different anchors on one class are an error that asks for a
    txl.relayout. Layouts span the warps of one copy of the kernel's body:
    its txl.role_warps (8 when two warpgroups split M), else a warpgroup
    (getRoleWarps, the one place every stage reads it from).

    Before: `%acc = arith.constant dense<0.0> : tensor<128x128xf32>` feeding a txl.dot.
    After:  `%acc = arith.constant dense<0.0> : tensor<128x128xf32, #txl.nvmma<...>>`.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect"];
}

def TXLRematerializeExpandedRanges : Pass<"txl-rematerialize-expanded-ranges", "mlir::ModuleOp"> {
  let summary = "Give each expand_dims of a 1-D index vector its own copy of the vector's computation";
  let description = [{
    Runs first. Every txl.expand_dims of a 1-D tile computed only from
    txl.make_range, txl.splat and arith / math ops without side effects (at
    most 6 ops deep) reads its own copy of that computation, built right
    before it; the original goes when nothing else reads it. `offs[:, None]`
    and `offs[None, :]` of one `offs` need it in two register layouts, and
    computing it twice costs a few integer ops where moving it between
    threads costs a relayout (Triton's rematerialization); a copy beside each
    use also keeps the loop pipeliner from carrying one shared vector
    between a loop's stages.

    Before: `%o = arith.addi %s, %r` (`%r = txl.make_range`, `%s = txl.splat`),
            `%a = txl.expand_dims %o, 1`, `%b = txl.expand_dims %o, 0`.
    After:  each expand_dims reads its own make_range, splat and addi.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect"];
}

def TXLEraseDeadValues : Pass<"txl-erase-dead-values", "mlir::ModuleOp"> {
  let summary = "Erase what nothing reads: unused pure ops and unread scf.for / scf.if / scf.while results";
  let description = [{
    Runs right after txl-global-scratch, before every stage that reads the
    frontend's IR. To a fixed
    point: an op whose results nothing reads and that has no memory effect
    but allocating them (arith, math, txl's pure tile ops, an unused
    smem_alloc / tmem_alloc / mbar_alloc) is erased; so are the results of
    scf.for, scf.if and scf.while that nothing reads, with their yielded
    values, and a loop's iter_args that the body reads only to yield them
    again in place (a while's carried values that its `before` region does
    not read). Ops that read memory, control flow itself, and everything
    else stay as they are: nothing is folded, deduplicated or moved.

    Before: `%r:2 = scf.for ... iter_args(%a = %x, %b = %y)` with `%r#1`
    unread and `%b` only yielded. After: a loop carrying `%a` alone.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TXLFoldDotAdd : Pass<"txl-fold-dot-add", "mlir::ModuleOp"> {
  let summary = "Fold `x + dot(a, b)` into the dot's accumulator: dot(a, b, x)";
  let description = [{
    Runs before the loop pipeliner. An arith.addf / arith.addi of the result
    of a txl.dot that has a zero accumulator and no `use_acc`, read by that
    add alone, and of a value computed before the dot (in the dot's block or
    an enclosing one) becomes the dot accumulating into that value, as
    Triton's combine pass does for `acc += tl.dot(a, b)`: one wgmma chain
    instead of a product and an add, and a loop-carried accumulator the
    pipeliner can keep in flight. The frontend emits the add as written;
    until this pass runs, the verifier counts such an add as part of an
    async dot's accumulation (mlir::txl::getAccumulatedDot), so
    `acc += tl.dot(q, k.T)` before `txl.dot_wait 0` is valid.

    Before: `%d = txl.dot %a, %b, %zero`, `%s = arith.addf %acc, %d`.
    After:  `%d = txl.dot %a, %b, %acc` read where %s was.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect"];
}

def TXLRemoveLayoutConversions : Pass<"txl-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Fold redundant txl.relayout ops and rematerialize cheap tiles in place";
  let description = [{
    Runs after layout assignment. A relayout to the layout its operand already
    has disappears; a relayout of a relayout converts once, from the first
    source; a relayout of a tile that is cheap to compute in any layout
    (txl.splat, txl.make_range, a dense arith.constant, and txl.broadcast /
    txl.expand_dims of those) is replaced by that computation done directly
    in the destination layout, so no data moves between threads.

    Before: `%z = txl.splat %c : f32 -> tensor<64x64xf32, #blocked>`
            `%y = txl.relayout %z : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>`.
    After:  `%y = txl.splat %c : f32 -> tensor<64x64xf32, #mma>`.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect"];
  let statistics = [
    Statistic<"numFolded", "folded", "Relayouts removed or merged">,
    Statistic<"numRematerialized", "rematerialized", "Relayouts replaced by recomputation">,
  ];
}

def TXLAllocateScratch : Pass<"txl-allocate-scratch", "mlir::ModuleOp"> {
  let summary = "Give layout conversions and cross-warp reductions shared-memory scratch";
  let description = [{
    A txl.relayout that moves elements between warps and a txl.reduce whose
    warps split the reduced axis exchange data through shared memory. This
    pass, which runs before SmemAllocs, gives each such op a `txl.smem_alloc`
    (so the shared-memory plan places it) with one stage per group of warps
    that may run the op at the same time, and passes the op its group's view
    (`txl.get_buffer %scratch[warp_id / group_warps - first_group]`).

    A relayout's scratch is the tile, row-major, with each row padded by the
    number of elements that gives the fewest shared-memory bank conflicts
    for the two layouts' stores and loads (simulated for one warp); a
    reduction's holds one partial result per warp along the axis and per
    output element.

    The op synchronizes its warps with a barrier that only they take: one
    warp uses bar.warp.sync, a warpgroup the named barrier 1 + warpgroup id
    (128 threads, as tma_store_wait), and a layout spanning the whole CTA
    barrier 0. Layouts of other sizes, and whole-CTA layouts inside
    warp-specialized regions (where barrier 0 would deadlock), are errors.

    Before: `%b = txl.relayout %a : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>`.
    After:  `%s = txl.smem_alloc : !txl.smem<64x68xf32, stages = 1>`,
            `%v = txl.get_buffer %s[%c0]`,
            `%b = txl.relayout %a scratch(%v : !txl.smem<64x68xf32>) : ...`.
  }];
  let dependentDialects = ["::mlir::txl::TXLDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numScratch", "scratch", "Scratch buffers allocated">,
  ];
}

def TXLPartitionWarpgroups : Pass<"txl-partition-warpgroups", "mlir::ModuleOp"> {
  let summary = "Check and complete warp-specialized (is_warpgroup) regions";
  let description = [{
    TXL's split written as `txl.warpgroup_id == c` becomes
    `txl.is_warpgroup [c]` first. Regions guarded by a top-level `scf.if` on
    `txl.is_warpgroup` get a
    register budget when the kernel wrote none: `txl.reg_dealloc` in the
    producer (warpgroup 0), `txl.reg_alloc` in the others (TXL's defaults:
    2 warpgroups 56/256, 3: 40/232, more: 32/160). Named barriers 1..7 are
    reserved for the compiler; warpgroup ids must exist in the kernel.

    Before: `scf.if %is_wg0 { txl.tma_load ... }`.
    After:  `scf.if %is_wg0 { txl.reg_dealloc 40  txl.tma_load ... }`.
  }];
  let options = [
    Option<"producerRegs", "producer-regs", "int32_t", "0",
           "Registers for the producer warpgroup (0: the default for the warpgroup count)">,
    Option<"consumerRegs", "consumer-regs", "int32_t", "0",
           "Registers for the other warpgroups (0: the default)">,
  ];
  let dependentDialects = ["::mlir::txl::TXLDialect"];
}

def TXLSmemAllocs : Pass<"txl-smem-allocs", "mlir::ModuleOp"> {
  let summary = "Plan shared memory and lower smem_alloc/get_buffer";
  let description = [{
    Chooses the encoding of each txl.smem_alloc without one from its users (a
    TMA descriptor's swizzle wins, then the widest swizzle a wgmma operand
    allows), found through its views and through the scf.if / scf.for /
    scf.while values it flows into (buffers control flow joins get one
    encoding; the frontend prints none unless the user named one), plans one shared-memory layout for the kernel (1024-byte
    alignment for swizzled buffers; buffers at the kernel's top level whose
    live ranges do not overlap share bytes; mbarriers and TMEM address slots
    get their offsets here too) and lowers smem_alloc to an address in the
    kernel's single `external` shared array `@txl_smem`, get_buffer of a
    shared buffer to a stage offset. Records `txl.shared_bytes` on the kernel.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Shared-memory buffers planned">,
    Statistic<"numShared", "shared", "Buffers that share bytes with another">,
  ];
}

def TXLTmemAllocs : Pass<"txl-tmem-allocs", "mlir::ModuleOp"> {
  let summary = "Allocate tensor memory (tcgen05.alloc/dealloc)";
  let description = [{
    All txl.tmem_alloc ops of a kernel share one allocation of a power of two
    >= 32 columns (at most 512): warp 0 allocates and relinquishes the permit,
    a fenced block barrier publishes the address, and warp 0 deallocates
    before the kernel returns. get_buffer of a tensor-memory buffer becomes a
    column offset.

    Before: `%acc = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>`.
    After:  `nvvm.tcgen05.alloc %slot, %c512` (warp 0), `llvm.load %slot : i32`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLFoldTmemRoundTrips : Pass<"txl-fold-tmem-round-trips", "mlir::ModuleOp"> {
  let summary = "Accumulate in place in the kernel's tensor memory";
  let description = [{
    `tmem_load %acc` -> `dotx` on registers -> `tmem_store ..., %acc` becomes a
    dotx on %acc itself, so the accumulator is not staged in a second
    tensor-memory buffer.
  }];
}

def TXLMbars : Pass<"txl-mbars", "mlir::ModuleOp"> {
  let summary = "Lower mbarriers (init, expect, arrive, wait)";
  let description = [{
    mbar_alloc becomes mbarriers at their planned offsets, initialised by
    thread 0 with their arrive counts, then `fence.mbarrier_init` and a block
    barrier; mbar_expect becomes `mbarrier.arrive.expect_tx` by the
    warpgroup's first thread; mbar_arrive an arrive (or cp.async arrive, or a
    remote arrive through `mapa`); mbar_wait a `try_wait.parity` loop.

    With `debug-hangs`, every wait is bounded: after 2 seconds (%globaltimer)
    it prints the barrier's shared-memory offset, the phase, the block, the
    thread and the wait's source location, then traps, so a producer/consumer
    deadlock becomes a launch error instead of a frozen GPU.
  }];
  let options = [
    Option<"debugHangs", "debug-hangs", "bool", "false",
           "Bound every mbarrier wait (2 s), then print where it hung and trap">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLLowerLoads : Pass<"txl-lower-loads", "mlir::ModuleOp"> {
  let summary = "Lower TMA loads/stores and their waits";
  let description = [{
    tma_load becomes `cp.async.bulk.tensor` (one hardware box per swizzle
    span of the inner dimension) issued by the warpgroup's first thread and
    completing on the mbarrier; tma_store a `fence.proxy.async`, the bulk
    store and a commit group; tma_store_wait `cp.async.bulk.wait_group.read`;
    fence_proxy_async `fence.proxy.async.shared::cta`; async_load per-thread
    `cp.async` (4/8/16 bytes, zero fill for masked elements) + commit group,
    async_load_wait `cp.async.wait_group`; tma_gather (sm_100a) gather4 boxes.
    A tma_store with `reduce` becomes `cp.reduce.async.bulk.tensor` under an
    scf.if on the warpgroup leader (the NVVM op has no predicate operand).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLLowerSmemLoadStores : Pass<"txl-lower-smem-load-stores", "mlir::ModuleOp"> {
  let summary = "Move register tiles to and from shared memory";
  let description = [{
    smem_load and smem_store become one shared-memory access per register of
    the tile: the tile's layout gives each element's coordinates, the view's
    encoding (row-major, transposed, NVMMA swizzle) its address.

    Before: `%t = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32, #blocked>`.
    After:  `llvm.load` per register into `!llvm.struct<(f32, ...)>`.
  }];
  // scf: a predicated frag_smem_store becomes an scf.if (a module without scf
  // ops would otherwise not have the dialect loaded: the op could not be built).
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLMemDesc : Pass<"txl-mem-desc", "mlir::ModuleOp"> {
  let summary = "Shared-memory views become address arithmetic";
  let description = [{
    smem_index, smem_subslice, smem_trans and smem_reshape become offsets from
    their source's address (transposes and reshapes keep the address: the
    meaning is in the type). Slices that do not preserve a swizzled tile's
    column-block structure are rejected with a diagnostic.

    Before: `%h = txl.smem_subslice %q [64, 0] : !txl.smem<128x64xbf16, #sw128> -> !txl.smem<64x64xbf16, #sw128>`.
    After:  `%h = llvm.getelementptr %q[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TXLLowerDotXOps : Pass<"txl-lower-dotx-ops", "mlir::ModuleOp"> {
  let summary = "Lower txl.dotx to tcgen05.mma and tcgen05.commit";
  let description = [{
    One tcgen05.mma per K step, issued by lane 0 of the executing warp, with
    an instruction descriptor and shared-memory descriptors; one
    tcgen05.commit per completion mbarrier whose predicate holds.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLWgmma : Pass<"txl-wgmma", "mlir::ModuleOp"> {
  let summary = "Lower txl.dot to wgmma and dot_wait to carried waits";
  let description = [{
    Each txl.dot becomes `wgmma.fence`, one `wgmma.mma_async` per 64-row
    block and K step (shared-memory descriptors for smem operands, A from
    registers through inline asm for register operands), and a commit group.
    A txl.dot without `async` is followed by a wait 0. txl.dot_wait N becomes
    `wgmma.wait_group N` that carries the accumulators of the dots issued
    before it in the same block, so no use of them can be scheduled above the
    wait.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def TXLVectorizeAccesses : Pass<"txl-vectorize-accesses", "mlir::ModuleOp"> {
  let summary = "Prove how many elements each global load/store may move per instruction";
  let description = [{
    Sets `txl.vector = N` on a txl.load or txl.store when each thread's
    registers come in runs of N consecutive elements (the layout) whose
    addresses are consecutive and N-element aligned (pointer contiguity and
    divisibility, from `txl.divisibility` argument attributes, constants,
    ranges and the arithmetic that builds the pointers) under one predicate
    (the mask's constancy); at most 16 bytes. convert-txl-to-nvvm then emits
    one vector access (ld.global.v4.b32) per run instead of N scalar ones.
  }];
}

#endif // TXL_TRANSFORMS_PASSES_TD
