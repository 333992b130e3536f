// CUDA graphs of the work queued on a device's Tessera stream, for plan replay
// (core/plan): a run's kernels are captured once and later runs launch the graph, one
// host call instead of one launch per kernel.
//
// Capture runs nothing: stream capture records what `enqueue` queues on the device's
// stream instead of executing it. Capture fails (and the caller falls back to plain
// launches) when `enqueue` does something a capture cannot hold: a host wait on the
// stream (TESSERA_CUDA_SYNC_CHECKS, a staged boxing step), an allocation, a first use of
// cuBLAS or of a kernel's per-stream state. Callers therefore capture only after one
// uncaptured run. Work another thread queues on the stream during a capture would be
// captured too (thread-local capture mode keeps other threads' unsafe calls legal, not
// their launches out of the graph): the plan instance captures only while it alone
// runs on the stream, as its runs do.
//
// The header is plain C++; without --config=cuda Capture is UNIMPLEMENTED
// (cuda_graph_none.cc).
#ifndef TESSERA_CORE_TENSOR_CUDA_GRAPH_H_
#define TESSERA_CORE_TENSOR_CUDA_GRAPH_H_

#include <functional>
#include <memory>

#include "core/common/status.h"
#include "core/tensor/cuda_device.h"

namespace tessera {
namespace tensor {

class CudaGraph {
 public:
  // Captures what `enqueue` queues on `device`'s stream into an instantiated graph. When
  // `enqueue` fails, or the capture does, the capture is ended and discarded, the
  // error returned (FAILED_PRECONDITION naming the CUDA error for a capture the stream
  // refused), and the device's sticky-free error state left clean: nothing ran.
  static Result<std::unique_ptr<CudaGraph>> Capture(const CudaDevice& device,
                                                    const std::function<Status()>& enqueue);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Queues the captured work on the device's stream again; does not wait.
  Status Launch() const;

  // The number of kernel and copy nodes captured.
  size_t num_nodes() const { return num_nodes_; }

 private:
  CudaGraph(const CudaDevice& device, void* exec, size_t num_nodes)
      : device_(device), exec_(exec), num_nodes_(num_nodes) {}

  CudaDevice device_;
  void* exec_ = nullptr;  // cudaGraphExec_t
  size_t num_nodes_ = 0;
};

// Copies `bytes` between two places in `device`'s memory on its stream, without waiting
// (stream order protects both sides; capturable).
Status CopyDeviceToDeviceAsync(const CudaDevice& device, void* dst, const void* src, size_t bytes);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_CUDA_GRAPH_H_
