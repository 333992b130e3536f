#include "core/plan/register_blob.h"

namespace tessera::plan {

Shape Blob::shape() const {
  if (reg_ == nullptr) return Shape();
  Shape shape = reg_->desc.shape;  // right ndim; the dims come from the header
  for (int i = 0; i < shape.ndim(); ++i) shape.set_dim(i, header_[i]);
  return shape;
}

Status Blob::set_shape(const Shape& shape) {
  if (reg_ == nullptr) return InvalidArgument("Blob::set_shape: the blob is an empty view");
  const RegisterDesc& desc = reg_->desc;
  // Built only on error: the success path allocates nothing.
  auto who = [&] {
    return RegisterName("Blob::set_shape:", desc, register_id_) + " copy " + std::to_string(copy_);
  };
  if (shape.ndim() != desc.shape.ndim()) {
    return InvalidArgument(who() + ": shape " + shape.ToString() + " has " +
                           std::to_string(shape.ndim()) + " dims; the register's static shape " +
                           desc.shape.ToString() + " has " + std::to_string(desc.shape.ndim()));
  }
  // Elements counted with a cap so a huge shape cannot overflow: anything past the static
  // count is rejected anyway.
  const int64_t capacity = reg_->layout.data_bytes / static_cast<int64_t>(DTypeSize(desc.dtype));
  int64_t elements = 1;
  for (int i = 0; i < shape.ndim(); ++i) {
    const int64_t dim = shape.dim(i);
    if (dim < 0) {
      return InvalidArgument(who() + ": shape " + shape.ToString() + " has negative dim " +
                             std::to_string(i));
    }
    if (elements != 0 && dim > capacity / elements) {
      elements = capacity + 1;  // too many; keep scanning for negative dims
    } else {
      elements *= dim;
    }
  }
  if (elements > capacity) {
    return InvalidArgument(who() + ": shape " + shape.ToString() +
                           " has more elements than the static shape " + desc.shape.ToString() +
                           " (" + std::to_string(capacity) + ") the body is sized for");
  }
  for (int i = 0; i < shape.ndim(); ++i) header_[i] = shape.dim(i);
  return Status::Ok();
}

}  // namespace tessera::plan
