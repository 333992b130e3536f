// Check mode: divergence detection across ranks (docs/reliability.md, "Divergence
// detection (check mode)").
//
// Tessera is SPMD: the ranks of a placement must issue the same calls in the same
// order. When they do not (another op, shape or nd-SBP on one rank, a skipped call),
// the collectives underneath pair up wrongly and the result is garbage, a truncation
// error on some ranks or a hang. In check mode every op, boxing, collective and plan
// run first agrees a fingerprint of the call among the ranks involved, with one small
// all-reduce; on a mismatch every one of them returns the same FAILED_PRECONDITION,
// naming the ranks and the fields that differ, and no rank goes on into the call.
//
// The fingerprint is a 63-bit hash folded from per-field hashes (op, attributes,
// shapes, dtypes, placements, nd-SBPs, data, and the communicator's call sequence
// number). Agreement is one MAX all-reduce of (h, -h): max(h) == -max(-h) exactly when
// every member holds the same h. Only after a mismatch do the members all-gather their
// per-field hashes and a short text of their call, to say who differed in what.
//
// Off (the default), a hook costs one relaxed atomic load and a branch. On, the
// agreement allocates nothing on the success path; it takes the communicator
// registry's lock to find the group where the caller has no communicator at hand.
#ifndef TESSERA_CORE_COMM_CALL_CHECK_H_
#define TESSERA_CORE_COMM_CALL_CHECK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::comm {

// "1" turns check mode on for the process, "0" off; unset or empty: off, unless
// tess_runtime_init_options.check_mode says otherwise. Other values: INVALID_ARGUMENT.
inline constexpr const char kCheckModeEnv[] = "TESSERA_CHECK";

namespace internal {
extern std::atomic<bool> check_mode;
}  // namespace internal

// Whether check mode is on. Cheap: meant to guard every hook.
inline bool CheckModeEnabled() { return internal::check_mode.load(std::memory_order_relaxed); }
// Process-wide; every rank must set the same value (the runtime does, at init).
void SetCheckMode(bool on);
// TESSERA_CHECK: the value it names, or nullopt when unset or empty.
Result<std::optional<bool>> CheckModeFromEnv();

// The parts of a call that ranks must agree on. Append only (the mismatch message
// names them in this order).
enum class CallField : int {
  kOp = 0,
  kAttributes,
  kShapes,
  kDTypes,
  kPlacements,
  kNdSbps,
  kData,
  kSequence,
  kCount
};

// "op", "attributes", "shapes", ...
const char* CallFieldName(CallField field);

// 64-bit hash of `bytes` bytes (stable across processes of one build).
uint64_t HashBytes(const void* data, size_t bytes);

// A call's fingerprint, built on the stack (no allocation). `kind` names the entry
// point ("op", "boxing", "allreduce", ...) and `name` the op or a detail (borrowed;
// both must outlive Agree).
class CallFingerprint {
 public:
  CallFingerprint(const char* kind, std::string_view name);

  CallFingerprint& Add(CallField field, uint64_t value);
  CallFingerprint& AddShape(const Shape& shape) { return Add(CallField::kShapes, shape.Hash()); }
  CallFingerprint& AddDType(DType dtype) {
    return Add(CallField::kDTypes, static_cast<uint64_t>(dtype) + 1);
  }
  CallFingerprint& AddPlacement(const Placement& placement) {
    return Add(CallField::kPlacements, placement.Hash());
  }
  CallFingerprint& AddNdSbp(const NdSbp& nd_sbp) { return Add(CallField::kNdSbps, nd_sbp.Hash()); }
  // A shape, dtype, placement and nd-SBP at once (a tensor's description).
  CallFingerprint& AddLayout(const Shape& shape, DType dtype, const Placement& placement,
                             const NdSbp& nd_sbp) {
    return AddShape(shape).AddDType(dtype).AddPlacement(placement).AddNdSbp(nd_sbp);
  }

  // Text of this rank's call for the mismatch message, made only after a mismatch:
  // `describe(context)`. Without one, the message shows `kind name`.
  using DescribeFn = std::string (*)(const void* context);
  CallFingerprint& SetDescribe(DescribeFn describe, const void* context) {
    describe_ = describe;
    describe_context_ = context;
    return *this;
  }

  uint64_t field(CallField f) const { return fields_[static_cast<int>(f)]; }
  const char* kind() const { return kind_; }
  std::string_view name() const { return name_; }
  // `kind name`, or describe's text.
  std::string Describe() const;

 private:
  const char* kind_;
  std::string_view name_;
  uint64_t fields_[static_cast<int>(CallField::kCount)] = {};
  DescribeFn describe_ = nullptr;
  const void* describe_context_ = nullptr;
};

// Collective over `group`: stamps the call with group.NextCheckSequence() and agrees
// its fingerprint. OK on every member when all fingerprints are equal; otherwise
// FAILED_PRECONDITION on every member, naming the members (world ranks) whose fields
// differ and each member's call. Errors of the collectives themselves are returned as
// they are. A group of one returns OK without communicating.
Status AgreeCall(Communicator& group, const CallFingerprint& fingerprint);

// AgreeCall over the ranks of `placement` (their communicator from the registry). OK
// at once on a rank outside the placement (it takes no part in the call) and for a
// placement of one rank (no communicator is looked up).
Status AgreeCallOnPlacement(const Placement& placement, const CallFingerprint& fingerprint);

// AgreeCall over the world ranks `sorted_ranks` (ascending, no duplicates). OK at
// once on a rank not listed.
Status AgreeCallOnRanks(const std::vector<int32_t>& sorted_ranks,
                        const CallFingerprint& fingerprint);

// AgreeCall over the sorted union of two placements' ranks (a boxing's ranks). OK at
// once on a rank in neither.
Status AgreeCallOnUnion(const Placement& a, const Placement& b, const CallFingerprint& fingerprint);

// A move of a (shape, dtype) tensor from (src_placement, src) to (dst_placement, dst)
// (tess_boxing_run, to_global): AgreeCallOnUnion of the two placements, the call
// named `name`.
Status AgreeBoxingCall(std::string_view name, const Shape& shape, DType dtype,
                       const Placement& src_placement, const NdSbp& src,
                       const Placement& dst_placement, const NdSbp& dst);

// AgreeCall over the whole world.
Status AgreeCallOnWorld(const CallFingerprint& fingerprint);
// The world's communicator (found without allocating).
Result<Communicator*> WorldGroup();

// In every mode, not only check mode: agreement on an outcome that depends on one
// rank's local data (a local piece of the wrong shape, a bad DLPack tensor), so that
// no member goes on into the next collective while another returns. Collective over
// `group`: one MIN all-reduce when every member is OK (then OK). Otherwise the lowest
// failing member broadcasts its error, and every member returns that same code and
// message followed by " (the error of world rank R; all N ranks of this call return
// it)". Errors of the collectives themselves are returned as they are.
Status AgreeLocalStatus(Communicator& group, const Status& local);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_CALL_CHECK_H_
