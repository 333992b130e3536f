// Fault test, run by fault_test.sh under mpirun on 3 or more ranks: the last rank
// ("the faulty rank") stalls (SIGSTOP) or dies (SIGKILL) in the middle of a stream
// of all-reduces on the world communicator. The survivors must
//   1. get DEADLINE_EXCEEDED from the collective in flight within timeout + 1 s of the
//      fault (the faulty rank writes the moment of its fault to a file first; the
//      steady clock is the machine's CLOCK_MONOTONIC, shared by all local ranks);
//   2. find the world communicator poisoned: later calls fail at once, saying so;
//   3. keep working on a communicator of the survivors made before the fault, and on
//      one made after it;
//   4. get DEADLINE_EXCEEDED within timeout + 1 s when creating a communicator that
//      includes the faulty rank, naming it, and FAILED_PRECONDITION at once when
//      asking for that communicator again;
//   5. return from tess_runtime_finalize within timeout + 1 s: in "stall" mode while the
//      faulty rank is still stopped (MPI_Finalize cannot complete then, so
//      DEADLINE_EXCEEDED), in "kill" mode with the faulty rank dead (OK, or
//      DEADLINE_EXCEEDED at the bound: see the end of Run).
// Afterwards survivor 0 lets the stopped rank continue (SIGCONT): its own call then
// fails, and its creation of the communicator of step 4 finds every member's arrival
// (sent before the others gave up) yet must still end with DEADLINE_EXCEEDED within
// the bound (phase 2 of a bounded creation, mpi_comm_registry.cc); it finalizes too. Each survivor
// writes
// "<dir>/rank<R>" holding PASS or FAIL and its figures; fault_test.sh passes only
// when every survivor wrote PASS (mpirun's own exit status after a fault says
// nothing about the survivors' checks).
//
// The stalled rank also writes its file.
//
// "unplug" (only under tools/multihost.sh --tear-down-last-host-when DIR/fault_time, the
// faulty rank alone on the last host): the faulty rank stops, and the harness takes its
// host off the network and kills its processes, so the survivors face silence, as
// when a machine vanishes; they must pass the checks of "kill".
//
// Usage: fault_test MODE DIR, MODE = stall | kill | unplug, DIR = an existing directory.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "tessera/tessera.h"

namespace tessera::comm {
namespace {

constexpr double kTimeout = 1.0;
constexpr double kSlack = 1.0;  // the contract: an error within timeout + 1 s

using Clock = std::chrono::steady_clock;

double Now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

struct Checks {
  int rank = 0;
  int failures = 0;
  std::ostringstream figures;

  void Expect(bool ok, const std::string& what) {
    if (ok) return;
    ++failures;
    std::fprintf(stderr, "[rank %d] CHECK FAILED: %s\n", rank, what.c_str());
  }
  void Figure(const char* name, double value) { figures << " " << name << "=" << value; }
};

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The faulty rank: after a short while (so that the all-reduce stream is running),
// records the moment and stops or kills its own process, whatever thread is in MPI.
void ArmFault(const std::string& mode, const std::string& dir) {
  std::thread([mode, dir] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    {
      std::ofstream out(dir + "/fault_time.tmp");
      out.precision(17);
      out << Now() << "\n";
    }
    std::rename((dir + "/fault_time.tmp").c_str(), (dir + "/fault_time").c_str());
    // "unplug": stop here; tools/multihost.sh, watching for fault_time, takes this
    // rank's host off the network and kills what runs on it.
    raise(mode == "kill" ? SIGKILL : SIGSTOP);
  }).detach();
}

double ReadFaultTime(const std::string& dir) {
  // Written before the fault, which came before the survivor's deadline passed.
  std::ifstream in(dir + "/fault_time");
  double t = -1;
  in >> t;
  return t;
}

int Run(const std::string& mode, const std::string& dir) {
  // Through the C API, as a program would: the timeout comes from the init option.
  tess_runtime_init_options options = TESS_RUNTIME_INIT_OPTIONS_INIT;
  options.collective_timeout_seconds = kTimeout;
  if (tess_runtime_init_with_options(&options) != TESS_OK) {
    std::fprintf(stderr, "tess_runtime_init_with_options: %s\n", tess_last_error_message());
    return 2;
  }
  const int32_t me = WorldRank().value(), n = WorldSize().value();
  if (n < 3) {
    std::fprintf(stderr, "fault_test needs at least 3 ranks, got %d\n", n);
    return 2;
  }
  const int32_t faulty = n - 1;
  Checks c;
  c.rank = me;
  c.Expect(DefaultCollectiveTimeout().value() == kTimeout, "the init option set the timeout");
  int pid = static_cast<int>(getpid());
  std::vector<int> pids(n);
  MPI_Allgather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, MPI_COMM_WORLD);
  if (me == 0) {
    std::ofstream(dir + "/faulty_pid") << pids[faulty] << "\n";
  }
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  std::vector<int32_t> survivors(n - 1);
  std::iota(survivors.begin(), survivors.end(), 0);
  MpiCommunicator* before = nullptr;  // the survivors' communicator, made before the fault
  if (me != faulty) {
    Result<MpiCommunicator*> made = registry.ForRanks(survivors);
    c.Expect(made.ok(), "survivors' communicator before the fault: " + made.status().ToString());
    before = made.ok() ? *made : nullptr;
  }
  Result<MpiCommunicator*> world_or = registry.World();
  if (!world_or.ok() || (before == nullptr && me != faulty)) {
    std::fprintf(stderr, "[rank %d] setup failed: %s\n", me, world_or.status().ToString().c_str());
    return 2;
  }
  MpiCommunicator* world = *world_or;

  if (me == faulty) {
    ArmFault(mode, dir);
    std::vector<double> x(1024);
    Status status;
    do {
      std::fill(x.begin(), x.end(), 1.0);
      status = world->AllReduce(x.data(), x.data(), 1024, DType::kF64, ReduceOp::kSum);
    } while (status.ok());
    // Reached only in "stall" mode, once survivor 0 lets this rank continue: its own
    // deadline has long passed, so it gives up too and finalizes like the others.
    c.Expect(status.code() == StatusCode::kDeadlineExceeded,
             "the stalled rank's own call: " + status.ToString());
    // The survivors' arrival tokens for the communicator with this rank (step 4) are
    // waiting here, so this rank's agreement succeeds at once; the creation itself
    // cannot (the others gave up), and must still end within the bound.
    std::vector<int32_t> with_faulty = {faulty};
    with_faulty.insert(with_faulty.end(), survivors.begin(), survivors.end());
    const double create_start = Now();
    Result<MpiCommunicator*> late = registry.ForRanks(with_faulty);
    const double create_s = Now() - create_start;
    c.Figure("late_creation_s", create_s);
    c.Expect(late.status().code() == StatusCode::kDeadlineExceeded &&
                 Contains(late.status().message(), "every member arrived, but"),
             "late creation: " + late.status().ToString());
    c.Expect(create_s <= kTimeout + kSlack, "late creation took " + std::to_string(create_s));
    {
      std::ofstream out(dir + "/rank" + std::to_string(me));
      out << (c.failures == 0 ? "PASS" : "FAIL") << " mode=" << mode << c.figures.str() << "\n";
    }
    (void)tess_runtime_finalize();
    return c.failures == 0 ? 0 : 1;
  }

  // 1. The all-reduce stream until the fault stops it.
  std::vector<double> x(1024);
  Status error;
  double call_start = 0, error_at = 0;
  int64_t completed = 0;
  for (;;) {
    std::fill(x.begin(), x.end(), 1.0);
    call_start = Now();
    error = world->AllReduce(x.data(), x.data(), 1024, DType::kF64, ReduceOp::kSum);
    error_at = Now();
    if (!error.ok()) break;
    c.Expect(x[0] == n && x[1023] == n, "all-reduce before the fault sums to the rank count");
    ++completed;
  }
  const double fault_at = ReadFaultTime(dir);
  const double to_error = error_at - fault_at;
  c.Figure("collectives_before_fault", static_cast<double>(completed));
  c.Figure("time_to_error_s", to_error);
  c.Figure("failing_call_s", error_at - call_start);
  c.Expect(error.code() == StatusCode::kDeadlineExceeded, "collective error: " + error.ToString());
  c.Expect(StartsWith(error.message(), "AllReduce: not complete after the timeout of 1 s"),
           "collective message: " + error.message());
  c.Expect(fault_at > 0 && to_error <= kTimeout + kSlack,
           "time from the fault to the error is " + std::to_string(to_error) + " s");

  // 2. The world communicator is poisoned: refusals at once, saying why.
  const double refuse_start = Now();
  Status refused = world->Barrier();
  c.Figure("refusal_s", Now() - refuse_start);
  c.Expect(refused.code() == StatusCode::kFailedPrecondition, "refusal: " + refused.ToString());
  c.Expect(Contains(refused.message(), "unusable after an earlier call timed out"),
           "refusal message: " + refused.message());
  c.Expect(Now() - refuse_start < 0.1, "refusal took more than 0.1 s");

  // 3. The survivors keep working, on the communicator made before the fault...
  int64_t one = me + 1, sum = 0;
  Status ok = before->AllReduce(&one, &sum, 1, DType::kI64, ReduceOp::kSum);
  const int64_t expected = static_cast<int64_t>(n - 1) * n / 2;  // 1 + ... + (n - 1)
  c.Expect(ok.ok() && sum == expected, "survivors' all-reduce: " + ok.ToString());

  // 4. ... creating one that includes the faulty rank times out, naming it ...
  std::vector<int32_t> with_faulty = {faulty};
  with_faulty.insert(with_faulty.end(), survivors.begin(), survivors.end());
  const double create_start = Now();
  Result<MpiCommunicator*> bad = registry.ForRanks(with_faulty);
  const double create_s = Now() - create_start;
  c.Figure("creation_timeout_s", create_s);
  c.Expect(bad.status().code() == StatusCode::kDeadlineExceeded,
           "creation with the faulty rank: " + bad.status().ToString());
  c.Expect(Contains(bad.status().message(), "rank(s) [" + std::to_string(faulty) +
                                                "] did not arrive within the timeout of 1 s"),
           "creation message: " + bad.status().message());
  c.Expect(create_s >= kTimeout && create_s <= kTimeout + kSlack,
           "creation gave up after " + std::to_string(create_s) + " s");
  const double again_start = Now();
  Result<MpiCommunicator*> again = registry.ForRanks(with_faulty);
  c.Expect(again.status().code() == StatusCode::kFailedPrecondition &&
               Contains(again.status().message(), "failed earlier") && Now() - again_start < 0.1,
           "second request: " + again.status().ToString());

  // ... and creating a new one of the survivors (another order) works.
  std::vector<int32_t> reversed(survivors.rbegin(), survivors.rend());
  Result<MpiCommunicator*> after = registry.ForRanks(reversed);
  c.Expect(after.ok(), "survivors' communicator after the fault: " + after.status().ToString());
  if (after.ok()) {
    sum = 0;
    ok = (*after)->AllReduce(&one, &sum, 1, DType::kI64, ReduceOp::kSum);
    c.Expect(ok.ok() && sum == expected, "all-reduce after the fault: " + ok.ToString());
    c.Expect((*after)->Barrier().ok(), "survivors' barrier before finalize");
  }

  // 5. tess_runtime_finalize returns within the timeout (+ 1 s).
  const double finalize_start = Now();
  const tess_status code = tess_runtime_finalize();
  const Status finalized = code == TESS_OK
                               ? Status::Ok()
                               : Status(static_cast<StatusCode>(code), tess_last_error_message());
  const double finalize_s = Now() - finalize_start;
  c.Figure("finalize_s", finalize_s);
  c.Expect(finalize_s <= kTimeout + kSlack, "finalize took " + std::to_string(finalize_s) + " s");
  if (mode == "stall") {
    c.Expect(finalized.code() == StatusCode::kDeadlineExceeded &&
                 Contains(finalized.message(), "and MPI_Finalize did not complete within 1 s"),
             "finalize with a stopped peer: " + finalized.ToString());
    // Let the stopped rank continue: it fails its own call, and its MPI_Finalize
    // completes the survivors' (still running in the background).
    if (me == 0) kill(pids[faulty], SIGCONT);
  } else {
    // Measured: OK after about 50 ms when mpirun runs from a shell; DEADLINE_EXCEEDED
    // at the bound under Bazel's test runner (the fence then does not learn of the
    // death). Either way it returns within the bound, which is the contract.
    c.Expect(finalized.ok() || (finalized.code() == StatusCode::kDeadlineExceeded &&
                                Contains(finalized.message(), "MPI_Finalize did not complete")),
             "finalize with a dead peer: " + finalized.ToString());
    c.Figure("finalize_ok", finalized.ok() ? 1 : 0);
  }

  std::ofstream out(dir + "/rank" + std::to_string(me));
  out << (c.failures == 0 ? "PASS" : "FAIL") << " mode=" << mode << c.figures.str() << "\n";
  return c.failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tessera::comm

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "stall") != 0 && std::strcmp(argv[1], "kill") != 0 &&
                    std::strcmp(argv[1], "unplug") != 0)) {
    std::fprintf(stderr, "usage: %s stall|kill|unplug DIR\n", argv[0]);
    return 2;
  }
  return tessera::comm::Run(argv[1], argv[2]);
}
