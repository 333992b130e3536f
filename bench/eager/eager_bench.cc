// Eager-interpreter benchmarks, printed by rank 0 as JSON lines
//   {"bench", "value", "unit", "baseline", "ratio", ...}
// with each figure the median of kReps timed repetitions and each baseline measured
// in the same run (these machines are shared and noisy); samples of a figure and its
// baseline alternate so both see the same noise.
//
//   eager/add_4xf32/apply     eager::Apply of `add` on two 4-element f32 B tensors
//                             through a cached OpDef* (inference cache hit, no
//                             boxing), ns per call; baseline: malloc a 16-byte buffer,
//                             add 4 floats into it, free it (the floor). Every rank
//                             runs it; the slowest rank's median is reported.
//   eager/add_4xf32/tess_add  the same through the C API (tess_add + destroy).
//   eager/matmul_1024/apply   a 1024^3 f32 matmul through Apply vs cblas_sgemm on the
//                             same input buffers; ratio = throughput ratio
//                             (blas time / apply time). One-rank worlds only.
//   eager/add_64MB/apply      add of two 64 MB f32 tensors vs a 64 MB memcpy, as
//                             bandwidth (add moves 3 x 64 MB, memcpy 2 x 64 MB);
//                             ratio = add GB/s / memcpy GB/s. One-rank worlds only.
//
// `eager_bench dispatch` runs the two dispatch rows only (for profilers: perf,
// valgrind --tool=callgrind --toggle-collect=tess_add).
#include <cblas.h>
#include <mpi.h>
#include <tessera/tessera.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/comm/mpi_world.h"
#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/creation.h"

namespace tessera {
namespace eager {
namespace {

using tensor::FromLogical;
using tensor::Full;
using tensor::Randn;
using tensor::Tensor;

constexpr int kReps = 7;

void Die(const std::string& what) {
  std::fprintf(stderr, "eager_bench: %s\n", what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

template <typename T>
T Must(Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
  return std::move(r).value();
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

void CheckC(tess_status s, const char* what) {
  if (s != TESS_OK) Die(std::string(what) + ": " + tess_last_error_message());
}

// Keeps `p` and what it points to alive for the optimiser.
inline void Escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds per call of `fn` and of `base`, kReps samples of `iters` calls each,
// alternating.
template <typename F, typename G>
std::pair<double, double> TimePair(int iters, F&& fn, G&& base) {
  std::vector<double> a, b;
  for (int r = 0; r < kReps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) fn();
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) base();
    auto t2 = std::chrono::steady_clock::now();
    a.push_back(Seconds(t0, t1) / iters);
    b.push_back(Seconds(t1, t2) / iters);
  }
  return {Median(a), Median(b)};
}

double SlowestRank(double mine) {
  double slowest = mine;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int OpenBlasThreads() {
  const char* env = std::getenv("OPENBLAS_NUM_THREADS");
  return env == nullptr ? 0 : std::atoi(env);  // 0: OpenBLAS's own default
}

void PrintLine(int rank, const std::string& bench, double value, const char* unit, double baseline,
               double ratio, const std::string& extra) {
  if (rank != 0) return;
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.4g, \"unit\": \"%s\", \"baseline\": %.4g, "
      "\"ratio\": %.3f%s}\n",
      bench.c_str(), value, unit, baseline, ratio, extra.c_str());
  std::fflush(stdout);
}

void BenchDispatch(const Placement& world, int np, int rank) {
  const float four[4] = {1, 2, 3, 4};
  const Shape shape{4};
  const NdSbp b(Sbp::Broadcast());
  Tensor in[2] = {Must(FromLogical(four, shape, DType::kF32, world, b), "x"),
                  Must(FromLogical(four, shape, DType::kF32, world, b), "y")};
  const op::OpDef* add = Must(op::OpRegistry::Global().Find("add"), "find add");
  const op::AttrMap attrs;
  std::vector<Tensor> outs;
  outs.reserve(1);
  auto apply = [&] { Check(Apply(*add, in, 2, attrs, &outs), "Apply add"); };
  auto floor = [&] {
    float* out = static_cast<float*>(std::malloc(4 * sizeof(float)));
    Escape(out);
    for (int i = 0; i < 4; ++i) out[i] = four[i] + four[i];
    Escape(out);
    std::free(out);
  };
  for (int i = 0; i < 10000; ++i) apply();  // warm: cache entry, allocator blocks
  constexpr int kIters = 200000;
  auto [apply_s, floor_s] = TimePair(kIters, apply, floor);
  const double apply_ns = SlowestRank(apply_s) * 1e9, floor_ns = SlowestRank(floor_s) * 1e9;
  const std::string tail =
      ", \"target\": 1500, \"meets_target\": " + std::string(apply_ns <= 1500 ? "true" : "false");
  PrintLine(rank, "eager/add_4xf32/apply/np" + std::to_string(np), apply_ns, "ns", floor_ns,
            apply_ns / floor_ns, tail);

  // The same through the C API.
  tess_placement* cp = nullptr;
  tess_nd_sbp* cb = nullptr;
  CheckC(tess_placement_parse(&cp, world.ToString().c_str()), "tess_placement_parse");
  CheckC(tess_nd_sbp_parse(&cb, "B"), "tess_nd_sbp_parse");
  const int64_t dims[1] = {4};
  tess_tensor* cx = nullptr;
  tess_tensor* cy = nullptr;
  CheckC(tess_tensor_from_host(&cx, four, dims, 1, TESS_DTYPE_F32, cp, cb),
         "tess_tensor_from_host");
  CheckC(tess_tensor_from_host(&cy, four, dims, 1, TESS_DTYPE_F32, cp, cb),
         "tess_tensor_from_host");
  auto capi = [&] {
    tess_tensor* out = nullptr;
    CheckC(tess_add(&out, cx, cy), "tess_add");
    tess_tensor_destroy(out);
  };
  for (int i = 0; i < 10000; ++i) capi();
  auto [capi_s, floor2_s] = TimePair(kIters, capi, floor);
  const double capi_ns = SlowestRank(capi_s) * 1e9, floor2_ns = SlowestRank(floor2_s) * 1e9;
  PrintLine(
      rank, "eager/add_4xf32/tess_add/np" + std::to_string(np), capi_ns, "ns", floor2_ns,
      capi_ns / floor2_ns,
      ", \"target\": 1500, \"meets_target\": " + std::string(capi_ns <= 1500 ? "true" : "false"));
  tess_tensor_destroy(cx);
  tess_tensor_destroy(cy);
  tess_nd_sbp_destroy(cb);
  tess_placement_destroy(cp);
}

void BenchMatmul(const Placement& one) {
  constexpr int64_t kN = 1024;
  const NdSbp b(Sbp::Broadcast());
  Tensor in[2] = {Must(Randn(Shape{kN, kN}, DType::kF32, 1, one, b), "a"),
                  Must(Randn(Shape{kN, kN}, DType::kF32, 2, one, b), "b")};
  const op::OpDef* matmul = Must(op::OpRegistry::Global().Find("matmul"), "find matmul");
  const op::AttrMap attrs;
  std::vector<Tensor> outs;
  auto apply = [&] { Check(Apply(*matmul, in, 2, attrs, &outs), "Apply matmul"); };
  std::vector<float> c(kN * kN, 0.0f);
  const float* a_data = static_cast<const float*>(in[0]->local_data());
  const float* b_data = static_cast<const float*>(in[1]->local_data());
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f, a_data, kN, b_data, kN,
                0.0f, c.data(), kN);
    Escape(c.data());
  };
  for (int i = 0; i < 2; ++i) {
    apply();
    blas();
  }
  // Both compute the same product: a wrong benchmark is worse than none.
  if (std::memcmp(outs[0]->local_data(), c.data(), c.size() * sizeof(float)) != 0) {
    Die("matmul: Apply and cblas_sgemm results differ");
  }
  auto [apply_s, blas_s] = TimePair(1, apply, blas);
  const double gflop = 2.0 * kN * kN * kN * 1e-9;
  PrintLine(0, "eager/matmul_1024/apply/np1", apply_s * 1e3, "ms", blas_s * 1e3, blas_s / apply_s,
            ", \"ratio_kind\": \"throughput (baseline time / value time)\", \"target\": 0.9, "
            "\"apply_gflops\": " +
                std::to_string(gflop / apply_s) +
                ", \"blas_gflops\": " + std::to_string(gflop / blas_s) +
                ", \"openblas_threads\": " + std::to_string(OpenBlasThreads()));
}

void BenchAddBandwidth(const Placement& one) {
  constexpr int64_t kElems = 64 * 1024 * 1024 / sizeof(float);
  const NdSbp b(Sbp::Broadcast());
  Tensor in[2] = {Must(Full(Shape{kElems}, DType::kF32, 1.5, one, b), "x"),
                  Must(Full(Shape{kElems}, DType::kF32, 2.5, one, b), "y")};
  const op::OpDef* add = Must(op::OpRegistry::Global().Find("add"), "find add");
  const op::AttrMap attrs;
  std::vector<Tensor> outs;
  auto apply = [&] { Check(Apply(*add, in, 2, attrs, &outs), "Apply add"); };
  std::vector<float> src(kElems, 1.0f), dst(kElems, 0.0f);
  auto copy = [&] {
    std::memcpy(dst.data(), src.data(), kElems * sizeof(float));
    Escape(dst.data());
  };
  for (int i = 0; i < 2; ++i) {
    apply();
    copy();
  }
  if (static_cast<const float*>(outs[0]->local_data())[kElems - 1] != 4.0f) {
    Die("add_64MB: wrong sum");
  }
  auto [apply_s, copy_s] = TimePair(1, apply, copy);
  const double mb = 64.0 * 1024 * 1024 / 1e9;  // GB per tensor
  const double add_gbs = 3 * mb / apply_s, copy_gbs = 2 * mb / copy_s;
  PrintLine(0, "eager/add_64MB/apply/np1", add_gbs, "GB/s", copy_gbs, add_gbs / copy_gbs,
            ", \"ratio_kind\": \"bandwidth (add moves 3x64MB, memcpy 2x64MB)\", \"apply_ms\": " +
                std::to_string(apply_s * 1e3) + ", \"memcpy_ms\": " + std::to_string(copy_s * 1e3));
}

void Run(bool dispatch_only) {
  CheckC(tess_runtime_init(), "tess_runtime_init");
  const int np = Must(comm::WorldSize(), "WorldSize");
  const int rank = Must(comm::WorldRank(), "WorldRank");
  const Placement world = Must(Placement::Parse("cpu:0-" + std::to_string(np - 1)), "placement");
  BenchDispatch(world, np, rank);
  if (np == 1 && !dispatch_only) {
    BenchMatmul(world);
    BenchAddBandwidth(world);
  }
  CheckC(tess_runtime_finalize(), "tess_runtime_finalize");
}

}  // namespace
}  // namespace eager
}  // namespace tessera

int main(int argc, char** argv) {
  const bool dispatch_only = argc > 1 && std::strcmp(argv[1], "dispatch") == 0;
  if (argc > 1 && !dispatch_only) {
    std::fprintf(stderr, "usage: eager_bench [dispatch]\n");
    return 2;
  }
  tessera::eager::Run(dispatch_only);
  return 0;
}
