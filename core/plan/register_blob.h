// Blob: a view of one copy of one register in a RegisterManager's memory: the header (the
// current shape, ndim int64s) and the body (the elements). A Blob owns nothing and is valid
// while its RegisterManager lives; making and copying one never allocates.
//
// The header of a device register lives in host memory (register_desc.h), so shape() and
// set_shape() work for every memory case; the body of a device register is device memory.
#ifndef TESSERA_CORE_PLAN_REGISTER_BLOB_H_
#define TESSERA_CORE_PLAN_REGISTER_BLOB_H_

#include <cstdint>

#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/plan/mem_plan.h"

namespace tessera::plan {

class Blob {
 public:
  // An empty view: register() is null.
  Blob() = default;
  // For RegisterManager: `header` holds reg->desc.shape.ndim() int64s.
  Blob(const PlannedRegister* reg, int64_t register_id, int copy, int64_t* header, void* body)
      : reg_(reg), register_id_(register_id), copy_(copy), header_(header), body_(body) {}

  const PlannedRegister* register_info() const { return reg_; }
  int64_t register_id() const { return register_id_; }
  int copy() const { return copy_; }
  // Null only for an empty view. A scalar's header points at 0 bytes.
  int64_t* header() const { return header_; }
  void* body() const { return body_; }
  // Bytes of the body (512-rounded); set_shape accepts up to the static shape's bytes.
  int64_t body_bytes() const { return reg_->layout.body_bytes; }

  // The shape in the header: the static shape until set_shape changes it. No allocation.
  Shape shape() const;
  // Writes `shape` into the header. INVALID_ARGUMENT when the view is empty, when `shape`
  // has a different ndim than the register's static shape, a negative dim, or more
  // elements than the static shape (the body is sized for the static shape); the message
  // names the register and both shapes. The header is unchanged on error.
  Status set_shape(const Shape& shape);

 private:
  const PlannedRegister* reg_ = nullptr;
  int64_t register_id_ = -1;
  int copy_ = 0;
  int64_t* header_ = nullptr;
  void* body_ = nullptr;
};

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_REGISTER_BLOB_H_
