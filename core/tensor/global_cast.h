// Moving a global tensor between layouts, and getting its value out.
//
// cuda placements. cpu <-> cuda with the same ranks, hierarchy and nd-sbp is a copy of
// each rank's own piece between host and device: no communication. cuda -> cuda is
// boxed on the device (boxing::BoxOnDevice: NCCL collectives, device copies, device
// staging); first every rank holding a piece waits for its eager stream and all ranks
// agree that this succeeded (one small all-reduce), so an error of a queued kernel on one
// rank stops all before any collective. (Where two ranks of the world drive one device,
// e.g. more ranks than GPUs on a host, NCCL cannot group them, and cuda -> cuda takes the
// host path below; that is found out once per process, by one gather over the world.)
// Every other move between cpu and cuda is staged
// through the host: the source pieces are copied to the host (cuda sources), boxed there
// by the host Box between the cpu placements with the same ranks and hierarchy, and copied
// up (cuda destinations), after the same agreement on the device copies.
#ifndef TESSERA_CORE_TENSOR_GLOBAL_CAST_H_
#define TESSERA_CORE_TENSOR_GLOBAL_CAST_H_

#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace tensor {

// The same logical value held as (placement, nd_sbp), moved by boxing (a cost-chosen
// boxing plan). Returns `x` itself when nothing changes. Every rank of the world calls
// it; ranks outside both placements only build the metadata. On a placeholder being
// captured (core/plan/capture.h) it records an `identity` op with the output pinned to
// `nd_sbp` (a boxing step in the plan); UNIMPLEMENTED for another placement.
Result<Tensor> ToGlobal(const Tensor& x, const Placement& placement, const NdSbp& nd_sbp);

// The whole logical value, written to `host` (shape().num_elements() elements of
// dtype(), row-major) on EVERY rank of the world, including ranks outside the
// placement: what `numpy()` returns. A collective over the world. FAILED_PRECONDITION
// for a placeholder, which has no value. A cuda tensor's pieces are copied to the
// host first, waiting for the kernels that made them; their errors (kernels/cuda/
// data_errors.h) are reported here, on every rank.
Status ToHost(const Tensor& x, void* host);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_GLOBAL_CAST_H_
