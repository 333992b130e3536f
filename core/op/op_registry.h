// The op registry: op definitions by name. The global registry is built on first use
// by a function that registers every built-in op family explicitly, so there is no
// static-initialisation order to get wrong and no registration object for the
// linker to drop. After construction it is immutable, so lookups take no lock.
#ifndef TESSERA_CORE_OP_OP_REGISTRY_H_
#define TESSERA_CORE_OP_OP_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/op/op_def.h"

namespace tessera {
namespace op {

class OpRegistry {
 public:
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // Every built-in op. Thread-safe; definitions live for the whole process, so a
  // `const OpDef*` from it never dangles.
  static const OpRegistry& Global();

  // INVALID_ARGUMENT for a malformed definition, ALREADY_EXISTS for a taken name.
  // Not thread-safe: fill a registry before sharing it.
  Status Register(OpDef def);

  // NOT_FOUND naming close registered names ("did you mean ..."). Allocation-free on
  // success.
  Result<const OpDef*> Find(std::string_view name) const;
  // Sorted.
  std::vector<std::string> Names() const;
  size_t size() const { return ops_.size(); }

 private:
  std::vector<std::unique_ptr<OpDef>> ops_;  // sorted by name; stable addresses
};

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OP_REGISTRY_H_
