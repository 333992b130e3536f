// Edge cases of serving (tessera/serve.h) under mpirun, 1 and 3 ranks: rows of different
// sizes sharing a batch, plans with several inputs and outputs, non-f32 dtypes and 3-d
// inputs, splits that do not divide the capacity, a driver outside the plan's placement
// or other than rank 0, batching order across two plans and with requests that do not
// fit the rest of a batch, the queue limit, stop racing runs and health checks. Every
// expected value is derived here with plain loops. (Followers, keep-alives, health
// checks and servers in one process: serve_lifecycle_mpi_test.cc.)
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tests/serve/serve_edge_util.h"

namespace tessera::serve_edge_test {
namespace {

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
      for (int64_t i = 0; i < rows; ++i)
        kv[static_cast<size_t>(i)] = static_cast<int32_t>(100 * rows + i);
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
    auto queued = [&](int64_t n) { return WaitFor([&] { return Stats(s).queued_requests == n; }); };
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

}  // namespace
}  // namespace tessera::serve_edge_test
