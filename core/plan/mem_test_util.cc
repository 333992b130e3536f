#include "core/plan/mem_test_util.h"

#include <algorithm>
#include <cstdlib>

namespace tessera::plan {
namespace {

int Uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
bool Chance(std::mt19937_64& rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

}  // namespace

RegisterDesc MakeRegister(const std::string& name, Shape shape, Lifetime lifetime, MemCase mem_case,
                          int copies) {
  RegisterDesc desc;
  desc.name = name;
  desc.mem_case = mem_case;
  desc.shape = shape;
  desc.dtype = DType::kF32;
  desc.register_num = copies;
  desc.lifetime = lifetime;
  return desc;
}

TestPlan MlpForwardPlan(std::mt19937_64& rng, int num_ops) {
  static const int64_t kBatches[] = {1, 8, 32, 64, 128};
  static const int64_t kWidths[] = {128, 256, 384, 512, 1024, 2048, 4096};
  const int64_t batch = kBatches[Uniform(rng, 0, 4)];
  TestPlan plan;
  auto add_register = [&](const std::string& name, int64_t rows, int64_t cols, int copies) {
    plan.registers.push_back(
        MakeRegister(name, Shape({rows, cols}), Lifetime{}, MemCase::Host(), copies));
    return static_cast<int64_t>(plan.registers.size() - 1);
  };
  int64_t width = kWidths[Uniform(rng, 0, 6)];
  std::vector<int64_t> activations = {add_register("x", batch, width, 2)};
  plan.steps.push_back(PlanStep{{}, {activations[0]}});  // step 0 pushes the input
  for (int op = 0; op < num_ops; ++op) {
    PlanStep step;
    step.reads.push_back(activations.back());
    const bool matmul = op % 3 == 0;  // linear, then bias add, then activation
    if (matmul) width = kWidths[Uniform(rng, 0, 6)];
    if (!matmul && activations.size() > 2 && Chance(rng, 0.15)) {
      const int back = Uniform(rng, 2, std::min<int>(4, activations.size()));
      step.reads.push_back(activations[activations.size() - back]);  // a residual
    }
    if (matmul && Chance(rng, 0.3)) {
      step.writes.push_back(
          add_register("ws" + std::to_string(op), 1, Uniform(rng, 1, 64) * 256, 1));
    }
    if (Chance(rng, 0.2)) {
      step.writes.push_back(add_register("box" + std::to_string(op), batch, width, 1));
    }
    const int64_t out = add_register("a" + std::to_string(op), batch, width, 1);
    step.writes.push_back(out);
    activations.push_back(out);
    plan.steps.push_back(step);
  }
  plan.steps.push_back(PlanStep{{activations.back()}, {}});  // pull the output
  Result<std::vector<Lifetime>> lifetimes =
      ComputeLifetimes(static_cast<int64_t>(plan.registers.size()), plan.steps);
  if (!lifetimes.ok()) std::abort();  // a bug in this generator
  for (size_t r = 0; r < plan.registers.size(); ++r) plan.registers[r].lifetime = (*lifetimes)[r];
  return plan;
}

std::vector<RegisterDesc> RandomRegisters(std::mt19937_64& rng, int max_registers) {
  static const DType kDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};
  static const MemCase kCases[] = {MemCase::Host(), MemCase::Cuda(0), MemCase::Cuda(1)};
  const int n = Uniform(rng, 1, max_registers);
  std::vector<RegisterDesc> registers(n);
  for (int i = 0; i < n; ++i) {
    RegisterDesc& desc = registers[i];
    desc.name = "r" + std::to_string(i);
    desc.mem_case = kCases[Uniform(rng, 0, 2)];
    const int ndim = Uniform(rng, 0, 3);
    std::vector<int64_t> dims(ndim);
    for (int64_t& d : dims) d = Chance(rng, 0.05) ? 0 : Uniform(rng, 1, 40);
    desc.shape = *Shape::Make(dims);
    desc.dtype = kDTypes[Uniform(rng, 0, 3)];
    desc.register_num = Chance(rng, 0.8) ? 1 : Uniform(rng, 2, 3);
    desc.lifetime.first = Uniform(rng, 0, 15);
    desc.lifetime.last = std::min(15, static_cast<int>(desc.lifetime.first) + Uniform(rng, 0, 6));
  }
  return registers;
}

std::vector<PackItem> RandomItems(std::mt19937_64& rng, int n, int max_units, int64_t unit,
                                  int steps) {
  std::vector<PackItem> items(n);
  for (PackItem& item : items) {
    item.size = Uniform(rng, 0, max_units) * unit;
    item.lifetime.first = Uniform(rng, 0, steps - 1);
    item.lifetime.last = Uniform(rng, static_cast<int>(item.lifetime.first), steps - 1);
  }
  return items;
}

bool PaintedWithoutCollision(const std::vector<PackItem>& items,
                             const std::vector<int64_t>& offsets, int64_t unit) {
  int64_t steps = 0;
  int64_t units = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    steps = std::max(steps, items[i].lifetime.last + 1);
    units = std::max(units, (offsets[i] + items[i].size) / unit);
  }
  std::vector<std::vector<bool>> painted(steps, std::vector<bool>(units, false));
  for (size_t i = 0; i < items.size(); ++i) {
    for (int64_t t = items[i].lifetime.first; t <= items[i].lifetime.last; ++t) {
      for (int64_t u = offsets[i] / unit; u < (offsets[i] + items[i].size) / unit; ++u) {
        if (painted[t][u]) return false;
        painted[t][u] = true;
      }
    }
  }
  return true;
}

int64_t LowerBoundByLoop(const std::vector<PackItem>& items) {
  int64_t steps = 0;
  for (const PackItem& item : items) steps = std::max(steps, item.lifetime.last + 1);
  int64_t best = 0;
  for (int64_t t = 0; t < steps; ++t) {
    int64_t live = 0;
    for (const PackItem& item : items) {
      if (item.lifetime.first <= t && t <= item.lifetime.last) live += item.size;
    }
    best = std::max(best, live);
  }
  return best;
}

}  // namespace tessera::plan
