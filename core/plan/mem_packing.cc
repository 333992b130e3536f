#include "core/plan/mem_packing.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace tessera::plan {
namespace {

Status CheckItems(const std::vector<PackItem>& items, const char* where) {
  int64_t total = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string who = std::string(where) + ": item " + std::to_string(i);
    if (items[i].size < 0) {
      return InvalidArgument(who + " has size " + std::to_string(items[i].size) +
                             "; sizes must be >= 0");
    }
    TESS_RETURN_IF_ERROR(CheckLifetime(items[i].lifetime, who));
    if (__builtin_add_overflow(total, items[i].size, &total)) {
      return OutOfRange(who + " (size " + std::to_string(items[i].size) +
                        ") takes the sum of sizes past int64");
    }
  }
  return Status::Ok();
}

// True when `a` goes before `b` under `order`; ties keep index order (stable sort).
bool Before(const PackItem& a, const PackItem& b, PackOrder order) {
  switch (order) {
    case PackOrder::kSizeDesc: return a.size > b.size;
    case PackOrder::kLifetimeDesc: return a.lifetime.length() > b.lifetime.length();
    case PackOrder::kStartAsc: return a.lifetime.first < b.lifetime.first;
    case PackOrder::kStartDesc: return a.lifetime.first > b.lifetime.first;
    case PackOrder::kVolumeDesc:  // 128 bits: size * length may pass int64
      return static_cast<__int128>(a.size) * a.lifetime.length() >
             static_cast<__int128>(b.size) * b.lifetime.length();
  }
  return false;
}

bool ValidStrategy(PackStrategy strategy) {
  const int order = static_cast<int>(strategy.order);
  const int fit = static_cast<int>(strategy.fit);
  return order >= 0 && order < kNumPackOrders && (fit == 0 || fit == 1);
}

// Places `items` in `order` (item indices); items.size() > 0 and CheckItems passed.
Packing Place(const std::vector<PackItem>& items, const std::vector<size_t>& order,
              PackStrategy strategy) {
  Packing packing;
  packing.strategy = strategy;
  packing.offsets.assign(items.size(), 0);
  std::vector<size_t> placed;
  placed.reserve(items.size());
  std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of live-overlapping items
  busy.reserve(items.size());
  for (size_t index : order) {
    const PackItem& item = items[index];
    if (item.size == 0) continue;  // offset 0, conflicts with nothing
    busy.clear();
    for (size_t other : placed) {
      if (items[other].lifetime.Overlaps(item.lifetime)) {
        busy.emplace_back(packing.offsets[other], packing.offsets[other] + items[other].size);
      }
    }
    std::sort(busy.begin(), busy.end());
    constexpr int64_t kNone = -1;
    int64_t chosen = kNone;
    int64_t chosen_gap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;  // lowest byte above every busy range seen so far
    for (const auto& range : busy) {
      const int64_t gap = range.first - cursor;
      if (gap >= item.size && gap < chosen_gap) {
        chosen = cursor;
        chosen_gap = gap;
        if (strategy.fit == PackFit::kFirstFit) break;
      }
      cursor = std::max(cursor, range.second);
    }
    const int64_t offset = chosen == kNone ? cursor : chosen;
    packing.offsets[index] = offset;
    packing.block_size = std::max(packing.block_size, offset + item.size);
    placed.push_back(index);
  }
  return packing;
}

}  // namespace

std::string PackStrategy::Name() const {
  std::string name;
  switch (order) {
    case PackOrder::kSizeDesc: name = "size-desc"; break;
    case PackOrder::kLifetimeDesc: name = "lifetime-desc"; break;
    case PackOrder::kStartAsc: name = "start-asc"; break;
    case PackOrder::kStartDesc: name = "start-desc(timeline)"; break;
    case PackOrder::kVolumeDesc: name = "volume-desc"; break;
    default: name = "order" + std::to_string(static_cast<int>(order)); break;
  }
  switch (fit) {
    case PackFit::kBestFit: return name + "/best-fit";
    case PackFit::kFirstFit: return name + "/first-fit";
  }
  return name + "/fit" + std::to_string(static_cast<int>(fit));
}

std::vector<PackStrategy> AllPackStrategies() {
  std::vector<PackStrategy> all;
  for (PackFit fit : {PackFit::kBestFit, PackFit::kFirstFit}) {
    for (int order = 0; order < kNumPackOrders; ++order) {
      all.push_back(PackStrategy{static_cast<PackOrder>(order), fit});
    }
  }
  return all;
}

Result<Packing> PackWith(const std::vector<PackItem>& items, PackStrategy strategy) {
  if (!ValidStrategy(strategy)) {
    return InvalidArgument("PackWith: unknown strategy (order " +
                           std::to_string(static_cast<int>(strategy.order)) + ", fit " +
                           std::to_string(static_cast<int>(strategy.fit)) + ")");
  }
  TESS_RETURN_IF_ERROR(CheckItems(items, "PackWith"));
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return Before(items[a], items[b], strategy.order); });
  return Place(items, order, strategy);
}

Result<Packing> PackBest(const std::vector<PackItem>& items) {
  TESS_RETURN_IF_ERROR(CheckItems(items, "PackBest"));
  std::optional<Packing> best;
  for (PackStrategy strategy : AllPackStrategies()) {
    TESS_ASSIGN_OR_RETURN(Packing packing, PackWith(items, strategy));
    if (!best || packing.block_size < best->block_size) best = std::move(packing);
  }
  return std::move(*best);
}

Result<int64_t> LiveLowerBound(const std::vector<PackItem>& items) {
  TESS_RETURN_IF_ERROR(CheckItems(items, "LiveLowerBound"));
  // (step, kind, size) with kind 0 = starts, 1 = ends: at one step the starts come first,
  // so an item ending at step t still counts at t. No `last + 1`, which could overflow.
  struct Event {
    int64_t step;
    int kind;
    int64_t size;
    bool operator<(const Event& other) const {
      return step != other.step ? step < other.step : kind < other.kind;
    }
  };
  std::vector<Event> events;
  events.reserve(2 * items.size());
  for (const PackItem& item : items) {
    events.push_back(Event{item.lifetime.first, 0, item.size});
    events.push_back(Event{item.lifetime.last, 1, item.size});
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  int64_t peak = 0;
  for (const Event& event : events) {
    if (event.kind == 0) {
      live += event.size;  // bounded by the checked sum of sizes
      peak = std::max(peak, live);
    } else {
      live -= event.size;
    }
  }
  return peak;
}

}  // namespace tessera::plan
