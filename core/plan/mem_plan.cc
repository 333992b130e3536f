#include "core/plan/mem_plan.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tessera::plan {
namespace {

std::string Range(int64_t begin, int64_t bytes) {
  return "[" + std::to_string(begin) + "," + std::to_string(begin + bytes) + ")";
}

// Rows of cells printed with every column left-aligned to its widest cell.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                        const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

// Where register `id` sits, for overlap messages.
std::string Where(const MemoryPlan& plan, int64_t id, int64_t begin, int64_t bytes,
                  const std::string& block) {
  const PlannedRegister& r = plan.registers[id];
  return RegisterName("", r.desc, id).substr(1) + " (lifetime " +
         PackingLifetime(r.desc, plan.last_step).ToString() + ", " + block + " bytes " +
         Range(begin, bytes) + ")";
}

// INVALID_ARGUMENT unless [begin, begin + bytes) is aligned and inside [0, limit), the
// `container`.
Status CheckRange(const std::string& who, const char* what, int64_t begin, int64_t bytes,
                  int64_t alignment, int64_t limit, const char* container) {
  if (begin < 0 || begin % alignment != 0) {
    return InvalidArgument(who + ": " + what + " offset " + std::to_string(begin) +
                           " is not a non-negative multiple of " + std::to_string(alignment));
  }
  if (begin > limit || bytes > limit - begin) {
    return InvalidArgument(who + ": " + what + " bytes " + Range(begin, bytes) + " exceed the " +
                           container + " of " + std::to_string(limit) + " bytes");
  }
  return Status::Ok();
}

Status CheckMemCaseListing(const MemoryPlan& plan) {
  const std::string kWhere = "CheckNoOverlap:";
  std::vector<int> listed(plan.registers.size(), 0);
  for (size_t c = 0; c < plan.mem_cases.size(); ++c) {
    const MemCasePlan& mc = plan.mem_cases[c];
    if (c > 0 && !(plan.mem_cases[c - 1].mem_case < mc.mem_case)) {
      return InvalidArgument(kWhere + " memory cases are not in strictly ascending order: " +
                             plan.mem_cases[c - 1].mem_case.ToString() + " before " +
                             mc.mem_case.ToString());
    }
    for (int64_t id : mc.register_ids) {
      if (id < 0 || id >= static_cast<int64_t>(plan.registers.size())) {
        return InvalidArgument(kWhere + " memory case " + mc.mem_case.ToString() +
                               " lists register #" + std::to_string(id) + " but the plan has " +
                               std::to_string(plan.registers.size()) + " registers");
      }
      const RegisterDesc& desc = plan.registers[id].desc;
      if (desc.mem_case != mc.mem_case) {
        return InvalidArgument(RegisterName(kWhere, desc, id) + " lives in " +
                               desc.mem_case.ToString() + " but memory case " +
                               mc.mem_case.ToString() + " lists it");
      }
      if (++listed[id] > 1) {
        return InvalidArgument(RegisterName(kWhere, desc, id) + " is listed twice in " +
                               mc.mem_case.ToString());
      }
    }
  }
  for (size_t id = 0; id < listed.size(); ++id) {
    if (listed[id] == 0) {
      return InvalidArgument(RegisterName(kWhere, plan.registers[id].desc, id) +
                             " is listed by no memory case");
    }
  }
  return Status::Ok();
}

// Where [begin, begin + a) and [other, other + b) meet, if they do.
bool Intersect(int64_t begin, int64_t a, int64_t other, int64_t b, int64_t* from, int64_t* to) {
  if (a == 0 || b == 0) return false;
  *from = std::max(begin, other);
  *to = std::min(begin + a, other + b);
  return *from < *to;
}

// Pairwise check of the registers of one memory case: bodies may share bytes only when the
// registers are never live together; headers never.
Status CheckPairs(const MemoryPlan& plan, const MemCasePlan& mc) {
  const std::vector<int64_t>& ids = mc.register_ids;
  const std::string in = "CheckNoOverlap: in " + mc.mem_case.ToString() + ", ";
  for (size_t a = 0; a < ids.size(); ++a) {
    const PlannedRegister& ra = plan.registers[ids[a]];
    const Lifetime la = PackingLifetime(ra.desc, plan.last_step);
    for (size_t b = a + 1; b < ids.size(); ++b) {
      const PlannedRegister& rb = plan.registers[ids[b]];
      const Lifetime lb = PackingLifetime(rb.desc, plan.last_step);
      int64_t from = 0;
      int64_t to = 0;
      if (la.Overlaps(lb) && Intersect(ra.offset, ra.layout.block_bytes, rb.offset,
                                       rb.layout.block_bytes, &from, &to)) {
        const Lifetime both{std::max(la.first, lb.first), std::min(la.last, lb.last)};
        return InvalidArgument(in + Where(plan, ids[a], ra.offset, ra.layout.block_bytes, "block") +
                               " and " +
                               Where(plan, ids[b], rb.offset, rb.layout.block_bytes, "block") +
                               " are both live at steps " + both.ToString() +
                               " but share block bytes " + Range(from, to - from));
      }
      if (Intersect(ra.header_offset, ra.layout.header_area_bytes, rb.header_offset,
                    rb.layout.header_area_bytes, &from, &to)) {
        return InvalidArgument(
            in + Where(plan, ids[a], ra.header_offset, ra.layout.header_area_bytes, "header") +
            " and " + Where(plan, ids[b], rb.header_offset, rb.layout.header_area_bytes, "header") +
            " share header bytes " + Range(from, to - from) + "; headers are never shared");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Lifetime PackingLifetime(const RegisterDesc& desc, int64_t last_step) {
  if (desc.register_num > 1) return Lifetime{0, last_step};
  return desc.lifetime;
}

const MemCasePlan* MemoryPlan::FindMemCase(const MemCase& mem_case) const {
  for (const MemCasePlan& mc : mem_cases) {
    if (mc.mem_case == mem_case) return &mc;
  }
  return nullptr;
}

Result<MemoryPlan> PlanMemory(const std::vector<RegisterDesc>& registers) {
  MemoryPlan plan;
  plan.registers.resize(registers.size());
  std::map<MemCase, std::vector<int64_t>> ids_by_case;
  for (size_t id = 0; id < registers.size(); ++id) {
    PlannedRegister& r = plan.registers[id];
    r.desc = registers[id];
    TESS_ASSIGN_OR_RETURN(r.layout, ComputeRegisterLayout(r.desc, id, "PlanMemory"));
    plan.last_step = std::max(plan.last_step, r.desc.lifetime.last);
    ids_by_case[r.desc.mem_case].push_back(static_cast<int64_t>(id));
  }
  for (auto& [mem_case, ids] : ids_by_case) {
    MemCasePlan mc;
    mc.mem_case = mem_case;
    mc.register_ids = std::move(ids);
    std::vector<PackItem> items;
    items.reserve(mc.register_ids.size());
    for (int64_t id : mc.register_ids) {
      PlannedRegister& r = plan.registers[id];
      items.push_back(PackItem{r.layout.block_bytes, PackingLifetime(r.desc, plan.last_step)});
      const std::string who = RegisterName("PlanMemory:", r.desc, id);
      TESS_ASSIGN_OR_RETURN(mc.no_reuse_bytes,
                            CheckedAdd(mc.no_reuse_bytes, r.layout.block_bytes,
                                       who + ": the " + mem_case.ToString() + " block"));
      r.header_offset = mc.header_bytes;
      TESS_ASSIGN_OR_RETURN(mc.header_bytes,
                            CheckedAdd(mc.header_bytes, r.layout.header_area_bytes,
                                       who + ": the header area of " + mem_case.ToString()));
    }
    TESS_ASSIGN_OR_RETURN(const Packing packing, PackBest(items));
    TESS_ASSIGN_OR_RETURN(mc.lower_bound, LiveLowerBound(items));
    for (size_t i = 0; i < mc.register_ids.size(); ++i) {
      plan.registers[mc.register_ids[i]].offset = packing.offsets[i];
    }
    mc.block_bytes = packing.block_size;
    mc.strategy = packing.strategy;
    plan.mem_cases.push_back(std::move(mc));
  }
#ifndef NDEBUG
  const Status check = CheckNoOverlap(plan);
  if (!check.ok()) return Internal("PlanMemory produced an invalid plan: " + check.message());
#endif
  return plan;
}

Status CheckNoOverlap(const MemoryPlan& plan) {
  const std::string kWhere = "CheckNoOverlap";
  TESS_RETURN_IF_ERROR(CheckMemCaseListing(plan));
  int64_t last_step = 0;
  for (size_t id = 0; id < plan.registers.size(); ++id) {
    const PlannedRegister& r = plan.registers[id];
    const std::string who = RegisterName(kWhere + ":", r.desc, id);
    TESS_ASSIGN_OR_RETURN(const RegisterLayout layout, ComputeRegisterLayout(r.desc, id, kWhere));
    if (layout != r.layout) {
      return InvalidArgument(who + ": its layout (block bytes " +
                             std::to_string(r.layout.block_bytes) +
                             ") does not match its descriptor (block bytes " +
                             std::to_string(layout.block_bytes) + ")");
    }
    last_step = std::max(last_step, r.desc.lifetime.last);
    const MemCasePlan* mc = plan.FindMemCase(r.desc.mem_case);  // non-null: listing checked
    TESS_RETURN_IF_ERROR(CheckRange(who, "block", r.offset, r.layout.block_bytes,
                                    kRegisterAlignment, mc->block_bytes, "block"));
    TESS_RETURN_IF_ERROR(CheckRange(who, "header", r.header_offset, r.layout.header_area_bytes,
                                    kBlobHeaderAlignment, mc->header_bytes, "header area"));
  }
  if (last_step != plan.last_step) {
    return InvalidArgument(kWhere + ": plan last_step is " + std::to_string(plan.last_step) +
                           " but the latest register lifetime ends at step " +
                           std::to_string(last_step));
  }
  for (const MemCasePlan& mc : plan.mem_cases) TESS_RETURN_IF_ERROR(CheckPairs(plan, mc));
  return Status::Ok();
}

std::string MemoryPlan::ToString() const {
  std::string out = "memory plan: " + std::to_string(registers.size()) + " registers, " +
                    std::to_string(mem_cases.size()) + " memory cases, steps [0," +
                    std::to_string(last_step) + "]\n";
  for (const MemCasePlan& mc : mem_cases) {
    out += mc.mem_case.ToString() + ": block " + std::to_string(mc.block_bytes) +
           " B, lower bound " + std::to_string(mc.lower_bound) + " B, no reuse " +
           std::to_string(mc.no_reuse_bytes) + " B, strategy " + mc.strategy.Name();
    out += ", headers " + std::to_string(mc.header_bytes) + " B";
    out += mc.mem_case.is_host() ? " after the block\n" : " in host memory\n";
    std::vector<std::vector<std::string>> rows = {
        {"id", "name", "lifetime", "copies", "shape", "dtype", "offset", "bytes", "header"}};
    for (int64_t id : mc.register_ids) {
      const PlannedRegister& r = registers[id];
      // Multi-copy registers pack over the whole plan; say so beside their own lifetime.
      const std::string lifetime =
          r.desc.lifetime.ToString() + (r.desc.register_num > 1 ? " (all steps)" : "");
      rows.push_back({std::to_string(id), r.desc.name, lifetime,
                      std::to_string(r.desc.register_num), r.desc.shape.ToString(),
                      DTypeName(r.desc.dtype), std::to_string(r.offset),
                      std::to_string(r.layout.block_bytes), std::to_string(r.header_offset)});
    }
    out += FormatTable(rows, "  ");
  }
  return out;
}

}  // namespace tessera::plan
