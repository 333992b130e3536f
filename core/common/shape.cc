#include "core/common/shape.h"

#include <cstdio>
#include <cstdlib>

#include "core/common/checked_math.h"
#include "core/common/hash.h"

namespace tessera {
namespace {

// The product of the nonzero dims; false when it overflows int64_t.
bool NonzeroProduct(const int64_t* dims, int ndim, int64_t* out) {
  int64_t p = 1;
  for (int i = 0; i < ndim; ++i) {
    if (dims[i] != 0 && !CheckedMul(p, dims[i], &p)) return false;
  }
  *out = p;
  return true;
}

}  // namespace

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
  int64_t product = 0;
  if (!NonzeroProduct(s.dims_, s.ndim_, &product)) {
    return InvalidArgument("shape " + s.ToString() +
                           ": the element count overflows int64 (the product of the nonzero "
                           "dims must be at most 2^63-1)");
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

Status Shape::CheckByteSize(size_t dtype_size, const char* dtype_name) const {
  int64_t bytes = 0;
  if (!CheckedMul(num_elements(), static_cast<int64_t>(dtype_size), &bytes)) {
    return InvalidArgument("shape " + ToString() + " of " + dtype_name + " has " +
                           std::to_string(num_elements()) + " elements of " +
                           std::to_string(dtype_size) +
                           " bytes: the byte size overflows int64 (at most 2^63-1 bytes)");
  }
  return Status::Ok();
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
