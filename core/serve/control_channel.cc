#include "core/serve/control_channel.h"

#include <chrono>
#include <string>
#include <thread>

#include "core/comm/deadline.h"
#include "core/comm/mpi_world.h"

namespace tessera::serve {
namespace {

constexpr int kCommandTag = 1;
constexpr int kAnswerTag = 2;

std::string MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(call) + " failed: " + std::string(text, static_cast<size_t>(length));
}

// Waits for requests_[ranks other than the driver] until `deadline`; on timeout lists the
// ranks still pending.
Status WaitAll(std::vector<MPI_Request>& requests, int32_t skip, double timeout_seconds,
               const char* what) {
  const comm::PollClock::time_point deadline =
      comm::DeadlineFrom(comm::PollClock::now(), timeout_seconds);
  Result<bool> done = comm::PollUntil(deadline, false, [&]() -> Result<bool> {
    int flag = 0;
    const int rc =
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Testall", rc));
    return flag != 0;
  });
  if (!done.ok()) return done.status();
  if (*done) return Status::Ok();
  std::string late;
  for (size_t r = 0; r < requests.size(); ++r) {
    if (static_cast<int32_t>(r) == skip || requests[r] == MPI_REQUEST_NULL) continue;
    int flag = 0;
    MPI_Test(&requests[r], &flag, MPI_STATUS_IGNORE);
    if (flag) continue;
    late += (late.empty() ? "" : ",") + std::to_string(r);
  }
  comm::NoteFault(timeout_seconds);
  return DeadlineExceeded(std::string(what) + ": rank(s) [" + late + "] did not answer within " +
                          std::to_string(timeout_seconds) + " s");
}

}  // namespace

Result<std::unique_ptr<ControlChannel>> ControlChannel::Create(int32_t driver_rank,
                                                               int64_t poll_max_us,
                                                               double timeout_seconds) {
  if (!comm::WorldInitialized()) {
    return FailedPrecondition("tess_server_create: call tess_runtime_init first");
  }
  std::unique_ptr<ControlChannel> c(new ControlChannel());
  TESS_ASSIGN_OR_RETURN(c->rank_, comm::WorldRank());
  TESS_ASSIGN_OR_RETURN(c->size_, comm::WorldSize());
  c->driver_ = driver_rank;
  c->poll_max_us_ = poll_max_us;
  c->requests_.assign(static_cast<size_t>(c->size_), MPI_REQUEST_NULL);
  // Nonblocking, so that a rank that never joins gives an error, not a hang.
  int rc = MPI_Comm_idup(MPI_COMM_WORLD, &c->comm_, &c->requests_[0]);
  if (rc != MPI_SUCCESS) return Unavailable("tess_server_create: " + MpiError("MPI_Comm_idup", rc));
  std::vector<MPI_Request> dup(1, c->requests_[0]);
  c->requests_[0] = MPI_REQUEST_NULL;
  if (timeout_seconds > 0) {
    Result<bool> done = comm::PollUntil(
        comm::DeadlineFrom(comm::PollClock::now(), timeout_seconds), false, [&]() -> Result<bool> {
          int flag = 0;
          const int test = MPI_Test(&dup[0], &flag, MPI_STATUS_IGNORE);
          if (test != MPI_SUCCESS) return Unavailable(MpiError("MPI_Test", test));
          return flag != 0;
        });
    if (!done.ok() || !*done) {
      // MPI still owns the pending duplication: leave it (and the handle) to the process.
      c->comm_ = MPI_COMM_NULL;
      if (!done.ok()) return done.status();
      comm::NoteFault(timeout_seconds);
      return DeadlineExceeded("tess_server_create: not every rank of the world (" +
                              std::to_string(c->size_) + ") called it within " +
                              std::to_string(timeout_seconds) +
                              " s (the collective timeout); every rank must create the server");
    }
  } else {
    rc = MPI_Wait(&dup[0], MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return Unavailable("tess_server_create: " + MpiError("MPI_Wait", rc));
  }
  MPI_Comm_set_errhandler(c->comm_, MPI_ERRORS_RETURN);
  c->buffers_->answers.assign(static_cast<size_t>(c->size_), 0);
  c->keepalive_requests_.assign(static_cast<size_t>(c->size_), MPI_REQUEST_NULL);
  return c;
}

ControlChannel::~ControlChannel() {
  if (!comm::WorldInitialized()) return;
  Abandon();
  // Pending sends complete on their own; their buffers (abandoned ones leaked, the
  // keep-alive a constant) outlive them.
  for (std::vector<MPI_Request>* list : {&abandoned_, &keepalive_requests_}) {
    for (MPI_Request& r : *list) {
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    }
  }
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void ControlChannel::Abandon() {
  bool sends = false;
  for (MPI_Request& r : requests_) {
    if (r == MPI_REQUEST_NULL) continue;
    int flag = 0;
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (flag) continue;
    // A receive can be cancelled (then completes at once); a send may not be.
    MPI_Cancel(&r);
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (flag) continue;
    abandoned_.push_back(r);
    r = MPI_REQUEST_NULL;
    sends = true;
  }
  if (sends) {
    std::vector<int64_t> answers = buffers_->answers;
    buffers_.release();  // intentionally leaked: MPI may still read it (see above)
    buffers_ = std::make_unique<Buffers>();
    buffers_->answers = std::move(answers);
  }
}

Status ControlChannel::KeepAlive() {
  static const Command kKeepAliveCommand{CommandKind::kKeepAlive, -1, 0};
  for (int32_t r = 0; r < size_; ++r) {
    MPI_Request& request = keepalive_requests_[static_cast<size_t>(r)];
    if (r == driver_) continue;
    if (request != MPI_REQUEST_NULL) {
      int flag = 0;
      const int rc = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Test", rc));
      if (!flag) continue;  // the follower has not taken the last one yet
    }
    const int rc =
        MPI_Isend(&kKeepAliveCommand, sizeof(Command), MPI_BYTE, r, kCommandTag, comm_, &request);
    if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Isend", rc));
  }
  return Status::Ok();
}

Status ControlChannel::Broadcast(const Command& command, double timeout_seconds) {
  buffers_->outgoing = command;
  for (int32_t r = 0; r < size_; ++r) {
    if (r == driver_) continue;
    const int rc = MPI_Isend(&buffers_->outgoing, sizeof(Command), MPI_BYTE, r, kCommandTag, comm_,
                             &requests_[static_cast<size_t>(r)]);
    if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Isend", rc));
  }
  Status s = WaitAll(requests_, driver_, timeout_seconds, "sending a command to the followers");
  if (!s.ok()) Abandon();
  return s;
}

Status ControlChannel::Ping(double timeout_seconds) {
  Command ping;
  ping.kind = CommandKind::kPing;
  ping.sequence = ++ping_sequence_;
  TESS_RETURN_IF_ERROR(Broadcast(ping, timeout_seconds));
  for (int32_t r = 0; r < size_; ++r) {
    if (r == driver_) continue;
    buffers_->answers[static_cast<size_t>(r)] = 0;
    const int rc = MPI_Irecv(&buffers_->answers[static_cast<size_t>(r)], 1, MPI_INT64_T, r,
                             kAnswerTag, comm_, &requests_[static_cast<size_t>(r)]);
    if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Irecv", rc));
  }
  Status waited = WaitAll(requests_, driver_, timeout_seconds, "health check");
  if (!waited.ok()) {
    Abandon();
    return waited;
  }
  for (int32_t r = 0; r < size_; ++r) {
    if (r != driver_ && buffers_->answers[static_cast<size_t>(r)] != ping.sequence) {
      return Internal("health check: rank " + std::to_string(r) + " answered check " +
                      std::to_string(buffers_->answers[static_cast<size_t>(r)]) + ", expected " +
                      std::to_string(ping.sequence));
    }
  }
  return Status::Ok();
}

Result<Command> ControlChannel::Next(double silence_seconds) {
  for (;;) {
    Command command;
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_Irecv(&command, sizeof(Command), MPI_BYTE, driver_, kCommandTag, comm_, &request);
    if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Irecv", rc));
    // Spin briefly (a command often follows the last at once), then sleep with pauses
    // doubling from 10 us to poll_max_us, until the driver has been silent too long.
    comm::PollClock::time_point silent_until =
        comm::DeadlineFrom(comm::PollClock::now(), silence_seconds);
    comm::PollClock::time_point last_poll = comm::PollClock::now();
    int64_t pause_us = 10;
    for (int polls = 0;; ++polls) {
      int flag = 0;
      rc = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Test", rc));
      if (flag) break;
      // Silence counts only while this process runs: a gap between two polls far longer
      // than the pause means it was stopped (SIGSTOP, a debugger, swapped out), and the
      // driver's messages of that time are still to be read.
      const comm::PollClock::time_point now = comm::PollClock::now();
      const comm::PollClock::duration gap = now - last_poll;
      if (gap > std::chrono::microseconds(pause_us) + std::chrono::milliseconds(100)) {
        silent_until += gap;
      }
      last_poll = now;
      if (polls < 100) continue;
      if (now >= silent_until) {
        // The receive stays posted into `command`, which dies with this frame: cancel it.
        MPI_Cancel(&request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        comm::NoteFault(silence_seconds);
        return Unavailable("tess_server_follow: nothing from the driver (rank " +
                           std::to_string(driver_) + ") for " + std::to_string(silence_seconds) +
                           " s, not even a keep-alive: the driver is gone or stalled");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
      pause_us = pause_us * 2 < poll_max_us_ ? pause_us * 2 : poll_max_us_;
    }
    if (command.kind == CommandKind::kKeepAlive) continue;
    if (command.kind != CommandKind::kPing) return command;
    rc = MPI_Send(&command.sequence, 1, MPI_INT64_T, driver_, kAnswerTag, comm_);
    if (rc != MPI_SUCCESS) return Unavailable(MpiError("MPI_Send", rc));
  }
}

}  // namespace tessera::serve
