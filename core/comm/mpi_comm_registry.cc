#include "core/comm/mpi_comm_registry.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <utility>

#include "core/comm/comm_checks.h"
#include "core/comm/deadline.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

using Clock = PollClock;

std::string RankList(const std::vector<int32_t>& ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

// FNV-1a over the rank list: what a member's arrival token carries, so a token left
// over from another creation (one that timed out) whose tag happens to be the same
// is recognised, not taken as an arrival.
uint64_t ListToken(const std::vector<int32_t>& ranks) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t r : ranks) {
    for (int b = 0; b < 4; ++b) {
      h ^= (static_cast<uint32_t>(r) >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

// The tag of a creation of `ranks`, for its arrival tokens (on AgreementComm()) and
// for MPI_Comm_create_group: derived from the list, so that what a creation that
// timed out leaves behind (tokens nobody received, a helper thread still blocked in
// MPI) cannot match the messages of a later creation of another list. The same list
// is never created again after a failure (failed_). Every member computes it from
// the same list, so it agrees.
int CreationTag(const std::vector<int32_t>& ranks) {
  static const int tag_ub = [] {
    int* value = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
    return found && value != nullptr ? *value : 32767;  // the least MPI allows
  }();
  return static_cast<int>(ListToken(ranks) % (static_cast<uint64_t>(tag_ub) + 1));
}

Clock::time_point DeadlineAfter(double seconds) { return DeadlineFrom(Clock::now(), seconds); }

// Phase 1 of a bounded creation: every member sends every other member a token and
// waits for all of theirs, until `deadline`. A member that never arrives is named in
// `*missing`. Point to point on a private duplicate of the world, so it involves the
// members only and can be abandoned: unmatched receives are cancelled, and a send
// still pending (a token is 8 bytes, so in practice sends complete at once) is
// released with its buffer kept.
Status AwaitArrivals(const std::vector<int32_t>& ranks, int32_t me, Clock::time_point deadline,
                     std::vector<int32_t>* missing, std::vector<int32_t>* strangers) {
  MPI_Comm agree = AgreementComm();
  if (agree == MPI_COMM_NULL) return FailedPrecondition("the runtime is not initialised");
  const size_t n = ranks.size();
  const int tag = CreationTag(ranks);
  // Heap-held: a send abandoned below may read its token after this returns.
  auto* token = new uint64_t(ListToken(ranks));
  std::vector<uint64_t> got(n, 0);
  std::vector<MPI_Request> requests(2 * n, MPI_REQUEST_NULL);  // [recv..., send...]
  for (size_t i = 0; i < n; ++i) {
    if (ranks[i] == me) continue;
    int rc = MPI_Irecv(&got[i], 1, MPI_UINT64_T, ranks[i], tag, agree, &requests[i]);
    if (rc == MPI_SUCCESS) {
      rc = MPI_Isend(token, 1, MPI_UINT64_T, ranks[i], tag, agree, &requests[n + i]);
    }
    if (rc != MPI_SUCCESS) {
      for (MPI_Request& r : requests) {
        if (r != MPI_REQUEST_NULL) {
          MPI_Cancel(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
      }
      delete token;
      return MpiError("MPI_Isend/MPI_Irecv", rc);
    }
  }
  Result<bool> all = PollUntil(deadline, /*forever=*/false, [&]() -> Result<bool> {
    int done = 0;
    int rc =
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Testall", rc);
    return done != 0;
  });
  // Whatever is still pending (on a timeout or an error) is cancelled or released.
  bool send_pending = false;
  for (size_t i = 0; i < n; ++i) {
    if (requests[i] != MPI_REQUEST_NULL) {
      MPI_Cancel(&requests[i]);
      MPI_Status status;
      MPI_Wait(&requests[i], &status);
      int cancelled = 0;
      MPI_Test_cancelled(&status, &cancelled);
      if (cancelled) missing->push_back(ranks[i]);
    }
    if (requests[n + i] != MPI_REQUEST_NULL) {
      MPI_Request_free(&requests[n + i]);
      send_pending = true;
    }
  }
  if (send_pending) {
    (void)token;  // kept: MPI may still read it
  } else {
    delete token;
  }
  if (!all.ok()) return all.status();
  for (size_t i = 0; i < n; ++i) {
    if (ranks[i] == me) continue;
    if (std::find(missing->begin(), missing->end(), ranks[i]) != missing->end()) continue;
    if (got[i] != ListToken(ranks)) strangers->push_back(ranks[i]);
  }
  return Status::Ok();
}

// Phase 2: MPI_Comm_create_group on a helper thread, waited for until `deadline`
// (MPI has no nonblocking form of it). On time: the new communicator. Late: NULL in
// `*comm` and the thread is left blocked inside MPI (its communicator, if it ever
// completes, is leaked); FinalizeWorld is bounded after a fault, so it cannot hang
// on that thread.
Status CreateGroupUntil(MPI_Group group, int tag, Clock::time_point deadline, MPI_Comm* comm,
                        bool* late) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    int rc = MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_NULL;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, group, tag]() mutable {
    MPI_Comm created = MPI_COMM_NULL;
    const int rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &created);
    MPI_Group_free(&group);
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->rc = rc;
    shared->comm = created;
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mu);
  *late = !shared->cv.wait_until(lock, deadline, [&] { return shared->done; });
  if (*late) return Status::Ok();
  if (shared->rc != MPI_SUCCESS) return MpiError("MPI_Comm_create_group", shared->rc);
  *comm = shared->comm;
  return Status::Ok();
}

}  // namespace

MpiCommRegistry& MpiCommRegistry::Global() {
  static MpiCommRegistry* registry = new MpiCommRegistry;  // outlives static destructors
  return *registry;
}

Status MpiCommRegistry::CheckWorldRanks(const Placement& placement, int32_t world_size) const {
  for (int32_t r : placement.ranks()) {
    if (r >= world_size) {
      return OutOfRange("placement " + placement.ToString() + " names rank " + std::to_string(r) +
                        " but the world has " + std::to_string(world_size) + " ranks");
    }
  }
  return Status::Ok();
}

Result<MpiCommunicator*> MpiCommRegistry::GetOrCreate(const std::vector<int32_t>& ranks,
                                                      const std::string& what) {
  auto it = by_ranks_.find(ranks);
  if (it != by_ranks_.end()) return it->second.get();
  auto failed = failed_.find(ranks);
  if (failed != failed_.end()) {
    return FailedPrecondition(
        "creating the communicator of " + what + " (world ranks " + RankList(ranks) +
        ") failed earlier, so every request for it fails: " + failed->second.message());
  }
  TESS_ASSIGN_OR_RETURN(double timeout, DefaultCollectiveTimeout());
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());

  MPI_Group world_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_group", rc);
  rc = MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
  MPI_Group_free(&world_group);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Group_incl", rc);
  MPI_Comm comm = MPI_COMM_NULL;
  // A creation that involves other ranks is bounded when a timeout is set (and MPI
  // allows a helper thread); otherwise it is MPI's blocking call, as a collective is.
  if (timeout > 0 && ranks.size() > 1 && ThreadLevel() == MPI_THREAD_MULTIPLE) {
    // Why two phases. MPI_Comm_create_group (collective over the members only, so a
    // placement's creation never involves ranks outside it) has no nonblocking form,
    // and one late member blocks it for good. MPI_Comm_idup would be nonblocking but
    // is collective over the parent, i.e. every world rank. So the members first agree
    // that all of them are here, with point-to-point messages that can be cancelled
    // (naming who is missing when the deadline passes), and only then enter the
    // blocking call; it runs on a helper thread, bounded again, because a member can
    // still stall or die between the two phases, or arrive late and find the others'
    // tokens of an agreement they already gave up.
    const std::string where = " (this is rank " + std::to_string(me) + ")";
    std::vector<int32_t> missing, strangers;
    Status arrived = AwaitArrivals(ranks, me, DeadlineAfter(timeout), &missing, &strangers);
    Status error;
    if (!arrived.ok()) {
      error = arrived;
    } else if (!missing.empty()) {
      error = DeadlineExceeded("creating the communicator of " + what + " (world ranks " +
                               RankList(ranks) + "): rank(s) " + RankList(missing) +
                               " did not arrive within the timeout of " + SecondsText(timeout) +
                               " s" + where + "; they are late, stopped or dead");
    } else if (!strangers.empty()) {
      error = FailedPrecondition(
          "creating the communicator of " + what + " (world ranks " + RankList(ranks) +
          "): rank(s) " + RankList(strangers) + " sent the arrival of a different creation" +
          where +
          ": ranks asked for communicators in different orders, or a creation that timed out "
          "earlier left it behind");
    } else {
      bool late = false;
      // Its own full timeout: every member was here a moment ago, so it takes
      // milliseconds unless a member stalls or dies in between.
      error = CreateGroupUntil(group, CreationTag(ranks), DeadlineAfter(timeout), &comm, &late);
      group = MPI_GROUP_NULL;  // the helper thread frees it
      if (error.ok() && late) {
        error = DeadlineExceeded(
            "creating the communicator of " + what + " (world ranks " + RankList(ranks) +
            "): every member arrived, but MPI_Comm_create_group did not complete within the "
            "timeout of " +
            SecondsText(timeout) + " s" + where +
            "; a member stalled or died after arriving, or arrived after the others gave up");
      }
    }
    if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
    if (!error.ok()) {
      if (error.code() == StatusCode::kDeadlineExceeded) NoteFault(timeout);
      failed_.emplace(ranks, error);
      return error;
    }
  } else {
    rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, CreationTag(ranks), &comm);
    MPI_Group_free(&group);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_create_group", rc);
  }
  auto wrapped = MpiCommunicator::Wrap(comm, /*owned=*/true);
  if (!wrapped.ok()) {
    MPI_Comm_free(&comm);
    return wrapped.status();
  }
  if (!hook_registered_) {
    AddPreFinalizeHook([] { Global().Clear(); });
    hook_registered_ = true;
  }
  MpiCommunicator* result = wrapped->get();
  by_ranks_.emplace(ranks, std::move(wrapped).value());
  return result;
}

MpiCommRegistry::PlacementEntry& MpiCommRegistry::EntryFor(const Placement& placement) {
  return by_placement_[placement.ToString()];  // copies the key only on insertion
}

Result<MpiCommunicator*> MpiCommRegistry::World() {
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int32_t> ranks(size);
  std::iota(ranks.begin(), ranks.end(), 0);
  return GetOrCreate(ranks, "the world");
}

Result<MpiCommunicator*> MpiCommRegistry::ForPlacement(const Placement& placement) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  std::lock_guard<std::mutex> lock(mu_);
  PlacementEntry& entry = EntryFor(placement);
  if (entry.whole != nullptr) return entry.whole;
  TESS_RETURN_IF_ERROR(CheckWorldRanks(placement, size));
  if (!placement.contains(me)) {
    return NotFound("rank " + std::to_string(me) + " is not in placement " + placement.ToString() +
                    ", so it has no communicator for it");
  }
  TESS_ASSIGN_OR_RETURN(entry.whole,
                        GetOrCreate(placement.ranks(), "placement " + placement.ToString()));
  return entry.whole;
}

Result<MpiCommunicator*> MpiCommRegistry::ForAxis(const Placement& placement, int axis) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  if (axis < 0 || axis >= placement.num_axes()) {
    return OutOfRange("hierarchy axis " + std::to_string(axis) + " is outside " +
                      placement.ToString() + ", which has " + std::to_string(placement.num_axes()) +
                      " axes");
  }
  std::lock_guard<std::mutex> lock(mu_);
  PlacementEntry& entry = EntryFor(placement);
  if (entry.axes[axis] != nullptr) return entry.axes[axis];
  TESS_RETURN_IF_ERROR(CheckWorldRanks(placement, size));
  if (!placement.contains(me)) {
    return NotFound("rank " + std::to_string(me) + " is not in placement " + placement.ToString() +
                    ", so it has no communicator for its axis " + std::to_string(axis));
  }
  TESS_ASSIGN_OR_RETURN(Placement group, placement.AxisGroup(axis, me));
  TESS_ASSIGN_OR_RETURN(entry.axes[axis],
                        GetOrCreate(group.ranks(), "hierarchy axis " + std::to_string(axis) +
                                                       " of placement " + placement.ToString()));
  return entry.axes[axis];
}

Result<MpiCommunicator*> MpiCommRegistry::ForRanks(const std::vector<int32_t>& world_ranks) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  std::lock_guard<std::mutex> lock(mu_);
  // A cached list was checked when it was created; a hit costs one map lookup.
  auto it = by_ranks_.find(world_ranks);
  if (it != by_ranks_.end()) return it->second.get();
  if (world_ranks.empty()) return InvalidArgument("ForRanks: the rank list is empty");
  std::vector<int32_t> sorted = world_ranks;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= size) {
      return OutOfRange("ForRanks: rank " + std::to_string(sorted[i]) +
                        " is outside the world of " + std::to_string(size) + " ranks");
    }
    if (i > 0 && sorted[i] == sorted[i - 1]) {
      return InvalidArgument("ForRanks: rank " + std::to_string(sorted[i]) + " is listed twice");
    }
  }
  if (!std::binary_search(sorted.begin(), sorted.end(), me)) {
    return NotFound("ForRanks: rank " + std::to_string(me) +
                    " is not in the rank list, so it has no communicator for it");
  }
  return GetOrCreate(world_ranks, "ranks " + RankList(world_ranks));
}

Status MpiCommRegistry::SetTimeout(double seconds) {
  // Checked here too: with no communicator cached, nothing else would check it.
  TESS_RETURN_IF_ERROR(CheckTimeout("MpiCommRegistry::SetTimeout", seconds));
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [ranks, comm] : by_ranks_) TESS_RETURN_IF_ERROR(comm->SetTimeout(seconds));
  return Status::Ok();
}

void MpiCommRegistry::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  by_placement_.clear();
  by_ranks_.clear();
  failed_.clear();
  hook_registered_ = false;
}

}  // namespace tessera::comm
