// Waiting for something that completes elsewhere (an MPI request, a CUDA stream, a
// peer's message) with an optional deadline: the one polling loop of the MPI and NCCL
// backends and of bounded communicator creation (mpi_comm_registry.cc).
//
// Most operations finish within microseconds, so the first polls spin. After that the
// waiter yields, which lets a process sharing its core run yet keeps polling often:
// Open MPI's nonblocking collectives (libnbc) advance only inside MPI calls, so a
// sleeping poller stalls its own operation. Only past kYieldFor, when a member is more
// likely late than slow, does it sleep, with doubling pauses of at most kMaxPause, so
// a deadline is overrun by at most about a millisecond.
//
// Header-only and free of MPI and CUDA, so its tests run on any machine; no heap
// allocation (it runs on the collectives' hot path).
#ifndef TESSERA_CORE_COMM_DEADLINE_H_
#define TESSERA_CORE_COMM_DEADLINE_H_

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/common/status.h"

namespace tessera::comm {

using PollClock = std::chrono::steady_clock;

inline constexpr int kSpinPolls = 200;
inline constexpr std::chrono::milliseconds kYieldFor(100);
inline constexpr std::chrono::microseconds kFirstPause(50);
inline constexpr std::chrono::microseconds kMaxPause(1000);

// `seconds` after `start`; callers check seconds (finite, >= 0, <= kMaxTimeoutSeconds)
// first, so the conversion cannot overflow.
inline PollClock::time_point DeadlineFrom(PollClock::time_point start, double seconds) {
  return start +
         std::chrono::duration_cast<PollClock::duration>(std::chrono::duration<double>(seconds));
}

// Calls `poll()` (returning Result<bool>: true when done, an error to stop) until it
// returns true or an error, or `deadline` passes: true when done, false when the
// deadline passed first, or poll's error. Polls at least once, even past the deadline.
// With `forever`, the deadline is ignored.
template <typename Poll>
Result<bool> PollUntil(PollClock::time_point deadline, bool forever, Poll&& poll) {
  const PollClock::time_point start = PollClock::now();
  std::chrono::microseconds pause = kFirstPause;
  for (int spins = 0;;) {
    Result<bool> done = poll();
    if (!done.ok() || *done) return done;
    if (spins < kSpinPolls) {
      ++spins;
      continue;
    }
    const PollClock::time_point now = PollClock::now();
    if (!forever && now >= deadline) return false;
    if (now - start < kYieldFor) {
      std::this_thread::yield();
      continue;
    }
    PollClock::duration wait = pause;
    if (!forever) wait = std::min<PollClock::duration>(wait, deadline - now);
    std::this_thread::sleep_for(wait);
    pause = std::min(pause * 2, kMaxPause);
  }
}

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_DEADLINE_H_
