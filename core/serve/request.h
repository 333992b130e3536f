// Request: one call's rows for one served plan and, after a run, its answer (the C API's
// tess_serve_request). The server queues it by pointer and fills it in; the fields the
// queue uses are the server's, under its mutex.
#ifndef TESSERA_CORE_SERVE_REQUEST_H_
#define TESSERA_CORE_SERVE_REQUEST_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/status.h"
#include "core/serve/served_plan.h"

namespace tessera::serve {

class Server;

// One call's rows and, after a run, its answer. Owned by the caller; one thread at a time.
class Request {
 public:
  Request(const Server* server, int32_t plan_id, const ServedPlan* plan);

  const Server* server() const { return server_; }
  int32_t plan_id() const { return plan_id_; }
  // OUT_OF_RANGE for a bad index; INVALID_ARGUMENT for a size that is not 1 to
  // max_batch_rows whole rows.
  Status SetInput(size_t index, const void* data, size_t bytes);
  int64_t rows() const { return input_rows_.empty() || input_rows_[0] < 0 ? 0 : input_rows_[0]; }
  // Output `index` of the last successful run.
  Result<const std::vector<char>*> Output(size_t index) const;

  struct Info {
    int64_t batch_rows = 0;
    int64_t batch_requests = 0;
    double queue_seconds = 0;
    double run_seconds = 0;
  };
  // FAILED_PRECONDITION before a successful run.
  Result<Info> info() const;

 private:
  friend class Server;

  const Server* server_;
  int32_t plan_id_;
  const ServedPlan* plan_;
  std::vector<std::vector<char>> inputs_;
  std::vector<int64_t> input_rows_;  // -1: never set
  std::vector<std::vector<char>> outputs_;
  bool answered_ = false;  // the last run succeeded
  Info info_;
  // Queue state, under the server's mutex.
  Request* next_ = nullptr;
  bool done_ = false;
  Status status_;
  std::chrono::steady_clock::time_point enqueued_;
  std::condition_variable done_cv_;
};

}  // namespace tessera::serve

#endif  // TESSERA_CORE_SERVE_REQUEST_H_
