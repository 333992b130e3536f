// The CUDA device this process drives for cuda placements, when the program chose one
// (tess_runtime_init_options.cuda_device). Without a choice a rank drives
// local rank % visible devices (core/comm/nccl/local_device.h, DefaultDevice).
//
// Plain state, no CUDA: it builds in every configuration, so the runtime's options are
// read the same way with and without --config=cuda. Checking the device against the
// visible ones is the caller's job (comm::CheckDevice), since only a CUDA build can.
#ifndef TESSERA_CORE_DEVICE_DEVICE_SELECTION_H_
#define TESSERA_CORE_DEVICE_DEVICE_SELECTION_H_

#include <optional>

#include "core/common/status.h"

namespace tessera::device {

// Records `device` (>= 0) as this process's CUDA device; -1 asks for nothing (OK, an
// earlier choice stays). INVALID_ARGUMENT, naming the value, below -1. FAILED_PRECONDITION when a
// different device was already chosen: streams, communicators and allocations made for one device
// cannot move to another, so the choice is made once per process.
Status SelectDevice(int device);

// The chosen device, or nullopt (the default). Any thread; lock-free.
std::optional<int> SelectedDevice();

// Forgets the choice, for tests that try several in one process.
void ResetDeviceSelectionForTest();

}  // namespace tessera::device

#endif  // TESSERA_CORE_DEVICE_DEVICE_SELECTION_H_
