// cuda_graph.h in a build without CUDA.
#include "core/tensor/cuda_graph.h"

namespace tessera {
namespace tensor {

Result<std::unique_ptr<CudaGraph>> CudaGraph::Capture(const CudaDevice&,
                                                      const std::function<Status()>&) {
  return Unimplemented(
      "a CUDA graph capture: this Tessera was built without CUDA (build with --config=cuda)");
}

CudaGraph::~CudaGraph() = default;

Status CudaGraph::Launch() const {
  return Unimplemented(
      "a CUDA graph launch: this Tessera was built without CUDA (build with --config=cuda)");
}

Status CopyDeviceToDeviceAsync(const CudaDevice&, void*, const void*, size_t) {
  return Unimplemented(
      "a device to device copy: this Tessera was built without CUDA (build with --config=cuda)");
}

}  // namespace tensor
}  // namespace tessera
