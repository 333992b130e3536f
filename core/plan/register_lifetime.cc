#include "core/plan/register_lifetime.h"

namespace tessera::plan {
namespace {

std::string StepName(size_t step) { return "step " + std::to_string(step); }

// Checks every register id in `step` against [0, num_registers).
Status CheckIds(const char* where, size_t step_index, const PlanStep& step, int64_t num_registers) {
  for (const std::vector<int64_t>* ids : {&step.reads, &step.writes}) {
    const char* verb = ids == &step.reads ? "reads" : "writes";
    for (int64_t id : *ids) {
      if (id < 0 || id >= num_registers) {
        return InvalidArgument(std::string(where) + ": " + StepName(step_index) + " " + verb +
                               " register #" + std::to_string(id) + "; ids are in [0, " +
                               std::to_string(num_registers) + ")");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::string Lifetime::ToString() const {
  return "[" + std::to_string(first) + "," + std::to_string(last) + "]";
}

Status CheckLifetime(const Lifetime& lifetime, const std::string& where) {
  if (lifetime.first < 0) {
    return InvalidArgument(where + ": lifetime " + lifetime.ToString() +
                           " starts at a negative step");
  }
  if (lifetime.last < lifetime.first) {
    return InvalidArgument(where + ": lifetime " + lifetime.ToString() + " ends (step " +
                           std::to_string(lifetime.last) + ") before it starts (step " +
                           std::to_string(lifetime.first) + ")");
  }
  return Status::Ok();
}

Result<std::vector<Lifetime>> ComputeLifetimes(int64_t num_registers,
                                               const std::vector<PlanStep>& steps) {
  constexpr const char* kWhere = "ComputeLifetimes";
  if (num_registers < 0) {
    return InvalidArgument(std::string(kWhere) + ": num_registers is " +
                           std::to_string(num_registers) + "; it must be >= 0");
  }
  constexpr int64_t kUnset = -1;
  std::vector<int64_t> first_write(num_registers, kUnset);
  std::vector<int64_t> last_use(num_registers, kUnset);
  for (size_t s = 0; s < steps.size(); ++s) {
    TESS_RETURN_IF_ERROR(CheckIds(kWhere, s, steps[s], num_registers));
    const int64_t step = static_cast<int64_t>(s);
    for (int64_t id : steps[s].reads) {
      if (first_write[id] == kUnset) {
        return InvalidArgument(std::string(kWhere) + ": " + StepName(s) + " reads register #" +
                               std::to_string(id) +
                               " before any earlier step writes it (a step reads before it "
                               "writes)");
      }
      last_use[id] = step;
    }
    for (int64_t id : steps[s].writes) {
      if (first_write[id] == kUnset) first_write[id] = step;
      last_use[id] = step;
    }
  }
  std::vector<Lifetime> lifetimes(num_registers);
  for (int64_t id = 0; id < num_registers; ++id) {
    if (first_write[id] == kUnset) {
      return InvalidArgument(std::string(kWhere) + ": register #" + std::to_string(id) +
                             " is never written by any of the " + std::to_string(steps.size()) +
                             " steps");
    }
    lifetimes[id] = Lifetime{first_write[id], last_use[id]};
  }
  return lifetimes;
}

Status CheckUsesWithinLifetimes(const std::vector<Lifetime>& lifetimes,
                                const std::vector<PlanStep>& steps) {
  constexpr const char* kWhere = "CheckUsesWithinLifetimes";
  const int64_t num_registers = static_cast<int64_t>(lifetimes.size());
  for (int64_t id = 0; id < num_registers; ++id) {
    TESS_RETURN_IF_ERROR(
        CheckLifetime(lifetimes[id], std::string(kWhere) + ": register #" + std::to_string(id)));
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    TESS_RETURN_IF_ERROR(CheckIds(kWhere, s, steps[s], num_registers));
    const int64_t step = static_cast<int64_t>(s);
    for (const std::vector<int64_t>* ids : {&steps[s].reads, &steps[s].writes}) {
      const char* verb = ids == &steps[s].reads ? "reads" : "writes";
      for (int64_t id : *ids) {
        const Lifetime& life = lifetimes[id];
        if (step < life.first || step > life.last) {
          return InvalidArgument(std::string(kWhere) + ": " + StepName(s) + " " + verb +
                                 " register #" + std::to_string(id) + " outside its lifetime " +
                                 life.ToString());
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace tessera::plan
