#include "core/device/device_selection.h"

#include <atomic>
#include <string>

namespace tessera::device {
namespace {

// -1: no choice. Atomic, since eager and plan threads read it while a device is first
// needed; SelectDevice is called from tess_runtime_init_with_options, before them.
std::atomic<int> selected{-1};

}  // namespace

Status SelectDevice(int device) {
  if (device < -1) {
    return InvalidArgument("CUDA device " + std::to_string(device) +
                           " is negative; expected -1 (no choice: local rank % device count) "
                           "or a device index >= 0");
  }
  if (device == -1) return Status::Ok();
  int expected = -1;
  if (selected.compare_exchange_strong(expected, device) || expected == device) {
    return Status::Ok();
  }
  return FailedPrecondition("CUDA device " + std::to_string(device) + " requested, but device " +
                            std::to_string(expected) +
                            " was already chosen for this process; a process drives one device");
}

std::optional<int> SelectedDevice() {
  int d = selected.load(std::memory_order_acquire);
  if (d < 0) return std::nullopt;
  return d;
}

void ResetDeviceSelectionForTest() { selected.store(-1); }

}  // namespace tessera::device
