// Placement: a device type plus an N-d array of ranks. The array's shape is the
// hierarchy; axis i of the hierarchy pairs with axis i of an nd-sbp.
//
// Text forms: "cpu:[0,1,2,3]", "cuda:[[0,1],[2,3]]", "cpu:0-3", "cpu:[0-1,4]".
// Placements are immutable and cheap to copy (a shared pointer to the rank table).
#ifndef TESSERA_CORE_PLACEMENT_PLACEMENT_H_
#define TESSERA_CORE_PLACEMENT_PLACEMENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/status.h"

namespace tessera {

// Values are part of the C ABI (tess_device_type): append only.
enum class DeviceType : int { kCpu = 0, kCuda = 1 };

const char* DeviceTypeName(DeviceType type);

class Placement {
 public:
  static constexpr int kMaxAxes = 8;

  // `ranks` in row-major order over `hierarchy`; checks: 1..kMaxPlacementRanks ranks
  // (core/common/limits.h), no duplicates, ranks >= 0, product(hierarchy) ==
  // ranks.size() (computed with overflow checks), 1..kMaxAxes axes.
  static Result<Placement> Make(DeviceType device_type, std::vector<int32_t> ranks,
                                std::vector<int64_t> hierarchy);
  // At most kMaxParsedTextLength characters; ranges are counted before they are
  // expanded, so "cpu:0-N" past kMaxPlacementRanks ranks allocates nothing.
  static Result<Placement> Parse(std::string_view text);

  DeviceType device_type() const { return impl_->device_type; }
  const std::vector<int64_t>& hierarchy() const { return impl_->hierarchy; }
  int num_axes() const { return static_cast<int>(impl_->hierarchy.size()); }
  int64_t parallel_num() const { return static_cast<int64_t>(impl_->ranks.size()); }
  // Ranks in row-major order.
  const std::vector<int32_t>& ranks() const { return impl_->ranks; }

  // Unchecked: 0 <= index < parallel_num().
  int32_t rank_at(int64_t index) const { return impl_->ranks[index]; }
  // The row-major index of `rank`, or -1 when the placement does not hold it.
  int64_t index_of(int32_t rank) const;
  bool contains(int32_t rank) const { return index_of(rank) >= 0; }

  // Checked forms for user input.
  Result<int32_t> RankAt(int64_t index) const;
  Result<int64_t> IndexOf(int32_t rank) const;

  // Coordinate of the parallel index `index` along hierarchy axis `axis`.
  int64_t Coordinate(int64_t index, int axis) const;
  // The 1-d placement of the ranks that differ from `rank` only along hierarchy
  // axis `axis` (its communication group along that axis), in axis order.
  Result<Placement> AxisGroup(int axis, int32_t rank) const;

  // "cpu:[[0,1],[2,3]]".
  const std::string& ToString() const { return impl_->text; }
  size_t Hash() const { return impl_->hash; }

  friend bool operator==(const Placement& a, const Placement& b);
  friend bool operator!=(const Placement& a, const Placement& b) { return !(a == b); }

 private:
  struct Impl {
    DeviceType device_type;
    std::vector<int32_t> ranks;
    std::vector<int64_t> hierarchy;
    // (rank, index) sorted by rank: lookups by binary search, no heap, and no table
    // sized by the largest rank ("cpu:[2000000000]" is a legal placement).
    std::vector<std::pair<int32_t, int64_t>> index_by_rank;
    std::string text;
    size_t hash;
  };
  explicit Placement(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<const Impl> impl_;
};

}  // namespace tessera

#endif  // TESSERA_CORE_PLACEMENT_PLACEMENT_H_
