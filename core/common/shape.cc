#include "core/common/shape.h"

#include <cstdio>
#include <cstdlib>

#include "core/common/hash.h"

namespace tessera {

Result<Shape> Shape::Make(const int64_t* dims, size_t ndim) {
  if (ndim > static_cast<size_t>(kMaxDims)) {
    return InvalidArgument("shape has " + std::to_string(ndim) + " dims; at most " +
                           std::to_string(kMaxDims) + " are supported");
  }
  if (ndim > 0 && dims == nullptr) {
    return InvalidArgument("shape dims pointer is NULL but ndim is " + std::to_string(ndim));
  }
  Shape s;
  s.ndim_ = static_cast<int>(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    if (dims[i] < 0) {
      return InvalidArgument("shape dim " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                             "; dims must be >= 0");
    }
    s.dims_[i] = dims[i];
  }
  return s;
}

Shape::Shape(std::initializer_list<int64_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxDims)) {
    std::fprintf(stderr, "tessera: Shape literal with %zu dims\n", dims.size());
    std::abort();
  }
  for (int64_t d : dims) {
    if (d < 0) {
      std::fprintf(stderr, "tessera: Shape literal with negative dim\n");
      std::abort();
    }
    dims_[ndim_++] = d;
  }
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int i = 0; i < ndim_; ++i) n *= dims_[i];
  return n;
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (int i = 0; i < ndim_; ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

size_t Shape::Hash() const {
  size_t h = HashCombine(0, static_cast<size_t>(ndim_));
  for (int i = 0; i < ndim_; ++i) h = HashCombine(h, static_cast<size_t>(dims_[i]));
  return h;
}

bool operator==(const Shape& a, const Shape& b) {
  if (a.ndim_ != b.ndim_) return false;
  for (int i = 0; i < a.ndim_; ++i) {
    if (a.dims_[i] != b.dims_[i]) return false;
  }
  return true;
}

}  // namespace tessera
