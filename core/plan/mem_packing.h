// Packing items with lifetimes into one block so that items live at the same step never
// share bytes, while items whose lifetimes do not overlap may (dynamic storage allocation
// with known lifetimes, as OneFlow's intra-job memory sharing does it).
//
// Each strategy orders the items, then places them one by one: among the items already
// placed whose lifetimes overlap the new one, it finds the gaps between their byte ranges
// and takes the smallest gap that fits (best fit) or the lowest one (first fit); if none
// fits, the item goes just above the highest of them. PackBest tries every ordering with
// both fits and keeps the smallest block. Offsets are sums of item sizes, so items whose
// sizes are multiples of some alignment get offsets aligned to it.
//
// Cost: O(n^2 log n) per strategy for n items.
#ifndef TESSERA_CORE_PLAN_MEM_PACKING_H_
#define TESSERA_CORE_PLAN_MEM_PACKING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/plan/register_lifetime.h"

namespace tessera::plan {

struct PackItem {
  int64_t size = 0;  // bytes, >= 0; a zero-size item never conflicts and sits at offset 0
  Lifetime lifetime;
};

// Orderings, each stable with ties broken by item index.
enum class PackOrder : int {
  kSizeDesc = 0,      // larger first (OneFlow's MemSizeFirst)
  kLifetimeDesc = 1,  // longer-lived first (LifetimeFirst)
  kStartAsc = 2,      // earlier first write first: the order a plan runs in
  kStartDesc = 3,     // later first write first (OneFlow's TimeLine)
  kVolumeDesc = 4,    // larger size * lifetime length first (MemVolumeFirst)
};
inline constexpr int kNumPackOrders = 5;

enum class PackFit : int { kBestFit = 0, kFirstFit = 1 };

struct PackStrategy {
  PackOrder order = PackOrder::kSizeDesc;
  PackFit fit = PackFit::kBestFit;

  // "size-desc/best-fit", "start-desc(timeline)/first-fit", ...
  std::string Name() const;

  friend bool operator==(const PackStrategy& a, const PackStrategy& b) {
    return a.order == b.order && a.fit == b.fit;
  }
};

// Every ordering with best fit, then every ordering with first fit: the list PackBest tries.
std::vector<PackStrategy> AllPackStrategies();

struct Packing {
  std::vector<int64_t> offsets;  // per item
  int64_t block_size = 0;        // max over items of offset + size
  PackStrategy strategy;
};

// Errors (INVALID_ARGUMENT naming the item and values): a negative size, an invalid
// lifetime, an unknown strategy; OUT_OF_RANGE when the sizes sum past int64 (every offset
// is bounded by that sum, so nothing else can overflow).
Result<Packing> PackWith(const std::vector<PackItem>& items, PackStrategy strategy);

// The smallest block over AllPackStrategies(); ties go to the earlier strategy.
Result<Packing> PackBest(const std::vector<PackItem>& items);

// Max over steps of the sum of sizes of the items live at that step: no packing can use a
// smaller block. Errors as PackWith.
Result<int64_t> LiveLowerBound(const std::vector<PackItem>& items);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_MEM_PACKING_H_
