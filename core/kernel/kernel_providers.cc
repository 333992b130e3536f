#include "core/kernel/kernel_providers.h"

#include <atomic>
#include <cstdio>

namespace tessera {
namespace kernels {
namespace {

struct Provider {
  const char* name;
  KernelProvider fn;
};

// Static storage, zero-initialised before any dynamic initialiser runs, so providers
// may be added from other libraries' static initialisers in any order.
Provider g_providers[kMaxKernelProviders];
std::atomic<int> g_num_providers{0};

}  // namespace

bool AddKernelProvider(const char* name, KernelProvider provider) {
  if (provider == nullptr) {
    std::fprintf(stderr, "tessera: AddKernelProvider(\"%s\"): provider is null\n",
                 name ? name : "");
    return false;
  }
  const int slot = g_num_providers.load(std::memory_order_relaxed);
  if (slot >= kMaxKernelProviders) {
    std::fprintf(stderr, "tessera: AddKernelProvider(\"%s\"): more than %d kernel providers\n",
                 name ? name : "", kMaxKernelProviders);
    return false;
  }
  g_providers[slot] = Provider{name ? name : "", provider};
  g_num_providers.store(slot + 1, std::memory_order_release);
  return true;
}

const KernelRegistry& LinkedKernels() {
  static const KernelRegistry& registry = []() -> const KernelRegistry& {
    KernelRegistry& r = KernelRegistry::Global();
    const int n = g_num_providers.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
      const Status s = g_providers[i].fn(&r);
      if (!s.ok()) {
        std::fprintf(stderr, "tessera: registering %s kernels: %s\n", g_providers[i].name,
                     s.ToString().c_str());
      }
    }
    return r;
  }();
  return registry;
}

}  // namespace kernels
}  // namespace tessera
