// Helpers of the serving edge-case tests (serve_edge_mpi_test.cc,
// serve_lifecycle_mpi_test.cc): a program builder, a plan whose answers plain loops give
// (x * x + x), servers and requests with checked calls, and Serve (drive or follow).
#ifndef TESSERA_TESTS_SERVE_SERVE_EDGE_UTIL_H_
#define TESSERA_TESTS_SERVE_SERVE_EDGE_UTIL_H_

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::serve_edge_test {

using capi_test::CpuOf;
using capi_test::ErrorHas;
using capi_test::LastError;
using capi_test::WorldRank;
using capi_test::WorldRanks;
using capi_test::WorldSize;
using Clock = std::chrono::steady_clock;

struct Destroy {
  void operator()(tess_program* p) const { tess_program_destroy(p); }
  void operator()(tess_plan* p) const { tess_plan_destroy(p); }
  void operator()(tess_server* p) const { tess_server_destroy(p); }
  void operator()(tess_serve_request* p) const { tess_serve_request_destroy(p); }
  void operator()(tess_op_call* p) const { tess_op_call_destroy(p); }
};
using ProgramPtr = std::unique_ptr<tess_program, Destroy>;
using PlanPtr = std::unique_ptr<tess_plan, Destroy>;
using ServerPtr = std::unique_ptr<tess_server, Destroy>;
using RequestPtr = std::unique_ptr<tess_serve_request, Destroy>;

// A program captured through the C API, then compiled (every rank).
class Builder {
 public:
  Builder() {
    tess_program* p = nullptr;
    EXPECT_EQ(tess_program_create(&p), TESS_OK) << LastError();
    program_.reset(p);
  }
  int64_t Input(const char* name, std::vector<int64_t> shape, tess_dtype dtype,
                const std::string& placement, const std::string& sbp) {
    capi_test::PlacementPtr pl = capi_test::Placement(placement);
    capi_test::NdSbpPtr s = capi_test::NdSbp(sbp);
    int64_t v = -1;
    EXPECT_EQ(tess_program_add_input(&v, program_.get(), name, shape.data(), shape.size(), dtype,
                                     pl.get(), s.get()),
              TESS_OK)
        << name << ": " << LastError();
    return v;
  }
  int64_t Op(const char* op, std::vector<int64_t> inputs) {
    tess_op_call* call = nullptr;
    EXPECT_EQ(tess_op_call_create(&call, op), TESS_OK) << LastError();
    std::unique_ptr<tess_op_call, Destroy> owned(call);
    int64_t first = -1;
    size_t n = 0;
    EXPECT_EQ(tess_program_add_op(&first, &n, program_.get(), call, inputs.data(), inputs.size()),
              TESS_OK)
        << op << ": " << LastError();
    return first;
  }
  void Output(int64_t v) {
    EXPECT_EQ(tess_program_mark_output(program_.get(), v), TESS_OK) << LastError();
  }
  PlanPtr Compile() {
    tess_plan* plan = nullptr;
    EXPECT_EQ(tess_plan_compile(&plan, program_.get(), nullptr), TESS_OK) << LastError();
    return PlanPtr(plan);
  }

 private:
  ProgramPtr program_;
};

inline std::string World() { return CpuOf(WorldRanks()); }

inline ServerPtr NewServer(int32_t driver_rank = 0, double follower_timeout = 0) {
  tess_server_options o = TESS_SERVER_OPTIONS_INIT;
  o.driver_rank = driver_rank;
  o.follower_timeout_seconds = follower_timeout;
  tess_server* s = nullptr;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_OK) << LastError();
  return ServerPtr(s);
}

inline int32_t AddPlan(tess_server* server, const tess_plan* plan, int32_t batching,
                       int64_t delay_us, int64_t max_batch_rows = 0, int64_t max_queued = 0) {
  tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
  o.batching = batching;
  o.max_queue_delay_us = delay_us;
  o.max_batch_rows = max_batch_rows;
  o.max_queued_requests = max_queued;
  int32_t id = -1;
  EXPECT_EQ(tess_server_add_plan(&id, server, plan, &o), TESS_OK) << LastError();
  return id;
}

inline bool IsDriver(const tess_server* server) {
  int32_t d = -1;
  EXPECT_EQ(tess_server_is_driver(&d, server), TESS_OK) << LastError();
  return d == 1;
}

inline tess_server_stats Stats(const tess_server* server) {
  tess_server_stats s = TESS_SERVER_STATS_INIT;
  EXPECT_EQ(tess_server_get_stats(&s, server), TESS_OK) << LastError();
  return s;
}

inline tess_serve_request_info Info(const tess_serve_request* r) {
  tess_serve_request_info info = TESS_SERVE_REQUEST_INFO_INIT;
  EXPECT_EQ(tess_serve_request_get_info(&info, r), TESS_OK) << LastError();
  return info;
}

// Waits (up to 10 s) until `done` holds; false if it never did.
inline bool WaitFor(const std::function<bool()>& done) {
  const Clock::time_point until = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

// Rows of `width` values, distinct per (rows, salt), multiples of 1/8 (exact in f32/f64).
template <typename T>
std::vector<T> Rows(int64_t rows, int64_t width, int salt) {
  std::vector<T> x(static_cast<size_t>(rows * width));
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<T>(static_cast<double>((static_cast<int64_t>(i) * 7 + salt * 11) % 23 - 11) /
                          8);
  }
  return x;
}

template <typename T>
inline void SetInput(tess_serve_request* r, size_t index, const std::vector<T>& x) {
  ASSERT_EQ(tess_serve_request_set_input(r, index, x.data(), x.size() * sizeof(T)), TESS_OK)
      << LastError();
}

template <typename T>
std::vector<T> Output(const tess_serve_request* r, size_t index) {
  size_t bytes = 0;
  EXPECT_EQ(tess_serve_request_output_bytes(&bytes, r, index), TESS_OK) << LastError();
  std::vector<T> y(bytes / sizeof(T));
  EXPECT_EQ(tess_serve_request_output(y.data(), bytes, r, index), TESS_OK) << LastError();
  return y;
}

inline RequestPtr NewRequest(const tess_server* server, int32_t plan_id) {
  tess_serve_request* r = nullptr;
  EXPECT_EQ(tess_serve_request_create(&r, server, plan_id), TESS_OK) << LastError();
  return RequestPtr(r);
}

// y = x + x * x, elementwise, f32: one plan of `capacity` rows of `width`, x as `sbp` on
// `placement` (default: the world, S(0)).
inline PlanPtr SquarePlusPlan(int64_t capacity, int64_t width, const std::string& placement,
                              const std::string& sbp = "S(0)") {
  Builder b;
  const int64_t x = b.Input("x", {capacity, width}, TESS_DTYPE_F32, placement, sbp);
  b.Output(b.Op("add", {x, b.Op("mul", {x, x})}));
  return b.Compile();
}

inline std::vector<float> SquarePlus(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + x[i] * x[i];
  return y;
}

// The driver runs `drive` then stops; followers follow. The server is stopped on the
// driver even when `drive` returns early on a failed ASSERT.
inline void Serve(tess_server* server, const std::function<void()>& drive) {
  if (IsDriver(server)) {
    drive();
    EXPECT_EQ(tess_server_stop(server), TESS_OK) << LastError();
  } else {
    EXPECT_EQ(tess_server_follow(server), TESS_OK) << LastError();
  }
}

// Five requests of 1, 2, 3, 4 and 2 rows fill one 12-row batch together (the delay is
// long: only a full batch runs at once), and each gets its own rows back.

// Runs `r` on `server` in a new thread, which checks the answer against SquarePlus.
inline std::thread RunAsync(tess_server* server, tess_serve_request* r, std::vector<float> x) {
  return std::thread([server, r, x] {
    ASSERT_EQ(tess_server_run(server, r), TESS_OK) << LastError();
    EXPECT_EQ(Output<float>(r, 0), SquarePlus(x));
  });
}

}  // namespace tessera::serve_edge_test

#endif  // TESSERA_TESTS_SERVE_SERVE_EDGE_UTIL_H_
