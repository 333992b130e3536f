// RegisterManager: instantiates a MemoryPlan. It allocates each memory case's memory once
// (host: one allocation holding the block and then the header area; device: the block on
// the device and the header area in host memory), writes every blob header with the
// register's static shape, and hands out Blob views by (register id, copy index).
//
// After Create, GetBlob allocates nothing and takes no lock; it is safe from any number of
// threads (the manager is immutable; writing through the views is the caller's business).
//
// Allocators: AllocatorFor maps a memory case to the allocator serving it; it is asked once
// per block, during Create. DefaultAllocatorFor gives the process-wide host caching
// allocator for host memory and, in a CUDA build (--config=cuda), the device caching
// allocator of the case's device; without CUDA a device case is UNAVAILABLE. The allocators
// must outlive the manager, which frees its blocks when destroyed.
#ifndef TESSERA_CORE_PLAN_REGISTER_MANAGER_H_
#define TESSERA_CORE_PLAN_REGISTER_MANAGER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/common/status.h"
#include "core/memory/allocator.h"
#include "core/memory/buffer.h"
#include "core/plan/mem_case.h"
#include "core/plan/mem_plan.h"
#include "core/plan/register_blob.h"

namespace tessera::plan {

using AllocatorFor = std::function<Result<memory::Allocator*>(const MemCase&)>;

Result<memory::Allocator*> DefaultAllocatorFor(const MemCase& mem_case);

struct RegisterManagerStats {
  struct PerMemCase {
    MemCase mem_case;
    int64_t block_bytes = 0;   // the (reused) bodies, in this memory
    int64_t header_bytes = 0;  // the header area, in host memory
  };
  std::vector<PerMemCase> mem_cases;  // as in the plan
  int64_t num_registers = 0;
  // Allocate calls Create made: one per memory case, plus one for each device case's
  // header area. Nothing allocates afterwards, so this never grows.
  int64_t num_block_allocations = 0;
};

class RegisterManager {
 public:
  // Validates `plan` with CheckNoOverlap (its errors), then allocates. Errors: an allocator
  // lookup's error, a null allocator, or one whose device differs from the memory case
  // (INVALID_ARGUMENT naming both); an allocation failure (the allocator's status). On error
  // every block allocated so far is freed.
  static Result<std::unique_ptr<RegisterManager>> Create(
      MemoryPlan plan, const AllocatorFor& allocator_for = DefaultAllocatorFor);

  RegisterManager(const RegisterManager&) = delete;
  RegisterManager& operator=(const RegisterManager&) = delete;

  // Copy `copy` of register `register_id`. NOT_FOUND for an unknown id; OUT_OF_RANGE for a
  // copy outside [0, register_num). Allocates nothing on success.
  Result<Blob> GetBlob(int64_t register_id, int copy) const;

  const MemoryPlan& plan() const { return plan_; }
  int64_t num_registers() const { return static_cast<int64_t>(plan_.registers.size()); }
  // Base of a memory case's block / header area; NOT_FOUND when the plan has no such case.
  Result<void*> BlockBase(const MemCase& mem_case) const;
  Result<void*> HeaderAreaBase(const MemCase& mem_case) const;

  RegisterManagerStats stats() const;

 private:
  struct Bases {
    char* header = nullptr;  // first header of the register
    char* body = nullptr;    // first body of the register
  };
  struct CaseMemory {
    memory::Buffer block;         // host: the block, then the header area
    memory::Buffer header_block;  // device cases: the header area; empty for host
    char* block_base = nullptr;
    char* header_base = nullptr;
  };

  explicit RegisterManager(MemoryPlan plan) : plan_(std::move(plan)) {}

  MemoryPlan plan_;
  std::vector<CaseMemory> memory_;  // parallel to plan_.mem_cases
  std::vector<Bases> bases_;        // by register id
  int64_t num_block_allocations_ = 0;
};

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_REGISTER_MANAGER_H_
