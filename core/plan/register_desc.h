// RegisterDesc: one register of a plan (an intermediate tensor or a boxing buffer) as the
// memory planner sees it, and RegisterLayout: its bytes, computed with overflow checks.
//
// Blob layout (after OneFlow's RtRegstDesc). A register holds register_num copies; each
// copy is one blob = header + body:
// - header: the blob's shape, ndim int64s, rounded up to 64 bytes (0 bytes for a scalar);
// - body:   the elements, rounded up to 512 bytes (0 bytes for a zero-element tensor).
// The register's total is (header + body) * register_num.
//
// Headers are kept apart from the bodies in every memory case, in a header area that is
// never reused. Bodies share memory with other registers' bodies when lifetimes allow, and
// a header inside a shared region would be overwritten by the body of a register using the
// same bytes earlier, so a blob's shape would not survive until its producer runs. (OneFlow
// separates headers for non-host memory and reuses only device memory, which amounts to
// the same.) The header area is host memory: for a device memory case a separate host
// allocation, so the host reads shapes without device copies; for the host memory case the
// tail of the same allocation as the bodies. The register's n bodies are contiguous in its
// region of the block, the n headers contiguous in the header area. Every region starts at
// a multiple of 512 and every header at a multiple of 64.
//
// Zero-element registers are allowed: their body is 0 bytes, so they occupy their headers
// only.
#ifndef TESSERA_CORE_PLAN_REGISTER_DESC_H_
#define TESSERA_CORE_PLAN_REGISTER_DESC_H_

#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/plan/mem_case.h"
#include "core/plan/register_lifetime.h"

namespace tessera::plan {

inline constexpr int64_t kBlobHeaderAlignment = 64;
inline constexpr int64_t kBlobBodyAlignment = 512;
// Register regions start at this alignment within their block.
inline constexpr int64_t kRegisterAlignment = 512;

struct RegisterDesc {
  std::string name;  // for messages and MemoryPlan::ToString; may be empty
  MemCase mem_case;
  // The static (largest) shape; a blob's header may later hold a smaller one.
  Shape shape;
  DType dtype = DType::kF32;
  // Copies, each its own blob region: >= 1. An input with 2 lets the caller fill the next
  // input while a step reads the current one.
  int register_num = 1;
  Lifetime lifetime;
};

// Bytes of one register; see the file comment for where each part lives.
struct RegisterLayout {
  int64_t data_bytes = 0;    // elements * dtype size, unrounded: the most set_shape allows
  int64_t header_bytes = 0;  // one blob header: RoundUp(ndim * 8, 64)
  int64_t body_bytes = 0;    // one blob body: RoundUp(data_bytes, 512)
  int64_t total_bytes = 0;   // (header_bytes + body_bytes) * register_num
  // The register's region in its memory case's (reused) block: body_bytes * register_num.
  int64_t block_bytes = 0;
  // Its headers in the memory case's (never reused) header area: header_bytes *
  // register_num.
  int64_t header_area_bytes = 0;

  friend bool operator==(const RegisterLayout& a, const RegisterLayout& b);
  friend bool operator!=(const RegisterLayout& a, const RegisterLayout& b) { return !(a == b); }
};

// `where` plus ` register "<name>" (#<id>)`: how every message names a register.
std::string RegisterName(const std::string& where, const RegisterDesc& desc, int64_t id);

// Validates `desc` (register `id`, for messages) and computes its layout. INVALID_ARGUMENT
// for a bad memory case, an unknown dtype, register_num < 1, or a lifetime with last < first
// or first < 0; OUT_OF_RANGE when a size overflows int64. Each message starts with `where`
// and names the register and the values.
Result<RegisterLayout> ComputeRegisterLayout(const RegisterDesc& desc, int64_t id,
                                             const std::string& where);

// x rounded up to a multiple of `multiple` (a power of two), or OUT_OF_RANGE when that
// overflows int64; `what` names the quantity in the message.
Result<int64_t> CheckedAlignUp(int64_t x, int64_t multiple, const std::string& what);
// a * b and a + b for non-negative operands, or OUT_OF_RANGE naming `what` and the operands.
Result<int64_t> CheckedMul(int64_t a, int64_t b, const std::string& what);
Result<int64_t> CheckedAdd(int64_t a, int64_t b, const std::string& what);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_REGISTER_DESC_H_
