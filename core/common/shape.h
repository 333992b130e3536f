// A logical or physical tensor shape. Dims live inline (no heap), so shapes can be
// copied and hashed on hot paths such as inference-cache lookups.
#ifndef TESSERA_CORE_COMMON_SHAPE_H_
#define TESSERA_CORE_COMMON_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace tessera {

class Shape {
 public:
  static constexpr int kMaxDims = 8;

  // A scalar (0 dims).
  Shape() = default;
  // Checked construction: at most kMaxDims dims, each >= 0, and the product of the
  // nonzero dims fits int64_t, so the element count of the shape and of every shape
  // made from a subset of its dims (a reduction, a slice of a split) fits too.
  static Result<Shape> Make(const int64_t* dims, size_t ndim);
  static Result<Shape> Make(const std::vector<int64_t>& dims) {
    return Make(dims.data(), dims.size());
  }
  // For literals in code and tests; CHECK-fails on a bad literal (a programmer bug).
  // The element count is not checked here: tests build overflowing shapes on purpose
  // to exercise the checks of the layers below Make (register layouts, Blob).
  Shape(std::initializer_list<int64_t> dims);

  int ndim() const { return ndim_; }
  int64_t dim(int i) const { return dims_[i]; }
  void set_dim(int i, int64_t value) { dims_[i] = value; }
  const int64_t* data() const { return dims_; }
  // Never overflows for a shape from Make (input always enters through it).
  int64_t num_elements() const;
  std::vector<int64_t> ToVector() const { return {dims_, dims_ + ndim_}; }

  // "[6,5]"; a scalar is "[]".
  std::string ToString() const;
  size_t Hash() const;

  // INVALID_ARGUMENT naming the shape, dtype and byte size unless num_elements() *
  // DTypeSize(dtype) (`dtype_size`, its name `dtype_name`) fits int64_t. The one check
  // every entry that pairs a shape with a dtype runs (TensorMeta, BoxingLayouts).
  Status CheckByteSize(size_t dtype_size, const char* dtype_name) const;

  friend bool operator==(const Shape& a, const Shape& b);
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  int ndim_ = 0;
  int64_t dims_[kMaxDims] = {};
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_SHAPE_H_
