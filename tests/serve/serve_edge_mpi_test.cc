// Edge cases of serving (tessera/serve.h) under mpirun, 1 and 3 ranks: rows of different
// sizes sharing a batch, plans with several inputs and outputs, non-f32 dtypes and 3-d
// inputs, splits that do not divide the capacity, a driver outside the plan's placement
// or other than rank 0, batching order across two plans and with requests that do not
// fit the rest of a batch, the queue limit, stop racing runs and health checks, a
// follower that follows late, and two servers in one process. Every expected value is
// derived here with plain loops. Tests named DISABLED_ reproduce bugs of core/serve
// (see the comment above each).
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
namespace {

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
  void Output(int64_t v) { EXPECT_EQ(tess_program_mark_output(program_.get(), v), TESS_OK) << LastError(); }
  PlanPtr Compile() {
    tess_plan* plan = nullptr;
    EXPECT_EQ(tess_plan_compile(&plan, program_.get(), nullptr), TESS_OK) << LastError();
    return PlanPtr(plan);
  }

 private:
  ProgramPtr program_;
};

std::string World() { return CpuOf(WorldRanks()); }

ServerPtr NewServer(int32_t driver_rank = 0, double follower_timeout = 0) {
  tess_server_options o = TESS_SERVER_OPTIONS_INIT;
  o.driver_rank = driver_rank;
  o.follower_timeout_seconds = follower_timeout;
  tess_server* s = nullptr;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_OK) << LastError();
  return ServerPtr(s);
}

int32_t AddPlan(tess_server* server, const tess_plan* plan, int32_t batching, int64_t delay_us,
                int64_t max_batch_rows = 0, int64_t max_queued = 0) {
  tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
  o.batching = batching;
  o.max_queue_delay_us = delay_us;
  o.max_batch_rows = max_batch_rows;
  o.max_queued_requests = max_queued;
  int32_t id = -1;
  EXPECT_EQ(tess_server_add_plan(&id, server, plan, &o), TESS_OK) << LastError();
  return id;
}

bool IsDriver(const tess_server* server) {
  int32_t d = -1;
  EXPECT_EQ(tess_server_is_driver(&d, server), TESS_OK) << LastError();
  return d == 1;
}

tess_server_stats Stats(const tess_server* server) {
  tess_server_stats s = TESS_SERVER_STATS_INIT;
  EXPECT_EQ(tess_server_get_stats(&s, server), TESS_OK) << LastError();
  return s;
}

tess_serve_request_info Info(const tess_serve_request* r) {
  tess_serve_request_info info = TESS_SERVE_REQUEST_INFO_INIT;
  EXPECT_EQ(tess_serve_request_get_info(&info, r), TESS_OK) << LastError();
  return info;
}

// Waits (up to 10 s) until `done` holds; false if it never did.
bool WaitFor(const std::function<bool()>& done) {
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
    x[i] = static_cast<T>(static_cast<double>((static_cast<int64_t>(i) * 7 + salt * 11) % 23 - 11) / 8);
  }
  return x;
}

template <typename T>
void SetInput(tess_serve_request* r, size_t index, const std::vector<T>& x) {
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

RequestPtr NewRequest(const tess_server* server, int32_t plan_id) {
  tess_serve_request* r = nullptr;
  EXPECT_EQ(tess_serve_request_create(&r, server, plan_id), TESS_OK) << LastError();
  return RequestPtr(r);
}

// y = x + x * x, elementwise, f32: one plan of `capacity` rows of `width`, x as `sbp` on
// `placement` (default: the world, S(0)).
PlanPtr SquarePlusPlan(int64_t capacity, int64_t width, const std::string& placement,
                       const std::string& sbp = "S(0)") {
  Builder b;
  const int64_t x = b.Input("x", {capacity, width}, TESS_DTYPE_F32, placement, sbp);
  b.Output(b.Op("add", {x, b.Op("mul", {x, x})}));
  return b.Compile();
}

std::vector<float> SquarePlus(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + x[i] * x[i];
  return y;
}

// The driver runs `drive` then stops; followers follow. The server is stopped on the
// driver even when `drive` returns early on a failed ASSERT.
void Serve(tess_server* server, const std::function<void()>& drive) {
  if (IsDriver(server)) {
    drive();
    EXPECT_EQ(tess_server_stop(server), TESS_OK) << LastError();
  } else {
    EXPECT_EQ(tess_server_follow(server), TESS_OK) << LastError();
  }
}

// Five requests of 1, 2, 3, 4 and 2 rows fill one 12-row batch together (the delay is
// long: only a full batch runs at once), and each gets its own rows back.
TEST(ServeEdge, RequestsOfDifferentRowCountsShareOneBatch) {
  constexpr int64_t kCapacity = 12, kWidth = 3;
  PlanPtr plan = SquarePlusPlan(kCapacity, kWidth, World());
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 5000000);
  Serve(server.get(), [&] {
    const int64_t rows[] = {1, 2, 3, 4, 2};
    std::vector<std::thread> pool;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 5; ++t) {
      pool.emplace_back([&, t] {
        RequestPtr r = NewRequest(server.get(), id);
        const std::vector<float> x = Rows<float>(rows[t], kWidth, t);
        SetInput(r.get(), 0, x);
        ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
        if (Output<float>(r.get(), 0) != SquarePlus(x)) ++wrong;
        const tess_serve_request_info info = Info(r.get());
        EXPECT_EQ(info.batch_rows, kCapacity);
        EXPECT_EQ(info.batch_requests, 5);
        EXPECT_LT(info.queue_seconds, 4.0) << "a full batch runs at once, not after the delay";
      });
    }
    for (std::thread& t : pool) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(Stats(server.get()).runs, 1);
    EXPECT_EQ(Stats(server.get()).rows, kCapacity);
  });
}

// Three inputs and three outputs, f64 and i32, a 3-d input split along axis 1 and a
// capacity (5) that 3 ranks do not divide:
//   a [5, 2, 3] f64 S(0), b [5, 2, 3] f64 S(1), k [5] i32 S(0)
//   outputs a + b, a * b (f64 [5, 2, 3]), k + k (i32 [5]).
TEST(ServeEdge, SeveralInputsAndOutputsOfOtherDtypesAnd3dShapes) {
  constexpr int64_t kCapacity = 5, kWidth = 6;
  Builder bld;
  const int64_t a = bld.Input("a", {kCapacity, 2, 3}, TESS_DTYPE_F64, World(), "S(0)");
  const int64_t b = bld.Input("b", {kCapacity, 2, 3}, TESS_DTYPE_F64, World(), "S(1)");
  const int64_t k = bld.Input("k", {kCapacity}, TESS_DTYPE_I32, World(), "S(0)");
  bld.Output(bld.Op("add", {a, b}));
  bld.Output(bld.Op("mul", {a, b}));
  bld.Output(bld.Op("add", {k, k}));
  PlanPtr plan = bld.Compile();
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 0);
  tess_serve_plan_info info = TESS_SERVE_PLAN_INFO_INIT;
  ASSERT_EQ(tess_server_get_plan_info(&info, server.get(), id), TESS_OK) << LastError();
  EXPECT_EQ(info.num_inputs, 3);
  EXPECT_EQ(info.num_outputs, 3);
  EXPECT_EQ(info.capacity_rows, kCapacity);
  const int64_t widths[] = {kWidth, kWidth, 1};
  const tess_dtype dtypes[] = {TESS_DTYPE_F64, TESS_DTYPE_F64, TESS_DTYPE_I32};
  for (size_t i = 0; i < 3; ++i) {
    int64_t w = 0;
    tess_dtype d = TESS_DTYPE_F32;
    ASSERT_EQ(tess_server_plan_input_width(&w, server.get(), id, i), TESS_OK) << LastError();
    EXPECT_EQ(w, widths[i]) << "input " << i;
    ASSERT_EQ(tess_server_plan_output_width(&w, server.get(), id, i), TESS_OK) << LastError();
    EXPECT_EQ(w, widths[i]) << "output " << i;
    ASSERT_EQ(tess_server_plan_input_dtype(&d, server.get(), id, i), TESS_OK) << LastError();
    EXPECT_EQ(d, dtypes[i]) << "input " << i;
    ASSERT_EQ(tess_server_plan_output_dtype(&d, server.get(), id, i), TESS_OK) << LastError();
    EXPECT_EQ(d, dtypes[i]) << "output " << i;
  }
  Serve(server.get(), [&] {
    // Requests of 2 and 3 rows (one after the other), then one of all 5.
    for (int64_t rows : {2, 3, 5}) {
      RequestPtr r = NewRequest(server.get(), id);
      const std::vector<double> av = Rows<double>(rows, kWidth, 1 + static_cast<int>(rows));
      const std::vector<double> bv = Rows<double>(rows, kWidth, 40 + static_cast<int>(rows));
      std::vector<int32_t> kv(static_cast<size_t>(rows));
      for (int64_t i = 0; i < rows; ++i) kv[static_cast<size_t>(i)] = static_cast<int32_t>(100 * rows + i);
      SetInput(r.get(), 0, av);
      SetInput(r.get(), 1, bv);
      // Inputs of different row counts are refused, naming both counts.
      const std::vector<int32_t> short_k(kv.begin(), kv.end() - 1);
      SetInput(r.get(), 2, short_k);
      EXPECT_EQ(tess_server_run(server.get(), r.get()), TESS_INVALID_ARGUMENT);
      EXPECT_TRUE(ErrorHas("input 2 has " + std::to_string(rows - 1) + " rows but input 0 has " +
                           std::to_string(rows)));
      SetInput(r.get(), 2, kv);
      ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
      std::vector<double> sum(av.size()), prod(av.size());
      for (size_t i = 0; i < av.size(); ++i) {
        sum[i] = av[i] + bv[i];
        prod[i] = av[i] * bv[i];
      }
      std::vector<int32_t> twice(kv.size());
      for (size_t i = 0; i < kv.size(); ++i) twice[i] = 2 * kv[i];
      EXPECT_EQ(Output<double>(r.get(), 0), sum) << rows << " rows";
      EXPECT_EQ(Output<double>(r.get(), 1), prod) << rows << " rows";
      EXPECT_EQ(Output<int32_t>(r.get(), 2), twice) << rows << " rows";
    }
  });
}

// A capacity of 2 rows split over every rank: at 3 ranks one rank holds no rows.
TEST(ServeEdge, FewerRowsThanRanks) {
  PlanPtr plan = SquarePlusPlan(2, 4, World());
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 0, 0);
  Serve(server.get(), [&] {
    for (int64_t rows : {1, 2}) {
      RequestPtr r = NewRequest(server.get(), id);
      const std::vector<float> x = Rows<float>(rows, 4, 3);
      SetInput(r.get(), 0, x);
      ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
      EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x)) << rows << " rows";
    }
  });
}

// The last rank drives, and the plan lies on every rank but the driver (at 1 rank: on the
// driver, the only rank), with 7 rows split unevenly.
TEST(ServeEdge, DriverOtherThanRankZeroAndOutsideThePlacement) {
  const int32_t driver = WorldSize() - 1;
  std::vector<int> others;
  for (int r = 0; r < WorldSize(); ++r) {
    if (r != driver || WorldSize() == 1) others.push_back(r);
  }
  PlanPtr plan = SquarePlusPlan(7, 2, CpuOf(others));
  ServerPtr server = NewServer(driver);
  EXPECT_EQ(IsDriver(server.get()), WorldRank() == driver);
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 1000);
  Serve(server.get(), [&] {
    std::vector<std::thread> pool;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 3; ++t) {
      pool.emplace_back([&, t] {
        RequestPtr r = NewRequest(server.get(), id);
        for (int i = 0; i < 4; ++i) {
          const std::vector<float> x = Rows<float>(1 + (t + i) % 3, 2, 10 * t + i);
          SetInput(r.get(), 0, x);
          ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
          if (Output<float>(r.get(), 0) != SquarePlus(x)) ++wrong;
        }
      });
    }
    for (std::thread& t : pool) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(tess_server_check_health(server.get(), 10.0), TESS_OK) << LastError();
  });
  if (WorldRank() != driver) {
    EXPECT_EQ(tess_server_stop(server.get()), TESS_FAILED_PRECONDITION);
    EXPECT_TRUE(ErrorHas("rank (" + std::to_string(WorldRank()) + ") is a follower"));
  }
}

// Runs `r` on `server` in a new thread, which checks the answer against SquarePlus.
std::thread RunAsync(tess_server* server, tess_serve_request* r, std::vector<float> x) {
  return std::thread([server, r, x] {
    ASSERT_EQ(tess_server_run(server, r), TESS_OK) << LastError();
    EXPECT_EQ(Output<float>(r, 0), SquarePlus(x));
  });
}

// Two plans queued in turns: P (batching, 4 rows a batch, long delay) and Q (one request
// a run). P1 (3 rows), Q1, P2 (1 row): P's rows fill a batch, so P1 and P2 run together
// at once; Q1 is answered alone. Then P3 (3 rows) and P4 (3 rows), which does not fit
// in what remains of P3's batch: P3 runs alone at once (arrival order is kept: P4 is not
// skipped by P5); P5 (1 row) then fills P4's batch.
TEST(ServeEdge, BatchingOrderWithTwoPlansAndRequestsThatDoNotFit) {
  constexpr int64_t kCapacity = 6, kWidth = 2;
  PlanPtr plan = SquarePlusPlan(kCapacity, kWidth, World());
  ServerPtr server = NewServer();
  const int32_t p = AddPlan(server.get(), plan.get(), 1, 5000000, 4);
  const int32_t q = AddPlan(server.get(), plan.get(), 0, 0);
  Serve(server.get(), [&] {
    tess_server* s = server.get();
    auto queued = [&](int64_t n) {
      return WaitFor([&] { return Stats(s).queued_requests == n; });
    };
    RequestPtr p1 = NewRequest(s, p), q1 = NewRequest(s, q), p2 = NewRequest(s, p);
    const std::vector<float> x1 = Rows<float>(3, kWidth, 1), xq = Rows<float>(1, kWidth, 2),
                             x2 = Rows<float>(1, kWidth, 3);
    SetInput(p1.get(), 0, x1);
    SetInput(q1.get(), 0, xq);
    SetInput(p2.get(), 0, x2);
    std::thread t1 = RunAsync(s, p1.get(), x1);
    ASSERT_TRUE(queued(1));
    std::thread tq = RunAsync(s, q1.get(), xq);
    ASSERT_TRUE(queued(2));
    std::thread t2 = RunAsync(s, p2.get(), x2);
    t1.join();
    t2.join();
    tq.join();
    EXPECT_EQ(Info(p1.get()).batch_requests, 2);
    EXPECT_EQ(Info(p1.get()).batch_rows, 4);
    EXPECT_EQ(Info(p2.get()).batch_requests, 2);
    EXPECT_EQ(Info(q1.get()).batch_requests, 1);
    EXPECT_EQ(Info(q1.get()).batch_rows, 1);
    EXPECT_LT(Info(q1.get()).queue_seconds, 4.0);

    RequestPtr p3 = NewRequest(s, p), p4 = NewRequest(s, p), p5 = NewRequest(s, p);
    const std::vector<float> x3 = Rows<float>(3, kWidth, 4), x4 = Rows<float>(3, kWidth, 5),
                             x5 = Rows<float>(1, kWidth, 6);
    SetInput(p3.get(), 0, x3);
    SetInput(p4.get(), 0, x4);
    SetInput(p5.get(), 0, x5);
    std::thread t3 = RunAsync(s, p3.get(), x3);
    ASSERT_TRUE(queued(1));
    std::thread t4 = RunAsync(s, p4.get(), x4);
    t3.join();  // P3 + P4 exceed 4 rows: P3 runs alone, at once
    EXPECT_EQ(Info(p3.get()).batch_rows, 3);
    EXPECT_EQ(Info(p3.get()).batch_requests, 1);
    std::thread t5 = RunAsync(s, p5.get(), x5);
    t4.join();
    t5.join();
    EXPECT_EQ(Info(p4.get()).batch_rows, 4);
    EXPECT_EQ(Info(p5.get()).batch_rows, 4);
    EXPECT_LT(Info(p4.get()).queue_seconds, 4.0);
    EXPECT_EQ(Stats(s).runs, 4);
  });
}

// max_queued_requests = 1: a second request waiting for the same plan is refused with
// RESOURCE_EXHAUSTED (naming the plan and the count), the first is answered at stop.
TEST(ServeEdge, QueueLimitRefusesAndStopAnswersTheQueued) {
  PlanPtr plan = SquarePlusPlan(4, 2, World());
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 5000000, 0, 1);
  if (!IsDriver(server.get())) {
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    return;
  }
  tess_server* s = server.get();
  RequestPtr r1 = NewRequest(s, id), r2 = NewRequest(s, id);
  const std::vector<float> x1 = Rows<float>(1, 2, 1);
  SetInput(r1.get(), 0, x1);
  SetInput(r2.get(), 0, Rows<float>(1, 2, 2));
  const Clock::time_point start = Clock::now();
  std::thread t1 = RunAsync(s, r1.get(), x1);
  ASSERT_TRUE(WaitFor([&] { return Stats(s).queued_requests == 1; }));
  EXPECT_EQ(tess_server_run(s, r2.get()), TESS_RESOURCE_EXHAUSTED);
  EXPECT_TRUE(ErrorHas("plan 0 already has 1 queued requests (max_queued_requests)"));
  EXPECT_EQ(tess_server_stop(s), TESS_OK) << LastError();
  t1.join();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 4.0)
      << "stop runs the queued request without waiting out its delay";
  const tess_server_stats st = Stats(s);
  EXPECT_EQ(st.requests, 1);
  EXPECT_EQ(st.failed_requests, 1);
  EXPECT_EQ(st.rows, 1);
  EXPECT_EQ(st.queued_requests, 0);
}

// Threads keep running requests while stop comes: each call returns OK (answered, with
// the right rows) or CANCELLED, none hangs, and the counters add up on every rank.
TEST(ServeEdge, StopRacingRunsAndHealthChecks) {
  PlanPtr plan = SquarePlusPlan(8, 2, World());
  ServerPtr server = NewServer();
  const int32_t batched = AddPlan(server.get(), plan.get(), 1, 2000);
  const int32_t single = AddPlan(server.get(), plan.get(), 0, 0);
  if (!IsDriver(server.get())) {
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    const tess_server_stats st = Stats(server.get());
    EXPECT_EQ(st.stopped, 1);
    EXPECT_GE(st.runs, 1);
    return;
  }
  tess_server* s = server.get();
  std::atomic<int64_t> ok{0}, cancelled{0}, other{0}, rows_ok{0}, health_ok{0}, health_other{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t) {
    pool.emplace_back([&, t] {
      RequestPtr r = NewRequest(s, t % 2 ? batched : single);
      for (int i = 0;; ++i) {
        const int64_t rows = 1 + (t + i) % 3;
        const std::vector<float> x = Rows<float>(rows, 2, 100 * t + i);
        SetInput(r.get(), 0, x);
        const tess_status st = tess_server_run(s, r.get());
        if (st == TESS_OK) {
          ++ok;
          rows_ok += rows;
          EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
        } else {
          if (st == TESS_CANCELLED) {
            ++cancelled;
          } else {
            ++other;
            ADD_FAILURE() << "run: " << st << " " << LastError();
          }
          return;
        }
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    pool.emplace_back([&] {
      for (;;) {
        const tess_status st = tess_server_check_health(s, 10.0);
        if (st == TESS_OK) {
          ++health_ok;
          continue;
        }
        if (st != TESS_CANCELLED) {
          ++health_other;
          ADD_FAILURE() << "health: " << st << " " << LastError();
        }
        return;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(tess_server_stop(s), TESS_OK) << LastError();
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(cancelled.load(), 4);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(health_other.load(), 0);
  EXPECT_GT(ok.load(), 0);
  const tess_server_stats st = Stats(s);
  EXPECT_EQ(st.requests, ok.load());
  EXPECT_EQ(st.failed_requests, 4);
  EXPECT_EQ(st.rows, rows_ok.load());
  // Concurrent checks share one ping, and the counter counts pings.
  EXPECT_GE(st.health_checks, health_ok.load() > 0 ? 1 : 0);
  EXPECT_LE(st.health_checks, health_ok.load());
  EXPECT_EQ(st.queued_requests, 0);
  EXPECT_EQ(st.stopped, 1);
}

// The followers call follow 0.8 s late, longer than the follower timeout (0.5 s):
// the driver's keep-alives and its first run wait for them, and the request is answered.
TEST(ServeEdge, FollowersThatFollowLate) {
  PlanPtr plan = SquarePlusPlan(4, 3, World());
  ServerPtr server = NewServer(0, 0.5);
  const int32_t id = AddPlan(server.get(), plan.get(), 0, 0);
  if (!IsDriver(server.get())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    return;
  }
  RequestPtr r = NewRequest(server.get(), id);
  const std::vector<float> x = Rows<float>(3, 3, 8);
  SetInput(r.get(), 0, x);
  ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
  EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
  EXPECT_EQ(tess_server_check_health(server.get(), 10.0), TESS_OK) << LastError();
  EXPECT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
}

// Two servers alive at once in one process, used one after the other: every rank
// follows (or drives) the first, then the second, whose keep-alives queued meanwhile.
TEST(ServeEdge, TwoServersOneAfterTheOther) {
  PlanPtr plan = SquarePlusPlan(4, 2, World());
  ServerPtr first = NewServer();
  ServerPtr second = NewServer();
  const int32_t a = AddPlan(first.get(), plan.get(), 0, 0);
  const int32_t b = AddPlan(second.get(), plan.get(), 1, 0);
  for (tess_server* s : {first.get(), second.get()}) {
    Serve(s, [&] {
      RequestPtr r = NewRequest(s, s == first.get() ? a : b);
      const std::vector<float> x = Rows<float>(2, 2, s == first.get() ? 1 : 2);
      SetInput(r.get(), 0, x);
      // A request of one server is refused by the other, naming why.
      tess_server* other = s == first.get() ? second.get() : first.get();
      EXPECT_EQ(tess_server_run(other, r.get()), TESS_INVALID_ARGUMENT);
      EXPECT_TRUE(ErrorHas("the request was made for another server"));
      ASSERT_EQ(tess_server_run(s, r.get()), TESS_OK) << LastError();
      EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
    });
  }
}


// A health check does not wait for a request that is waiting out its batching delay:
// the dispatcher answers pings before it looks at the queue (server.cc:404). serve.h says
// a check waits "behind requests queued before it"; this pins what the code does (the
// header's sentence is the one to change, or this test, whichever the lead decides).
TEST(ServeEdge, HealthCheckDoesNotWaitForABatchingDelay) {
  PlanPtr plan = SquarePlusPlan(4, 2, World());
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 3000000);
  Serve(server.get(), [&] {
    RequestPtr r = NewRequest(server.get(), id);
    const std::vector<float> x = Rows<float>(1, 2, 4);
    SetInput(r.get(), 0, x);
    std::thread caller = RunAsync(server.get(), r.get(), x);
    ASSERT_TRUE(WaitFor([&] { return Stats(server.get()).queued_requests == 1; }));
    EXPECT_EQ(tess_server_check_health(server.get(), 1.0), TESS_OK) << LastError();
    EXPECT_EQ(Stats(server.get()).queued_requests, 1) << "the request still waits";
    EXPECT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();  // runs it now
    caller.join();
  });
}

// A plan whose first output is its input unchanged, next to a computed one: the server
// answers it with the request's own rows.
TEST(ServeEdge, OutputsThatAreTheInputItself) {
  Builder b;
  const int64_t x = b.Input("x", {5, 2}, TESS_DTYPE_F32, World(), "S(0)");
  b.Output(x);
  b.Output(b.Op("add", {x, b.Op("mul", {x, x})}));
  PlanPtr plan = b.Compile();
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 0);
  Serve(server.get(), [&] {
    RequestPtr r = NewRequest(server.get(), id);
    const std::vector<float> xv = Rows<float>(3, 2, 5);
    SetInput(r.get(), 0, xv);
    ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
    EXPECT_EQ(Output<float>(r.get(), 0), xv);
    EXPECT_EQ(Output<float>(r.get(), 1), SquarePlus(xv));
  });
}

// An input of shape [4, 0] has rows of no bytes: no request can ever fill it, so
// tess_server_add_plan should refuse the plan naming the input (or, at the least,
// tess_serve_request_set_input should refuse the bytes).
// DISABLED: add_plan accepts it (served_plan.cc:50-51 give width 0, row_bytes 0) and
// set_input dies of SIGFPE (integer division by zero) at server.cc:42,
// `bytes % t.row_bytes`. Fix: Describe() in served_plan.cc refuses a row of 0 elements
// ("input 0 \"x\" has shape [4, 0]: rows of no elements cannot be served").
TEST(ServeEdge, DISABLED_ZeroWidthInput) {
  Builder b;
  const int64_t x = b.Input("x", {4, 0}, TESS_DTYPE_F32, World(), "S(0)");
  b.Output(b.Op("relu", {x}));
  PlanPtr plan = b.Compile();
  ServerPtr server = NewServer();
  int32_t id = -1;
  const tess_status added = tess_server_add_plan(&id, server.get(), plan.get(), nullptr);
  if (added != TESS_OK) {
    EXPECT_EQ(added, TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("input 0 \"x\"")) << LastError();
  } else {
    RequestPtr r = NewRequest(server.get(), id);
    const float data[1] = {0};
    EXPECT_EQ(tess_serve_request_set_input(r.get(), 0, data, sizeof(data)), TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("input 0")) << LastError();
  }
  if (IsDriver(server.get())) {
    EXPECT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
  } else {
    EXPECT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
  }
}

// 3 ranks: a plan on ranks 0 and 1 only, follower timeout 0.3 s. Rank 1 follows a second
// late, so the driver's first run waits a second for it inside the plan's collectives.
// Rank 2, outside the placement, takes the run command, has no part in it and waits for
// the next command: the driver is alive (busy in a run), yet rank 2 hears nothing for
// longer than the timeout and tess_server_follow gives up with UNAVAILABLE.
// DISABLED: keep-alives come only from the dispatcher when it is idle (server.cc:425-439);
// during RunStaged (server.cc:486-487) and during a health check's wait
// (server.cc:412) it sends nothing, so any run or wait longer than the follower timeout
// that some follower takes no part in ends that follower (control_channel.cc:172).
// Fix: send keep-alives from their own driver thread (not the dispatcher), e.g. a
// thread that wakes every keepalive_interval_ and, under a channel send lock, sends
// kKeepAlive when nothing went out for that long; followers then only time out on a
// driver process that is really gone or stopped.
TEST(ServeEdge, DISABLED_FollowerOutsideThePlacementOutlastsALongRun) {
  if (WorldSize() < 3) GTEST_SKIP() << "needs a follower outside the plan's placement";
  PlanPtr plan = SquarePlusPlan(4, 2, CpuOf({0, 1}));
  ServerPtr server = NewServer(0, 0.3);
  const int32_t id = AddPlan(server.get(), plan.get(), 0, 0);
  if (WorldRank() == 1) std::this_thread::sleep_for(std::chrono::seconds(1));
  Serve(server.get(), [&] {
    RequestPtr r = NewRequest(server.get(), id);
    const std::vector<float> x = Rows<float>(4, 2, 7);
    SetInput(r.get(), 0, x);
    ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
    EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
    // The server still answers for every follower.
    EXPECT_EQ(tess_server_check_health(server.get(), 10.0), TESS_OK) << LastError();
  });
}

// 3 ranks, follower timeout 0.3 s: rank 2 follows a second late, so a health check at
// once finds it silent and fails the server (as serve.h says). Rank 1, idle in follow
// meanwhile, must then be told to stop (TESS_OK), as the fault tests' surviving follower
// is; but while the driver waits the 0.3 s for rank 2's answer it sends rank 1 nothing,
// so rank 1's own 0.3 s silence bound runs out at about the same time and it may give
// up with UNAVAILABLE first.
// DISABLED: a race (passed 4 of 4 runs alone; the same starvation failed rank 1 in the
// test above). Cause and fix as above: server.cc:412 waits in Ping for up to
// follower_timeout_ without keep-alives to the followers that answered.
TEST(ServeEdge, DISABLED_HealthCheckWaitingOnOneFollowerStarvesTheOthers) {
  if (WorldSize() < 3) GTEST_SKIP() << "needs a healthy follower besides the late one";
  PlanPtr plan = SquarePlusPlan(4, 2, World());
  ServerPtr server = NewServer(0, 0.3);
  AddPlan(server.get(), plan.get(), 0, 0);
  if (WorldRank() == 2) std::this_thread::sleep_for(std::chrono::seconds(1));
  Serve(server.get(), [&] {
    EXPECT_EQ(tess_server_check_health(server.get(), 10.0), TESS_UNAVAILABLE);
    EXPECT_TRUE(ErrorHas("rank(s) [2] did not answer")) << LastError();
    EXPECT_EQ(Stats(server.get()).available, 0);
  });
}

// 3 ranks, follower timeout 0.3 s: a health check fails on rank 2, which follows a
// second late; the driver stops and destroys the server before rank 2, following at
// last, answers that check. The answer must not land in memory the server freed.
// DISABLED: after the failed Ping (server.cc:412) its receive from rank 2 stays posted,
// and the next keep-alive's Broadcast overwrites requests_[2] (control_channel.cc:195-196)
// with its own send, so the channel loses the pending receive: ~ControlChannel
// (control_channel.cc:97-109) sees no pending request, frees buffers_, and MPI later
// writes rank 2's late answer into buffers_->answers (heap use-after-free; under
// --config=asan the run below reports it when MPI delivers the answer during the next
// server's creation). Fix: never overwrite a non-null requests_ entry: keep requests a
// timeout abandoned in their own list (and their buffers alive), test them before
// reuse, and have the destructor leak buffers_ while any is pending.
TEST(ServeEdge, DISABLED_LateAnswerToAFailedHealthCheckAfterDestroy) {
  if (WorldSize() < 3) GTEST_SKIP() << "needs a late follower besides a healthy one";
  PlanPtr plan = SquarePlusPlan(4, 2, World());
  {
    ServerPtr server = NewServer(0, 0.3);
    AddPlan(server.get(), plan.get(), 0, 0);
    if (WorldRank() == 2) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (IsDriver(server.get())) {
      EXPECT_EQ(tess_server_check_health(server.get(), 10.0), TESS_UNAVAILABLE);
      // Let a keep-alive go out after the failure, then stop and destroy.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      EXPECT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
    } else {
      (void)tess_server_follow(server.get());  // rank 1 may give up first (see above)
    }
  }
  // Every rank again: a new server, one request; the driver's MPI meanwhile takes in
  // rank 2's late answer.
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 0, 0);
  Serve(server.get(), [&] {
    RequestPtr r = NewRequest(server.get(), id);
    const std::vector<float> x = Rows<float>(2, 2, 9);
    SetInput(r.get(), 0, x);
    ASSERT_EQ(tess_server_run(server.get(), r.get()), TESS_OK) << LastError();
    EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
  });
}

// Two servers serving at once: every follower follows both (a thread each) and the
// driver runs requests on both from two threads.
// DISABLED: at 3 ranks the two servers' runs deadlock (here: DEADLINE_EXCEEDED after the
// 5 s collective timeout, then both servers unavailable; without a timeout, a hang).
// Each server has its own control communicator, but ServedPlan::RunStaged boxes over the
// process-wide communicators of MpiCommRegistry (boxing_backend.cc:13,18), shared by
// every server (and by any other Tessera collective on the same ranks), so two
// dispatchers' collectives on the same ranks match each other in different orders on
// different ranks. Fix: either give each server private communicators for its boxing
// (a BoxingWorkspace/backend bound to communicators dup'ed at server creation), or
// serialize all servers' batches through one process-wide lock on every rank (the
// driver's dispatchers and the followers' Follow loops), or state in serve.h that one
// server serves at a time and refuse a second with FAILED_PRECONDITION. Leaves the
// world's communicators unusable when it fails: run it alone
// (--gtest_also_run_disabled_tests --gtest_filter=ServeEdge.DISABLED_TwoServersAtOnce).
TEST(ServeEdge, DISABLED_TwoServersAtOnce) {
  ASSERT_EQ(tess_comm_set_collective_timeout(5.0), TESS_OK) << LastError();
  PlanPtr plan = SquarePlusPlan(4, 2, World());
  ServerPtr first = NewServer();
  ServerPtr second = NewServer();
  const int32_t a = AddPlan(first.get(), plan.get(), 0, 0);
  const int32_t b = AddPlan(second.get(), plan.get(), 0, 0);
  std::thread other([&] {
    Serve(second.get(), [&] {
      RequestPtr r = NewRequest(second.get(), b);
      for (int i = 0; i < 30; ++i) {
        const std::vector<float> x = Rows<float>(1 + i % 4, 2, 1000 + i);
        SetInput(r.get(), 0, x);
        ASSERT_EQ(tess_server_run(second.get(), r.get()), TESS_OK) << LastError();
        EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
      }
    });
  });
  Serve(first.get(), [&] {
    RequestPtr r = NewRequest(first.get(), a);
    for (int i = 0; i < 30; ++i) {
      const std::vector<float> x = Rows<float>(1 + i % 3, 2, i);
      SetInput(r.get(), 0, x);
      ASSERT_EQ(tess_server_run(first.get(), r.get()), TESS_OK) << LastError();
      EXPECT_EQ(Output<float>(r.get(), 0), SquarePlus(x));
    }
  });
  other.join();
  ASSERT_EQ(tess_comm_set_collective_timeout(0), TESS_OK) << LastError();
}

}  // namespace
}  // namespace tessera::serve_edge_test
