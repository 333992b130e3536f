// cuda_graph.h in a CUDA build (--config=cuda).
#include "core/tensor/cuda_graph.h"

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "core/device/cuda_error.h"
#include "core/device/device_scope.h"
#include "core/device/stream_sync.h"

namespace tessera {
namespace tensor {
namespace {

cudaStream_t StreamOf(const CudaDevice& device) { return static_cast<cudaStream_t>(device.stream); }

std::string On(const CudaDevice& device) { return " on cuda:" + std::to_string(device.index); }

}  // namespace

Result<std::unique_ptr<CudaGraph>> CudaGraph::Capture(const CudaDevice& device,
                                                      const std::function<Status()>& enqueue) {
  device::DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  const cudaStream_t stream = StreamOf(device);
  cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return device::CudaError("cudaStreamBeginCapture" + On(device), err);
  }
  const Status queued = enqueue();
  cudaGraph_t graph = nullptr;
  err = cudaStreamEndCapture(stream, &graph);
  // A capture the stream gave up on leaves a (non-sticky) error behind; later launch
  // checks must not mistake it for theirs.
  cudaGetLastError();
  if (!queued.ok() || err != cudaSuccess) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (!queued.ok()) return queued;
    return FailedPrecondition("CUDA graph capture" + On(device) +
                              " failed: cudaStreamEndCapture returned " + cudaGetErrorName(err) +
                              " (" + cudaGetErrorString(err) +
                              "): the work queued something a graph cannot hold");
  }
  size_t num_nodes = 0;
  err = cudaGraphGetNodes(graph, nullptr, &num_nodes);
  cudaGraphExec_t exec = nullptr;
  if (err == cudaSuccess) err = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return device::CudaError("cudaGraphInstantiate" + On(device), err);
  }
  return std::unique_ptr<CudaGraph>(new CudaGraph(device, exec, num_nodes));
}

CudaGraph::~CudaGraph() {
  if (exec_ != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
}

Status CudaGraph::Launch() const {
  device::DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_.index));
  const cudaError_t err = cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), StreamOf(device_));
  if (err != cudaSuccess) return device::CudaError("cudaGraphLaunch" + On(device_), err);
  // The graph's check kernels may write the stream's data error record again.
  device::NoteReplayedWork(StreamOf(device_));
  return Status::Ok();
}

Status CopyDeviceToDeviceAsync(const CudaDevice& device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  device::DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  const cudaError_t err =
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, StreamOf(device));
  if (err != cudaSuccess) {
    return device::CudaError(
        "cudaMemcpyAsync" + On(device) + " (" + std::to_string(bytes) + " bytes, device to device)",
        err);
  }
  return Status::Ok();
}

}  // namespace tensor
}  // namespace tessera
