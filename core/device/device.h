// CUDA device queries and f32 elementwise kernels.
//
// The header is plain C++ (no CUDA types) so g++-compiled code can call it: streams are
// passed as `void*` (a cudaStream_t; nullptr is the legacy default stream). Kernels are
// launched asynchronously on that stream; launch errors are reported immediately, errors
// during execution surface at the next synchronizing call on the stream.
#ifndef TESSERA_CORE_DEVICE_DEVICE_H_
#define TESSERA_CORE_DEVICE_DEVICE_H_

#include <cstdint>
#include <string>

#include "core/common/status.h"

namespace tessera {
namespace device {

// Number of visible CUDA devices. A machine with no GPU or no driver has 0 devices; that is
// not an error. An installed driver older than the CUDA runtime is FAILED_PRECONDITION.
Result<int> DeviceCount();

// Where `device` sits, for topology listings: "cuda:1 pci 0000:3b:00.0 peers cuda:0,cuda:2",
// the peers being the other visible devices it can reach directly (NVLink or PCIe
// peer-to-peer; cudaDeviceCanAccessPeer). OUT_OF_RANGE for a device that is not visible.
Result<std::string> DeviceLocality(int device);

// device_ptr[i] = value for i in [0, n).
Status FillF32(float* device_ptr, int64_t n, float value, void* stream);

// y[i] = alpha * x[i] + y[i] for i in [0, n). x and y may be the same buffer.
Status AxpyF32(int64_t n, float alpha, const float* x, float* y, void* stream);

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_DEVICE_H_
