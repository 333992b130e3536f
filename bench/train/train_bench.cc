// Tessera's side of the training benchmarks against PyTorch (bench/train/torch_bench.py
// is the other side; bench/train/run.sh alternates them). One invocation is one round:
// warm-up steps, then `iterations` timed steps, and one JSON line from rank 0.
//   dp      data parallel: MLP 784-1024-1024-10, f32, global batch 256 S(0), weights B,
//           AdamW, fused buckets (the gradient all-reduce overlaps backward). Timed:
//           forward + backward + Step. Also the fused optimizer's OverlapStats.
//   tp      tensor parallel (Megatron): MLP 1024-4096-1024, batch 128 B, W1 S(1), b1 S(0),
//           W2 S(0), b2 B, AdamW (fused). Timed: forward + backward + Step.
//   adamw   one rank: fused AdamW over 100 tensors of various sizes, gradients preset.
//           Timed: Step only.
// Weights, data and gradients come from closed forms that torch_bench.py repeats (see
// Init / Batch / PresetGrad); both sides print the loss of the first step to check they
// train the same model. Usage: train_bench dp|tp|adamw [iterations] [warmup] [rounds] [SYNC]
// (rounds: how many rounds this process runs, each waiting for its turn in SYNC; see
// WaitTurn in common.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "bench/train/common.h"
#include "core/autograd/backward.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/op/op_registry.h"
#include "core/optim/optimizer.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

// OpenBLAS's kernel family (cpu_kernels' GEMM links it). It picks one from the CPU at
// load time, or from OPENBLAS_CORETYPE; on a CPU model it does not know it falls back
// to Prescott (SSE3), several times slower than the AVX2/AVX-512 kernels: see README.md.
extern "C" char* openblas_get_corename(void);

namespace tessera::train_bench {
namespace {

using autograd::Variable;

Placement World() {
  std::vector<int32_t> ranks(comm::WorldSize().value());
  std::iota(ranks.begin(), ranks.end(), 0);
  return Placement::Make(DeviceType::kCpu, ranks, {static_cast<int64_t>(ranks.size())}).value();
}

Variable Leaf(const std::vector<float>& v, const Shape& shape, const Placement& p,
              const NdSbp& sbp) {
  tensor::Tensor t = Must(tensor::FromLogical(v.data(), shape, DType::kF32, p, sbp), "FromLogical");
  return Must(autograd::MakeLeaf(t), "MakeLeaf");
}

Variable Call(const char* op, std::vector<Variable> in, int output = 0) {
  const op::OpDef* def = Must(op::OpRegistry::Global().Find(op), op);
  std::vector<Variable> out;
  Check(autograd::Apply(*def, in.data(), in.size(), {}, &out), op);
  return out[output];
}

// An MLP: dims[0] -> ... -> dims.back(), relu between layers, mean cross-entropy.
struct Mlp {
  std::vector<Variable> params;  // W0, b0, W1, b1, ...: W_k [dims[k], dims[k+1]]
  std::vector<Variable> xs, ys;  // the batches, cycled
  std::vector<Variable*> Params() {
    std::vector<Variable*> out;
    for (Variable& v : params) out.push_back(&v);
    return out;
  }
  // Forward and backward on batch `b`; the loss.
  Variable ForwardBackward(int b) {
    Variable h = xs[b % xs.size()];
    const size_t layers = params.size() / 2;
    for (size_t k = 0; k < layers; ++k) {
      h = Call("bias_add", {Call("matmul", {h, params[2 * k]}), params[2 * k + 1]});
      if (k + 1 < layers) h = Call("relu", {h});
    }
    Variable per_example = Call("sparse_softmax_cross_entropy", {h, ys[b % ys.size()]}, 1);
    Variable loss = Call("reduce_mean", {per_example});
    Check(autograd::Backward({loss}, {}), "Backward");
    return loss;
  }
};

Mlp MakeMlp(const std::vector<int64_t>& dims, int64_t batch, const Placement& p,
            const NdSbp& data_sbp, const std::vector<NdSbp>& param_sbps) {
  Mlp m;
  for (size_t k = 0; k + 1 < dims.size(); ++k) {
    m.params.push_back(Leaf(Init(2 * k, dims[k] * dims[k + 1], dims[k]),
                            Shape{dims[k], dims[k + 1]}, p, param_sbps[2 * k]));
    m.params.push_back(
        Leaf(Init(2 * k + 1, dims[k + 1], 0), Shape{dims[k + 1]}, p, param_sbps[2 * k + 1]));
  }
  for (int b = 0; b < kBatches; ++b) {
    const std::vector<float> x = BatchInputs(b, batch * dims[0]);
    const std::vector<int32_t> y = BatchLabels(b, batch, dims.back());
    m.xs.push_back(Variable{
        Must(tensor::FromLogical(x.data(), Shape{batch, dims[0]}, DType::kF32, p, data_sbp),
             "FromLogical x"),
        nullptr});
    m.ys.push_back(Variable{
        Must(tensor::FromLogical(y.data(), Shape{batch}, DType::kI32, p, data_sbp), "labels"),
        nullptr});
  }
  return m;
}

optim::OptimizerOptions AdamW() {
  optim::OptimizerOptions o;
  o.algorithm = optim::Algorithm::kAdamW;
  o.lr = kLr;
  o.weight_decay = kWeightDecay;
  o.fused = true;
  return o;
}

float LossValue(const Variable& loss) {
  float v = 0;
  Check(tensor::ToHost(loss.value, &v), "ToHost loss");
  return v;
}

// The layouts backward produced the parameters' gradients in ("W0 P, b0 P, ..."): a
// P gradient is what the fused optimizer all-reduces.
std::string GradSbps(const Mlp& m) {
  std::string out;
  for (size_t k = 0; k < m.params.size(); ++k) {
    const tensor::Tensor& g = m.params[k].meta->grad;
    out += (k ? ", " : "") + std::string(k % 2 ? "b" : "W") + std::to_string(k / 2) + " " +
           (g ? g->nd_sbp().ToString() : "none");
  }
  return out;
}

void Barrier() { Check(comm::MpiCommRegistry::Global().World().value()->Barrier(), "Barrier"); }

// Trains `m` for warmup + iterations steps; prints rank 0's JSON line.
void TrainRound(const char* bench, Mlp& m, const optim::OptimizerOptions& o, int iterations,
                int warmup, const std::string& extra) {
  auto opt = Must(optim::Optimizer::Create(m.Params(), o), "Optimizer::Create");
  float first_loss = 0;
  std::string grad_sbps;
  optim::OverlapStats before;
  double t0 = 0, cpu0 = 0;
  for (int i = 0; i < warmup + iterations; ++i) {
    if (i == warmup) {
      before = opt->overlap_stats();
      Barrier();
      t0 = Now();
      cpu0 = CpuNow();
    }
    Check(opt->ZeroGrad(), "ZeroGrad");
    Variable loss = m.ForwardBackward(i);
    if (i == 0) grad_sbps = GradSbps(m);
    Check(opt->Step(), "Step");
    if (i == 0) first_loss = LossValue(loss);
  }
  Barrier();
  const double step_s = (Now() - t0) / iterations;
  const double cpu_s = (CpuNow() - cpu0) / iterations;
  const optim::OverlapStats after = opt->overlap_stats();
  optim::OverlapStats d;
  d.in_flight_seconds = after.in_flight_seconds - before.in_flight_seconds;
  d.step_wait_seconds = after.step_wait_seconds - before.step_wait_seconds;
  if (comm::WorldRank().value() != 0) return;
  std::printf(
      "{\"bench\": \"%s\", \"side\": \"tessera\", \"np\": %d, \"iterations\": %d, "
      "\"step_s\": %.6f, \"rank0_cpu_s\": %.6f, \"first_loss\": %.6f, \"buckets\": %lld, "
      "\"allreduce_in_flight_s\": "
      "%.6f, \"allreduce_wait_s\": %.6f, \"hidden_fraction\": %.4f, \"grad_sbps\": \"%s\", "
      "\"openblas_core\": \"%s\"%s}\n",
      bench, comm::WorldSize().value(), iterations, step_s, cpu_s, first_loss,
      static_cast<long long>(after.buckets), d.in_flight_seconds / iterations,
      d.step_wait_seconds / iterations, d.hidden_fraction(), grad_sbps.c_str(),
      openblas_get_corename(), extra.c_str());
}

void DataParallel(int iterations, int warmup) {
  const Placement p = World();
  Mlp m = MakeMlp({784, 1024, 1024, 10}, 256, p, NdSbp(Sbp::Split(0)),
                  std::vector<NdSbp>(6, NdSbp(Sbp::Broadcast())));
  optim::OptimizerOptions o = AdamW();
  o.bucket_bytes = kBucketBytes;
  TrainRound("train/dp_mlp_784-1024-1024-10_b256_adamw", m, o, iterations, warmup,
             ", \"bucket_bytes\": " + std::to_string(kBucketBytes));
}

void TensorParallel(int iterations, int warmup) {
  const Placement p = World();
  const NdSbp b(Sbp::Broadcast()), s0(Sbp::Split(0)), s1(Sbp::Split(1));
  Mlp m = MakeMlp({1024, 4096, 1024}, 128, p, b, {s1, s0, s0, b});
  TrainRound("train/tp_mlp_1024-4096-1024_b128_adamw", m, AdamW(), iterations, warmup, "");
}

// Step only: every iteration presets the gradients (outside the timing: autograd's
// accumulator plus the hooks backward would call, which copy them into the buckets).
void FusedAdamW(int iterations, int warmup) {
  const Placement p = World();
  const NdSbp b(Sbp::Broadcast());
  std::vector<Variable> params;
  std::vector<tensor::Tensor> grads;
  for (int k = 0; k < kAdamWTensors; ++k) {
    const std::vector<int64_t> dims = AdamWShape(k);
    const Shape shape = dims.size() == 1 ? Shape{dims[0]} : Shape{dims[0], dims[1]};
    const int64_t n = shape.num_elements();
    params.push_back(Leaf(Init(k, n, dims.back()), shape, p, b));
    const std::vector<float> g = PresetGrad(k, n);
    grads.push_back(Must(tensor::FromLogical(g.data(), shape, DType::kF32, p, b), "grad"));
  }
  std::vector<Variable*> ptrs;
  int64_t elements = 0;
  for (Variable& v : params) {
    ptrs.push_back(&v);
    elements += v.value->shape().num_elements();
  }
  optim::OptimizerOptions o = AdamW();
  o.bucket_bytes = int64_t{1} << 30;  // everything in one flat bucket: one kernel call
  auto opt = Must(optim::Optimizer::Create(ptrs, o), "Optimizer::Create");
  std::vector<double> t;
  for (int i = 0; i < warmup + iterations; ++i) {
    Check(opt->ZeroGrad(), "ZeroGrad");
    for (size_t k = 0; k < params.size(); ++k) {
      params[k].meta->grad = grads[k];
      for (const autograd::GradReadyHook& hook : params[k].meta->hooks) hook(grads[k]);
    }
    const double t0 = Now();
    Check(opt->Step(), "Step");
    if (i >= warmup) t.push_back(Now() - t0);
  }
  // The first tensor's sum after every step, to check against torch's (same updates).
  std::vector<float> p0(params[0].value->shape().num_elements());
  Check(tensor::ToHost(params[0].value, p0.data()), "ToHost");
  double p0_sum = 0;
  for (float v : p0) p0_sum += v;
  std::printf(
      "{\"bench\": \"train/adamw_step_100_tensors\", \"side\": \"tessera\", \"np\": 1, "
      "\"iterations\": %d, \"step_s\": %.6f, \"param0_sum\": %.6f, \"elements\": %lld, "
      "\"buckets\": %lld, \"openblas_core\": \"%s\"}\n",
      iterations, Median(t), p0_sum, static_cast<long long>(elements),
      static_cast<long long>(opt->overlap_stats().buckets), openblas_get_corename());
}

}  // namespace
}  // namespace tessera::train_bench

int main(int argc, char** argv) {
  using namespace tessera;
  using namespace tessera::train_bench;
  if (argc < 2) {
    std::fprintf(stderr, "usage: train_bench dp|tp|adamw [iterations] [warmup] [rounds] [SYNC]\n");
    return 2;
  }
  Check(comm::InitWorld(), "InitWorld");
  const std::string mode = argv[1];
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 10;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 3;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 1;
  const std::string sync = argc > 5 ? argv[5] : "";
  void (*run)(int, int) = mode == "dp"      ? DataParallel
                          : mode == "tp"    ? TensorParallel
                          : mode == "adamw" ? FusedAdamW
                                            : nullptr;
  if (run == nullptr) {
    std::fprintf(stderr, "train_bench: unknown mode '%s' (dp, tp or adamw)\n", mode.c_str());
    return 2;
  }
  Barrier();
  EndTurn(sync, "tessera", "ready", comm::WorldRank().value());
  for (int r = 0; r < rounds; ++r) {
    WaitTurn(sync, "tessera", r);
    run(iterations, warmup);
    std::fflush(stdout);
    EndTurn(sync, "tessera", std::to_string(r), comm::WorldRank().value());
  }
  Check(comm::FinalizeWorld(), "FinalizeWorld");
  return 0;
}
