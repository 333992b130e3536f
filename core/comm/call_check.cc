#include "core/comm/call_check.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/comm/env_config.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/common/hash.h"

namespace tessera::comm {
namespace internal {
std::atomic<bool> check_mode{false};
}  // namespace internal

namespace {

constexpr int kFields = static_cast<int>(CallField::kCount);
// What each member contributes after a mismatch: world rank, sequence number, the
// field hashes, then its call's text (kTextBytes, NUL-padded).
constexpr int kTextBytes = 200;
constexpr int kHeaderWords = 2;
constexpr int kRecordWords = kHeaderWords + kFields + kTextBytes / 8;

uint64_t Fold(const uint64_t* fields) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (int i = 0; i < kFields; ++i) h = HashCombine(h, HashCombine(i, fields[i]));
  return h;
}

// At most this many ranks are listed, and this many ranks' calls shown, so a large
// world's message stays readable.
constexpr size_t kMaxListed = 16;
constexpr int32_t kMaxCallsShown = 8;

std::string RankList(const std::vector<int64_t>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size() && i < kMaxListed; ++i) {
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  }
  if (ranks.size() > kMaxListed) {
    s += " and " + std::to_string(ranks.size() - kMaxListed) + " more";
  }
  return s;
}

// The message of a mismatch, from every member's record (identical on every member,
// so every member returns the same error).
std::string MismatchMessage(const std::vector<int64_t>& records, int32_t size) {
  auto rec = [&](int32_t r) { return &records[static_cast<size_t>(r) * kRecordWords]; };
  std::vector<int64_t> world(size);
  for (int32_t r = 0; r < size; ++r) world[r] = rec(r)[0];
  std::string msg = std::string("check mode: the ") + std::to_string(size) +
                    " ranks taking part in this call (world " + RankList(world) +
                    ") did not issue the same call:";
  bool first = true;
  for (int f = 0; f < kFields; ++f) {
    // The reference value is the one most members hold (ties: the lowest rank's).
    const int word = kHeaderWords + f;
    int32_t best = 0, best_count = 0;
    for (int32_t r = 0; r < size; ++r) {
      int32_t count = 0;
      for (int32_t q = 0; q < size; ++q) count += rec(q)[word] == rec(r)[word];
      if (count > best_count) best = r, best_count = count;
    }
    if (best_count == size) continue;
    std::vector<int64_t> differ, agree;
    for (int32_t r = 0; r < size; ++r) {
      (rec(r)[word] == rec(best)[word] ? agree : differ).push_back(world[r]);
    }
    msg += first ? " " : "; ";
    first = false;
    msg += CallFieldName(static_cast<CallField>(f));
    msg += ": " + RankList(differ) + (differ.size() == 1 ? " differs" : " differ") + " from " +
           RankList(agree);
  }
  // The calls: the first rank's, then those of the ranks whose call differs from it.
  msg += ". Calls:";
  int32_t shown = 0;
  for (int32_t r = 0; r < size && shown < kMaxCallsShown; ++r) {
    if (r > 0 && std::equal(rec(r) + kHeaderWords, rec(r) + kRecordWords, rec(0) + kHeaderWords)) {
      continue;
    }
    const char* text = reinterpret_cast<const char*>(rec(r) + kHeaderWords + kFields);
    msg += std::string(shown++ ? "; " : " ") + "rank " + std::to_string(world[r]) + " call #" +
           std::to_string(rec(r)[1]) + ": " + std::string(text, strnlen(text, kTextBytes - 1));
  }
  return msg;
}

Status Mismatch(Communicator& group, const CallFingerprint& fingerprint, const uint64_t* fields,
                uint64_t sequence) {
  std::vector<int64_t> mine(kRecordWords, 0);
  TESS_ASSIGN_OR_RETURN(int32_t world_rank, WorldRank());
  mine[0] = world_rank;
  mine[1] = static_cast<int64_t>(sequence);
  std::memcpy(&mine[kHeaderWords], fields, sizeof(uint64_t) * kFields);
  const std::string text = fingerprint.Describe();
  std::memcpy(&mine[kHeaderWords + kFields], text.data(),
              std::min(text.size(), static_cast<size_t>(kTextBytes - 1)));
  std::vector<int64_t> records(static_cast<size_t>(group.size()) * kRecordWords);
  std::vector<int64_t> counts(static_cast<size_t>(group.size()), kRecordWords);
  TESS_RETURN_IF_ERROR(
      group.AllGatherV(mine.data(), kRecordWords, records.data(), counts, {}, DType::kI64));
  return FailedPrecondition(MismatchMessage(records, group.size()));
}

}  // namespace

// cpu:[0, ..., size - 1], made once (the world's size is fixed after init).
Result<Communicator*> WorldGroup() {
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  static const Result<Placement> world = [size] {
    std::vector<int32_t> ranks(static_cast<size_t>(size));
    for (int32_t r = 0; r < size; ++r) ranks[r] = r;
    return Placement::Make(DeviceType::kCpu, std::move(ranks), {size});
  }();
  TESS_RETURN_IF_ERROR(world.status());
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * comm, MpiCommRegistry::Global().ForPlacement(*world));
  return comm;
}

namespace {
// A vote is rank * kCodes + code: the minimum names the lowest failed member and its
// code; a member that succeeded votes above every failure.
constexpr int64_t kCodes = 64;
// The broadcast error: world rank, then the message (NUL-terminated, cut to fit).
constexpr int kErrorWords = 1 + 512 / 8;
}  // namespace

Status AgreeLocalStatus(Communicator& group, const Status& local) {
  if (group.size() == 1) return local;
  const int64_t ok_vote = int64_t{group.size()} * kCodes;
  int64_t vote = local.ok() ? ok_vote : group.rank() * kCodes + static_cast<int64_t>(local.code());
  TESS_RETURN_IF_ERROR(group.AllReduce(&vote, &vote, 1, DType::kI64, ReduceOp::kMin));
  if (vote == ok_vote) return Status::Ok();
  const int32_t root = static_cast<int32_t>(vote / kCodes);
  const StatusCode code = static_cast<StatusCode>(vote % kCodes);
  int64_t error[kErrorWords] = {};
  if (group.rank() == root) {
    TESS_ASSIGN_OR_RETURN(int32_t world_rank, WorldRank());
    error[0] = world_rank;
    std::memcpy(&error[1], local.message().data(),
                std::min(local.message().size(), sizeof(error) - sizeof(int64_t) - 1));
  }
  TESS_RETURN_IF_ERROR(group.Broadcast(error, kErrorWords, DType::kI64, root));
  const char* text = reinterpret_cast<const char*>(&error[1]);
  return Status(code, std::string(text, strnlen(text, sizeof(error) - sizeof(int64_t))) +
                          " (the error of world rank " + std::to_string(error[0]) + "; all " +
                          std::to_string(group.size()) + " ranks of this call return it)");
}

void SetCheckMode(bool on) { internal::check_mode.store(on, std::memory_order_relaxed); }

Result<std::optional<bool>> CheckModeFromEnv() { return EnvFlag(kCheckModeEnv); }

const char* CallFieldName(CallField field) {
  switch (field) {
    case CallField::kOp: return "op";
    case CallField::kAttributes: return "attributes";
    case CallField::kShapes: return "shapes";
    case CallField::kDTypes: return "dtypes";
    case CallField::kPlacements: return "placements";
    case CallField::kNdSbps: return "nd-sbps";
    case CallField::kData: return "data";
    case CallField::kSequence: return "call sequence number";
    case CallField::kCount: break;
  }
  return "?";
}

uint64_t HashBytes(const void* data, size_t bytes) {
  // 8 bytes at a time with a multiply-xorshift mix; the tail byte by byte.
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0xcbf29ce484222325ULL ^ (bytes * 0x9e3779b97f4a7c15ULL);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h ^ (h >> 32);
}

CallFingerprint::CallFingerprint(const char* kind, std::string_view name)
    : kind_(kind), name_(name) {
  fields_[static_cast<int>(CallField::kOp)] =
      HashCombine(HashBytes(kind, std::strlen(kind)), HashBytes(name.data(), name.size()));
}

CallFingerprint& CallFingerprint::Add(CallField field, uint64_t value) {
  uint64_t& f = fields_[static_cast<int>(field)];
  f = HashCombine(f, value);
  return *this;
}

std::string CallFingerprint::Describe() const {
  if (describe_ != nullptr) return describe_(describe_context_);
  return std::string(kind_) + " " + std::string(name_);
}

Status AgreeCall(Communicator& group, const CallFingerprint& fingerprint) {
  const uint64_t sequence = group.NextCheckSequence();
  if (group.size() == 1) return Status::Ok();
  uint64_t fields[kFields];
  for (int i = 0; i < kFields; ++i) fields[i] = fingerprint.field(static_cast<CallField>(i));
  fields[static_cast<int>(CallField::kSequence)] = HashCombine(0, sequence);
  const int64_t h = static_cast<int64_t>(Fold(fields) & 0x7fffffffffffffffULL);
  int64_t votes[2] = {h, -h};
  TESS_RETURN_IF_ERROR(group.AllReduce(votes, votes, 2, DType::kI64, ReduceOp::kMax));
  if (votes[0] == -votes[1]) return Status::Ok();  // max(h) == min(h)
  return Mismatch(group, fingerprint, fields, sequence);
}

Status AgreeCallOnPlacement(const Placement& placement, const CallFingerprint& fingerprint) {
  if (placement.parallel_num() == 1) return Status::Ok();  // nobody to disagree with
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  if (!placement.contains(me)) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * group, MpiCommRegistry::Global().ForPlacement(placement));
  return AgreeCall(*group, fingerprint);
}

Status AgreeCallOnUnion(const Placement& a, const Placement& b,
                        const CallFingerprint& fingerprint) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  if (!a.contains(me) && !b.contains(me)) return Status::Ok();
  if (a.ranks() == b.ranks()) return AgreeCallOnPlacement(a, fingerprint);
  if (a.parallel_num() == 1 && b.parallel_num() == 1) return Status::Ok();  // one rank: me
  // Per thread, so a repeated call allocates nothing.
  thread_local std::vector<int32_t> ranks;
  ranks.assign(a.ranks().begin(), a.ranks().end());
  ranks.insert(ranks.end(), b.ranks().begin(), b.ranks().end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return AgreeCallOnRanks(ranks, fingerprint);
}

Status AgreeCallOnRanks(const std::vector<int32_t>& sorted_ranks,
                        const CallFingerprint& fingerprint) {
  if (sorted_ranks.size() <= 1) return Status::Ok();  // only this rank, or none
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  if (!std::binary_search(sorted_ranks.begin(), sorted_ranks.end(), me)) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * group, MpiCommRegistry::Global().ForRanks(sorted_ranks));
  return AgreeCall(*group, fingerprint);
}

namespace {

struct BoxingCall {
  std::string_view name;
  const Shape* shape;
  DType dtype;
  const Placement* src_placement;
  const NdSbp* src;
  const Placement* dst_placement;
  const NdSbp* dst;
};

std::string DescribeBoxingCall(const void* context) {
  const BoxingCall& c = *static_cast<const BoxingCall*>(context);
  return std::string(c.name) + " " + DTypeName(c.dtype) + c.shape->ToString() + " " +
         c.src->ToString() + " on " + c.src_placement->ToString() + " -> " + c.dst->ToString() +
         " on " + c.dst_placement->ToString();
}

}  // namespace

Status AgreeBoxingCall(std::string_view name, const Shape& shape, DType dtype,
                       const Placement& src_placement, const NdSbp& src,
                       const Placement& dst_placement, const NdSbp& dst) {
  const BoxingCall call{name, &shape, dtype, &src_placement, &src, &dst_placement, &dst};
  CallFingerprint fp("boxing", name);
  fp.AddLayout(shape, dtype, src_placement, src).AddPlacement(dst_placement).AddNdSbp(dst);
  fp.SetDescribe(&DescribeBoxingCall, &call);
  return AgreeCallOnUnion(src_placement, dst_placement, fp);
}

Status AgreeCallOnWorld(const CallFingerprint& fingerprint) {
  TESS_ASSIGN_OR_RETURN(Communicator * world, WorldGroup());
  return AgreeCall(*world, fingerprint);
}

}  // namespace tessera::comm
