// Server: the driver/follower serving model (capi/include/tessera/serve.h states the
// contract; docs/serving.md the design). Every rank creates the server and adds the same
// plans in the same order. On the driver, any number of threads call Run; requests wait
// in one FIFO, and one dispatcher thread takes them in order, batches those of one plan
// when the plan's options say so, tells the followers which plan runs next and runs it
// with them (ServedPlan::RunStaged). Followers sit in Follow, executing each command in
// lockstep until the driver's Stop sends kStop.
//
// The dispatcher alone issues the driver's collectives, so every rank sees one order. It
// sleeps on a condition variable while nothing is queued. Threads waiting in Run sleep on
// their request's own condition variable. All of it under the server's mutex: no global
// lock, and nothing allocated per request once a Request has served a request of its
// size.
#ifndef TESSERA_CORE_SERVE_SERVER_H_
#define TESSERA_CORE_SERVE_SERVER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/common/status.h"
#include "core/plan/compile.h"
#include "core/serve/control_channel.h"
#include "core/serve/request.h"
#include "core/serve/served_plan.h"

namespace tessera::serve {

struct ServerOptions {
  int32_t driver_rank = 0;
  double follower_timeout_seconds = 0;  // 0: the collective timeout, else 30
  int64_t follower_poll_max_us = 0;     // 0: 500
};

inline constexpr double kDefaultFollowerTimeoutSeconds = 30;
// Below it keep-alives (a quarter of the timeout apart) would flood the followers.
inline constexpr double kMinFollowerTimeoutSeconds = 0.01;
inline constexpr int64_t kDefaultFollowerPollMaxUs = 500;
inline constexpr int64_t kMaxFollowerPollMaxUs = 100000;

struct ServerStats {
  int64_t requests = 0;
  int64_t failed_requests = 0;
  int64_t runs = 0;
  int64_t rows = 0;
  int64_t queued_requests = 0;
  int64_t health_checks = 0;
  bool available = true;
  bool stopped = false;
  int64_t heap_allocations_last_batch = -1;  // -1: the binary does not count
};

class Server {
 public:
  // Collective over the world. INVALID_ARGUMENT for bad options (naming the field).
  static Result<std::unique_ptr<Server>> Create(const ServerOptions& options);
  // Driver: Stop(), ignoring its status.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  bool is_driver() const { return channel_->is_driver(); }
  Result<int32_t> AddPlan(std::shared_ptr<const plan::CompiledPlan> plan,
                          const ServePlanOptions& options);
  int32_t num_plans() const;
  // OUT_OF_RANGE for an unknown id (naming `where`).
  Result<const ServedPlan*> plan(const char* where, int32_t plan_id) const;

  Status Follow();
  Status Stop();
  Status Run(Request* request);
  Status CheckHealth(double timeout_seconds);
  ServerStats stats() const;

 private:
  Server(std::unique_ptr<ControlChannel> channel, double follower_timeout_seconds);

  void Dispatch();   // the dispatcher thread
  void KeepAlive();  // the keep-alive thread (driver, 2 or more ranks)
  void StopKeepAlive();
  // The process may serve with one server at a time (two servers' collectives on shared
  // communicators would interleave differently on each rank): FAILED_PRECONDITION naming
  // `where` when another live server is active; else marks this one active.
  Status BecomeActive(const char* where);
  // Under mu_: takes the next batch off the queue into batch_ (empty when none is due yet;
  // *wake is then when to look again).
  void TakeBatch(std::unique_lock<std::mutex>& lock);
  Status RunBatch(ServedPlan* plan, int32_t plan_id, int64_t rows);
  void Fail(const Status& why);                // under mu_
  void Complete(Request* r, const Status& s);  // under mu_
  Status SendStop();

  std::unique_ptr<ControlChannel> channel_;
  const double follower_timeout_;
  // The driver's keep-alive thread sends kKeepAlive this often, whatever the dispatcher
  // is doing (a long run, a health check waiting on one follower), so that followers can
  // tell a quiet driver from a gone one (they give up after follower_timeout_ of silence).
  const std::chrono::steady_clock::duration keepalive_interval_;
  std::vector<std::unique_ptr<ServedPlan>> plans_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;    // the dispatcher waits here
  std::condition_variable health_cv_;  // health checks wait here
  Request* head_ = nullptr;
  Request* tail_ = nullptr;
  std::vector<int64_t> queued_by_plan_;       // requests
  std::vector<int64_t> queued_rows_by_plan_;  // rows
  std::vector<Request*> batch_;               // the dispatcher's current batch
  bool serving_ = false;                      // a Run happened: no more plans
  bool following_ = false;
  bool stopping_ = false;
  bool stopped_ = false;
  Status failure_;  // OK while available
  int64_t ping_requested_ = 0;
  int64_t ping_done_ = 0;
  Status ping_status_;
  Status stop_status_;  // what telling the followers to stop gave
  ServerStats stats_;
  std::thread dispatcher_;
  std::thread keepalive_;
  std::condition_variable keepalive_cv_;
  bool keepalive_stop_ = false;  // under mu_
  // Serving (a Run or Follow happened) and not yet stopped; read across servers.
  std::atomic<bool> active_{false};
  std::atomic<bool> stopped_flag_{false};  // stopped_, readable without mu_
};

}  // namespace tessera::serve

#endif  // TESSERA_CORE_SERVE_SERVER_H_
