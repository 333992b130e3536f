// The cutting of strided copies into CUDA-shaped pieces, checked on the host: each
// piece is applied with memcpy exactly as cudaMemcpy{,2D,3D} define it, and the result
// compared with an element-by-element copy along the boxes' row-major indices.
#include "core/comm/nccl/strided_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/comm/block_layout.h"
#include "core/comm/communicator.h"
#include "core/common/shape.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

constexpr int64_t kNoPitchLimit = std::numeric_limits<int64_t>::max();

// Applies every piece of `copy` to host buffers of int64 elements (or, with
// element == 4, int32 halves of them: bytes are bytes). Checks each piece's shape on
// the way: what CUDA would reject must never be produced.
int64_t Apply(const StridedCopy& copy, int64_t element, int64_t max_pitch,
              const std::vector<char>& src, std::vector<char>& dst) {
  int64_t pieces = 0;
  const Status status = ForEachCopyPiece(copy, element, max_pitch, [&](const CopyPiece& p) {
    ++pieces;
    EXPECT_GT(p.width, 0);
    EXPECT_GE(p.height, 1);
    EXPECT_GE(p.depth, 1);
    if (p.height > 1 || p.depth > 1) {
      EXPECT_GE(p.src_pitch, p.width);
      EXPECT_GE(p.dst_pitch, p.width);
      EXPECT_LE(p.src_pitch, max_pitch);
      EXPECT_LE(p.dst_pitch, max_pitch);
    }
    if (p.depth > 1) {
      EXPECT_GE(p.src_rows, p.height);
      EXPECT_GE(p.dst_rows, p.height);
    }
    for (int64_t z = 0; z < p.depth; ++z) {
      for (int64_t y = 0; y < p.height; ++y) {
        const int64_t from = p.src + (z * p.src_rows + y) * p.src_pitch;
        const int64_t to = p.dst + (z * p.dst_rows + y) * p.dst_pitch;
        if (from < 0 || to < 0 || from + p.width > static_cast<int64_t>(src.size()) ||
            to + p.width > static_cast<int64_t>(dst.size())) {
          ADD_FAILURE() << "piece row outside the buffers";
          return Status::Ok();
        }
        std::memcpy(dst.data() + to, src.data() + from, p.width);
      }
    }
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return pieces;
}

// Distinct bytes, so a misplaced byte shows.
std::vector<char> Pattern(int64_t bytes, int seed) {
  std::vector<char> out(bytes);
  for (int64_t b = 0; b < bytes; ++b) out[b] = static_cast<char>((b * 7 + seed * 13 + 1) % 251);
  return out;
}

// dst element dst_index[e] = src element src_index[e]; every other byte of dst as before.
std::vector<char> Expected(const std::vector<char>& src, const std::vector<int64_t>& src_index,
                           std::vector<char> dst, const std::vector<int64_t>& dst_index,
                           int64_t element) {
  for (size_t e = 0; e < src_index.size(); ++e) {
    std::memcpy(dst.data() + dst_index[e] * element, src.data() + src_index[e] * element, element);
  }
  return dst;
}

std::vector<int64_t> Iota(int64_t from, int64_t count) {
  std::vector<int64_t> out(count);
  for (int64_t k = 0; k < count; ++k) out[k] = from + k;
  return out;
}

BlockView Box(const Shape& tensor, std::vector<int64_t> begin, const Shape& box) {
  return BlockView::Box(tensor, begin.data(), box);
}

// Row pitch limits that force each way of cutting: none, rows only up to 3 elements
// wide pitches, and no rows at all (one plain copy per run).
std::vector<int64_t> PitchLimits(int64_t element) { return {kNoPitchLimit, 3 * element, 0}; }

TEST(StridedCopyTest, PackAndUnpackRandomBlocks) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const BlockView block = RandomBlock(rng, 5);
    const BlockLayout layout = BlockLayout::Of(block);
    const std::vector<int64_t> index = BoxIndices(block);
    const int64_t n = block.num_elements(), extent = block.tensor.num_elements();
    const int64_t shift = 2;  // the packed image starts 2 elements into its buffer
    for (int64_t element : {int64_t{4}, int64_t{8}}) {
      for (int64_t max_pitch : PitchLimits(element)) {
        const std::vector<char> tensor = Pattern(extent * element, 1);
        const std::vector<char> packed_before = Pattern((n + shift + 1) * element, 2);
        std::vector<char> packed = packed_before;
        Apply(StridedCopy::Pack(layout, shift), element, max_pitch, tensor, packed);
        EXPECT_EQ(packed, Expected(tensor, index, packed_before, Iota(shift, n), element))
            << "pack " << block.box.ToString() << " of " << block.tensor.ToString() << " max_pitch "
            << max_pitch;

        const std::vector<char> source = Pattern((n + shift) * element, 3);
        const std::vector<char> tensor_before = Pattern(extent * element, 4);
        std::vector<char> unpacked = tensor_before;
        Apply(StridedCopy::Unpack(shift, layout), element, max_pitch, source, unpacked);
        EXPECT_EQ(unpacked, Expected(source, Iota(shift, n), tensor_before, index, element))
            << "unpack " << block.box.ToString() << " of " << block.tensor.ToString()
            << " max_pitch " << max_pitch;
      }
    }
  }
}

TEST(StridedCopyTest, BetweenBlocksOfTheSameShape) {
  std::mt19937 rng(5);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int tried = 0, strided = 0;
  for (int trial = 0; trial < 3000 && tried < 200; ++trial) {
    // The same box somewhere in another tensor: often strided differently, sometimes
    // folded differently (then the layouts differ and the pair is not a Between copy).
    const BlockView from = RandomBlock(rng, 5);
    const int ndim = from.box.ndim();
    std::vector<int64_t> dims(ndim), begin(ndim);
    for (int d = 0; d < ndim; ++d) {
      dims[d] = from.box.dim(d) + uniform(0, 2);
      begin[d] = uniform(0, dims[d] - from.box.dim(d));
    }
    const BlockView to = Box(Shape::Make(dims).value(), begin, from.box);
    const BlockLayout a = BlockLayout::Of(from), b = BlockLayout::Of(to);
    if (a.empty() || !a.SameShapeAs(b)) continue;
    ++tried;
    strided += a.levels > 0 && a.stride[0] != b.stride[0];
    for (int64_t max_pitch : PitchLimits(8)) {
      const std::vector<char> src = Pattern(from.tensor.num_elements() * 8, 5);
      const std::vector<char> before = Pattern(to.tensor.num_elements() * 8, 6);
      std::vector<char> dst = before;
      Apply(StridedCopy::Between(a, b), 8, max_pitch, src, dst);
      EXPECT_EQ(dst, Expected(src, BoxIndices(from), before, BoxIndices(to), 8))
          << from.box.ToString() << " of " << from.tensor.ToString() << " -> " << to.box.ToString()
          << " of " << to.tensor.ToString();
    }
  }
  EXPECT_EQ(tried, 200) << "too few same-shaped pairs drawn";
  EXPECT_GE(strided, 50) << "too few pairs strided differently on the two sides";
}

TEST(StridedCopyTest, InnerTwoLevelsGoIntoOnePiece) {
  // Columns 1..2, depth 1..3 of a [4,6,5] tensor: two levels, so one 3-d piece.
  const BlockLayout two = BlockLayout::Of(Box(Shape{4, 6, 5}, {0, 1, 1}, Shape{4, 2, 3}));
  ASSERT_EQ(two.levels, 2);
  std::vector<CopyPiece> pieces;
  auto keep = [&pieces](const CopyPiece& p) {
    pieces.push_back(p);
    return Status::Ok();
  };
  ASSERT_TRUE(ForEachCopyPiece(StridedCopy::Pack(two, 0), 4, kNoPitchLimit, keep).ok());
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].src, (5 + 1) * 4);
  EXPECT_EQ(pieces[0].width, 3 * 4);
  EXPECT_EQ(pieces[0].height, 2);
  EXPECT_EQ(pieces[0].depth, 4);
  EXPECT_EQ(pieces[0].src_pitch, 5 * 4);
  EXPECT_EQ(pieces[0].src_rows, 6);
  EXPECT_EQ(pieces[0].dst_pitch, 3 * 4);
  EXPECT_EQ(pieces[0].dst_rows, 2);

  // A third level is looped over: one piece per step of it.
  const BlockLayout three =
      BlockLayout::Of(Box(Shape{3, 4, 6, 5}, {1, 0, 1, 1}, Shape{2, 3, 2, 3}));
  ASSERT_EQ(three.levels, 3);
  pieces.clear();
  ASSERT_TRUE(ForEachCopyPiece(StridedCopy::Pack(three, 0), 4, kNoPitchLimit, keep).ok());
  EXPECT_EQ(pieces.size(), 2u);
  // Pitches beyond the limit: one plain copy per run.
  pieces.clear();
  ASSERT_TRUE(ForEachCopyPiece(StridedCopy::Pack(three, 0), 4, 0, keep).ok());
  EXPECT_EQ(pieces.size(), 2u * 3 * 2);
  for (const CopyPiece& p : pieces) EXPECT_EQ(p.height * p.depth, 1);
}

TEST(StridedCopyTest, DenseLevelsFoldIntoTheRun) {
  StridedCopy copy;
  copy.run = 3;
  copy.levels = 2;
  copy.count[0] = 4;
  copy.count[1] = 2;
  copy.src_stride[0] = copy.dst_stride[0] = 3;  // dense on both sides
  copy.src_stride[1] = 20;
  copy.dst_stride[1] = 12;
  int64_t calls = 0;
  CopyPiece seen;
  ASSERT_TRUE(ForEachCopyPiece(copy, 8, kNoPitchLimit, [&](const CopyPiece& p) {
                ++calls;
                seen = p;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen.width, 12 * 8);
  EXPECT_EQ(seen.height, 2);
  EXPECT_EQ(seen.depth, 1);
  EXPECT_EQ(seen.src_pitch, 20 * 8);
  EXPECT_EQ(seen.dst_pitch, 12 * 8);
}

TEST(StridedCopyTest, EmptyCopiesEmitNothingAndErrorsStopTheLoop) {
  int64_t calls = 0;
  auto count = [&calls](const CopyPiece&) {
    ++calls;
    return Status::Ok();
  };
  ASSERT_TRUE(ForEachCopyPiece(StridedCopy::Pack(BlockLayout::Of(BlockView::Run(4, 0)), 0), 4,
                               kNoPitchLimit, count)
                  .ok());
  EXPECT_EQ(calls, 0);

  const BlockLayout three =
      BlockLayout::Of(Box(Shape{3, 4, 6, 5}, {0, 0, 1, 1}, Shape{3, 4, 2, 3}));
  calls = 0;
  const Status status = ForEachCopyPiece(StridedCopy::Pack(three, 0), 4, 0, [&](const CopyPiece&) {
    return ++calls == 2 ? Internal("second piece refused") : Status::Ok();
  });
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(), "second piece refused");
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace tessera::comm
