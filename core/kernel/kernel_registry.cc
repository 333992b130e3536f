#include "core/kernel/kernel_registry.h"

#include <algorithm>
#include <cstdint>

namespace tessera {
namespace kernels {
namespace {

static_assert((KernelRegistry::kCapacity & (KernelRegistry::kCapacity - 1)) == 0,
              "probing masks with kCapacity - 1");

// FNV-1a: tiny, allocation-free, and good enough for a few dozen short names.
uint64_t HashName(std::string_view name) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

bool ValidDevice(Device device) {
  const int d = static_cast<int>(device);
  return d >= 0 && d < kNumDevices;
}

}  // namespace

KernelRegistry::KernelRegistry() : slots_(new Slot[kCapacity]) {}
KernelRegistry::~KernelRegistry() = default;

KernelRegistry& KernelRegistry::Global() {
  // Leaked on purpose: kernels may be looked up from other static destructors.
  static KernelRegistry* registry = new KernelRegistry();
  return *registry;
}

const KernelRegistry::Slot* KernelRegistry::Probe(std::string_view op_name) const {
  const uint64_t h = HashName(op_name);
  for (uint64_t i = 0; i < static_cast<uint64_t>(kCapacity); ++i) {
    const Slot& slot = slots_[(h + i) & (kCapacity - 1)];
    const std::string* name = slot.name.load(std::memory_order_acquire);
    if (name == nullptr || *name == op_name) return &slot;
  }
  return nullptr;
}

Status KernelRegistry::Register(std::string_view op_name, Device device, KernelFn fn) {
  if (op_name.empty()) return InvalidArgument("KernelRegistry::Register: op_name is empty");
  if (!ValidDevice(device)) {
    return InvalidArgument("KernelRegistry::Register: op \"" + std::string(op_name) +
                           "\": device " + std::to_string(static_cast<int>(device)) +
                           " is not a known device type");
  }
  const std::string where =
      "KernelRegistry::Register: op \"" + std::string(op_name) + "\" on " + DeviceTypeName(device);
  if (fn == nullptr) return InvalidArgument(where + ": fn is null");
  std::lock_guard<std::mutex> lock(mu_);
  // Writers are serialised, so the probe result cannot change under us.
  Slot* slot = const_cast<Slot*>(Probe(op_name));
  if (slot == nullptr) {
    return Status(StatusCode::kResourceExhausted,
                  where + ": the registry is full (" + std::to_string(kCapacity) + " ops)");
  }
  std::atomic<KernelFn>& entry = slot->fns[static_cast<int>(device)];
  if (slot->name.load(std::memory_order_relaxed) != nullptr) {
    KernelFn existing = entry.load(std::memory_order_relaxed);
    if (existing == fn) return Status::Ok();
    if (existing != nullptr) {
      return Status(StatusCode::kAlreadyExists, where + ": a different kernel is registered");
    }
    entry.store(fn, std::memory_order_release);
    return Status::Ok();
  }
  // Fill the slot before publishing its name: a reader that sees the name sees the fn.
  names_.push_back(std::make_unique<const std::string>(op_name));
  entry.store(fn, std::memory_order_relaxed);
  slot->name.store(names_.back().get(), std::memory_order_release);
  return Status::Ok();
}

KernelFn KernelRegistry::Find(std::string_view op_name, Device device) const {
  if (!ValidDevice(device)) return nullptr;
  const Slot* slot = Probe(op_name);
  if (slot == nullptr || slot->name.load(std::memory_order_acquire) == nullptr) return nullptr;
  return slot->fns[static_cast<int>(device)].load(std::memory_order_acquire);
}

std::vector<std::string> KernelRegistry::Names(Device device) const {
  std::vector<std::string> names;
  if (!ValidDevice(device)) return names;
  for (int i = 0; i < kCapacity; ++i) {
    const std::string* name = slots_[i].name.load(std::memory_order_acquire);
    if (name != nullptr &&
        slots_[i].fns[static_cast<int>(device)].load(std::memory_order_acquire) != nullptr) {
      names.push_back(*name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace kernels
}  // namespace tessera
