//===- MmaLayoutsTest.cpp - MMA register layouts against the PTX fragments -===//
// (and LinearLayout::getCopies, at the end)
//
// The layouts that txl-wgmma lowers through (LinearLayout.cpp) must place, in
// every thread, the fragment elements the PTX ISA defines for the MMA
// instruction; a wrong basis would compute wrong products without any error.
// For mma.sync.m16n8k16 (#txl.nvmma version 2) this replays the lowering's
// own lookup (LowerMmaSyncDot: the register of a fragment element is found by
// its coordinates relative to lane 0 of warp 0) for every warp, lane, block
// and K step, and checks the element that register holds there against the
// ISA (g = lane / 4, t = lane % 4):
//   A: a0,a1 = (g, 2t..2t+1)  a2,a3 = (g+8, 2t..)  a4,a5 = (g, 2t+8..)  a6,a7 = (g+8, 2t+8..)
//   B: b0,b1 = (2t..2t+1, g)  b2,b3 = (2t+8.., g)
//   C: c0,c1 = (g, 2t..2t+1)  c2,c3 = (g+8, 2t..)
// with warp w at rows 16 * (w % wm) and columns 8 * (w / wm). The wgmma
// accumulator is checked against the formula of docs/mlir22-nvptx-facts.md.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

using namespace mlir;
using namespace mlir::txl;

namespace {

using Coord = LinearLayout::Coord;

struct MmaLayoutsTest : ::testing::Test {
  MLIRContext ctx;
  MmaLayoutsTest() { ctx.loadDialect<TXLDialect>(); }

  LinearLayout layout(ArrayRef<int64_t> shape, Attribute attr) {
    std::string why;
    auto ll = LinearLayout::get(shape, attr, &why);
    if (failed(ll)) {
      ADD_FAILURE() << why;
      return LinearLayout::get({1}, BlockedAttr::get(&ctx, {1}, {32}, {1}, {0})).value();
    }
    return *ll;
  }
};

/// The register holding (row, col) relative to lane 0 of warp 0, as
/// LowerMmaSyncDot looks it up; -1 when none does.
int64_t registerAt(const LinearLayout &ll, int64_t row, int64_t col) {
  return ll.getRegAt({row, col}).value_or(-1);
}

struct Case {
  int64_t m, n, k;
  unsigned wm, wn;
};

class MmaSyncLayouts : public MmaLayoutsTest, public ::testing::WithParamInterface<Case> {};

TEST_P(MmaSyncLayouts, EveryFragmentElementIsWherePtxPutsIt) {
  Case p = GetParam();
  auto mma = NVMMAAttr::get(&ctx, 2, {p.wm, p.wn}, {16, 8, 16});
  LinearLayout c = layout({p.m, p.n}, mma);
  LinearLayout a = layout({p.m, p.k}, DotOperandAttr::get(&ctx, 0, mma, 2));
  LinearLayout b = layout({p.k, p.n}, DotOperandAttr::get(&ctx, 1, mma, 2));
  int64_t rowBlocks = std::max<int64_t>(1, p.m / (16 * p.wm));
  int64_t colBlocks = std::max<int64_t>(1, p.n / (8 * p.wn));
  // Every element of C is computed by some thread of some block.
  std::map<std::pair<int64_t, int64_t>, int> covered;
  for (int64_t w = 0; w < int64_t(p.wm * p.wn); ++w) {
    // Warps past the tile hold copies (a broadcast): their coordinates wrap.
    int64_t warpRow = 16 * (w % p.wm) % p.m, warpCol = 8 * (w / p.wm) % p.n;
    for (int64_t lane = 0; lane < 32; ++lane) {
      int64_t g = lane / 4, t = lane % 4;
      for (int64_t mi = 0; mi < rowBlocks; ++mi) {
        for (int64_t ni = 0; ni < colBlocks; ++ni) {
          int64_t row = 16 * p.wm * mi, col = 8 * p.wn * ni;
          int64_t cRow[4] = {g, g, g + 8, g + 8}, cCol[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
          int64_t cRel[4][2] = {{row, col}, {row, col + 1}, {row + 8, col}, {row + 8, col + 1}};
          for (int i = 0; i < 4; ++i) {
            int64_t r = registerAt(c, cRel[i][0], cRel[i][1]);
            ASSERT_GE(r, 0) << "C element " << i;
            Coord got = c.apply(r, lane, w);
            EXPECT_EQ(got, (Coord{warpRow + row + cRow[i], warpCol + col + cCol[i]}))
                << "C c" << i << " warp " << w << " lane " << lane << " block " << mi << "," << ni;
            covered[{got[0], got[1]}]++;
          }
          for (int64_t k0 = 0; k0 < p.k; k0 += 16) {
            // A: (rowOff, kOff) of a0..a7 relative to (row, k0).
            int64_t aRow[8] = {0, 0, 8, 8, 0, 0, 8, 8}, aK[8] = {0, 1, 0, 1, 8, 9, 8, 9};
            for (int i = 0; i < 8; ++i) {
              int64_t r = registerAt(a, row + aRow[i], k0 + aK[i]);
              ASSERT_GE(r, 0) << "A element " << i;
              EXPECT_EQ(a.apply(r, lane, w), (Coord{warpRow + row + g + aRow[i],
                                                    k0 + 2 * t + aK[i] % 2 + aK[i] / 8 * 8}))
                  << "A a" << i << " warp " << w << " lane " << lane;
            }
            int64_t bK[4] = {0, 1, 8, 9};
            for (int i = 0; i < 4; ++i) {
              int64_t r = registerAt(b, k0 + bK[i], col);
              ASSERT_GE(r, 0) << "B element " << i;
              EXPECT_EQ(b.apply(r, lane, w),
                        (Coord{k0 + 2 * t + bK[i] % 2 + bK[i] / 8 * 8, warpCol + col + g}))
                  << "B b" << i << " warp " << w << " lane " << lane;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(int64_t(covered.size()), p.m * p.n) << "every C element is computed";
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MmaSyncLayouts,
    ::testing::Values(Case{16, 64, 128, 1, 4}, // NSA: 16 query heads, 4 warps along N
                      Case{16, 128, 64, 1, 4}, // its P V
                      Case{32, 64, 64, 2, 2},  // M = 32 on 4 warps
                      Case{64, 128, 64, 4, 2}, // M = 64 on 8 warps
                      Case{16, 16, 16, 1, 4},  // N smaller than the warps: copies
                      Case{64, 64, 32, 1, 4}), // 4 16-row blocks per warp
    [](const ::testing::TestParamInfo<Case> &info) {
      Case c = info.param;
      return "m" + std::to_string(c.m) + "n" + std::to_string(c.n) + "k" + std::to_string(c.k) +
             "w" + std::to_string(c.wm) + "x" + std::to_string(c.wn);
    });

TEST_F(MmaLayoutsTest, WgmmaAccumulatorMatchesTheFragmentFormula) {
  // m64nN per warp: row = 16*warp + lane/4 + 8*((r/2)%2), col = 8*(r/4) + 2*(lane%4) + r%2.
  auto mma = NVMMAAttr::get(&ctx, 3, {4, 1}, {16, 64, 16});
  LinearLayout c = layout({64, 64}, mma);
  ASSERT_EQ(c.getNumRegs(), 32);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < 32; ++r)
        EXPECT_EQ(c.apply(r, lane, w), (Coord{16 * w + lane / 4 + 8 * ((r / 2) % 2),
                                              8 * (r / 4) + 2 * (lane % 4) + r % 2}));
}

TEST_F(MmaLayoutsTest, WgmmaLayoutsRefuseWarpsAlongN) {
  std::string why;
  auto mma = NVMMAAttr::get(&ctx, 3, {4, 2}, {16, 64, 16});
  EXPECT_TRUE(failed(LinearLayout::get({64, 64}, mma, &why)));
  EXPECT_NE(why.find("warps along N"), std::string::npos) << why;
}

// getCopies (atomics and st.async touch each element once): every element
// has exactly one holder with the copy bits clear, for broadcast (zero) bases
// and for non-zero bases that repeat earlier ones.
TEST(LinearLayoutCopies, OneHolderPerElement) {
  auto check = [](const LinearLayout &l, ArrayRef<unsigned> dims) {
    LinearLayout::Copies c = l.getCopies(dims);
    std::map<Coord, int> holders;
    for (int64_t w = 0; w < l.getNumWarps(); ++w)
      for (int64_t lane = 0; lane < l.getNumLanes(); ++lane)
        for (int64_t r = 0; r < l.getNumRegs(); ++r) {
          if ((uint64_t(r) & c.regs) || (uint64_t(lane) & c.lanes) || (uint64_t(w) & c.warps))
            continue;
          Coord full = l.apply(r, lane, w), key;
          for (unsigned d : dims)
            key.push_back(full[d]);
          ++holders[key];
        }
    for (auto &[coord, n] : holders)
      EXPECT_EQ(n, 1);
    return std::make_pair(c, holders.size());
  };
  // 4 elements on 2 lanes x 2 registers; lane bit 1 and warp bit 0 broadcast.
  LinearLayout broadcast({4}, {{1}}, {{2}, {0}}, {{0}});
  auto [b, nb] = check(broadcast, {0});
  EXPECT_EQ(nb, 4u);
  EXPECT_EQ(b.regs, 0u);
  EXPECT_EQ(b.lanes, 2u);
  EXPECT_EQ(b.warps, 1u);
  EXPECT_TRUE(b.onlyZeroBases);
  // A 2-D tile seen through dimension 0 only (a 1-D view under it): the
  // column register and the column lane repeat rows already held.
  LinearLayout rows({4, 2}, {{0, 1}, {1, 0}}, {{2, 0}, {0, 1}}, {});
  auto [r, nr] = check(rows, {0});
  EXPECT_EQ(nr, 4u);
  EXPECT_EQ(r.regs, 1u);
  EXPECT_EQ(r.lanes, 2u);
  EXPECT_TRUE(r.onlyZeroBases); // zero once projected
  // A lane basis that repeats a register basis (not a broadcast): lane 1
  // holds what lane 0 holds in other registers.
  LinearLayout repeat({4}, {{1}, {2}}, {{1}}, {});
  auto [p, np] = check(repeat, {0});
  EXPECT_EQ(np, 4u);
  EXPECT_EQ(p.regs, 0u);
  EXPECT_EQ(p.lanes, 1u);
  EXPECT_FALSE(p.onlyZeroBases);
}

} // namespace
