// Serving fault test, run by tests/fault/fault_test.sh under mpirun on 3 ranks: rank 0
// drives, the last rank ("the faulty follower") stalls (SIGSTOP) or dies (SIGKILL) while
// the driver serves requests from four threads. With a collective timeout of 1 s:
//   1. before the fault every answer is right (the model's plain-loop reference);
//   2. after it, the requests in flight and every later one fail, none hangs: the first
//      within the follower timeout + 1 s of the fault with DEADLINE_EXCEEDED or
//      UNAVAILABLE, later ones at once with UNAVAILABLE naming the cause;
//   3. the health check then answers UNAVAILABLE at once, and the stats say unavailable;
//   4. tess_server_stop returns within the bound, and so does tess_runtime_finalize;
//   5. the surviving follower returns from tess_server_follow with TESS_OK (released by
//      the driver) and finalizes; in stall mode the stopped rank, continued by rank 0,
//      does the same.
// Mode driver-stall: the driver stops (SIGSTOP, sent by follower 1) while idle; every
// follower's tess_server_follow must return UNAVAILABLE within the follower timeout + 1 s
// (no keep-alive came), and once continued the driver must stop and finalize.
// Each rank writes "<dir>/rank<R>" holding PASS or FAIL and its figures.
//
// Usage: serve_fault_test MODE DIR, MODE = stall | kill | driver-stall.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/tessera.h"
#include "tests/serve/serve_test_model.h"

namespace tessera::serve_test {
namespace {

constexpr double kTimeout = 1.0;
constexpr double kSlack = 1.0;
constexpr int64_t kCapacity = 16;
using Clock = std::chrono::steady_clock;

double Now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

struct Checks {
  int rank = 0;
  std::mutex mu;
  int failures = 0;
  std::ostringstream figures;
  void Expect(bool ok, const std::string& what) {
    if (ok) return;
    std::lock_guard<std::mutex> lock(mu);
    ++failures;
    std::fprintf(stderr, "[rank %d] CHECK FAILED: %s\n", rank, what.c_str());
  }
  void Figure(const char* name, double value) {
    std::lock_guard<std::mutex> lock(mu);
    figures << " " << name << "=" << value;
  }
  void Write(const std::string& dir) {
    std::ofstream(dir + "/rank" + std::to_string(rank))
        << (failures == 0 ? "PASS" : "FAIL") << figures.str() << "\n";
  }
};

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

bool WaitForFile(const std::string& path, double seconds) {
  const double end = Now() + seconds;
  while (Now() < end) {
    if (std::ifstream(path).good()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

tess_plan* Compile(Checks& c, const ModelWeights& w, int world) {
  const std::string grid = GridPlacement(world);
  tess_placement* placement = nullptr;
  tess_nd_sbp *rows = nullptr, *s1 = nullptr, *s0 = nullptr;
  c.Expect(tess_placement_parse(&placement, grid.c_str()) == TESS_OK, "placement");
  c.Expect(tess_nd_sbp_parse(&rows, "(S(0), B)") == TESS_OK, "nd-sbp");
  c.Expect(tess_nd_sbp_parse(&s1, "(B, S(1))") == TESS_OK, "nd-sbp");
  c.Expect(tess_nd_sbp_parse(&s0, "(B, S(0))") == TESS_OK, "nd-sbp");
  const int64_t w1_shape[] = {kIn, kHidden}, w2_shape[] = {kHidden, kOut},
                x_shape[] = {kCapacity, kIn};
  tess_tensor *w1 = nullptr, *w2 = nullptr;
  c.Expect(tess_tensor_from_host(&w1, w.w1.data(), w1_shape, 2, TESS_DTYPE_F32, placement, s1) ==
               TESS_OK,
           "w1");
  c.Expect(tess_tensor_from_host(&w2, w.w2.data(), w2_shape, 2, TESS_DTYPE_F32, placement, s0) ==
               TESS_OK,
           "w2");
  tess_program* p = nullptr;
  c.Expect(tess_program_create(&p) == TESS_OK, "program");
  int64_t x = -1, v1 = -1, v2 = -1, h = -1;
  size_t n = 0;
  c.Expect(
      tess_program_add_input(&x, p, "x", x_shape, 2, TESS_DTYPE_F32, placement, rows) == TESS_OK,
      "input");
  c.Expect(tess_program_add_variable(&v1, p, "w1", w1) == TESS_OK, "w1 variable");
  c.Expect(tess_program_add_variable(&v2, p, "w2", w2) == TESS_OK, "w2 variable");
  const char* ops[] = {"matmul", "relu", "matmul"};
  int64_t in = x;
  for (const char* op : ops) {
    tess_op_call* call = nullptr;
    c.Expect(tess_op_call_create(&call, op) == TESS_OK, op);
    std::vector<int64_t> args = {in};
    if (std::strcmp(op, "matmul") == 0) args.push_back(in == x ? v1 : v2);
    c.Expect(tess_program_add_op(&h, &n, p, call, args.data(), args.size()) == TESS_OK,
             std::string(op) + ": " + tess_last_error_message());
    tess_op_call_destroy(call);
    in = h;
  }
  c.Expect(tess_program_mark_output(p, h) == TESS_OK, "output");
  tess_plan* plan = nullptr;
  c.Expect(tess_plan_compile(&plan, p, nullptr) == TESS_OK, "compile");
  tess_program_destroy(p);
  tess_tensor_destroy(w1);
  tess_tensor_destroy(w2);
  tess_nd_sbp_destroy(rows);
  tess_nd_sbp_destroy(s1);
  tess_nd_sbp_destroy(s0);
  tess_placement_destroy(placement);
  return plan;
}

// One request of `rows` rows; returns the status and checks a successful answer.
tess_status Serve(Checks& c, tess_server* server, tess_serve_request* r, const ModelWeights& w,
                  int salt, std::string* message) {
  std::vector<float> x(2 * kIn);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((salt + int(i)) % 9 - 4) * 0.25f;
  c.Expect(tess_serve_request_set_input(r, 0, x.data(), x.size() * sizeof(float)) == TESS_OK,
           "set_input");
  const tess_status s = tess_server_run(server, r);
  if (s != TESS_OK) {
    *message = tess_last_error_message();
    return s;
  }
  std::vector<float> y(2 * kOut);
  c.Expect(tess_serve_request_output(y.data(), y.size() * sizeof(float), r, 0) == TESS_OK,
           "output");
  const std::vector<float> want = Reference(w, x);
  for (size_t i = 0; i < y.size(); ++i) {
    c.Expect(std::fabs(y[i] - want[i]) <= 1e-4f * (1 + std::fabs(want[i])), "answer");
  }
  return s;
}

// The driver stalls while idle: followers give up on their own. (Server set up.)
void DriverStall(Checks& c, tess_server* server, int32_t id, const ModelWeights& w, int me,
                 const std::string& dir) {
  if (me == 0) {
    tess_serve_request* r = nullptr;
    (void)tess_serve_request_create(&r, server, id);
    for (int i = 0; i < 5; ++i) {
      std::string m;
      c.Expect(Serve(c, server, r, w, i, &m) == TESS_OK, "request before the stall: " + m);
    }
    tess_serve_request_destroy(r);
    std::ofstream(dir + "/driver_ready") << "\n";
    // Stopped here by follower 1, continued once the followers gave up.
    c.Expect(WaitForFile(dir + "/followers_gone", 60), "the followers reported");
    const double s0 = Now();
    (void)tess_server_stop(server);
    c.Figure("stop_s", Now() - s0);
    c.Expect(Now() - s0 <= kTimeout + kSlack, "stop within the bound");
    return;
  }
  std::thread stopper;
  double stopped_at = 0;
  if (me == 1) {
    stopper = std::thread([&] {
      if (!WaitForFile(dir + "/driver_ready", 30)) return;
      std::string pid;
      std::ifstream(dir + "/faulty_pid") >> pid;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      stopped_at = Now();
      std::ofstream(dir + "/fault_time") << std::to_string(stopped_at) << "\n";
      kill(std::stoi(pid), SIGSTOP);
    });
  }
  const tess_status s = tess_server_follow(server);
  const double returned = Now();
  c.Expect(s == TESS_UNAVAILABLE,
           std::string("follow while the driver is stopped: ") + tess_last_error_message());
  c.Expect(Contains(tess_last_error_message(), "nothing from the driver"),
           std::string("message: ") + tess_last_error_message());
  if (me == 1) {
    stopper.join();
    c.Figure("follow_returned_s", returned - stopped_at);
    c.Expect(returned - stopped_at <= kTimeout + kSlack, "follow returned within the bound");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the other followers too
    std::ofstream(dir + "/followers_gone") << "\n";
    std::string pid;
    std::ifstream(dir + "/faulty_pid") >> pid;
    kill(std::stoi(pid), SIGCONT);
  }
}

int Run(const char* mode, const std::string& dir) {
  const bool stall = std::strcmp(mode, "stall") == 0;
  const bool driver_stall = std::strcmp(mode, "driver-stall") == 0;
  tess_runtime_init_options init = TESS_RUNTIME_INIT_OPTIONS_INIT;
  init.collective_timeout_seconds = kTimeout;
  if (tess_runtime_init_with_options(&init) != TESS_OK) return 1;
  int32_t me = 0, world = 0;
  (void)tess_runtime_world_rank(&me);
  (void)tess_runtime_world_size(&world);
  Checks c;
  c.rank = me;
  const int faulty = driver_stall ? 0 : world - 1;
  if (me == faulty) std::ofstream(dir + "/faulty_pid") << getpid() << "\n";

  const ModelWeights w(11);
  tess_plan* plan = Compile(c, w, world);
  tess_server* server = nullptr;
  c.Expect(tess_server_create(&server, nullptr) == TESS_OK, "server");
  tess_serve_plan_options po = TESS_SERVE_PLAN_OPTIONS_INIT;
  po.batching = 1;
  po.max_queue_delay_us = 1000;
  int32_t id = -1;
  c.Expect(tess_server_add_plan(&id, server, plan, &po) == TESS_OK, "add_plan");

  if (driver_stall) {
    DriverStall(c, server, id, w, me, dir);
  } else if (me == faulty) {
    // The fault comes from a watcher thread while the main thread follows.
    std::thread watcher([&] {
      if (!WaitForFile(dir + "/fault_now", 30)) return;
      std::ofstream(dir + "/fault_time") << std::to_string(Now()) << "\n";
      raise(stall ? SIGSTOP : SIGKILL);
    });
    const tess_status s = tess_server_follow(server);  // continued after the stall
    c.Expect(s == TESS_OK, std::string("follow after the stall: ") + tess_last_error_message());
    watcher.join();
  } else if (me != 0) {
    const tess_status s = tess_server_follow(server);
    c.Expect(s == TESS_OK, std::string("surviving follower: ") + tess_last_error_message());
    tess_server_stats st = TESS_SERVER_STATS_INIT;
    c.Expect(tess_server_get_stats(&st, server) == TESS_OK && st.stopped == 1, "follower stopped");
  } else {
    // 1. Healthy: four threads, right answers.
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t) {
      pool.emplace_back([&, t] {
        tess_serve_request* r = nullptr;
        (void)tess_serve_request_create(&r, server, id);
        for (int i = 0; i < 10; ++i) {
          std::string m;
          c.Expect(Serve(c, server, r, w, t * 10 + i, &m) == TESS_OK, "healthy request: " + m);
        }
        tess_serve_request_destroy(r);
      });
    }
    for (std::thread& t : pool) t.join();
    pool.clear();
    c.Expect(tess_server_check_health(server, 5.0) == TESS_OK,
             std::string("health before: ") + tess_last_error_message());
    // 2. The fault, under load.
    std::ofstream(dir + "/fault_now") << "\n";
    c.Expect(WaitForFile(dir + "/fault_time", 30), "the faulty rank reported its fault");
    double fault_time = 0;
    std::ifstream(dir + "/fault_time") >> fault_time;
    std::atomic<double> first_error{0}, last_error{0};
    std::atomic<int> errors{0};
    for (int t = 0; t < 4; ++t) {
      pool.emplace_back([&, t] {
        tess_serve_request* r = nullptr;
        (void)tess_serve_request_create(&r, server, id);
        for (int i = 0; i < 5; ++i) {
          std::string m;
          const tess_status s = Serve(c, server, r, w, 100 + t * 10 + i, &m);
          if (s == TESS_OK) continue;  // served before the fault reached a collective
          const double at = Now();
          ++errors;
          double seen = first_error.load();
          while ((seen == 0 || at < seen) && !first_error.compare_exchange_weak(seen, at)) {
          }
          seen = last_error.load();
          while (at > seen && !last_error.compare_exchange_weak(seen, at)) {
          }
          c.Expect(s == TESS_UNAVAILABLE || s == TESS_DEADLINE_EXCEEDED,
                   "status after the fault " + std::to_string(s) + ": " + m);
          c.Expect(Contains(m, "unavailable") || Contains(m, "DEADLINE") || Contains(m, "within"),
                   "message after the fault: " + m);
        }
        tess_serve_request_destroy(r);
      });
    }
    for (std::thread& t : pool) t.join();
    c.Expect(errors.load() >= 16,
             "at least 16 of 20 requests failed after the fault: " + std::to_string(errors.load()));
    const double to_first = first_error.load() - fault_time;
    const double to_last = last_error.load() - fault_time;
    c.Figure("first_error_s", to_first);
    c.Figure("last_error_s", to_last);
    c.Expect(to_last <= kTimeout + kSlack + 0.5, "every request failed within the bound");
    // 3. Health and stats.
    const double h0 = Now();
    c.Expect(tess_server_check_health(server, 5.0) == TESS_UNAVAILABLE, "health after");
    c.Expect(Contains(tess_last_error_message(), "unavailable"), "health message");
    c.Figure("health_s", Now() - h0);
    tess_server_stats st = TESS_SERVER_STATS_INIT;
    c.Expect(tess_server_get_stats(&st, server) == TESS_OK && st.available == 0, "stats");
    // 4. Stop, bounded.
    const double s0 = Now();
    (void)tess_server_stop(server);
    c.Figure("stop_s", Now() - s0);
    c.Expect(Now() - s0 <= kTimeout + kSlack, "stop within the bound");
    if (stall) {
      std::string pid;
      std::ifstream(dir + "/faulty_pid") >> pid;
      kill(std::stoi(pid), SIGCONT);
    }
  }
  tess_server_destroy(server);
  tess_plan_destroy(plan);
  const double f0 = Now();
  (void)tess_runtime_finalize();
  c.Figure("finalize_s", Now() - f0);
  c.Expect(Now() - f0 <= kTimeout + kSlack + 1, "finalize within the bound");
  c.Write(dir);
  return 0;
}

}  // namespace
}  // namespace tessera::serve_test

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "stall") != 0 && std::strcmp(argv[1], "kill") != 0 &&
                    std::strcmp(argv[1], "driver-stall") != 0)) {
    std::fprintf(stderr, "usage: %s stall|kill|driver-stall DIR\n", argv[0]);
    return 2;
  }
  return tessera::serve_test::Run(argv[1], argv[2]);
}
