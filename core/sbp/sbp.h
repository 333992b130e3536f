// SBP: how one placement axis maps a logical tensor onto its ranks.
//   S(i)   split along tensor axis i (balanced; uneven sizes allowed)
//   B      broadcast: every rank holds the whole value
//   P      partial sum: the logical value is the sum of the locals
//   P(max) / P(min): the logical value is the elementwise max / min of the locals
// NdSbp holds one Sbp per placement hierarchy axis; text "(S(0), B)", or "S(0)" for
// one axis.
#ifndef TESSERA_CORE_SBP_SBP_H_
#define TESSERA_CORE_SBP_SBP_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera {

// Values are part of the C ABI (tess_sbp_kind): append only.
enum class SbpKind : int {
  kSplit = 0,
  kBroadcast = 1,
  kPartialSum = 2,
  kPartialMax = 3,
  kPartialMin = 4,
};

struct Sbp {
  SbpKind kind = SbpKind::kBroadcast;
  int32_t axis = 0;  // meaningful for kSplit only; 0 otherwise

  static Sbp Split(int32_t axis) { return {SbpKind::kSplit, axis}; }
  static Sbp Broadcast() { return {SbpKind::kBroadcast, 0}; }
  static Sbp PartialSum() { return {SbpKind::kPartialSum, 0}; }
  static Sbp PartialMax() { return {SbpKind::kPartialMax, 0}; }
  static Sbp PartialMin() { return {SbpKind::kPartialMin, 0}; }

  bool is_split() const { return kind == SbpKind::kSplit; }
  bool is_broadcast() const { return kind == SbpKind::kBroadcast; }
  bool is_partial() const {
    return kind == SbpKind::kPartialSum || kind == SbpKind::kPartialMax ||
           kind == SbpKind::kPartialMin;
  }

  // Checked construction from C API values.
  static Result<Sbp> Make(int kind, int32_t axis);
  static Result<Sbp> Parse(std::string_view text);
  // "S(0)", "B", "P", "P(max)", "P(min)".
  std::string ToString() const;

  friend bool operator==(const Sbp& a, const Sbp& b) {
    return a.kind == b.kind && a.axis == b.axis;
  }
  friend bool operator!=(const Sbp& a, const Sbp& b) { return !(a == b); }
};

// Splits may name tensor axes 0..kMaxSplitAxis (a Shape has at most kMaxDims dims).
// Parsed text may also count from the end (S(-1) .. S(-kMaxDims)): ResolveNdSbp maps
// those once the tensor's rank is known (tensor creation, to_global, boxing and op
// constraints do).
inline constexpr int32_t kMaxSplitAxis = Shape::kMaxDims - 1;

class NdSbp {
 public:
  static constexpr int kMaxAxes = Placement::kMaxAxes;

  NdSbp() = default;
  // One axis.
  explicit NdSbp(Sbp sbp) : num_axes_(1) { sbps_[0] = sbp; }
  static Result<NdSbp> Make(const Sbp* sbps, int num_axes);
  // "(S(0), B)", "(S(0))", or "S(0)".
  static Result<NdSbp> Parse(std::string_view text);

  int num_axes() const { return num_axes_; }
  const Sbp& operator[](int i) const { return sbps_[i]; }
  Sbp& operator[](int i) { return sbps_[i]; }
  // Appends; false when full.
  bool Append(Sbp sbp);

  bool all_broadcast() const;
  bool has_partial() const;  // some axis is P(sum), P(max) or P(min)
  // One axis prints bare ("S(0)"); more print as a tuple ("(S(0), B)").
  std::string ToString() const;
  size_t Hash() const;

  friend bool operator==(const NdSbp& a, const NdSbp& b);
  friend bool operator!=(const NdSbp& a, const NdSbp& b) { return !(a == b); }

 private:
  int num_axes_ = 0;
  Sbp sbps_[kMaxAxes];
};

// Checks that `nd_sbp` fits a tensor of `shape` on `placement`: one Sbp per
// hierarchy axis and every split axis < shape.ndim().
Status ValidateNdSbp(const NdSbp& nd_sbp, const Placement& placement, const Shape& shape);

// `nd_sbp` with each negative split axis S(-k) (parsed text counts from the end, as
// "S(-1)" for the last axis) mapped to S(ndim - k) for a tensor of `shape`;
// INVALID_ARGUMENT naming the axis and the rank when -k < -ndim.
Result<NdSbp> ResolveNdSbp(const NdSbp& nd_sbp, const Shape& shape);

// bool has no sum, max or min, so a bool tensor is never partial: INVALID_ARGUMENT
// "<what> of dtype bool cannot be partial (nd-sbp (P, B)) ..." when `nd_sbp` holds a
// P, P(max) or P(min) and `dtype` is bool.
Status CheckBoolNotPartial(DType dtype, const NdSbp& nd_sbp, const char* what);

}  // namespace tessera

#endif  // TESSERA_CORE_SBP_SBP_H_
