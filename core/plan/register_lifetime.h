// Register lifetimes: the span of plan steps during which a register's memory holds a value
// someone still needs. Registers whose lifetimes do not overlap may share memory.
//
// A plan is a sequence of steps (ops, boxing steps, input pushes); each step reads some
// registers and then writes some. A register's lifetime is [first write, last use], both
// inclusive, where the last use is its last read or, if later, its last write: a write
// after the last read still lands in the register's memory, so the memory stays reserved.
// Two registers used by the same step are both live at that step, so an op's output never
// shares memory with its input (no in-place reuse).
#ifndef TESSERA_CORE_PLAN_REGISTER_LIFETIME_H_
#define TESSERA_CORE_PLAN_REGISTER_LIFETIME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace tessera::plan {

// Steps [first, last], both inclusive, in plan step order.
struct Lifetime {
  int64_t first = 0;
  int64_t last = 0;

  int64_t length() const { return last - first + 1; }
  bool Overlaps(const Lifetime& other) const { return first <= other.last && other.first <= last; }
  // "[2,5]".
  std::string ToString() const;

  friend bool operator==(const Lifetime& a, const Lifetime& b) {
    return a.first == b.first && a.last == b.last;
  }
  friend bool operator!=(const Lifetime& a, const Lifetime& b) { return !(a == b); }
};

// INVALID_ARGUMENT unless 0 <= first <= last. `where` names the owner, e.g.
// `PlanMemory: register "h1" (#2)`.
Status CheckLifetime(const Lifetime& lifetime, const std::string& where);

// One plan step: the registers (by id) it reads, then the registers it writes.
struct PlanStep {
  std::vector<int64_t> reads;
  std::vector<int64_t> writes;
};

// Lifetimes of registers 0..num_registers-1 from the steps that use them. Errors
// (INVALID_ARGUMENT, naming the step, the register and the steps involved): a negative
// num_registers; a register id outside [0, num_registers); a register never written; a
// register read at or before its first write (a step reads before it writes, so a read in
// the first-writing step would see no value).
Result<std::vector<Lifetime>> ComputeLifetimes(int64_t num_registers,
                                               const std::vector<PlanStep>& steps);

// Validation helper: OK when every use of register r in `steps` lies inside lifetimes[r].
// Errors (INVALID_ARGUMENT): an invalid lifetime, a register id outside the table, or a use
// outside the lifetime, naming the register, the step and the lifetime.
Status CheckUsesWithinLifetimes(const std::vector<Lifetime>& lifetimes,
                                const std::vector<PlanStep>& steps);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_REGISTER_LIFETIME_H_
