#include "core/serve/server.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "core/comm/communicator.h"
#include "core/comm/deadline.h"
#include "core/comm/mpi_world.h"
#include "core/common/limits.h"
#include "core/memory/heap_count.h"

namespace tessera::serve {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Status Cancelled(std::string message) { return Status(StatusCode::kCancelled, std::move(message)); }

// Live servers, so that tess_runtime_finalize can stop the ones the program did not (a
// driver's dispatcher must not send keep-alives after MPI_Finalize). Touched only at
// creation, destruction and finalize: never on a request's path.
std::mutex& LiveMutex() {
  static std::mutex mu;
  return mu;
}
std::set<Server*>& LiveServers() {
  static std::set<Server*> servers;
  return servers;
}

// A pre-finalize hook (comm::AddPreFinalizeHook): stops every live driver while MPI still
// works (queued requests are answered, followers released).
void StopLiveServers() {
  std::lock_guard<std::mutex> lock(LiveMutex());
  for (Server* server : LiveServers()) {
    if (server->is_driver()) (void)server->Stop();
  }
}

}  // namespace

// ---- Server: setup ----------------------------------------------------------------

Result<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  double timeout = options.follower_timeout_seconds;
  if (!(timeout >= 0) || timeout > kMaxTimeoutSeconds ||
      (timeout > 0 && timeout < kMinFollowerTimeoutSeconds)) {
    return InvalidArgument("tess_server_create: options->follower_timeout_seconds is " +
                           std::to_string(timeout) + "; it must be 0 (the default) or " +
                           std::to_string(kMinFollowerTimeoutSeconds) + " to " +
                           std::to_string(kMaxTimeoutSeconds));
  }
  if (options.follower_poll_max_us < 0 || options.follower_poll_max_us > kMaxFollowerPollMaxUs) {
    return InvalidArgument("tess_server_create: options->follower_poll_max_us is " +
                           std::to_string(options.follower_poll_max_us) + "; it must be 0 to " +
                           std::to_string(kMaxFollowerPollMaxUs));
  }
  if (timeout == 0) {
    TESS_ASSIGN_OR_RETURN(double collective, comm::DefaultCollectiveTimeout());
    timeout = collective > 0 ? collective : kDefaultFollowerTimeoutSeconds;
  }
  const int64_t poll_max =
      options.follower_poll_max_us == 0 ? kDefaultFollowerPollMaxUs : options.follower_poll_max_us;
  if (options.driver_rank < 0) {
    return InvalidArgument("tess_server_create: options->driver_rank is " +
                           std::to_string(options.driver_rank) + "; it must be a world rank");
  }
  TESS_ASSIGN_OR_RETURN(double collective_timeout, comm::DefaultCollectiveTimeout());
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<ControlChannel> channel,
                        ControlChannel::Create(options.driver_rank, poll_max, collective_timeout));
  if (options.driver_rank >= channel->size()) {
    // Every rank sees the same world size, so every rank returns here alike.
    return InvalidArgument("tess_server_create: options->driver_rank is " +
                           std::to_string(options.driver_rank) + " but the world has " +
                           std::to_string(channel->size()) + " rank(s)");
  }
  return std::unique_ptr<Server>(new Server(std::move(channel), timeout));
}

Server::Server(std::unique_ptr<ControlChannel> channel, double follower_timeout_seconds)
    : channel_(std::move(channel)),
      follower_timeout_(follower_timeout_seconds),
      keepalive_interval_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(std::min(1.0, follower_timeout_seconds / 4)))) {
  // The driver's threads run from the start: keep-alives keep the followers' silence
  // deadline from passing while the service has not taken its first request yet.
  {
    static std::once_flag hook;
    std::call_once(hook, [] { comm::AddPreFinalizeHook(&StopLiveServers); });
    std::lock_guard<std::mutex> lock(LiveMutex());
    LiveServers().insert(this);
  }
  if (channel_->is_driver() && channel_->size() > 1) {
    keepalive_ = std::thread(&Server::KeepAlive, this);
    dispatcher_ = std::thread(&Server::Dispatch, this);
  }
}

void Server::KeepAlive() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!keepalive_stop_) {
    keepalive_cv_.wait_for(lock, keepalive_interval_);
    if (keepalive_stop_) break;
    lock.unlock();
    const Status s = channel_->KeepAlive();
    lock.lock();
    if (!s.ok()) Fail(s);
  }
}

void Server::StopKeepAlive() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    keepalive_stop_ = true;
  }
  keepalive_cv_.notify_all();
  if (keepalive_.joinable() && keepalive_.get_id() != std::this_thread::get_id()) {
    keepalive_.join();
  }
}

Status Server::BecomeActive(const char* where) {
  if (active_.load()) return Status::Ok();
  std::lock_guard<std::mutex> lock(LiveMutex());
  for (Server* other : LiveServers()) {
    if (other != this && other->active_.load()) {
      return FailedPrecondition(
          std::string(where) +
          ": another server of this process is serving (it was not stopped): only one server "
          "may serve at a time, since two servers' collectives would interleave differently "
          "on each rank; stop the other first");
    }
  }
  active_.store(true);
  return Status::Ok();
}

Server::~Server() {
  {
    std::lock_guard<std::mutex> lock(LiveMutex());
    LiveServers().erase(this);
  }
  // After tess_runtime_finalize the hook has stopped it already (no MPI call here then).
  if (is_driver() && comm::WorldInitialized()) (void)Stop();
  StopKeepAlive();
  if (dispatcher_.joinable()) dispatcher_.join();
}

Result<int32_t> Server::AddPlan(std::shared_ptr<const plan::CompiledPlan> plan,
                                const ServePlanOptions& options) {
  std::lock_guard<std::mutex> lock(mu_);
  if (following_ || stopping_ || serving_) {
    return FailedPrecondition(std::string("tess_server_add_plan: the server is already ") +
                              (following_  ? "following"
                               : stopping_ ? "stopped"
                                           : "serving") +
                              "; add every plan before tess_server_follow / tess_server_run");
  }
  TESS_ASSIGN_OR_RETURN(
      std::unique_ptr<ServedPlan> served,
      ServedPlan::Create(std::move(plan), options, channel_->driver(), channel_->is_driver()));
  plans_.push_back(std::move(served));
  queued_by_plan_.push_back(0);
  queued_rows_by_plan_.push_back(0);
  return static_cast<int32_t>(plans_.size() - 1);
}

int32_t Server::num_plans() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int32_t>(plans_.size());
}

Result<const ServedPlan*> Server::plan(const char* where, int32_t plan_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (plan_id < 0 || static_cast<size_t>(plan_id) >= plans_.size()) {
    return OutOfRange(std::string(where) + ": plan id " + std::to_string(plan_id) +
                      " is unknown; the server has " + std::to_string(plans_.size()) + " plan(s)");
  }
  return plans_[static_cast<size_t>(plan_id)].get();
}

ServerStats Server::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ServerStats s = stats_;
  s.queued_requests = 0;
  for (int64_t n : queued_by_plan_) s.queued_requests += n;
  s.available = failure_.ok();
  s.stopped = stopped_;
  return s;
}

// ---- Followers --------------------------------------------------------------------

Status Server::Follow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (channel_->is_driver()) {
      return FailedPrecondition("tess_server_follow: this rank (" +
                                std::to_string(channel_->rank()) +
                                ") is the driver; followers are the other ranks");
    }
    if (following_) return FailedPrecondition("tess_server_follow: already called on this server");
  }
  TESS_RETURN_IF_ERROR(BecomeActive("tess_server_follow"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    following_ = true;
  }
  struct Inactive {
    std::atomic<bool>& active;
    ~Inactive() { active.store(false); }
  } inactive{active_};
  for (;;) {
    TESS_ASSIGN_OR_RETURN(Command command, channel_->Next(follower_timeout_));
    if (command.kind == CommandKind::kStop) {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
      return Status::Ok();
    }
    if (command.kind != CommandKind::kRun || command.plan_id < 0 ||
        static_cast<size_t>(command.plan_id) >= plans_.size()) {
      return Internal("tess_server_follow: the driver sent command " +
                      std::to_string(static_cast<int>(command.kind)) + " for plan " +
                      std::to_string(command.plan_id) + ", which this rank does not have (" +
                      std::to_string(plans_.size()) +
                      " plan(s)): every rank must add the same plans in the same order");
    }
    const long before = memory::ThreadHeapAllocationsIfCounted();
    const Status s = plans_[static_cast<size_t>(command.plan_id)]->RunStaged();
    const long after = memory::ThreadHeapAllocationsIfCounted();
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.runs;
    stats_.heap_allocations_last_batch = before < 0 ? -1 : after - before;
    // The driver reports the failure to its callers; this rank keeps following so that
    // the driver can still stop it.
    if (!s.ok()) Fail(s);
  }
}

// ---- Driver -----------------------------------------------------------------------

Status Server::Run(Request* request) {
  if (!channel_->is_driver()) {
    return FailedPrecondition("tess_server_run: this rank (" + std::to_string(channel_->rank()) +
                              ") is a follower; only the driver (rank " +
                              std::to_string(channel_->driver()) + ") takes requests");
  }
  if (request->server_ != this) {
    return InvalidArgument("tess_server_run: the request was made for another server");
  }
  for (size_t i = 0; i < request->input_rows_.size(); ++i) {
    if (request->input_rows_[i] < 0) {
      return InvalidArgument("tess_server_run: input " + std::to_string(i) +
                             " of the request was never set (tess_serve_request_set_input)");
    }
    if (request->input_rows_[i] != request->input_rows_[0]) {
      return InvalidArgument("tess_server_run: input " + std::to_string(i) + " has " +
                             std::to_string(request->input_rows_[i]) + " rows but input 0 has " +
                             std::to_string(request->input_rows_[0]));
    }
  }
  if (!active_.load() && !stopped_flag_.load()) {
    TESS_RETURN_IF_ERROR(BecomeActive("tess_server_run"));
  }
  std::unique_lock<std::mutex> lock(mu_);
  const size_t id = static_cast<size_t>(request->plan_id_);
  if (stopping_ || stopped_) {
    ++stats_.failed_requests;
    return Cancelled("tess_server_run: the server is stopping; no new requests are taken");
  }
  if (!failure_.ok()) {
    ++stats_.failed_requests;
    return Unavailable("tess_server_run: the server is unavailable: " + failure_.message());
  }
  if (queued_by_plan_[id] >= plans_[id]->options().max_queued_requests) {
    ++stats_.failed_requests;
    return Status(StatusCode::kResourceExhausted,
                  "tess_server_run: plan " + std::to_string(id) + " already has " +
                      std::to_string(queued_by_plan_[id]) +
                      " queued requests (max_queued_requests); try again later");
  }
  serving_ = true;
  if (!dispatcher_.joinable()) dispatcher_ = std::thread(&Server::Dispatch, this);
  request->next_ = nullptr;
  request->done_ = false;
  request->enqueued_ = Clock::now();
  if (tail_ == nullptr) {
    head_ = tail_ = request;
  } else {
    tail_->next_ = request;
    tail_ = request;
  }
  ++queued_by_plan_[id];
  queued_rows_by_plan_[id] += request->rows();
  ++stats_.requests;
  work_cv_.notify_one();
  request->done_cv_.wait(lock, [request] { return request->done_; });
  return request->status_;
}

Status Server::CheckHealth(double timeout_seconds) {
  if (!channel_->is_driver()) {
    return FailedPrecondition("tess_server_check_health: this rank (" +
                              std::to_string(channel_->rank()) + ") is a follower");
  }
  if (!(timeout_seconds > 0) || timeout_seconds > kMaxTimeoutSeconds) {
    return InvalidArgument("tess_server_check_health: timeout_seconds is " +
                           std::to_string(timeout_seconds) + "; it must be > 0 and at most " +
                           std::to_string(kMaxTimeoutSeconds));
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_ || stopped_) return Cancelled("tess_server_check_health: the server is stopped");
  if (!failure_.ok()) {
    return Unavailable("tess_server_check_health: the server is unavailable: " +
                       failure_.message());
  }
  if (!dispatcher_.joinable()) dispatcher_ = std::thread(&Server::Dispatch, this);
  const int64_t ticket = ++ping_requested_;
  work_cv_.notify_one();
  const Clock::time_point deadline = comm::DeadlineFrom(Clock::now(), timeout_seconds);
  if (!health_cv_.wait_until(lock, deadline, [&] { return ping_done_ >= ticket; })) {
    return DeadlineExceeded("tess_server_check_health: no answer within " +
                            std::to_string(timeout_seconds) +
                            " s (the driver is busy with earlier requests or a follower is "
                            "slow; the server fails once a follower misses " +
                            std::to_string(follower_timeout_) + " s)");
  }
  if (!ping_status_.ok()) {
    return Unavailable("tess_server_check_health: the server is unavailable: " +
                       ping_status_.message());
  }
  return Status::Ok();
}

Status Server::Stop() {
  if (!channel_->is_driver()) {
    return FailedPrecondition("tess_server_stop: this rank (" + std::to_string(channel_->rank()) +
                              ") is a follower; it returns from tess_server_follow when the "
                              "driver stops");
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (!stopping_) {
    stopping_ = true;
    if (!dispatcher_.joinable()) {
      lock.unlock();
      stop_status_ = SendStop();
      lock.lock();
      stopped_ = true;
      stopped_flag_.store(true);
      active_.store(false);
    }
  }
  work_cv_.notify_all();
  lock.unlock();
  if (dispatcher_.joinable() && dispatcher_.get_id() != std::this_thread::get_id()) {
    dispatcher_.join();
  }
  return stop_status_;
}

Status Server::SendStop() {
  Command stop;
  stop.kind = CommandKind::kStop;
  Status s = channel_->Broadcast(stop, follower_timeout_);
  if (!s.ok())
    return Unavailable("tess_server_stop: the followers were not told to stop: " + s.message());
  return Status::Ok();
}

void Server::Fail(const Status& why) {
  if (failure_.ok()) {
    failure_ = why.ok() ? Internal("unknown failure") : why;
  }
  health_cv_.notify_all();
}

void Server::Complete(Request* r, const Status& s) {
  r->status_ = s;
  r->done_ = true;
  if (!s.ok()) ++stats_.failed_requests;
  r->done_cv_.notify_one();
}

void Server::TakeBatch(std::unique_lock<std::mutex>&) {
  batch_.clear();
  Request* first = head_;
  const size_t id = static_cast<size_t>(first->plan_id_);
  const ServePlanOptions& o = plans_[id]->options();
  int64_t rows = 0;
  Request* prev = nullptr;
  for (Request* r = head_; r != nullptr;) {
    Request* next = r->next_;
    const bool same = static_cast<size_t>(r->plan_id_) == id;
    if (same && rows + r->rows() > o.max_batch_rows) break;  // keep arrival order
    if (same) {
      // Unlink r.
      if (prev == nullptr) {
        head_ = next;
      } else {
        prev->next_ = next;
      }
      if (tail_ == r) tail_ = prev;
      r->next_ = nullptr;
      rows += r->rows();
      --queued_by_plan_[id];
      queued_rows_by_plan_[id] -= r->rows();
      batch_.push_back(r);
      if (!o.batching) break;
    } else {
      prev = r;
    }
    r = next;
  }
}

void Server::Dispatch() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (ping_requested_ > ping_done_) {
      const int64_t ticket = ping_requested_;
      Status s;
      if (!failure_.ok()) {
        s = failure_;
      } else {
        lock.unlock();
        s = channel_->Ping(follower_timeout_);
        lock.lock();
        if (s.ok()) {
          ++stats_.health_checks;
        } else {
          Fail(s);
        }
      }
      ping_done_ = ticket;
      ping_status_ = s;
      health_cv_.notify_all();
      continue;
    }
    if (head_ == nullptr) {
      if (stopping_) break;
      work_cv_.wait(lock);
      continue;
    }
    const int32_t plan_id = head_->plan_id_;
    ServedPlan* plan = plans_[static_cast<size_t>(plan_id)].get();
    const ServePlanOptions& o = plan->options();
    if (o.batching && failure_.ok() && !stopping_ &&
        queued_rows_by_plan_[static_cast<size_t>(plan_id)] < o.max_batch_rows) {
      const Clock::time_point due =
          head_->enqueued_ + std::chrono::microseconds(o.max_queue_delay_us);
      if (Clock::now() < due) {
        work_cv_.wait_until(lock, due);
        continue;
      }
    }
    TakeBatch(lock);
    if (!failure_.ok()) {
      for (Request* r : batch_) {
        Complete(r,
                 Unavailable("tess_server_run: the server is unavailable: " + failure_.message()));
      }
      continue;
    }
    lock.unlock();
    // The waiting callers are blocked in Run: their buffers are ours until Complete.
    const long heap_before = memory::ThreadHeapAllocationsIfCounted();
    const Clock::time_point start = Clock::now();
    int64_t rows = 0;
    for (Request* r : batch_) {
      for (size_t i = 0; i < plan->inputs().size(); ++i) {
        const size_t row_bytes = plan->inputs()[i].row_bytes;
        std::memcpy(plan->driver_input(i) + static_cast<size_t>(rows) * row_bytes,
                    r->inputs_[i].data(), r->inputs_[i].size());
      }
      rows += r->rows();
    }
    for (size_t i = 0; i < plan->inputs().size(); ++i) {
      const size_t row_bytes = plan->inputs()[i].row_bytes;
      std::memset(plan->driver_input(i) + static_cast<size_t>(rows) * row_bytes, 0,
                  static_cast<size_t>(plan->capacity() - rows) * row_bytes);
    }
    Command run;
    run.kind = CommandKind::kRun;
    run.plan_id = plan_id;
    Status s = channel_->Broadcast(run, follower_timeout_);
    if (s.ok()) s = plan->RunStaged();
    const Clock::time_point end = Clock::now();
    int64_t offset = 0;
    for (Request* r : batch_) {
      r->answered_ = s.ok();
      if (s.ok()) {
        for (size_t j = 0; j < plan->outputs().size(); ++j) {
          const size_t row_bytes = plan->outputs()[j].row_bytes;
          const char* from = plan->driver_output(j) + static_cast<size_t>(offset) * row_bytes;
          r->outputs_[j].assign(from, from + static_cast<size_t>(r->rows()) * row_bytes);
        }
        r->info_.batch_rows = rows;
        r->info_.batch_requests = static_cast<int64_t>(batch_.size());
        r->info_.queue_seconds = Seconds(start - r->enqueued_);
        r->info_.run_seconds = Seconds(end - start);
      }
      offset += r->rows();
    }
    const long heap_after = memory::ThreadHeapAllocationsIfCounted();
    lock.lock();
    ++stats_.runs;
    stats_.heap_allocations_last_batch = heap_before < 0 ? -1 : heap_after - heap_before;
    if (s.ok()) {
      stats_.rows += rows;
      for (Request* r : batch_) Complete(r, Status::Ok());
    } else {
      // A failed step may have left the ranks at different points of the lockstep, so no
      // later run can be trusted: the server fails (serve.h, "Faults").
      Fail(s);
      for (Request* r : batch_) {
        Complete(r, Status(s.code(),
                           "tess_server_run: the run failed and the server is now "
                           "unavailable: " +
                               s.message()));
      }
    }
  }
  lock.unlock();
  // No keep-alive may follow the stop command (the followers are gone then).
  StopKeepAlive();
  const Status s = SendStop();
  lock.lock();
  stop_status_ = s;
  stopped_ = true;
  stopped_flag_.store(true);
  active_.store(false);
}

}  // namespace tessera::serve
