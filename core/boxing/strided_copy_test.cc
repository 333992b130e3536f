#include "core/boxing/strided_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tessera::boxing {
namespace {

// Row-major flat index of `idx` in `shape`.
int64_t Flat(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (int i = 0; i < shape.ndim(); ++i) f = f * shape.dim(i) + idx[i];
  return f;
}

// Oracle: element-by-element copy with an explicit odometer.
void NaiveCopy(const std::vector<int32_t>& src, const Shape& ss, const std::vector<int64_t>& sb,
               std::vector<int32_t>& dst, const Shape& ds, const std::vector<int64_t>& db,
               const Shape& box) {
  if (box.num_elements() == 0) return;
  std::vector<int64_t> i(box.ndim(), 0);
  for (;;) {
    std::vector<int64_t> si(box.ndim()), di(box.ndim());
    for (int d = 0; d < box.ndim(); ++d) {
      si[d] = sb[d] + i[d];
      di[d] = db[d] + i[d];
    }
    dst[Flat(ds, di)] = src[Flat(ss, si)];
    int d = box.ndim() - 1;
    for (; d >= 0; --d) {
      if (++i[d] < box.dim(d)) break;
      i[d] = 0;
    }
    if (d < 0) return;
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
