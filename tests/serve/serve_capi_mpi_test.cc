// Serving through tessera.h under mpirun (1-4 ranks): rank 0 drives, the others follow.
// Requests from many threads, with and without batching, are checked against a
// plain-loop reference of the model (serve_test_model.h); health checks, stop, the
// statistics, and every serving function's bad inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"
#include "tests/serve/serve_test_model.h"

namespace tessera::serve_test {
namespace {

using capi_test::ErrorHas;
using capi_test::FromHost;
using capi_test::LastError;
using capi_test::TensorPtr;
using capi_test::WorldRank;
using capi_test::WorldSize;

constexpr int64_t kCapacity = 32;

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

int64_t AddOp(tess_program* p, const char* op, std::vector<int64_t> inputs) {
  tess_op_call* call = nullptr;
  EXPECT_EQ(tess_op_call_create(&call, op), TESS_OK) << LastError();
  std::unique_ptr<tess_op_call, Destroy> owned(call);
  int64_t first = -1;
  size_t n = 0;
  EXPECT_EQ(tess_program_add_op(&first, &n, p, call, inputs.data(), inputs.size()), TESS_OK)
      << op << ": " << LastError();
  return first;
}

// The example model compiled for kCapacity rows (every rank).
PlanPtr CompileModel(const ModelWeights& w) {
  const std::string grid = GridPlacement(WorldSize());
  TensorPtr w1 = FromHost(w.w1, {kIn, kHidden}, grid, "(B, S(1))");
  TensorPtr w2 = FromHost(w.w2, {kHidden, kOut}, grid, "(B, S(0))");
  tess_program* p = nullptr;
  EXPECT_EQ(tess_program_create(&p), TESS_OK);
  ProgramPtr program(p);
  capi_test::PlacementPtr placement = capi_test::Placement(grid);
  capi_test::NdSbpPtr rows = capi_test::NdSbp("(S(0), B)");
  const int64_t shape[] = {kCapacity, kIn};
  int64_t x = -1, v1 = -1, v2 = -1;
  EXPECT_EQ(
      tess_program_add_input(&x, p, "x", shape, 2, TESS_DTYPE_F32, placement.get(), rows.get()),
      TESS_OK)
      << LastError();
  EXPECT_EQ(tess_program_add_variable(&v1, p, "w1", w1.get()), TESS_OK) << LastError();
  EXPECT_EQ(tess_program_add_variable(&v2, p, "w2", w2.get()), TESS_OK) << LastError();
  int64_t h = AddOp(p, "matmul", {x, v1});
  h = AddOp(p, "relu", {h});
  h = AddOp(p, "matmul", {h, v2});
  EXPECT_EQ(tess_program_mark_output(p, h), TESS_OK) << LastError();
  tess_plan* plan = nullptr;
  EXPECT_EQ(tess_plan_compile(&plan, p, nullptr), TESS_OK) << LastError();
  return PlanPtr(plan);
}

ServerPtr NewServer(const tess_server_options* options = nullptr) {
  tess_server* s = nullptr;
  EXPECT_EQ(tess_server_create(&s, options), TESS_OK) << LastError();
  return ServerPtr(s);
}

int32_t AddPlan(tess_server* server, const tess_plan* plan, int32_t batching, int64_t delay_us) {
  tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
  o.batching = batching;
  o.max_queue_delay_us = delay_us;
  int32_t id = -1;
  EXPECT_EQ(tess_server_add_plan(&id, server, plan, &o), TESS_OK) << LastError();
  return id;
}

// Distinct rows for (thread, request).
std::vector<float> Rows(int64_t rows, int salt) {
  std::vector<float> x(static_cast<size_t>(rows * kIn));
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((static_cast<int64_t>(i) * 13 + salt * 7) % 29 - 14) * 0.0625f;
  }
  return x;
}

// Runs `requests` requests of 1-4 rows from `threads` threads and checks every answer.
// Returns the most requests one batch held.
int64_t ServeAndCheck(tess_server* server, int32_t plan_id, const ModelWeights& w, int threads,
                      int requests) {
  std::atomic<int64_t> most_in_batch{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      tess_serve_request* r = nullptr;
      ASSERT_EQ(tess_serve_request_create(&r, server, plan_id), TESS_OK) << LastError();
      RequestPtr request(r);
      for (int i = 0; i < requests; ++i) {
        const int64_t rows = 1 + (t + i) % 4;
        const std::vector<float> x = Rows(rows, t * 1000 + i);
        ASSERT_EQ(tess_serve_request_set_input(r, 0, x.data(), x.size() * sizeof(float)), TESS_OK)
            << LastError();
        ASSERT_EQ(tess_server_run(server, r), TESS_OK) << LastError();
        size_t bytes = 0;
        ASSERT_EQ(tess_serve_request_output_bytes(&bytes, r, 0), TESS_OK) << LastError();
        ASSERT_EQ(bytes, static_cast<size_t>(rows * kOut) * sizeof(float));
        std::vector<float> y(static_cast<size_t>(rows * kOut));
        ASSERT_EQ(tess_serve_request_output(y.data(), bytes, r, 0), TESS_OK) << LastError();
        const std::vector<float> want = Reference(w, x);
        for (size_t k = 0; k < y.size(); ++k) {
          if (std::fabs(y[k] - want[k]) > 1e-4f * (1 + std::fabs(want[k]))) ++wrong;
        }
        tess_serve_request_info info = TESS_SERVE_REQUEST_INFO_INIT;
        ASSERT_EQ(tess_serve_request_get_info(&info, r), TESS_OK) << LastError();
        EXPECT_GE(info.batch_rows, rows);
        EXPECT_GE(info.queue_seconds, 0);
        EXPECT_GT(info.run_seconds, 0);
        int64_t seen = most_in_batch.load();
        while (info.batch_requests > seen &&
               !most_in_batch.compare_exchange_weak(seen, info.batch_requests)) {
        }
      }
    });
  }
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(wrong.load(), 0);
  return most_in_batch.load();
}

tess_server_stats Stats(const tess_server* server) {
  tess_server_stats s = TESS_SERVER_STATS_INIT;
  EXPECT_EQ(tess_server_get_stats(&s, server), TESS_OK) << LastError();
  return s;
}

TEST(ServeCapi, ServesManyThreadsOneRequestARun) {
  const ModelWeights w(0);
  PlanPtr plan = CompileModel(w);
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 0, 0);
  EXPECT_EQ(id, 0);
  int32_t driver = -1;
  ASSERT_EQ(tess_server_is_driver(&driver, server.get()), TESS_OK);
  EXPECT_EQ(driver, WorldRank() == 0 ? 1 : 0);
  if (driver) {
    EXPECT_EQ(ServeAndCheck(server.get(), id, w, 6, 15), 1);
    EXPECT_EQ(tess_server_check_health(server.get(), 10.0), TESS_OK) << LastError();
    ASSERT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
    const tess_server_stats s = Stats(server.get());
    EXPECT_EQ(s.requests, 90);
    EXPECT_EQ(s.failed_requests, 0);
    EXPECT_EQ(s.runs, 90);
    EXPECT_EQ(s.health_checks, 1);
    EXPECT_EQ(s.available, 1);
    EXPECT_EQ(s.stopped, 1);
  } else {
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    const tess_server_stats s = Stats(server.get());
    EXPECT_EQ(s.runs, 90);
    EXPECT_EQ(s.stopped, 1);
  }
}

TEST(ServeCapi, BatchingJoinsRequestsOfOnePlan) {
  const ModelWeights w(7);
  PlanPtr plan = CompileModel(w);
  ServerPtr server = NewServer();
  // Two plans of one model: batches never mix them.
  const int32_t unbatched = AddPlan(server.get(), plan.get(), 0, 0);
  const int32_t batched = AddPlan(server.get(), plan.get(), 1, 20000);
  int32_t n = 0;
  ASSERT_EQ(tess_server_num_plans(&n, server.get()), TESS_OK);
  EXPECT_EQ(n, 2);
  tess_serve_plan_info info = TESS_SERVE_PLAN_INFO_INIT;
  ASSERT_EQ(tess_server_get_plan_info(&info, server.get(), batched), TESS_OK) << LastError();
  EXPECT_EQ(info.num_inputs, 1);
  EXPECT_EQ(info.num_outputs, 1);
  EXPECT_EQ(info.capacity_rows, kCapacity);
  EXPECT_EQ(info.max_batch_rows, kCapacity);
  EXPECT_EQ(info.max_queue_delay_us, 20000);
  EXPECT_EQ(info.max_queued_requests, 4096);
  EXPECT_EQ(info.batching, 1);
  int64_t width = 0;
  ASSERT_EQ(tess_server_plan_input_width(&width, server.get(), batched, 0), TESS_OK);
  EXPECT_EQ(width, kIn);
  ASSERT_EQ(tess_server_plan_output_width(&width, server.get(), batched, 0), TESS_OK);
  EXPECT_EQ(width, kOut);
  tess_dtype dtype = TESS_DTYPE_F64;
  ASSERT_EQ(tess_server_plan_output_dtype(&dtype, server.get(), batched, 0), TESS_OK);
  EXPECT_EQ(dtype, TESS_DTYPE_F32);
  if (WorldRank() == 0) {
    std::thread other([&] { ServeAndCheck(server.get(), unbatched, w, 2, 10); });
    EXPECT_GT(ServeAndCheck(server.get(), batched, w, 12, 8), 1);
    other.join();
    ASSERT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
    const tess_server_stats s = Stats(server.get());
    EXPECT_EQ(s.requests, 12 * 8 + 2 * 10);
    EXPECT_LT(s.runs, s.requests);
  } else {
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
  }
}

// With request objects reused, a warm batch allocates nothing on the thread that runs it
// (the driver's dispatcher; each follower). This binary links the heap counter.
TEST(ServeCapi, WarmBatchesAllocateNothing) {
  const ModelWeights w(5);
  PlanPtr plan = CompileModel(w);
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 0, 0);
  if (WorldRank() == 0) {
    tess_serve_request* r = nullptr;
    ASSERT_EQ(tess_serve_request_create(&r, server.get(), id), TESS_OK);
    RequestPtr request(r);
    const std::vector<float> x = Rows(3, 9);
    std::vector<float> y(3 * kOut);
    ASSERT_EQ(tess_serve_request_set_input(r, 0, x.data(), x.size() * sizeof(float)), TESS_OK);
    for (int i = 0; i < 12; ++i) {
      ASSERT_EQ(tess_server_run(server.get(), r), TESS_OK) << LastError();
      ASSERT_EQ(tess_serve_request_output(y.data(), y.size() * sizeof(float), r, 0), TESS_OK);
      if (i >= 4) {
        EXPECT_EQ(Stats(server.get()).heap_allocations_last_batch, 0) << "batch " << i;
      }
    }
    ASSERT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
  } else {
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    EXPECT_EQ(Stats(server.get()).heap_allocations_last_batch, 0) << "the follower's last run";
  }
}

TEST(ServeCapi, StopAnswersQueuedRequestsThenRefuses) {
  const ModelWeights w(3);
  PlanPtr plan = CompileModel(w);
  ServerPtr server = NewServer();
  const int32_t id = AddPlan(server.get(), plan.get(), 1, 200000);
  if (WorldRank() != 0) {
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    EXPECT_EQ(tess_server_follow(server.get()), TESS_FAILED_PRECONDITION);
    EXPECT_TRUE(ErrorHas("already called"));
    EXPECT_EQ(tess_server_stop(server.get()), TESS_FAILED_PRECONDITION);
    EXPECT_TRUE(ErrorHas("is a follower"));
    return;
  }
  // A request waiting out a 200 ms batching delay is still answered when Stop comes.
  std::thread caller([&] { ServeAndCheck(server.get(), id, w, 1, 1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
  caller.join();
  EXPECT_EQ(tess_server_stop(server.get()), TESS_OK) << "idempotent";
  tess_serve_request* r = nullptr;
  ASSERT_EQ(tess_serve_request_create(&r, server.get(), id), TESS_OK);
  RequestPtr request(r);
  const std::vector<float> x = Rows(1, 1);
  ASSERT_EQ(tess_serve_request_set_input(r, 0, x.data(), x.size() * sizeof(float)), TESS_OK);
  EXPECT_EQ(tess_server_run(server.get(), r), TESS_CANCELLED);
  EXPECT_TRUE(ErrorHas("stopping"));
  EXPECT_EQ(tess_server_check_health(server.get(), 1.0), TESS_CANCELLED);
  const tess_server_stats s = Stats(server.get());
  EXPECT_EQ(s.requests, 1);
  EXPECT_EQ(s.failed_requests, 1);
  EXPECT_EQ(s.rows, 1);
}

TEST(ServeCapi, BadInputs) {
  // Creation: options (every rank gets the same answer, before any communication).
  tess_server* s = reinterpret_cast<tess_server*>(0x1);
  EXPECT_EQ(tess_server_create(nullptr, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("out"));
  tess_server_options o = TESS_SERVER_OPTIONS_INIT;
  o.struct_size = 4;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_TRUE(ErrorHas("struct_size"));
  o = TESS_SERVER_OPTIONS_INIT;
  o.reserved = 1;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("reserved"));
  o = TESS_SERVER_OPTIONS_INIT;
  o.follower_timeout_seconds = -1;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("follower_timeout_seconds is -1"));
  o.follower_timeout_seconds = NAN;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  o = TESS_SERVER_OPTIONS_INIT;
  o.follower_poll_max_us = 100001;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("follower_poll_max_us is 100001"));
  o = TESS_SERVER_OPTIONS_INIT;
  o.driver_rank = -2;
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("driver_rank is -2"));
  o.driver_rank = WorldSize();
  EXPECT_EQ(tess_server_create(&s, &o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("the world has " + std::to_string(WorldSize())));

  // Plans: shapes a server cannot batch, and bad options.
  const ModelWeights w(1);
  PlanPtr plan = CompileModel(w);
  ServerPtr server = NewServer();
  int32_t id = -1;
  tess_serve_plan_options po = TESS_SERVE_PLAN_OPTIONS_INIT;
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), nullptr, &po), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("plan"));
  po.batching = 2;
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), &po), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("batching is 2"));
  po = TESS_SERVE_PLAN_OPTIONS_INIT;
  po.max_batch_rows = kCapacity + 1;
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), &po), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("max_batch_rows is 33"));
  po = TESS_SERVE_PLAN_OPTIONS_INIT;
  po.max_queue_delay_us = -1;
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), &po), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("max_queue_delay_us is -1"));
  po = TESS_SERVE_PLAN_OPTIONS_INIT;
  po.max_queued_requests = 1000001;
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), &po), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("max_queued_requests is 1000001"));
  po = TESS_SERVE_PLAN_OPTIONS_INIT;
  po.struct_size = 1;
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), &po), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("struct_size"));
  {
    // Inputs of 4 and 5 rows: no common batch axis.
    tess_program* p = nullptr;
    ASSERT_EQ(tess_program_create(&p), TESS_OK);
    ProgramPtr program(p);
    capi_test::PlacementPtr world = capi_test::Placement(capi_test::CpuOf(capi_test::WorldRanks()));
    capi_test::NdSbpPtr b = capi_test::NdSbp("B");
    const int64_t a_shape[] = {4, 2}, b_shape[] = {5, 2};
    int64_t a = -1, c = -1;
    ASSERT_EQ(tess_program_add_input(&a, p, "a", a_shape, 2, TESS_DTYPE_F32, world.get(), b.get()),
              TESS_OK);
    ASSERT_EQ(tess_program_add_input(&c, p, "c", b_shape, 2, TESS_DTYPE_F32, world.get(), b.get()),
              TESS_OK);
    ASSERT_EQ(tess_program_mark_output(p, AddOp(p, "relu", {a})), TESS_OK);
    tess_plan* compiled = nullptr;
    ASSERT_EQ(tess_plan_compile(&compiled, p, nullptr), TESS_OK) << LastError();
    PlanPtr bad(compiled);
    EXPECT_EQ(tess_server_add_plan(&id, server.get(), bad.get(), nullptr), TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("input 1 \"c\" has 5 rows"));
  }
  id = AddPlan(server.get(), plan.get(), 0, 0);
  ASSERT_EQ(id, 0);

  // Queries.
  tess_serve_plan_info info = TESS_SERVE_PLAN_INFO_INIT;
  EXPECT_EQ(tess_server_get_plan_info(&info, server.get(), 1), TESS_OUT_OF_RANGE);
  EXPECT_TRUE(ErrorHas("plan id 1 is unknown; the server has 1 plan(s)"));
  info.struct_size = 3;
  EXPECT_EQ(tess_server_get_plan_info(&info, server.get(), 0), TESS_INVALID_ARGUMENT);
  int64_t width = 0;
  EXPECT_EQ(tess_server_plan_input_width(&width, server.get(), 0, 1), TESS_OUT_OF_RANGE);
  EXPECT_TRUE(ErrorHas("index 1 is out of range; plan 0 has 1 input(s)"));
  EXPECT_EQ(tess_server_plan_output_width(&width, server.get(), -1, 0), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_server_plan_input_width(nullptr, server.get(), 0, 0), TESS_INVALID_ARGUMENT);
  tess_server_stats stats = TESS_SERVER_STATS_INIT;
  stats.struct_size = 0;
  EXPECT_EQ(tess_server_get_stats(&stats, server.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_server_get_stats(&stats, nullptr), TESS_INVALID_ARGUMENT);

  // Requests.
  tess_serve_request* r = nullptr;
  EXPECT_EQ(tess_serve_request_create(&r, server.get(), 5), TESS_OUT_OF_RANGE);
  EXPECT_EQ(r, nullptr);
  ASSERT_EQ(tess_serve_request_create(&r, server.get(), 0), TESS_OK);
  RequestPtr request(r);
  std::vector<float> x = Rows(kCapacity + 1, 0);
  EXPECT_EQ(tess_serve_request_set_input(r, 1, x.data(), kIn * sizeof(float)), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_serve_request_set_input(r, 0, x.data(), 10), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("got 10 bytes, not a whole number of 64-byte rows (16 f32 each)"));
  EXPECT_EQ(tess_serve_request_set_input(r, 0, x.data(), 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_serve_request_set_input(r, 0, x.data(), x.size() * sizeof(float)),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("has 33 rows; plan 0 takes at most 32 rows a request"));
  EXPECT_EQ(tess_serve_request_set_input(r, 0, nullptr, kIn * sizeof(float)),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("rows_data is NULL"));
  int64_t rows = -1;
  ASSERT_EQ(tess_serve_request_rows(&rows, r), TESS_OK);
  EXPECT_EQ(rows, 0);
  size_t bytes = 0;
  EXPECT_EQ(tess_serve_request_output_bytes(&bytes, r, 0), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("no answer yet"));
  float y[kOut];
  EXPECT_EQ(tess_serve_request_output(y, sizeof(y), r, 0), TESS_FAILED_PRECONDITION);
  EXPECT_EQ(tess_serve_request_output(y, sizeof(y), r, 3), TESS_OUT_OF_RANGE);
  tess_serve_request_info ri = TESS_SERVE_REQUEST_INFO_INIT;
  EXPECT_EQ(tess_serve_request_get_info(&ri, r), TESS_FAILED_PRECONDITION);

  if (WorldRank() != 0) {
    EXPECT_EQ(tess_server_run(server.get(), r), TESS_FAILED_PRECONDITION);
    EXPECT_TRUE(ErrorHas("is a follower; only the driver (rank 0) takes requests"));
    EXPECT_EQ(tess_server_check_health(server.get(), 1.0), TESS_FAILED_PRECONDITION);
    ASSERT_EQ(tess_server_follow(server.get()), TESS_OK) << LastError();
    EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), nullptr),
              TESS_FAILED_PRECONDITION);
    EXPECT_TRUE(ErrorHas("already following"));
    return;
  }
  EXPECT_EQ(tess_server_follow(server.get()), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("is the driver"));
  EXPECT_EQ(tess_server_run(server.get(), r), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("input 0 of the request was never set"));
  EXPECT_EQ(tess_server_check_health(server.get(), 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_server_check_health(server.get(), NAN), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_server_check_health(server.get(), 2e6), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_serve_request_set_input(r, 0, x.data(), 2 * kIn * sizeof(float)), TESS_OK);
  ASSERT_EQ(tess_server_run(server.get(), r), TESS_OK) << LastError();
  ASSERT_EQ(tess_serve_request_output_bytes(&bytes, r, 0), TESS_OK);
  EXPECT_EQ(bytes, 2 * kOut * sizeof(float));
  EXPECT_EQ(tess_serve_request_output(y, sizeof(y), r, 0), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("out_bytes is 32 but output 0 holds 64 bytes"));
  EXPECT_EQ(tess_server_add_plan(&id, server.get(), plan.get(), nullptr), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("already serving"));
  EXPECT_EQ(tess_server_run(nullptr, r), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_server_run(server.get(), nullptr), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_server_stop(server.get()), TESS_OK) << LastError();
  tess_server_destroy(nullptr);
  tess_serve_request_destroy(nullptr);
}

}  // namespace
}  // namespace tessera::serve_test
