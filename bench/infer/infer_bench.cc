// Inference latency, printed as JSON lines. Each figure is the median of kReps
// timed repetitions; ratios compare against a baseline measured in the same run,
// because these machines are shared and noisy:
//   infer_cache_hit   vs a std::unordered_map lookup of a comparable key (two
//                     shapes, two nd-sbps, a placement hash, an op id)
//   infer_cold_1d     vs a cache hit of the same call (what the cache saves)
//   infer_cold_2d     vs a cache hit of the same call
// "target" is the budget for the figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "core/common/hash.h"
#include "core/infer/infer.h"
#include "core/infer/infer_cache.h"
#include "core/op/op_registry.h"

namespace tessera {
namespace infer {
namespace {

constexpr int kReps = 7;

template <typename T>
T Must(Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench setup failed: %s\n", r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

TensorMeta Meta(Shape shape, const char* placement, const char* nd_sbp) {
  return Must(TensorMeta::Make(shape, DType::kF32, Must(Placement::Parse(placement)),
                               Must(NdSbp::Parse(nd_sbp))));
}

// Median nanoseconds per call of fn over `iters` calls.
template <typename F>
double MedianNs(int iters, F&& fn) {
  std::vector<double> samples;
  for (int r = 0; r < kReps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) fn();
    auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

void Print(const char* bench, double value, double baseline, double target) {
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.1f, \"unit\": \"ns\", \"baseline\": %.1f, \"ratio\": %.2f, "
      "\"target\": %.0f}\n",
      bench, value, baseline, value / baseline, target);
}

// The baseline key: what a plain hash map would key on for the same call.
struct PlainKey {
  const void* op;
  Shape a, b;
  NdSbp sa, sb;
  size_t placement_hash;
  friend bool operator==(const PlainKey& x, const PlainKey& y) {
    return x.op == y.op && x.a == y.a && x.b == y.b && x.sa == y.sa && x.sb == y.sb &&
           x.placement_hash == y.placement_hash;
  }
};
struct PlainKeyHash {
  size_t operator()(const PlainKey& k) const {
    size_t h = HashCombine(reinterpret_cast<size_t>(k.op), k.a.Hash());
    h = HashCombine(h, k.b.Hash());
    h = HashCombine(h, k.sa.Hash());
    h = HashCombine(h, k.sb.Hash());
    return HashCombine(h, k.placement_hash);
  }
};

volatile size_t g_sink = 0;

void Run() {
  const op::OpDef& matmul = *Must(op::OpRegistry::Global().Find("matmul"));
  const op::AttrMap no_attrs;
  const std::vector<SbpConstraint> no_cons;
  const std::vector<TensorMeta> in1d = {Meta({256, 128}, "cpu:[0,1]", "S(0)"),
                                        Meta({128, 64}, "cpu:[0,1]", "B")};
  const std::vector<TensorMeta> in2d = {Meta({256, 128}, "cpu:[[0,1],[2,3]]", "(S(0), B)"),
                                        Meta({128, 64}, "cpu:[[0,1],[2,3]]", "(B, S(1))")};

  // Cache hit (1-d matmul), with other entries present as in a real run.
  InferCache cache(4096);
  for (int64_t d = 1; d <= 500; ++d) {
    Must(cache.GetOrInfer(matmul,
                          {Meta({d, 128}, "cpu:[0,1]", "S(0)"), Meta({128, 64}, "cpu:[0,1]", "B")},
                          no_attrs, no_cons));
  }
  Must(cache.GetOrInfer(matmul, in1d, no_attrs, no_cons));
  Must(cache.GetOrInfer(matmul, in2d, no_attrs, no_cons));
  const double hit = MedianNs(1000000, [&] {
    auto r = cache.GetOrInfer(matmul, in1d, no_attrs, no_cons);
    g_sink = g_sink + r->get()->num_candidates;
  });
  const double hit2d = MedianNs(1000000, [&] {
    auto r = cache.GetOrInfer(matmul, in2d, no_attrs, no_cons);
    g_sink = g_sink + r->get()->num_candidates;
  });

  std::unordered_map<PlainKey, int, PlainKeyHash> plain;
  for (int64_t d = 1; d <= 500; ++d) {
    plain[{&matmul, Shape{d, 128}, Shape{128, 64}, in1d[0].nd_sbp, in1d[1].nd_sbp,
           in1d[0].placement.Hash()}] = static_cast<int>(d);
  }
  plain[{&matmul, in1d[0].shape, in1d[1].shape, in1d[0].nd_sbp, in1d[1].nd_sbp,
         in1d[0].placement.Hash()}] = 7;
  const double map = MedianNs(1000000, [&] {
    PlainKey k{&matmul,        in1d[0].shape,  in1d[1].shape,
               in1d[0].nd_sbp, in1d[1].nd_sbp, in1d[0].placement.Hash()};
    g_sink = g_sink + plain.find(k)->second;
  });

  const double cold1d = MedianNs(20000, [&] {
    auto r = InferSignature(matmul, in1d, no_attrs, no_cons);
    g_sink = g_sink + r->num_candidates;
  });
  const double cold2d = MedianNs(5000, [&] {
    auto r = InferSignature(matmul, in2d, no_attrs, no_cons);
    g_sink = g_sink + r->num_candidates;
  });

  Print("infer_cache_hit", hit, map, 150);
  Print("infer_cache_hit_2d", hit2d, map, 150);
  Print("infer_cold_1d_matmul", cold1d, hit, 10000);
  Print("infer_cold_2d_matmul_2x2", cold2d, hit2d, 100000);
}

}  // namespace
}  // namespace infer
}  // namespace tessera

int main() {
  tessera::infer::Run();
  return 0;
}
