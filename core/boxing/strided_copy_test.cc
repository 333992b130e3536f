#include "core/boxing/strided_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tessera::boxing {
namespace {

// Oracle: element-by-element copy with an explicit odometer (no allocation per
// element: the streaming-store cases copy millions of them, also under ASan).
void NaiveCopy(const std::vector<int32_t>& src, const Shape& ss, const std::vector<int64_t>& sb,
               std::vector<int32_t>& dst, const Shape& ds, const std::vector<int64_t>& db,
               const Shape& box) {
  if (box.num_elements() == 0) return;
  const int n = box.ndim();
  int64_t i[Shape::kMaxDims] = {};
  for (;;) {
    int64_t s = 0, d = 0;
    for (int k = 0; k < n; ++k) {
      s = s * ss.dim(k) + sb[k] + i[k];
      d = d * ds.dim(k) + db[k] + i[k];
    }
    dst[d] = src[s];
    int k = n - 1;
    for (; k >= 0; --k) {
      if (++i[k] < box.dim(k)) break;
      i[k] = 0;
    }
    if (k < 0) return;
  }
}

void Check(const Shape& ss, const std::vector<int64_t>& sb, const Shape& ds,
           const std::vector<int64_t>& db, const Shape& box) {
  std::vector<int32_t> src(ss.num_elements());
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<int32_t>(k * 7 + 1);
  std::vector<int32_t> got(ds.num_elements(), -1), want(ds.num_elements(), -1);
  NaiveCopy(src, ss, sb, want, ds, db, box);
  CopyBox(src.data(), ss, sb.data(), got.data(), ds, db.data(), box, sizeof(int32_t));
  EXPECT_EQ(got, want) << "src " << ss.ToString() << " dst " << ds.ToString() << " box "
                       << box.ToString();
}

TEST(CopyBoxTest, ContiguousWholeTensor) { Check({4, 5}, {0, 0}, {4, 5}, {0, 0}, {4, 5}); }

TEST(CopyBoxTest, RowSlabIsOneRun) { Check({6, 5}, {2, 0}, {3, 5}, {0, 0}, {3, 5}); }

TEST(CopyBoxTest, ColumnSliceOfEachRow) { Check({4, 6}, {0, 2}, {4, 3}, {0, 0}, {4, 3}); }

TEST(CopyBoxTest, MiddleAxisOf3d) {
  Check({3, 7, 2}, {0, 3, 0}, {3, 2, 2}, {0, 0, 0}, {3, 2, 2});
  Check({3, 2, 2}, {0, 0, 0}, {3, 7, 2}, {0, 5, 0}, {3, 2, 2});
}

TEST(CopyBoxTest, LastAxisOf4d) {
  Check({2, 3, 2, 5}, {0, 0, 0, 1}, {2, 3, 2, 3}, {0, 0, 0, 0}, {2, 3, 2, 3});
}

TEST(CopyBoxTest, TwoAxesOffsetOnBothSides) {
  // The S(i) -> S(j) own block: src restricted along one axis, dst along another.
  Check({2, 5, 4}, {0, 0, 2}, {5, 2, 2}, {3, 0, 0}, {2, 2, 2});
}

TEST(CopyBoxTest, EmptyBoxCopiesNothing) {
  CopyBox(nullptr, Shape{3, 0}, std::vector<int64_t>{0, 0}.data(), nullptr, Shape{3, 0},
          std::vector<int64_t>{0, 0}.data(), Shape{3, 0}, 4);
}

TEST(CopyBoxTest, Scalar) {
  int64_t v = 42, w = 0;
  CopyBox(&v, Shape{}, nullptr, &w, Shape{}, nullptr, Shape{}, sizeof(v));
  EXPECT_EQ(w, 42);
}

TEST(CopyBoxTest, EightDims) {
  Check({2, 1, 2, 1, 2, 3, 1, 2}, {0, 0, 1, 0, 0, 1, 0, 0}, {2, 1, 1, 1, 2, 2, 1, 2},
        {0, 0, 0, 0, 0, 0, 0, 0}, {2, 1, 1, 1, 2, 2, 1, 2});
}

TEST(CopyBoxTest, RunsLongerThanOneCopyBlock) {
  // Rows of 1.5 blocks (in int32s) and a whole tensor of several blocks: the block
  // loop must cover every byte, including the short tail.
  const int64_t row = static_cast<int64_t>(kCopyBlockBytes / sizeof(int32_t)) * 3 / 2 + 5;
  Check({3, row}, {0, 0}, {3, row}, {0, 0}, {3, row});
  Check({4, row}, {1, 0}, {2, row}, {0, 0}, {2, row});
  Check({2, 2 * row}, {0, 3}, {2, row}, {0, 0}, {2, row});
}

// Byte-sized elements at byte offsets: every run length from 1 to 300 bytes (below,
// at and above the 16-, 32- and 128-byte steps of the inlined run copy) at source and
// destination offsets that are not multiples of any vector width.
TEST(CopyBoxTest, EveryShortRunLengthAtUnalignedOffsets) {
  for (int64_t run = 1; run <= 300; ++run) {
    const Shape src{5, run + 7}, dst{5, run + 3};
    std::vector<unsigned char> in(src.num_elements());
    for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<unsigned char>(k * 13 + 5);
    std::vector<unsigned char> got(dst.num_elements(), 0xEE), want = got;
    const int64_t sb[2] = {1, 5}, db[2] = {0, 1};
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t c = 0; c < run; ++c) {
        want[(db[0] + r) * dst.dim(1) + db[1] + c] = in[(sb[0] + r) * src.dim(1) + sb[1] + c];
      }
    }
    CopyBox(in.data(), src, sb, got.data(), dst, db, Shape{4, run}, 1);
    ASSERT_EQ(got, want) << "run of " << run << " bytes";
  }
}

// Runs around the inlined-loop limit (8 KB) and the memcpy path above it, with odd
// element counts so the last vector of each run overlaps the one before it.
TEST(CopyBoxTest, RunsAroundTheInlineLimit) {
  for (int64_t run : {2047, 2048, 2049, 4097}) {  // int32s: 8188 to 16388 bytes
    Check({3, run + 3}, {0, 1}, {3, run}, {0, 0}, {3, run});
    Check({3, run}, {0, 0}, {4, run + 5}, {1, 2}, {3, run});
  }
}

// Boxes of 8 MB and more with runs of 256 bytes and more take the streaming-store
// path: an unaligned destination (head and tail stores), a short row, and 3-d.
TEST(CopyBoxTest, LargeBoxesWithStreamingStores) {
  Check({1025, 2049}, {0, 1}, {1025, 2047}, {0, 0}, {1025, 2047});  // 8.4 MB, runs 8188 B
  Check({2100, 1100}, {3, 7}, {2098, 1030}, {1, 3}, {2097, 1025});  // runs 4100 B, odd offsets
  Check({33, 1024, 67}, {0, 0, 1}, {33, 1024, 64}, {0, 0, 0}, {33, 1024, 64});  // runs 256 B
}

// 1-d to 4-d boxes with short odd runs at offsets on both sides, against the
// element-by-element oracle.
TEST(CopyBoxTest, OddRunsInOneToFourDims) {
  Check({37}, {3}, {40}, {5}, {31});
  Check({9, 37}, {2, 3}, {8, 34}, {1, 2}, {5, 31});
  Check({4, 9, 37}, {1, 2, 3}, {3, 8, 34}, {0, 1, 2}, {2, 5, 31});
  Check({3, 4, 9, 37}, {1, 1, 2, 3}, {2, 3, 8, 34}, {0, 0, 1, 2}, {2, 2, 5, 31});
  Check({3, 4, 9, 3}, {1, 1, 2, 1}, {2, 3, 8, 2}, {0, 0, 1, 0}, {2, 2, 5, 2});  // 8-byte runs
}

// Byte patterns against a byte-by-byte copy, for sizes around the block size.
TEST(CopyBytesTest, CopiesEveryByteAroundTheBlockSize) {
  const size_t block = kCopyBlockBytes;
  for (size_t bytes : {size_t{1}, size_t{63}, block - 1, block, block + 1, 3 * block + 17}) {
    std::vector<unsigned char> src(bytes + 2), got(bytes + 2, 0xEE);
    for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 31 + 7);
    std::vector<unsigned char> want = got;
    for (size_t k = 0; k < bytes; ++k) want[k + 1] = src[k + 1];
    // Offsets of one byte: unaligned on both sides, and the guard bytes stay.
    CopyBytes(got.data() + 1, src.data() + 1, bytes);
    EXPECT_EQ(got, want) << bytes << " bytes";
  }
}

TEST(CopyBytesTest, ZeroBytesAcceptsNull) {
  CopyBytes(nullptr, nullptr, 0);
  unsigned char a = 1, b = 2;
  CopyBytes(&a, &b, 0);
  EXPECT_EQ(a, 1);
}

}  // namespace
}  // namespace tessera::boxing
