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
  // Checked construction: at most kMaxDims dims, each >= 0.
  static Result<Shape> Make(const int64_t* dims, size_t ndim);
  static Result<Shape> Make(const std::vector<int64_t>& dims) {
    return Make(dims.data(), dims.size());
  }
  // For literals in code and tests; CHECK-fails on a bad literal (a programmer bug).
  Shape(std::initializer_list<int64_t> dims);

  int ndim() const { return ndim_; }
  int64_t dim(int i) const { return dims_[i]; }
  void set_dim(int i, int64_t value) { dims_[i] = value; }
  const int64_t* data() const { return dims_; }
  int64_t num_elements() const;
  std::vector<int64_t> ToVector() const { return {dims_, dims_ + ndim_}; }

  // "[6,5]"; a scalar is "[]".
  std::string ToString() const;
  size_t Hash() const;

  friend bool operator==(const Shape& a, const Shape& b);
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  int ndim_ = 0;
  int64_t dims_[kMaxDims] = {};
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_SHAPE_H_
