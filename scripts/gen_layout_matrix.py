#!/usr/bin/env python3
"""Generates the kernels of test/Target/PTX/layout-conversion-matrix.mlir.

For each family of register layouts over one tile shape, one kernel converts
the tile between every ordered pair of distinct layouts:

    x = load(in + inOffset + row-major index)            (layout A)
    y = txl.relayout x                                   (A -> B)
    store(out + pair * 8192 + row-major index, y)         (layout B)

so out[pair] must equal the family's input block (bench/tile_check.py checks
this on a GPU). Run it and paste its output below the RUN lines of the test:

    python3 scripts/gen_layout_matrix.py > /tmp/matrix.mlir
"""

# family name -> (shape, layouts). Names are used as attribute aliases.
FAMILIES = {
    "64x128": ((64, 128), [
        ("b1", "#txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("b2", "#txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>"),
        ("b6", "#txl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("acc128", "#txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>"),
        ("opa128", "#txl.dot_operand<opIdx = 0, parent = #acc128, kWidth = 2>"),
    ]),
    "64x64": ((64, 64), [
        ("b3", "#txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("b4", "#txl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]>"),
        ("b5", "#txl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("acc64", "#txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>"),
        ("opa64", "#txl.dot_operand<opIdx = 0, parent = #acc64, kWidth = 2>"),
    ]),
    # Lane permutations within each warp: warp shuffles.
    "32x8": ((32, 8), [
        ("s1", "#txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("s2", "#txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]>"),
    ]),
    # Row vectors: slices of the accumulator and of blocked layouts.
    "64": ((64,), [
        ("acc128", "#txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>"),
        ("b1", "#txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("b6", "#txl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>"),
        ("rowacc", "#txl.slice<dim = 1, parent = #acc128>"),
        ("rowb1", "#txl.slice<dim = 1, parent = #b1>"),
        ("rowb6", "#txl.slice<dim = 1, parent = #b6>"),
        ("v1", "#txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>"),
    ]),
}
# Parents that only define aliases for the slices.
HELPERS = {"64": {"acc128", "b1", "b6"}}


def shape_str(shape):
    return "x".join(map(str, shape))


def pointers(lines, tag, shape, lay, base, offset):
    """Appends the ops computing `base + offset + row-major index` in `lay`."""
    s = shape_str(shape)
    idx = f"tensor<{s}xi32, #{lay}>"
    if len(shape) == 1:
        lines.append(f"    %i{tag} = txl.make_range 0, {shape[0]} : {idx}")
    else:
        rows, cols = shape
        rs = f"#txl.slice<dim = 1, parent = #{lay}>"
        cs = f"#txl.slice<dim = 0, parent = #{lay}>"
        lines += [
            f"    %r{tag} = txl.make_range 0, {rows} : tensor<{rows}xi32, {rs}>",
            f"    %re{tag} = txl.expand_dims %r{tag}, 1 : tensor<{rows}xi32, {rs}> -> tensor<{rows}x1xi32, #{lay}>",
            f"    %rb{tag} = txl.broadcast %re{tag} : tensor<{rows}x1xi32, #{lay}> -> {idx}",
            f"    %c{tag} = txl.make_range 0, {cols} : tensor<{cols}xi32, {cs}>",
            f"    %ce{tag} = txl.expand_dims %c{tag}, 0 : tensor<{cols}xi32, {cs}> -> tensor<1x{cols}xi32, #{lay}>",
            f"    %cb{tag} = txl.broadcast %ce{tag} : tensor<1x{cols}xi32, #{lay}> -> {idx}",
            f"    %w{tag} = arith.constant dense<{cols}> : {idx}",
            f"    %rw{tag} = arith.muli %rb{tag}, %w{tag} : {idx}",
            f"    %i{tag} = arith.addi %rw{tag}, %cb{tag} : {idx}",
        ]
    ptr = f"tensor<{s}x!txl.ptr<f32>, #{lay}>"
    lines += [
        f"    %o{tag} = txl.splat %k{offset} : i32 -> {idx}",
        f"    %io{tag} = arith.addi %i{tag}, %o{tag} : {idx}",
        f"    %s{tag} = txl.splat %{base} : !txl.ptr<f32> -> {ptr}",
        f"    %p{tag} = txl.addptr %s{tag}, %io{tag} : {ptr}, {idx}",
    ]
    return ptr


def family(name, shape, layouts):
    out = [f"//--- {name}.mlir"]
    out += [f"#{n} = {a}" for n, a in layouts]
    names = [n for n, _ in layouts if n not in HELPERS.get(name, set())]
    pairs = [(a, b) for a in names for b in names if a != b]
    out.append('module attributes {txl.target = "sm_90a"} {')
    out.append(f"  // {len(pairs)} conversions: every ordered pair of distinct layouts.")
    out.append(f"  func.func @layout_matrix_{name}(%in: !txl.ptr<f32>, %out: !txl.ptr<f32>)"
               " attributes {txl.kernel, txl.num_warps = 4 : i32} {")
    offsets = sorted({0} | {8192 * i for i in range(len(pairs))})
    out += [f"    %k{o} = arith.constant {o} : i32" for o in offsets]
    s = shape_str(shape)
    for n, (a, b) in enumerate(pairs):
        body = [f"    // {a} -> {b}"]
        pa = pointers(body, f"{n}a", shape, a, "in", 0)
        body.append(f"    %x{n} = txl.load %p{n}a : {pa} -> tensor<{s}xf32, #{a}>")
        body.append(f"    %y{n} = txl.relayout %x{n} : tensor<{s}xf32, #{a}> -> tensor<{s}xf32, #{b}>")
        pb = pointers(body, f"{n}b", shape, b, "out", 8192 * n)
        body.append(f"    txl.store %p{n}b, %y{n} : {pb}, tensor<{s}xf32, #{b}>")
        out += body
    out += ["    return", "  }", "}", ""]
    return out


if __name__ == "__main__":
    for name, (shape, layouts) in FAMILIES.items():
        print("\n".join(family(name, shape, layouts)))
