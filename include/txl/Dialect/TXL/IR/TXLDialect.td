//===- TXLDialect.td - the txl dialect ---------------------*- tablegen -*-===//
//
// The txl dialect: TXL-style GPU programming (shared and tensor memory,
// mbarriers, TMA, warpgroup MMA, warp specialization) on register tiles held
// in builtin tensors. Op names follow TXL (docs/txl-reference.md) so kernels port.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_DIALECT_TD
#define TXL_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TXL_Dialect : Dialect {
  let name = "txl";
  let cppNamespace = "::mlir::txl";
  let summary = "TXL-style GPU kernels: smem/tmem buffers, mbarriers, TMA, wgmma, warp specialization";
  let description = [{
    Kernels are `func.func` operations with the `txl.kernel` unit attribute.
    Register tiles are builtin ranked tensors (optionally carrying a register
    layout such as `#txl.blocked<...>`); upstream `arith`, `math`, `scf` and
    `cf` operate on them. Hardware handles are real types: `!txl.smem`,
    `!txl.tmem`, `!txl.mbar`, `!txl.tensordesc` and `!txl.ptr`.

    The target is a module attribute, `txl.target = "sm_90a"` (Hopper, the
    default when absent) or `"sm_100a"` (Blackwell). Tensor-memory and tcgen05
    operations verify only on sm_100a.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let usePropertiesForAttributes = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class TXL_Op<string mnemonic, list<Trait> traits = []>
    : Op<TXL_Dialect, mnemonic, traits>;

#endif // TXL_DIALECT_TD
