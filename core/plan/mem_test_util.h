// Random register sets and plans for the memory-planning tests.
#ifndef TESSERA_CORE_PLAN_MEM_TEST_UTIL_H_
#define TESSERA_CORE_PLAN_MEM_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/plan/mem_packing.h"
#include "core/plan/register_desc.h"
#include "core/plan/register_lifetime.h"

namespace tessera::plan {

// An f32 register, for tests.
RegisterDesc MakeRegister(const std::string& name, Shape shape, Lifetime lifetime,
                          MemCase mem_case = MemCase::Host(), int copies = 1);

// A plan as steps plus its registers, lifetimes already computed from the steps.
struct TestPlan {
  std::vector<PlanStep> steps;
  std::vector<RegisterDesc> registers;
};

// An MLP forward of `num_ops` ops on host memory: step 0 pushes the input (register_num 2),
// op i runs at step i + 1 and reads the previous activation (sometimes also an earlier one,
// a residual), matmuls change the width and sometimes use a one-step workspace, some ops
// use a one-step boxing buffer, and a last step pulls the output.
TestPlan MlpForwardPlan(std::mt19937_64& rng, int num_ops);

// `max_registers` registers with random shapes (0..3 dims, zero-size dims included), dtypes,
// memory cases (cpu, cuda:0, cuda:1), register_num 1..3 and lifetimes within [0, 15].
std::vector<RegisterDesc> RandomRegisters(std::mt19937_64& rng, int max_registers);

// `n` items with sizes 0..max_units units of `unit` bytes and lifetimes within [0, steps).
std::vector<PackItem> RandomItems(std::mt19937_64& rng, int n, int max_units, int64_t unit,
                                  int steps);

// The independent oracle for packings: paints each item's bytes, in `unit` steps, into a
// per-step occupancy map and returns true when no byte is painted twice at one step.
// Sizes and offsets must be multiples of `unit`.
bool PaintedWithoutCollision(const std::vector<PackItem>& items,
                             const std::vector<int64_t>& offsets, int64_t unit);

// Max over steps of the summed sizes of live items, by a plain loop over every step.
int64_t LowerBoundByLoop(const std::vector<PackItem>& items);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_MEM_TEST_UTIL_H_
