#include "core/op/op_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/op/ops/register_ops.h"

namespace tessera {
namespace op {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

const OpRegistry& OpRegistry::Global() {
  // A function-local static: built on first use, thread-safe under C++11 rules.
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    Status s = RegisterBuiltinOps(r);
    if (!s.ok()) {
      // A broken built-in definition is a bug in this library.
      std::fprintf(stderr, "tessera: built-in op registration failed: %s\n", s.ToString().c_str());
      std::abort();
    }
    return r;
  }();
  return *registry;
}

Status OpRegistry::Register(OpDef def) {
  TESS_RETURN_IF_ERROR(def.Validate());
  auto it = std::lower_bound(ops_.begin(), ops_.end(), def.name(),
                             [](const auto& p, const std::string& n) { return p->name() < n; });
  if (it != ops_.end() && (*it)->name() == def.name()) {
    return Status(StatusCode::kAlreadyExists, "op \"" + def.name() + "\" is already registered");
  }
  ops_.insert(it, std::make_unique<OpDef>(std::move(def)));
  return Status::Ok();
}

Result<const OpDef*> OpRegistry::Find(std::string_view name) const {
  auto it = std::lower_bound(ops_.begin(), ops_.end(), name,
                             [](const auto& p, std::string_view n) { return p->name() < n; });
  if (it != ops_.end() && (*it)->name() == name) return it->get();
  std::string close;
  for (const auto& p : ops_) {
    const std::string& n = p->name();
    bool near = EditDistance(n, name) <= std::max<size_t>(2, name.size() / 4) ||
                (name.size() >= 3 && n.find(name) != std::string::npos) ||
                (n.size() >= 3 && name.find(n) != std::string_view::npos);
    if (near) close += (close.empty() ? "" : ", ") + n;
  }
  std::string msg = "no op named \"" + std::string(name) + "\"";
  msg += close.empty() ? "; " + std::to_string(ops_.size()) + " ops are registered"
                       : "; did you mean: " + close;
  return NotFound(msg);
}

std::vector<std::string> OpRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& p : ops_) names.push_back(p->name());
  return names;
}

}  // namespace op
}  // namespace tessera
