#include "core/comm/mpi_world.h"

#include <mpi.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::comm {
namespace {

struct WorldState {
  std::atomic<bool> initialized{false};
  bool owns_mpi = false;  // true when InitWorld called MPI_Init_thread
  int thread_level = -1;
  int32_t rank = 0;
  int32_t size = 1;
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

Status InitWorld() {
  WorldState& s = State();
  if (s.initialized.load()) return Status::Ok();
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
  s.rank = rank;
  s.size = size;
  s.initialized.store(true);
  return Status::Ok();
}

Status FinalizeWorld() {
  WorldState& s = State();
  if (!s.initialized.load()) return Status::Ok();
  s.initialized.store(false);
  RunPreFinalizeHooks();
  if (s.owns_mpi) {
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) return MpiError("MPI_Finalize", rc);
  }
  return Status::Ok();
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
