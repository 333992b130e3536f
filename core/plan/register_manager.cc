#include "core/plan/register_manager.h"

#include <utility>

#include "core/memory/caching_allocator.h"
#if defined(TESSERA_WITH_CUDA)
#include "core/memory/device_caching_allocator.h"
#endif

namespace tessera::plan {
namespace {

// Blocks start register regions at multiples of 512 and bodies are 512-rounded, so a
// 512-aligned base keeps every body 512-aligned in memory, not just in offsets.
constexpr size_t kBlockAlignment = static_cast<size_t>(kRegisterAlignment);

Result<memory::Allocator*> LookUp(const AllocatorFor& allocator_for, const MemCase& mem_case,
                                  const char* purpose) {
  const std::string who =
      "RegisterManager::Create: the allocator for " + mem_case.ToString() + " (" + purpose + ")";
  if (!allocator_for) return InvalidArgument(who + ": allocator_for is empty");
  TESS_ASSIGN_OR_RETURN(memory::Allocator * allocator, allocator_for(mem_case));
  if (allocator == nullptr) return InvalidArgument(who + " is null");
  if (allocator->device_type() != mem_case.device_type ||
      (!mem_case.is_host() && allocator->device_index() != mem_case.device_index)) {
    return InvalidArgument(who + " allocates " + allocator->DeviceName() + " memory");
  }
  return allocator;
}

}  // namespace

Result<memory::Allocator*> DefaultAllocatorFor(const MemCase& mem_case) {
  TESS_RETURN_IF_ERROR(CheckMemCase(mem_case, "DefaultAllocatorFor"));
  if (mem_case.is_host()) return static_cast<memory::Allocator*>(&memory::HostCachingAllocator());
#if defined(TESSERA_WITH_CUDA)
  TESS_ASSIGN_OR_RETURN(memory::CachingAllocator * device,
                        memory::DeviceCachingAllocator(mem_case.device_index));
  return static_cast<memory::Allocator*>(device);
#else
  return Unavailable("DefaultAllocatorFor: memory case " + mem_case.ToString() +
                     " needs a CUDA build (--config=cuda) or an AllocatorFor that serves it");
#endif
}

Result<std::unique_ptr<RegisterManager>> RegisterManager::Create(
    MemoryPlan plan, const AllocatorFor& allocator_for) {
  TESS_RETURN_IF_ERROR(CheckNoOverlap(plan));
  std::unique_ptr<RegisterManager> manager(new RegisterManager(std::move(plan)));
  const MemoryPlan& p = manager->plan_;
  manager->memory_.resize(p.mem_cases.size());
  for (size_t c = 0; c < p.mem_cases.size(); ++c) {
    const MemCasePlan& mc = p.mem_cases[c];
    CaseMemory& mem = manager->memory_[c];
    TESS_ASSIGN_OR_RETURN(memory::Allocator * allocator,
                          LookUp(allocator_for, mc.mem_case, "block"));
    // The block is a multiple of 512 bytes, so a host header area after it stays aligned.
    TESS_ASSIGN_OR_RETURN(
        const int64_t bytes,
        CheckedAdd(mc.block_bytes, mc.mem_case.is_host() ? mc.header_bytes : 0,
                   "RegisterManager::Create: the " + mc.mem_case.ToString() + " allocation"));
    TESS_ASSIGN_OR_RETURN(mem.block, memory::Buffer::Allocate(
                                         *allocator, static_cast<size_t>(bytes), kBlockAlignment));
    ++manager->num_block_allocations_;
    mem.block_base = static_cast<char*>(mem.block.data());
    if (mc.mem_case.is_host()) {
      mem.header_base = mem.block_base + mc.block_bytes;
    } else {
      TESS_ASSIGN_OR_RETURN(memory::Allocator * host,
                            LookUp(allocator_for, MemCase::Host(), "headers"));
      TESS_ASSIGN_OR_RETURN(mem.header_block,
                            memory::Buffer::Allocate(*host, static_cast<size_t>(mc.header_bytes),
                                                     static_cast<size_t>(kBlobHeaderAlignment)));
      ++manager->num_block_allocations_;
      mem.header_base = static_cast<char*>(mem.header_block.data());
    }
  }
  manager->bases_.resize(p.registers.size());
  for (size_t c = 0; c < p.mem_cases.size(); ++c) {
    const CaseMemory& mem = manager->memory_[c];
    for (int64_t id : p.mem_cases[c].register_ids) {
      const PlannedRegister& r = p.registers[id];
      Bases& bases = manager->bases_[id];
      bases.body = mem.block_base + r.offset;
      bases.header = mem.header_base + r.header_offset;
      // Headers start as the static shape, so a blob read before any set_shape is whole.
      const int ndim = r.desc.shape.ndim();
      for (int copy = 0; copy < r.desc.register_num; ++copy) {
        auto* header = reinterpret_cast<int64_t*>(bases.header + copy * r.layout.header_bytes);
        for (int i = 0; i < ndim; ++i) header[i] = r.desc.shape.dim(i);
      }
    }
  }
  return manager;
}

Result<Blob> RegisterManager::GetBlob(int64_t register_id, int copy) const {
  if (register_id < 0 || register_id >= num_registers()) {
    return NotFound("RegisterManager::GetBlob: register #" + std::to_string(register_id) +
                    " is unknown; the plan has " + std::to_string(num_registers()) + " registers");
  }
  const PlannedRegister& r = plan_.registers[register_id];
  if (copy < 0 || copy >= r.desc.register_num) {
    return OutOfRange(RegisterName("RegisterManager::GetBlob:", r.desc, register_id) +
                      " has register_num " + std::to_string(r.desc.register_num) + "; copy index " +
                      std::to_string(copy) + " is outside [0, " +
                      std::to_string(r.desc.register_num) + ")");
  }
  const Bases& bases = bases_[register_id];
  auto* header = reinterpret_cast<int64_t*>(bases.header + copy * r.layout.header_bytes);
  return Blob(&r, register_id, copy, header, bases.body + copy * r.layout.body_bytes);
}

Result<void*> RegisterManager::BlockBase(const MemCase& mem_case) const {
  for (size_t c = 0; c < plan_.mem_cases.size(); ++c) {
    if (plan_.mem_cases[c].mem_case == mem_case) return static_cast<void*>(memory_[c].block_base);
  }
  return NotFound("RegisterManager::BlockBase: the plan has no register in " + mem_case.ToString());
}

Result<void*> RegisterManager::HeaderAreaBase(const MemCase& mem_case) const {
  for (size_t c = 0; c < plan_.mem_cases.size(); ++c) {
    if (plan_.mem_cases[c].mem_case == mem_case) return static_cast<void*>(memory_[c].header_base);
  }
  return NotFound("RegisterManager::HeaderAreaBase: the plan has no register in " +
                  mem_case.ToString());
}

RegisterManagerStats RegisterManager::stats() const {
  RegisterManagerStats stats;
  for (const MemCasePlan& mc : plan_.mem_cases) {
    stats.mem_cases.push_back({mc.mem_case, mc.block_bytes, mc.header_bytes});
  }
  stats.num_registers = num_registers();
  stats.num_block_allocations = num_block_allocations_;
  return stats;
}

}  // namespace tessera::plan
