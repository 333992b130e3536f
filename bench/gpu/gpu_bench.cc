// GPU benchmarks of issue 18, one rank, printed as JSON lines
//   {"bench", "value", "unit", "baseline", "baseline_value", "ratio", "goal", "device"}
// Each figure is the median of kReps samples, each baseline measured in the same run
// with its samples alternating with the figure's (the machines are shared), and
// `ratio` is figure / baseline in the direction where higher is better for Tessera
// (throughputs), or baseline / figure for times.
//
//   gpu/add_256MiB            tess_add of two 64 Mi-element f32 tensors (reads 2, writes 1)
//                             vs a device-to-device cudaMemcpyAsync of 256 MiB (reads 1,
//                             writes 1), as GB/s moved. Goal: ratio >= 0.9.
//   gpu/matmul_<dtype>_<n>    tess_matmul of n x n by n x n vs cublasLtMatmul on the same
//                             device buffers (exported by DLPack), same dtypes, f32
//                             accumulation (CUBLAS_COMPUTE_32F, so no TF32 for f32), as
//                             TFLOP/s, each call waited for. Goal for bf16: ratio >= 0.95.
//   gpu/matmul_<dtype>_<n>/queued  the same calls back to back with one wait at the end
//                             (the host's per-call work overlaps the device's).
//   gpu/dispatch_add_4/enqueue  tess_add + destroy of 4-element f32 tensors, host time per
//                             call without waiting, vs one raw kernel launch
//                             (device::FillF32). Goal: <= 3 us per op.
//   gpu/dispatch_add_4/sync   the same, waiting for each op (tess_tensor_synchronize) vs
//                             a launch + cudaStreamSynchronize.
//   gpu/h2d_256MiB_<pageable|pinned>  tess_tensor_from_host of 256 MiB from pageable
//                             (malloc) or pinned (cudaHostAlloc) memory vs a raw
//                             cudaMemcpyAsync from pinned memory, GB/s. Goal >= 0.9.
//   gpu/d2h_256MiB_<pageable|pinned>  tess_tensor_to_host likewise.
//
// Without a GPU it prints one JSON line saying so and exits 0. Build and run:
//   bazel build --config=cuda -c opt //bench/gpu:gpu_bench && bazel-bin/bench/gpu/gpu_bench
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <tessera/dlpack.h>
#include <tessera/tessera.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/device/device.h"

namespace {

constexpr int kReps = 5;
std::string g_device = "unknown";

void Die(const std::string& what) {
  std::fprintf(stderr, "gpu_bench: %s\n", what.c_str());
  std::exit(1);
}

void CheckC(tess_status s, const char* what) {
  if (s != TESS_OK) Die(std::string(what) + ": " + tess_last_error_message());
}

void CheckCuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) Die(std::string(what) + ": " + cudaGetErrorString(e));
}

void CheckLt(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) Die(std::string(what) + ": cublas status " + std::to_string(s));
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds per call of `fn` and of `base`: kReps samples of `iters` calls each,
// alternating. Each sample's function is expected to leave the device idle on return.
void TimePair(int iters, const std::function<void()>& fn, const std::function<void()>& base,
              double* fn_s, double* base_s) {
  fn();  // warm-up: allocator caches, cuBLAS heuristics, lazy module loading
  base();
  std::vector<double> a, b;
  for (int r = 0; r < kReps; ++r) {
    double t0 = Now();
    for (int i = 0; i < iters; ++i) fn();
    a.push_back((Now() - t0) / iters);
    t0 = Now();
    for (int i = 0; i < iters; ++i) base();
    b.push_back((Now() - t0) / iters);
  }
  *fn_s = Median(a);
  *base_s = Median(b);
}

void Emit(const std::string& bench, double value, const char* unit, const std::string& baseline,
          double baseline_value, double ratio, const char* goal) {
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", \"baseline\": \"%s\", "
      "\"baseline_value\": %.6g, \"ratio\": %.4f, \"goal\": \"%s\", \"device\": \"%s\"}\n",
      bench.c_str(), value, unit, baseline.c_str(), baseline_value, ratio, goal, g_device.c_str());
  std::fflush(stdout);
}

struct Env {
  tess_placement* p = nullptr;
  tess_nd_sbp* b = nullptr;
};

tess_tensor* Full(const Env& env, std::vector<int64_t> shape, tess_dtype dtype, double v) {
  tess_tensor* t = nullptr;
  CheckC(tess_tensor_full(&t, shape.data(), shape.size(), dtype, v, env.p, env.b), "full");
  return t;
}

// The device address of a cuda tensor's piece, through a DLPack export (released at once:
// the tensor keeps the memory alive).
void* DevicePointer(const tess_tensor* t) {
  DLManagedTensorVersioned* dl = nullptr;
  CheckC(tess_tensor_to_dlpack(&dl, t), "to_dlpack");
  void* p = static_cast<char*>(dl->dl_tensor.data) + dl->dl_tensor.byte_offset;
  dl->deleter(dl);
  return p;
}

// One tess_add, waited for, its result released.
void AddAndWait(const tess_tensor* x, const tess_tensor* y) {
  tess_tensor* z = nullptr;
  CheckC(tess_add(&z, x, y), "add");
  CheckC(tess_tensor_synchronize(z), "synchronize");
  tess_tensor_destroy(z);
}

void BenchAdd(const Env& env, cudaStream_t stream) {
  const int64_t n = int64_t{64} << 20;
  const double bytes = static_cast<double>(n) * 4;
  tess_tensor* x = Full(env, {n}, TESS_DTYPE_F32, 1.0);
  tess_tensor* y = Full(env, {n}, TESS_DTYPE_F32, 2.0);
  void* src = DevicePointer(x);
  void* dst = DevicePointer(y);
  double add_s = 0, copy_s = 0;
  TimePair(
      10, [&] { AddAndWait(x, y); },
      [&] {
        CheckCuda(cudaMemcpyAsync(dst, src, n * 4, cudaMemcpyDeviceToDevice, stream), "memcpy");
        CheckCuda(cudaStreamSynchronize(stream), "sync");
      },
      &add_s, &copy_s);
  // y was overwritten by the copy; add's own inputs stay valid floats either way.
  const double add_gbs = 3 * bytes / add_s / 1e9, copy_gbs = 2 * bytes / copy_s / 1e9;
  Emit("gpu/add_256MiB", add_gbs, "GB/s", "cudaMemcpyAsync D2D 256 MiB", copy_gbs,
       add_gbs / copy_gbs, ">= 0.9");
  tess_tensor_destroy(x);
  tess_tensor_destroy(y);
}

cudaDataType_t CudaType(tess_dtype dtype) {
  switch (dtype) {
    case TESS_DTYPE_F16: return CUDA_R_16F;
    case TESS_DTYPE_BF16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// C = A B for row-major n x n matrices with cuBLASLt: in column-major terms C^T = B^T A^T,
// so B is passed first. Heuristic algorithm 0 with a 32 MiB workspace.
struct LtMatmul {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layout = nullptr;
  cublasLtMatmulAlgo_t algo;
  void* workspace = nullptr;
  size_t workspace_bytes = size_t{32} << 20;

  LtMatmul(int64_t n, tess_dtype dtype) {
    CheckLt(cublasLtCreate(&handle), "cublasLtCreate");
    CheckLt(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    CheckLt(cublasLtMatrixLayoutCreate(&layout, CudaType(dtype), n, n, n), "layout");
    CheckCuda(cudaMalloc(&workspace, workspace_bytes), "workspace");
    cublasLtMatmulPreference_t pref = nullptr;
    CheckLt(cublasLtMatmulPreferenceCreate(&pref), "preference");
    CheckLt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &workspace_bytes, sizeof(workspace_bytes)),
            "preference workspace");
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    CheckLt(cublasLtMatmulAlgoGetHeuristic(handle, desc, layout, layout, layout, layout, pref, 1,
                                           &result, &found),
            "heuristic");
    if (found == 0) Die("cublasLt found no algorithm");
    algo = result.algo;
    cublasLtMatmulPreferenceDestroy(pref);
  }
  ~LtMatmul() {
    cudaFree(workspace);
    cublasLtMatrixLayoutDestroy(layout);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(handle);
  }
  void Run(const void* a, const void* b, void* c, cudaStream_t stream) {
    const float one = 1, zero = 0;
    CheckLt(cublasLtMatmul(handle, desc, &one, b, layout, a, layout, &zero, c, layout, c, layout,
                           &algo, workspace, workspace_bytes, stream),
            "cublasLtMatmul");
  }
};

void BenchMatmul(const Env& env, cudaStream_t stream, tess_dtype dtype, int64_t n) {
  const std::string name =
      std::string("gpu/matmul_") + tess_dtype_name(dtype) + "_" + std::to_string(n);
  tess_tensor* a = nullptr;
  tess_tensor* b = nullptr;
  const int64_t shape[] = {n, n};
  if (tess_tensor_randn(&a, shape, 2, dtype, 1, env.p, env.b) != TESS_OK ||
      tess_tensor_randn(&b, shape, 2, dtype, 2, env.p, env.b) != TESS_OK) {
    std::printf("{\"bench\": \"%s\", \"error\": \"%s\", \"device\": \"%s\"}\n", name.c_str(),
                tess_last_error_message(), g_device.c_str());
    tess_tensor_destroy(a);
    return;
  }
  tess_tensor* c0 = nullptr;
  if (tess_matmul(&c0, a, b, 0, 0) != TESS_OK) {
    std::printf("{\"bench\": \"%s\", \"error\": \"%s\", \"device\": \"%s\"}\n", name.c_str(),
                tess_last_error_message(), g_device.c_str());
    tess_tensor_destroy(a);
    tess_tensor_destroy(b);
    return;
  }
  LtMatmul lt(n, dtype);
  const void* da = DevicePointer(a);
  const void* db = DevicePointer(b);
  void* dc = DevicePointer(c0);  // the baseline writes into a result Tessera no longer reads
  const double flops = 2.0 * n * n * n;
  const int iters = std::max<int>(2, static_cast<int>(4e12 / flops));
  double tess_s = 0, lt_s = 0;
  TimePair(
      iters,
      [&] {
        tess_tensor* c = nullptr;
        CheckC(tess_matmul(&c, a, b, 0, 0), "matmul");
        CheckC(tess_tensor_synchronize(c), "synchronize");
        tess_tensor_destroy(c);
      },
      [&] {
        lt.Run(da, db, dc, stream);
        CheckCuda(cudaStreamSynchronize(stream), "sync");
      },
      &tess_s, &lt_s);
  const double tess_tf = flops / tess_s / 1e12, lt_tf = flops / lt_s / 1e12;
  Emit(name, tess_tf, "TFLOP/s", "cublasLtMatmul (COMPUTE_32F)", lt_tf, tess_tf / lt_tf,
       dtype == TESS_DTYPE_BF16 ? ">= 0.95" : "");
  // Queued: `iters` calls back to back and one wait, as a program that does not read
  // each product would run them; the host's per-call work then overlaps the device's.
  TimePair(
      1,
      [&] {
        tess_tensor* c = nullptr;
        for (int i = 0; i < iters; ++i) {
          tess_tensor_destroy(c);
          CheckC(tess_matmul(&c, a, b, 0, 0), "matmul");
        }
        CheckC(tess_tensor_synchronize(c), "synchronize");
        tess_tensor_destroy(c);
      },
      [&] {
        for (int i = 0; i < iters; ++i) lt.Run(da, db, dc, stream);
        CheckCuda(cudaStreamSynchronize(stream), "sync");
      },
      &tess_s, &lt_s);
  const double queued_tf = flops * iters / tess_s / 1e12,
               lt_queued_tf = flops * iters / lt_s / 1e12;
  Emit(name + "/queued", queued_tf, "TFLOP/s", "cublasLtMatmul queued (COMPUTE_32F)", lt_queued_tf,
       queued_tf / lt_queued_tf, dtype == TESS_DTYPE_BF16 ? ">= 0.95" : "");
  tess_tensor_destroy(c0);
  tess_tensor_destroy(a);
  tess_tensor_destroy(b);
}

void BenchDispatch(const Env& env, cudaStream_t stream) {
  tess_tensor* x = Full(env, {4}, TESS_DTYPE_F32, 1.0);
  tess_tensor* y = Full(env, {4}, TESS_DTYPE_F32, 2.0);
  float* raw = nullptr;
  CheckCuda(cudaMalloc(&raw, 16), "malloc");
  tess_tensor* last = nullptr;
  const int iters = 20000;
  // Enqueue only: the samples' ops pile up on the stream; a sync after each sample keeps
  // the queue from growing into the next one.
  std::vector<double> t, b;
  for (int r = 0; r < kReps + 1; ++r) {
    double t0 = Now();
    for (int i = 0; i < iters; ++i) {
      tess_tensor* z = nullptr;
      CheckC(tess_add(&z, x, y), "add");
      tess_tensor_destroy(last);
      last = z;
    }
    const double tess_s = (Now() - t0) / iters;
    CheckC(tess_tensor_synchronize(last), "synchronize");
    t0 = Now();
    for (int i = 0; i < iters; ++i) {
      if (!tessera::device::FillF32(raw, 4, 1.0f, stream).ok()) Die("FillF32");
    }
    const double raw_s = (Now() - t0) / iters;
    CheckCuda(cudaStreamSynchronize(stream), "sync");
    if (r == 0) continue;  // warm-up
    t.push_back(tess_s);
    b.push_back(raw_s);
  }
  Emit("gpu/dispatch_add_4/enqueue", Median(t) * 1e6, "us/op", "FillF32 kernel launch",
       Median(b) * 1e6, Median(b) / Median(t), "<= 3 us/op");
  double tess_s = 0, raw_s = 0;
  TimePair(
      2000, [&] { AddAndWait(x, y); },
      [&] {
        if (!tessera::device::FillF32(raw, 4, 1.0f, stream).ok()) Die("FillF32");
        CheckCuda(cudaStreamSynchronize(stream), "sync");
      },
      &tess_s, &raw_s);
  Emit("gpu/dispatch_add_4/sync", tess_s * 1e6, "us/op", "FillF32 launch + stream sync",
       raw_s * 1e6, raw_s / tess_s, "");
  tess_tensor_destroy(last);
  tess_tensor_destroy(x);
  tess_tensor_destroy(y);
  cudaFree(raw);
}

void BenchCopies(const Env& env, cudaStream_t stream) {
  const int64_t n = int64_t{64} << 20;
  const size_t bytes = static_cast<size_t>(n) * 4;
  std::vector<float> pageable(static_cast<size_t>(n), 1.5f);  // touched: resident
  float* pinned = nullptr;
  CheckCuda(cudaHostAlloc(reinterpret_cast<void**>(&pinned), bytes, cudaHostAllocDefault),
            "cudaHostAlloc");
  std::memcpy(pinned, pageable.data(), bytes);
  void* device = nullptr;
  CheckCuda(cudaMalloc(&device, bytes), "malloc");
  const int64_t shape[] = {n};
  auto raw_up = [&] {
    CheckCuda(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, stream), "h2d");
    CheckCuda(cudaStreamSynchronize(stream), "sync");
  };
  auto raw_down = [&] {
    CheckCuda(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, stream), "d2h");
    CheckCuda(cudaStreamSynchronize(stream), "sync");
  };
  const double gb = static_cast<double>(bytes) / 1e9;
  for (int kind = 0; kind < 2; ++kind) {
    const char* name = kind == 0 ? "pageable" : "pinned";
    float* host = kind == 0 ? pageable.data() : pinned;
    double tess_s = 0, raw_s = 0;
    TimePair(
        5,
        [&] {
          tess_tensor* t = nullptr;
          CheckC(tess_tensor_from_host(&t, host, shape, 1, TESS_DTYPE_F32, env.p, env.b),
                 "from_host");
          tess_tensor_destroy(t);
        },
        raw_up, &tess_s, &raw_s);
    Emit(std::string("gpu/h2d_256MiB_") + name, gb / tess_s, "GB/s", "cudaMemcpyAsync from pinned",
         gb / raw_s, raw_s / tess_s, ">= 0.9");
    tess_tensor* t = nullptr;
    CheckC(tess_tensor_from_host(&t, pageable.data(), shape, 1, TESS_DTYPE_F32, env.p, env.b),
           "from_host");
    TimePair(
        5, [&] { CheckC(tess_tensor_to_host(host, bytes, t), "to_host"); }, raw_down, &tess_s,
        &raw_s);
    Emit(std::string("gpu/d2h_256MiB_") + name, gb / tess_s, "GB/s", "cudaMemcpyAsync to pinned",
         gb / raw_s, raw_s / tess_s, ">= 0.9");
    tess_tensor_destroy(t);
  }
  cudaFree(device);
  cudaFreeHost(pinned);
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("{\"bench\": \"gpu\", \"skipped\": \"no CUDA device visible\"}\n");
    return 0;
  }
  cudaDeviceProp prop;
  CheckCuda(cudaGetDeviceProperties(&prop, 0), "properties");
  g_device = prop.name;
  CheckC(tess_runtime_init(), "init");
  Env env;
  CheckC(tess_placement_parse(&env.p, "cuda:[0]"), "placement");
  CheckC(tess_nd_sbp_parse(&env.b, "B"), "nd_sbp");
  cudaStream_t stream = nullptr;
  CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");

  BenchAdd(env, stream);
  BenchDispatch(env, stream);
  BenchCopies(env, stream);
  for (tess_dtype dtype : {TESS_DTYPE_F32, TESS_DTYPE_BF16, TESS_DTYPE_F16}) {
    for (int64_t n : {1024, 2048, 4096, 8192}) BenchMatmul(env, stream, dtype, n);
  }

  cudaStreamDestroy(stream);
  tess_nd_sbp_destroy(env.b);
  tess_placement_destroy(env.p);
  CheckC(tess_runtime_finalize(), "finalize");
  return 0;
}
