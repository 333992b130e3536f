#include "core/boxing/box_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/comm/nccl/strided_copy.h"

namespace tessera::boxing {
namespace {

using comm::CopyPiece;
using comm::StridedCopy;

Shape S(std::vector<int64_t> dims) { return Shape::Make(dims.data(), dims.size()).value(); }

// What cudaMemcpyAsync / 2DAsync / 3DAsync do with one piece, done on the host:
// `depth` slices of `height` rows of `width` bytes.
void ApplyPiece(const CopyPiece& p, const char* src, char* dst) {
  for (int64_t z = 0; z < p.depth; ++z) {
    for (int64_t y = 0; y < p.height; ++y) {
      std::memcpy(dst + p.dst + (z * p.dst_rows + y) * p.dst_pitch,
                  src + p.src + (z * p.src_rows + y) * p.src_pitch, p.width);
    }
  }
}

// Oracle: every element of the box, its coordinates by division of its flat index.
void ElementwiseCopy(const std::vector<int64_t>& src, const Shape& ss, const int64_t* sb,
                     std::vector<int64_t>& dst, const Shape& ds, const int64_t* db,
                     const Shape& box) {
  for (int64_t k = 0; k < box.num_elements(); ++k) {
    int64_t rest = k, s = 0, d = 0, s_stride = 1, d_stride = 1;
    for (int a = box.ndim() - 1; a >= 0; --a) {
      const int64_t i = rest % box.dim(a);
      rest /= box.dim(a);
      s += (sb[a] + i) * s_stride;
      d += (db[a] + i) * d_stride;
      s_stride *= ss.dim(a);
      d_stride *= ds.dim(a);
    }
    dst[d] = src[s];
  }
}

// Copies through StridedCopyOfBox + ForEachCopyPiece (host-emulated CUDA calls) and
// compares every element of dst, inside the box and out, with the oracle.
void Check(const Shape& ss, std::vector<int64_t> sb, const Shape& ds, std::vector<int64_t> db,
           const Shape& box, int64_t max_pitch, int* pieces = nullptr) {
  std::vector<int64_t> src(ss.num_elements()), want(ds.num_elements(), -1);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int64_t>(i) * 7 + 3;
  std::vector<int64_t> got = want;
  ElementwiseCopy(src, ss, sb.data(), want, ds, db.data(), box);
  const StridedCopy copy = StridedCopyOfBox(ss, sb.data(), ds, db.data(), box);
  int count = 0;
  Status s = comm::ForEachCopyPiece(copy, sizeof(int64_t), max_pitch, [&](const CopyPiece& p) {
    ApplyPiece(p, reinterpret_cast<const char*>(src.data()), reinterpret_cast<char*>(got.data()));
    ++count;
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, want) << "src " << ss.ToString() << " dst " << ds.ToString() << " box "
                       << box.ToString();
  if (pieces != nullptr) *pieces = count;
}

constexpr int64_t kWide = int64_t{1} << 40;  // no pitch limit in practice

TEST(StridedCopyOfBoxTest, AContiguousBoxIsOneRun) {
  const int64_t zero[3] = {0, 0, 0}, at[3] = {2, 0, 0};
  StridedCopy c = StridedCopyOfBox(S({4, 3, 5}), at, S({2, 3, 5}), zero, S({2, 3, 5}));
  EXPECT_EQ(c.run, 30);
  EXPECT_EQ(c.levels, 0);
  EXPECT_EQ(c.src_offset, 2 * 15);
  EXPECT_EQ(c.dst_offset, 0);
}

TEST(StridedCopyOfBoxTest, ASlabAlongAnInnerDimIsRowsOfRuns) {
  // Columns 1..2 of a [4,5] tensor into a dense [4,2] one: 4 rows of 2, pitches 5 and 2.
  const int64_t at[2] = {0, 1}, zero[2] = {0, 0};
  StridedCopy c = StridedCopyOfBox(S({4, 5}), at, S({4, 2}), zero, S({4, 2}));
  EXPECT_EQ(c.run, 2);
  ASSERT_EQ(c.levels, 1);
  EXPECT_EQ(c.count[0], 4);
  EXPECT_EQ(c.src_stride[0], 5);
  EXPECT_EQ(c.dst_stride[0], 2);
  EXPECT_EQ(c.src_offset, 1);
}

TEST(StridedCopyOfBoxTest, UnitDimsVanishAndEvenLevelsMerge) {
  // Box [1,3,1,4] in [2,3,6,4] -> dst [3,4] (same elements as [3,1,4] rows): the dims
  // of extent 1 vanish; dst is contiguous but src strides 24 between the 3 runs of 4.
  const int64_t sb[4] = {1, 0, 5, 0}, db[4] = {0, 0, 0, 0};
  StridedCopy c = StridedCopyOfBox(S({2, 3, 6, 4}), sb, S({1, 3, 1, 4}), db, S({1, 3, 1, 4}));
  EXPECT_EQ(c.run, 4);
  ASSERT_EQ(c.levels, 1);
  EXPECT_EQ(c.count[0], 3);
  EXPECT_EQ(c.src_stride[0], 24);
  EXPECT_EQ(c.dst_stride[0], 4);
  EXPECT_EQ(c.src_offset, 72 + 20);
  // [2,3] rows of 2 out of [2,3,5] into [2,3,2]: dims 0 and 1 continue each other on
  // both sides (strides 15 = 5 * 3 and 6 = 2 * 3), so one level of 6 rows.
  const int64_t zero[3] = {0, 0, 0};
  c = StridedCopyOfBox(S({2, 3, 5}), zero, S({2, 3, 2}), zero, S({2, 3, 2}));
  EXPECT_EQ(c.run, 2);
  ASSERT_EQ(c.levels, 1);
  EXPECT_EQ(c.count[0], 6);
}

TEST(StridedCopyOfBoxTest, AnEmptyBoxCopiesNothing) {
  const int64_t zero[2] = {0, 0};
  StridedCopy c = StridedCopyOfBox(S({4, 0}), zero, S({4, 0}), zero, S({4, 0}));
  EXPECT_EQ(c.run, 0);
  int calls = 0;
  ASSERT_TRUE(comm::ForEachCopyPiece(c, 4, kWide, [&](const CopyPiece&) {
                ++calls;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(calls, 0);
}

TEST(StridedCopyOfBoxTest, PiecesMatchTheElementwiseCopy) {
  int pieces = 0;
  // One run; one 2-d piece; one 3-d piece; a 4-d box that needs a loop.
  Check(S({6, 4}), {2, 0}, S({3, 4}), {0, 0}, S({3, 4}), kWide, &pieces);
  EXPECT_EQ(pieces, 1);
  Check(S({6, 4}), {1, 1}, S({5, 7}), {2, 3}, S({3, 2}), kWide, &pieces);
  EXPECT_EQ(pieces, 1);
  Check(S({4, 5, 6}), {1, 1, 2}, S({3, 4, 8}), {0, 0, 1}, S({2, 3, 3}), kWide, &pieces);
  EXPECT_EQ(pieces, 1);
  Check(S({3, 4, 5, 6}), {1, 1, 1, 2}, S({2, 4, 3, 8}), {0, 0, 0, 1}, S({2, 3, 2, 3}), kWide,
        &pieces);
  EXPECT_EQ(pieces, 2);
  // A pitch over the limit: the rows are looped over, one run per piece.
  Check(S({6, 4}), {1, 1}, S({5, 7}), {2, 3}, S({3, 2}), /*max_pitch=*/40, &pieces);
  EXPECT_EQ(pieces, 3);
}

TEST(StridedCopyOfBoxTest, RandomBoxesMatchTheElementwiseCopy) {
  std::mt19937 rng(12345);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 400; ++trial) {
    const int ndim = static_cast<int>(uniform(1, 5));
    std::vector<int64_t> box(ndim), ss(ndim), ds(ndim), sb(ndim), db(ndim);
    for (int d = 0; d < ndim; ++d) {
      box[d] = uniform(0, 4) == 0 ? 1 : uniform(1, 4);
      // Often a full cover on one side or both, so runs fold.
      sb[d] = uniform(0, 1) ? 0 : uniform(0, 2);
      db[d] = uniform(0, 1) ? 0 : uniform(0, 2);
      ss[d] = sb[d] + box[d] + (uniform(0, 1) ? 0 : uniform(0, 2));
      ds[d] = db[d] + box[d] + (uniform(0, 1) ? 0 : uniform(0, 2));
    }
    const int64_t pitch = uniform(0, 2) == 0 ? 8 * uniform(1, 6) : kWide;
    SCOPED_TRACE("trial " + std::to_string(trial) + " max_pitch " + std::to_string(pitch));
    Check(S(ss), sb, S(ds), db, S(box), pitch);
  }
}

}  // namespace
}  // namespace tessera::boxing
