#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/device/cuda_error.h"
#include "core/device/device.h"

namespace tessera {
namespace device {
namespace {

constexpr int kThreadsPerBlock = 256;
// Grid-stride loops cover any n; capping the grid keeps launches cheap and the block count
// far below gridDim.x's limit even for n near INT64_MAX.
constexpr int64_t kMaxBlocks = 4096;

// Driver and runtime versions are encoded as 1000 * major + 10 * minor.
std::string CudaVersionString(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

unsigned int BlockCount(int64_t n) {
  return static_cast<unsigned int>(
      std::min<int64_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock, kMaxBlocks));
}

// Launch failures (no device, bad configuration) are reported by cudaGetLastError, which
// also clears them so they do not leak into the caller's next CUDA call.
Status CheckLaunch(const char* kernel, int64_t n) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    return CudaError(std::string(kernel) + " launch (n=" + std::to_string(n) + ")", err);
  }
  return Status::Ok();
}

__global__ void FillF32Kernel(float* data, int64_t n, float value) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    data[i] = value;
  }
}

__global__ void AxpyF32Kernel(int64_t n, float alpha, const float* x, float* y) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

}  // namespace

Result<int> DeviceCount() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess) return count;
  // Consume the error so a later launch check (CheckLaunch) does not report it as its own.
  // Without a driver every runtime call fails anyway; with one, this error is not sticky.
  cudaGetLastError();
  if (err == cudaErrorNoDevice) return 0;
  if (err == cudaErrorInsufficientDriver) {
    // The runtime reports a missing driver the same way as an outdated one; a driver
    // version of 0 means none is installed, i.e. a machine without a GPU.
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0) return 0;
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    return FailedPrecondition("cudaGetDeviceCount failed: CUDA driver " +
                              CudaVersionString(driver) + " is older than the CUDA runtime " +
                              CudaVersionString(runtime));
  }
  return CudaError("cudaGetDeviceCount", err);
}

Result<std::string> DeviceLocality(int device) {
  TESS_ASSIGN_OR_RETURN(int count, DeviceCount());
  if (device < 0 || device >= count) {
    return OutOfRange("DeviceLocality: device " + std::to_string(device) + " is not one of the " +
                      std::to_string(count) + " visible CUDA devices");
  }
  char bus_id[32] = {};
  cudaError_t err = cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device);
  if (err != cudaSuccess) return CudaError("cudaDeviceGetPCIBusId", err);
  std::string text = "cuda:" + std::to_string(device) + " pci " + bus_id;
  std::string peers;
  for (int other = 0; other < count; ++other) {
    if (other == device) continue;
    int reachable = 0;
    err = cudaDeviceCanAccessPeer(&reachable, device, other);
    if (err != cudaSuccess) return CudaError("cudaDeviceCanAccessPeer", err);
    if (reachable)
      peers += (peers.empty() ? "" : ",") + std::string("cuda:") + std::to_string(other);
  }
  if (!peers.empty()) text += " peers " + peers;
  return text;
}

Status FillF32(float* device_ptr, int64_t n, float value, void* stream) {
  if (n < 0) return InvalidArgument("FillF32: n must be >= 0, got " + std::to_string(n));
  if (n == 0) return Status::Ok();
  if (device_ptr == nullptr) {
    return InvalidArgument("FillF32: device_ptr is null with n=" + std::to_string(n));
  }
  FillF32Kernel<<<BlockCount(n), kThreadsPerBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      device_ptr, n, value);
  return CheckLaunch("FillF32Kernel", n);
}

Status AxpyF32(int64_t n, float alpha, const float* x, float* y, void* stream) {
  if (n < 0) return InvalidArgument("AxpyF32: n must be >= 0, got " + std::to_string(n));
  if (n == 0) return Status::Ok();
  if (x == nullptr || y == nullptr) {
    return InvalidArgument(std::string("AxpyF32: ") + (x == nullptr ? "x" : "y") +
                           " is null with n=" + std::to_string(n));
  }
  AxpyF32Kernel<<<BlockCount(n), kThreadsPerBlock, 0, static_cast<cudaStream_t>(stream)>>>(n, alpha,
                                                                                           x, y);
  return CheckLaunch("AxpyF32Kernel", n);
}

}  // namespace device
}  // namespace tessera
