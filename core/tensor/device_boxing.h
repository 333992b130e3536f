// cuda -> cuda boxing on the devices, as eager layout changes and plan boxing steps both
// do it (boxing::BoxOnDevice: NCCL collectives, device copies, device staging), with the
// waits and the agreement that make it safe; and the world-wide agreement on a local
// outcome that every staged path between host and device also needs.
//
// Before boxing, every rank holding a piece waits for its eager stream: NCCL's streams
// do not wait for it, the wait reports the data errors of the kernels that made the
// piece, and it frees the output's memory of earlier users (the caching allocator hands
// a block back as soon as its tensor dies, trusting the one eager stream to order its
// reuse). Then all ranks agree on the outcome (one small all-reduce), so an error on one
// rank stops all before any collective. BoxOnDevice returns with the output complete,
// so kernels queued afterwards read it.
#ifndef TESSERA_CORE_TENSOR_DEVICE_BOXING_H_
#define TESSERA_CORE_TENSOR_DEVICE_BOXING_H_

#include "core/boxing/boxing.h"
#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_workspace.h"
#include "core/common/status.h"

namespace tessera {
namespace tensor {

// `local` on every rank of the world: OK everywhere, or every rank returns an error (its
// own, or one naming the failed rank and `what`). One all-reduce unless the world has one
// rank.
Status AgreeOnWorld(const Status& local, const char* what);

// Whether two ranks of the world drive one CUDA device (more ranks than GPUs on a host,
// as when testing on one GPU). NCCL refuses such ranks in one communicator ("Duplicate
// GPU detected"), so cuda -> cuda moves then stay staged through host memory. Collective
// over the world the first time (every rank's host and device, gathered), then
// remembered: a process keeps its device.
Result<bool> WorldSharesDevices();

// Boxes `layouts` (cuda placements on both sides) from this rank's piece `in` into its
// piece `out` on the device, after the wait and the agreement above; `prior` is the
// caller's local outcome so far (e.g. allocating `out`), agreed on with the rest, and
// `holds_piece` says whether this rank holds a source or destination piece. `workspace`:
// device staging that only grows, or nullptr for the calling thread's own. Every rank
// of the world calls it (SPMD); errors are prefixed by `what` where this adds them.
Status BoxBetweenDevices(const char* what, const Status& prior, boxing::BoxingLayouts layouts,
                         const void* in, void* out, bool holds_piece,
                         boxing::BoxingWorkspace* workspace);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_DEVICE_BOXING_H_
