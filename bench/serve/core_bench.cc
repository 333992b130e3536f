// The serving core alone, without HTTP: C driver threads send 1-row requests of the
// example model (tests/serve/serve_test_model.h) through tess_server_run for T seconds,
// batching off or on, and the program prints one JSON line: requests, plan runs,
// requests per second, mean requests per batch, latency percentiles. Every answer is
// checked against the plain-loop reference. Run under mpirun (core_run.sh does the
// matrix); the example services' figures (run.sh) add HTTP and JSON on top of this.
//
// Usage: core_bench CLIENTS SECONDS BATCHING(0|1) [DELAY_US]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tessera/tessera.h"
#include "tests/serve/serve_test_model.h"

namespace {

using tessera::serve_test::GridPlacement;
using tessera::serve_test::kHidden;
using tessera::serve_test::kIn;
using tessera::serve_test::kOut;
using tessera::serve_test::ModelWeights;
using tessera::serve_test::Reference;
using Clock = std::chrono::steady_clock;

constexpr int64_t kCapacity = 64;

#define CHECK(call)                                                      \
  do {                                                                   \
    tess_status st_ = (call);                                            \
    if (st_ != TESS_OK) {                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   tess_last_error_message());                           \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

tess_plan* CompileModel(const ModelWeights& w, int world) {
  const std::string grid = GridPlacement(world);
  tess_placement* p = nullptr;
  tess_nd_sbp *rows = nullptr, *col = nullptr, *row = nullptr;
  CHECK(tess_placement_parse(&p, grid.c_str()));
  CHECK(tess_nd_sbp_parse(&rows, "(S(0), B)"));
  CHECK(tess_nd_sbp_parse(&col, "(B, S(1))"));
  CHECK(tess_nd_sbp_parse(&row, "(B, S(0))"));
  const int64_t w1_shape[] = {kIn, kHidden}, w2_shape[] = {kHidden, kOut};
  const int64_t x_shape[] = {kCapacity, kIn};
  tess_tensor *w1 = nullptr, *w2 = nullptr;
  CHECK(tess_tensor_from_host(&w1, w.w1.data(), w1_shape, 2, TESS_DTYPE_F32, p, col));
  CHECK(tess_tensor_from_host(&w2, w.w2.data(), w2_shape, 2, TESS_DTYPE_F32, p, row));
  tess_program* program = nullptr;
  CHECK(tess_program_create(&program));
  int64_t x = -1, v1 = -1, v2 = -1, h = -1;
  size_t n = 0;
  CHECK(tess_program_add_input(&x, program, "x", x_shape, 2, TESS_DTYPE_F32, p, rows));
  CHECK(tess_program_add_variable(&v1, program, "w1", w1));
  CHECK(tess_program_add_variable(&v2, program, "w2", w2));
  tess_op_call *matmul = nullptr, *relu = nullptr;
  CHECK(tess_op_call_create(&matmul, "matmul"));
  CHECK(tess_op_call_create(&relu, "relu"));
  int64_t args[2] = {x, v1};
  CHECK(tess_program_add_op(&h, &n, program, matmul, args, 2));
  CHECK(tess_program_add_op(&h, &n, program, relu, &h, 1));
  args[0] = h;
  args[1] = v2;
  CHECK(tess_program_add_op(&h, &n, program, matmul, args, 2));
  CHECK(tess_program_mark_output(program, h));
  tess_plan* plan = nullptr;
  CHECK(tess_plan_compile(&plan, program, nullptr));
  tess_op_call_destroy(matmul);
  tess_op_call_destroy(relu);
  tess_program_destroy(program);
  tess_tensor_destroy(w1);
  tess_tensor_destroy(w2);
  tess_nd_sbp_destroy(rows);
  tess_nd_sbp_destroy(col);
  tess_nd_sbp_destroy(row);
  tess_placement_destroy(p);
  return plan;
}

double Percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s CLIENTS SECONDS BATCHING(0|1) [DELAY_US]\n", argv[0]);
    return 2;
  }
  const int clients = std::atoi(argv[1]);
  const double seconds = std::atof(argv[2]);
  const int batching = std::atoi(argv[3]);
  const int64_t delay_us = argc > 4 ? std::atoll(argv[4]) : 2000;
  tess_runtime_init_options init = TESS_RUNTIME_INIT_OPTIONS_INIT;
  init.collective_timeout_seconds = 30;
  CHECK(tess_runtime_init_with_options(&init));
  int32_t rank = 0, world = 0;
  CHECK(tess_runtime_world_rank(&rank));
  CHECK(tess_runtime_world_size(&world));
  const ModelWeights w(0);
  tess_plan* plan = CompileModel(w, world);
  tess_server* server = nullptr;
  CHECK(tess_server_create(&server, nullptr));
  tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
  o.batching = batching;
  o.max_queue_delay_us = delay_us;
  int32_t id = -1;
  CHECK(tess_server_add_plan(&id, server, plan, &o));
  if (rank != 0) {
    CHECK(tess_server_follow(server));
  } else {
    std::atomic<bool> stop{false};
    std::atomic<long> wrong{0}, errors{0};
    std::vector<std::vector<double>> latencies(static_cast<size_t>(clients));
    std::vector<std::thread> pool;
    const Clock::time_point start = Clock::now();
    for (int c = 0; c < clients; ++c) {
      pool.emplace_back([&, c] {
        tess_serve_request* r = nullptr;
        CHECK(tess_serve_request_create(&r, server, id));
        std::vector<float> x(kIn), y(kOut);
        for (long i = 0; !stop.load(std::memory_order_relaxed); ++i) {
          for (int64_t k = 0; k < kIn; ++k) x[k] = static_cast<float>((c * 7 + i + k) % 17 - 8) / 8;
          const Clock::time_point t0 = Clock::now();
          if (tess_serve_request_set_input(r, 0, x.data(), x.size() * sizeof(float)) != TESS_OK ||
              tess_server_run(server, r) != TESS_OK ||
              tess_serve_request_output(y.data(), y.size() * sizeof(float), r, 0) != TESS_OK) {
            ++errors;
            continue;
          }
          latencies[static_cast<size_t>(c)].push_back(
              std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
          if (i % 16 == 0) {  // check a sample: the reference costs more than the run
            const std::vector<float> want = Reference(w, x);
            for (int64_t k = 0; k < kOut; ++k) {
              if (std::fabs(y[k] - want[k]) > 1e-4f * (1 + std::fabs(want[k]))) ++wrong;
            }
          }
        }
        tess_serve_request_destroy(r);
      });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop.store(true);
    for (std::thread& t : pool) t.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    tess_server_stats s = TESS_SERVER_STATS_INIT;
    CHECK(tess_server_get_stats(&s, server));
    std::vector<double> all;
    for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    const double p50 = Percentile(all, 0.50), p99 = Percentile(all, 0.99);
    std::printf(
        "{\"mode\": \"core\", \"ranks\": %d, \"clients\": %d, \"batching\": \"%s\", "
        "\"max_queue_delay_us\": %lld, \"seconds\": %.3f, \"requests\": %lld, \"runs\": %lld, "
        "\"errors\": %ld, \"wrong\": %ld, \"throughput_rps\": %.1f, \"requests_per_run\": %.2f, "
        "\"p50_ms\": %.3f, \"p99_ms\": %.3f}\n",
        world, clients, batching ? "on" : "off", static_cast<long long>(delay_us), elapsed,
        static_cast<long long>(s.requests), static_cast<long long>(s.runs), errors.load(),
        wrong.load(), static_cast<double>(s.requests) / elapsed,
        s.runs ? static_cast<double>(s.requests) / static_cast<double>(s.runs) : 0.0, p50, p99);
    std::fflush(stdout);
    CHECK(tess_server_stop(server));
  }
  tess_server_destroy(server);
  tess_plan_destroy(plan);
  CHECK(tess_runtime_finalize());
  return 0;
}
