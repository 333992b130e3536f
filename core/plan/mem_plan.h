// MemoryPlan: where every register of a plan lives. PlanMemory packs the bodies of each
// memory case's registers into one block, letting registers whose lifetimes do not overlap
// share bytes (mem_packing.h), and lays out each memory case's header area (register_desc.h
// describes the blob layout).
//
// Registers with register_num > 1 never share memory: their copies rotate across plan runs
// (the caller fills the next copy while steps read the current one), so a copy may be
// written at any step. Packing treats them as live over the whole plan, [0, last_step],
// as OneFlow does by reusing only registers with register_num == 1.
//
// Headers are laid out one after another in register id order, never reused: they are 64
// bytes per blob, and a blob's shape then survives from one run to the next.
#ifndef TESSERA_CORE_PLAN_MEM_PLAN_H_
#define TESSERA_CORE_PLAN_MEM_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/plan/mem_case.h"
#include "core/plan/mem_packing.h"
#include "core/plan/register_desc.h"
#include "core/plan/register_lifetime.h"

namespace tessera::plan {

struct PlannedRegister {
  RegisterDesc desc;
  RegisterLayout layout;
  // Start of the register's bodies in its memory case's block: a multiple of 512.
  int64_t offset = 0;
  // Start of its headers in its memory case's header area: a multiple of 64.
  int64_t header_offset = 0;
};

struct MemCasePlan {
  MemCase mem_case;
  std::vector<int64_t> register_ids;  // ascending
  int64_t block_bytes = 0;            // the one block every register's bodies live in
  // The header area, in host memory: every header of this case's registers, not reused.
  int64_t header_bytes = 0;
  // Max over steps of the bytes live in this case: no packing fits a smaller block.
  int64_t lower_bound = 0;
  // The block without any reuse: the sum of the registers' bodies.
  int64_t no_reuse_bytes = 0;
  PackStrategy strategy;  // the strategy whose packing was kept
};

struct MemoryPlan {
  std::vector<PlannedRegister> registers;  // indexed by register id
  std::vector<MemCasePlan> mem_cases;      // ascending by MemCase, one per case used
  int64_t last_step = 0;                   // the latest lifetime end over all registers

  // The plan of `mem_case`, or nullptr when no register lives there.
  const MemCasePlan* FindMemCase(const MemCase& mem_case) const;

  // A readable table: per memory case its block, lower bound, no-reuse size, strategy and
  // header area, then one row per register (id, name, lifetime, copies, shape, dtype, block
  // offset and bytes, header offset).
  std::string ToString() const;
};

// The lifetime packing uses for `desc`: its own, or [0, last_step] when register_num > 1.
Lifetime PackingLifetime(const RegisterDesc& desc, int64_t last_step);

// Plans registers 0..n-1 (register id = index in `registers`). Errors: those of
// ComputeRegisterLayout, naming the register; OUT_OF_RANGE when a memory case's bytes sum
// past int64. An empty list gives an empty plan.
Result<MemoryPlan> PlanMemory(const std::vector<RegisterDesc>& registers);

// Validates a plan, computed here or assembled elsewhere: every layout matches its
// descriptor, every region and header range is aligned and inside its block or header
// area, each memory case lists exactly its registers, no two registers live at a common
// step (packing lifetimes) share a byte of a block, and no two registers share a header
// byte. INVALID_ARGUMENT naming both registers, their lifetimes and byte ranges. PlanMemory runs it
// on its own result in debug builds; tests and RegisterManager::Create run it always.
Status CheckNoOverlap(const MemoryPlan& plan);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_MEM_PLAN_H_
