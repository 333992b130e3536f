// ControlChannel: how the driver tells followers what to do next. A private duplicate of
// MPI_COMM_WORLD carries fixed-size commands (driver -> follower, in order) and health
// answers (follower -> driver). Followers wait for a command by polling a posted receive
// with pauses that grow to `poll_max_us`: an idle follower costs next to no CPU (a blocking
// MPI receive spins in Open MPI), and a command after idle is seen within about that
// pause. The driver's sends and waits are bounded by a deadline.
#ifndef TESSERA_CORE_SERVE_CONTROL_CHANNEL_H_
#define TESSERA_CORE_SERVE_CONTROL_CHANNEL_H_

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/status.h"

namespace tessera::serve {

// kKeepAlive: sent by an idle driver so that followers can tell a quiet driver from a
// gone one (Next's deadline).
enum class CommandKind : int32_t { kRun = 1, kPing = 2, kStop = 3, kKeepAlive = 4 };

struct Command {
  CommandKind kind = CommandKind::kStop;
  int32_t plan_id = -1;  // kRun
  int64_t sequence = 0;  // kPing: echoed in the answer
};

class ControlChannel {
 public:
  // Collective over the world (MPI_Comm_idup), bounded by `timeout_seconds` (0: none):
  // DEADLINE_EXCEEDED when a rank does not join in time. FAILED_PRECONDITION without an
  // MPI world.
  static Result<std::unique_ptr<ControlChannel>> Create(int32_t driver_rank, int64_t poll_max_us,
                                                        double timeout_seconds);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  int32_t rank() const { return rank_; }
  int32_t size() const { return size_; }
  int32_t driver() const { return driver_; }
  bool is_driver() const { return rank_ == driver_; }

  // Driver: sends `command` to every follower and waits until MPI has taken each send,
  // up to `timeout_seconds`. DEADLINE_EXCEEDED naming the followers whose send is still
  // pending.
  Status Broadcast(const Command& command, double timeout_seconds);
  // Driver: a kPing with a new sequence number, then waits up to `timeout_seconds` for
  // every follower's answer. DEADLINE_EXCEEDED naming the ranks that did not answer.
  Status Ping(double timeout_seconds);
  // Driver, from any one thread besides the one that calls Broadcast and Ping (they use
  // separate requests): sends kKeepAlive to every follower that has taken the previous
  // one. Never waits, so a stalled follower cannot hold it up.
  Status KeepAlive();
  // Follower: blocks until the next command arrives. kPing is answered and kKeepAlive
  // taken here; neither is returned. UNAVAILABLE when nothing at all (not even a
  // keep-alive) came for `silence_seconds`: the driver is gone or stopped.
  Result<Command> Next(double silence_seconds);

 private:
  ControlChannel() = default;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int32_t rank_ = 0;
  int32_t size_ = 1;
  int32_t driver_ = 0;
  int64_t poll_max_us_ = 500;
  int64_t ping_sequence_ = 0;
  // After a timeout: receives still pending are cancelled; sends still pending are moved
  // to abandoned_ (with their buffers, which are then leaked and replaced: MPI may still
  // read them), so that no pending request is ever overwritten.
  void Abandon();

  // The driver's scratch, one entry per rank (reused: no allocation per command).
  std::vector<MPI_Request> requests_;
  std::vector<MPI_Request> keepalive_requests_;
  std::vector<MPI_Request> abandoned_;
  // What pending sends read and receives write; leaked by the destructor when a request
  // abandoned by a timeout is still pending, since MPI may still touch it.
  struct Buffers {
    Command outgoing;
    std::vector<int64_t> answers;
  };
  std::unique_ptr<Buffers> buffers_ = std::make_unique<Buffers>();
};

}  // namespace tessera::serve

#endif  // TESSERA_CORE_SERVE_CONTROL_CHANNEL_H_
