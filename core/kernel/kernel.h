// The local-kernel interface: what the eager interpreter (and later the plan executor)
// hands a kernel for one op call on one rank, and the kernel function type.
//
// Contract: the caller has run the op's shape function on the LOCAL input shapes (a
// split tensor's shard, with op attributes such as slice's start/stop already
// adjusted to the shard), filled every output's shape and dtype, and allocated
// contiguous row-major storage for it. A kernel writes its outputs and nothing else;
// it never allocates an output and never re-derives a logical shape. It still checks
// every shape it relies on, so a wrong call is an INVALID_ARGUMENT, not a wild write.
#ifndef TESSERA_CORE_KERNEL_KERNEL_H_
#define TESSERA_CORE_KERNEL_KERNEL_H_

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/placement/placement.h"

namespace tessera {
namespace kernels {

// A rank's local tensor: contiguous row-major, not owning. `data` may be null when the
// tensor has no elements.
struct LocalTensor {
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::kF32;
};

struct KernelContext {
  const op::OpDef* def = nullptr;
  // The call's attributes as given: defaults are NOT filled in; read them with the
  // helpers in kernel_args.h, which fall back to the OpDef default. Null means none.
  const op::AttrMap* attrs = nullptr;
  // Flat slots in argument order, a repeated argument's copies in order.
  const LocalTensor* inputs = nullptr;
  int num_inputs = 0;
  // Shapes and dtypes filled and storage allocated by the caller.
  LocalTensor* outputs = nullptr;
  int num_outputs = 0;
  // The cudaStream_t for CUDA kernels; null on the CPU.
  void* stream = nullptr;
  // The inputs' logical (global) shapes, one per input slot, for the few kernels whose
  // local result depends on the whole tensor (nll_loss's mean divides by the global
  // batch size). Null where the caller has none (a call on whole tensors): such a
  // kernel then takes the local shapes as the logical ones.
  const Shape* logical_input_shapes = nullptr;
};

using KernelFn = Status (*)(const KernelContext& ctx);

// The placement's device type: a kernel is looked up for the device its tensors live on.
using Device = DeviceType;
inline constexpr int kNumDevices = 2;

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_CORE_KERNEL_KERNEL_H_
