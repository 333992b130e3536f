// The cost of check mode (docs/reliability.md, "Divergence detection (check mode)"),
// printed by rank 0 as JSON lines {"bench", "value", "unit", "baseline", "ratio", ...}:
// each figure is the median of kReps timed samples with check mode ON, its baseline the
// median with check mode OFF, samples of the two alternating in the same run (the
// machine is shared and noisy); ratio = on / off. The slowest rank's medians are
// reported.
//
//   check/dispatch/add_4xf32   tess_add (+ destroy) of two 4-element f32 S(0) tensors on
//                              the world: an inference-cache hit, no boxing. On, each
//                              call first agrees its fingerprint (one 2-int64 all-reduce
//                              on more than one rank; nothing but a branch on one).
//   check/boxing/s0_to_b_<n>   tess_boxing_run of n f32 elements from S(0) to B on the
//                              world (an all-gather); on adds the agreement.
//   check/allreduce/sum_<n>    tess_comm_allreduce of n f32 (flat); on adds the
//                              agreement.
#include <mpi.h>
#include <tessera/tessera.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kReps = 7;

void CheckC(tess_status s, const char* what) {
  if (s != TESS_OK) {
    std::fprintf(stderr, "check_bench: %s: %s\n", what, tess_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void SetCheckMode(int32_t mode) {
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.check_mode = mode;
  CheckC(tess_runtime_init_with_options(&o), "tess_runtime_init_with_options");
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds per call with check mode on and off: kReps samples of `iters` calls
// each, alternating. Every rank runs the same sequence; the slowest rank's medians.
template <typename Fn>
void Measure(const Fn& fn, int iters, double* on, double* off) {
  std::vector<double> t_on, t_off;
  for (int mode : {1, 0}) {  // warm both
    SetCheckMode(mode);
    for (int i = 0; i < iters / 4 + 1; ++i) fn();
  }
  for (int rep = 0; rep < kReps; ++rep) {
    for (int mode : {1, 0}) {
      SetCheckMode(mode);
      MPI_Barrier(MPI_COMM_WORLD);
      const auto a = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) fn();
      const auto b = std::chrono::steady_clock::now();
      (mode ? t_on : t_off).push_back(std::chrono::duration<double>(b - a).count() / iters);
    }
  }
  SetCheckMode(0);
  double mine[2] = {Median(t_on), Median(t_off)}, worst[2];
  MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *on = worst[0];
  *off = worst[1];
}

void Report(int rank, int size, const std::string& bench, double on, double off, const char* note) {
  if (rank != 0) return;
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.1f, \"unit\": \"ns\", \"baseline\": %.1f, "
      "\"baseline_name\": \"check mode off\", \"ratio\": %.3f, \"ranks\": %d, \"reps\": %d, "
      "\"note\": \"%s\"}\n",
      bench.c_str(), on * 1e9, off * 1e9, on / off, size, kReps, note);
  std::fflush(stdout);
}

}  // namespace

int main() {
  CheckC(tess_runtime_init(), "tess_runtime_init");
  int32_t rank = 0, size = 0;
  CheckC(tess_runtime_world_rank(&rank), "world_rank");
  CheckC(tess_runtime_world_size(&size), "world_size");
  std::string world = "cpu:[";
  for (int r = 0; r < size; ++r) world += (r ? "," : "") + std::to_string(r);
  world += "]";
  tess_placement* p = nullptr;
  CheckC(tess_placement_parse(&p, world.c_str()), "placement");
  tess_nd_sbp *s0 = nullptr, *b = nullptr;
  CheckC(tess_nd_sbp_parse(&s0, "S(0)"), "S(0)");
  CheckC(tess_nd_sbp_parse(&b, "B"), "B");

  {  // dispatch
    const int64_t shape[] = {4L * size};
    std::vector<float> data(static_cast<size_t>(4 * size), 1.5f);
    tess_tensor* x = nullptr;
    CheckC(tess_tensor_from_host(&x, data.data(), shape, 1, TESS_DTYPE_F32, p, s0), "from_host");
    double on = 0, off = 0;
    Measure(
        [&] {
          tess_tensor* y = nullptr;
          CheckC(tess_add(&y, x, x), "tess_add");
          tess_tensor_destroy(y);
        },
        size == 1 ? 20000 : 2000, &on, &off);
    Report(rank, size, "check/dispatch/add_4xf32", on, off, "tess_add + destroy, cache hit");
    tess_tensor_destroy(x);
  }

  for (int64_t n : {int64_t{1024}, int64_t{1} << 20}) {  // boxing S(0) -> B
    const int64_t total = n;
    const int64_t piece = total / size + (rank < total % size ? 1 : 0);
    std::vector<float> in(static_cast<size_t>(piece), 0.5f), out(static_cast<size_t>(total));
    double on = 0, off = 0;
    Measure(
        [&] {
          CheckC(tess_boxing_run(out.data(), out.size() * sizeof(float), in.data(),
                                 in.size() * sizeof(float), &total, 1, TESS_DTYPE_F32, p, s0, p, b),
                 "tess_boxing_run");
        },
        n > 4096 ? 50 : 2000, &on, &off);
    Report(rank, size, "check/boxing/s0_to_b_" + std::to_string(n), on, off,
           "tess_boxing_run f32 S(0) -> B");
  }

  for (int64_t n : {int64_t{16}, int64_t{1} << 20}) {  // all-reduce
    std::vector<float> buffer(static_cast<size_t>(n), 1.0f);
    double on = 0, off = 0;
    Measure(
        [&] {
          CheckC(tess_comm_allreduce(buffer.data(), n, TESS_DTYPE_F32, TESS_REDUCE_SUM, nullptr,
                                     TESS_ALLREDUCE_FLAT),
                 "tess_comm_allreduce");
        },
        n > 4096 ? 50 : 2000, &on, &off);
    Report(rank, size, "check/allreduce/sum_" + std::to_string(n), on, off,
           "tess_comm_allreduce f32 flat");
  }

  tess_nd_sbp_destroy(b);
  tess_nd_sbp_destroy(s0);
  tess_placement_destroy(p);
  CheckC(tess_runtime_finalize(), "finalize");
  return 0;
}
