#include "core/comm/mpi_world.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera::comm {
namespace {

struct WorldState {
  std::atomic<bool> initialized{false};
  bool owns_mpi = false;  // true when InitWorld called MPI_Init_thread
  int thread_level = -1;
  int32_t rank = 0;
  int32_t size = 1;
  MPI_Comm agreement = MPI_COMM_NULL;
  // Set when a bounded MPI_Finalize was left running: MPI can be neither used nor
  // initialised again.
  std::atomic<bool> finalize_abandoned{false};
  std::mutex fault_mu;
  bool fault = false;
  double fault_timeout = 0;  // the largest timeout a noted fault gave up after
};

WorldState& State() {
  static WorldState state;
  return state;
}

struct FinalizeHooks {
  std::mutex mu;
  std::vector<void (*)()> hooks;
};

FinalizeHooks& Hooks() {
  static FinalizeHooks* hooks = new FinalizeHooks;  // never destroyed: used at exit
  return *hooks;
}

void RunPreFinalizeHooks() {
  std::vector<void (*)()> hooks;
  {
    std::lock_guard<std::mutex> lock(Hooks().mu);
    hooks.swap(Hooks().hooks);
  }
  for (auto it = hooks.rbegin(); it != hooks.rend(); ++it) (*it)();
}

}  // namespace

Status MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  return Internal(std::string(call) + " failed: " +
                  (len > 0 ? std::string(text, len) : "MPI error " + std::to_string(code)));
}

namespace {

// `teardown` (the pre-finalize hooks, then MPI_Finalize) on a helper thread, waited
// for at most `seconds`. The state is shared with the thread, which outlives this
// call when the bound passes.
Status BoundedFinalize(int (*teardown)(), double seconds) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    int rc = MPI_SUCCESS;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, teardown] {
    const int rc = teardown();
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->rc = rc;
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mu);
  if (!shared->cv.wait_for(lock, std::chrono::duration<double>(seconds),
                           [&] { return shared->done; })) {
    State().finalize_abandoned.store(true);
    char text[32];
    std::snprintf(text, sizeof(text), "%g", seconds);
    return DeadlineExceeded(
        std::string("FinalizeWorld: freeing communicators and MPI_Finalize did not complete "
                    "within ") +
        text +
        " s: another rank is stopped or unreachable (Open MPI's MPI_Finalize waits for every "
        "process of the job). MPI stays initialised and this process should exit; mpirun will "
        "report that it exited without calling finalize");
  }
  if (shared->rc != MPI_SUCCESS) return MpiError("MPI_Finalize", shared->rc);
  return Status::Ok();
}

}  // namespace

Status InitWorld() {
  WorldState& s = State();
  if (s.initialized.load()) return Status::Ok();
  if (s.finalize_abandoned.load()) {
    return FailedPrecondition(
        "tess_runtime_init: an earlier finalize gave up waiting for MPI_Finalize (a peer was "
        "stopped or unreachable); MPI cannot be initialised again in this process");
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {
    return FailedPrecondition(
        "tess_runtime_init: MPI was already finalized in this process and cannot "
        "be initialised again");
  }
  int already = 0;
  MPI_Initialized(&already);
  if (already) {
    s.owns_mpi = false;
    MPI_Query_thread(&s.thread_level);
  } else {
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &s.thread_level);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Init_thread", rc);
    s.owns_mpi = true;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  int rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_rank", rc);
  rc = MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
  // Collective over the world, like MPI_Init_thread just before it; blocking, since
  // no timeout is known yet and every rank has just passed MPI_Init's own fence.
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &s.agreement);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_dup", rc);
  MPI_Comm_set_errhandler(s.agreement, MPI_ERRORS_RETURN);
  s.rank = rank;
  s.size = size;
  s.initialized.store(true);
  return Status::Ok();
}

namespace {

// Frees what Tessera holds (hooks: communicator caches, whose shared-memory windows
// are freed collectively) and its agreement communicator, then finalises MPI if
// InitWorld initialised it. Returns MPI_Finalize's code.
int Teardown() {
  WorldState& s = State();
  RunPreFinalizeHooks();
  // Local in Open MPI (no communication), so safe with a peer gone; messages of an
  // agreement that timed out may still be queued on it, which MPI allows.
  if (s.agreement != MPI_COMM_NULL) MPI_Comm_free(&s.agreement);
  return s.owns_mpi ? MPI_Finalize() : MPI_SUCCESS;
}

}  // namespace

Status FinalizeWorld(double timeout_seconds) {
  WorldState& s = State();
  if (!s.initialized.load()) return Status::Ok();
  s.initialized.store(false);
  double bound = timeout_seconds > 0 ? timeout_seconds : 0;
  {
    std::lock_guard<std::mutex> lock(s.fault_mu);
    if (s.fault) bound = std::max(bound, s.fault_timeout);
  }
  // The helper thread needs MPI_THREAD_MULTIPLE (MPI asks that MPI_Finalize run on
  // the thread that initialised MPI where less was granted).
  if (bound > 0 && s.thread_level == MPI_THREAD_MULTIPLE) return BoundedFinalize(Teardown, bound);
  int rc = Teardown();
  if (rc != MPI_SUCCESS) return MpiError("MPI_Finalize", rc);
  return Status::Ok();
}

MPI_Comm AgreementComm() { return WorldInitialized() ? State().agreement : MPI_COMM_NULL; }

void NoteFault(double timeout_seconds) {
  WorldState& s = State();
  std::lock_guard<std::mutex> lock(s.fault_mu);
  s.fault = true;
  s.fault_timeout = std::max(s.fault_timeout, timeout_seconds);
}

bool FaultNoted() {
  WorldState& s = State();
  std::lock_guard<std::mutex> lock(s.fault_mu);
  return s.fault;
}

bool WorldInitialized() { return State().initialized.load(); }

Result<int32_t> WorldRank() {
  if (!WorldInitialized())
    return FailedPrecondition("the runtime is not initialised: call tess_runtime_init first");
  return State().rank;
}

Result<int32_t> WorldSize() {
  if (!WorldInitialized())
    return FailedPrecondition("the runtime is not initialised: call tess_runtime_init first");
  return State().size;
}

void AddPreFinalizeHook(void (*hook)()) {
  std::lock_guard<std::mutex> lock(Hooks().mu);
  Hooks().hooks.push_back(hook);
}

int ThreadLevel() { return WorldInitialized() ? State().thread_level : -1; }

}  // namespace tessera::comm
