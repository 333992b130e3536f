// MemCase: which memory a register lives in, host or one CUDA device. The register planner
// packs each memory case into its own block, and the register manager allocates that block
// through the allocator serving the case.
#ifndef TESSERA_CORE_PLAN_MEM_CASE_H_
#define TESSERA_CORE_PLAN_MEM_CASE_H_

#include <string>

#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera::plan {

struct MemCase {
  DeviceType device_type = DeviceType::kCpu;
  // Local CUDA device index; always 0 for host memory.
  int device_index = 0;

  static MemCase Host() { return MemCase{DeviceType::kCpu, 0}; }
  static MemCase Cuda(int device_index) { return MemCase{DeviceType::kCuda, device_index}; }

  bool is_host() const { return device_type == DeviceType::kCpu; }

  // "cpu" or "cuda:<index>", the same names Allocator::DeviceName() uses.
  std::string ToString() const;

  friend bool operator==(const MemCase& a, const MemCase& b) {
    return a.device_type == b.device_type && a.device_index == b.device_index;
  }
  friend bool operator!=(const MemCase& a, const MemCase& b) { return !(a == b); }
  // Host first, then devices by index: the order MemoryPlan lists memory cases in.
  friend bool operator<(const MemCase& a, const MemCase& b) {
    if (a.device_type != b.device_type) return a.device_type < b.device_type;
    return a.device_index < b.device_index;
  }
};

// INVALID_ARGUMENT unless `mem_case` is host with index 0 or CUDA with index >= 0.
// `where` starts the message, e.g. `PlanMemory: register "x" (#3)`.
Status CheckMemCase(const MemCase& mem_case, const std::string& where);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_MEM_CASE_H_
