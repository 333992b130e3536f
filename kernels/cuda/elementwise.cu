// Elementwise CUDA kernels: unary math, scalar_add / scalar_mul, cast, add_n, identity and
// the NumPy-broadcasting binary ops. Dtypes and semantics are the CPU kernels' (see
// kernels/cpu/elementwise.cc and kernels/common/arith.h): wrapping integer arithmetic,
// truncating integer division, NaN-propagating maximum/minimum, saturating casts, the
// erf form of gelu, wrapping integer abs, floating-only pow, log, sin and cos. Float math
// is CUDA's (erf, exp, tanh, log, sin, cos within 2 ulp; sqrt and fabs exact; pow within
// 2 ulp), so f32 results can
// differ from the CPU's in the last bits.
//
// Broadcasting: the axes of out, x and y are merged once on the host (StridedLoop's
// rule) and the merged extents and strides travel by value in an IndexMap; inputs of
// out's shape take a flat kernel without index arithmetic. An integer div first
// enqueues the zero-divisor check of data_errors.h; a zero divisor's quotient is 0.
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cuda/data_checks.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

// ---- unary ----

enum class Unary { kRelu, kGelu, kExp, kNeg, kSqrt, kTanh, kSigmoid, kAbs, kLog, kSin, kCos };

template <Unary kOp, typename T>
__device__ T Apply(T x) {
  if constexpr (kOp == Unary::kRelu) return x < T(0) ? T(0) : x;  // NaN stays NaN
  if constexpr (kOp == Unary::kNeg) return Neg(x);
  if constexpr (kOp == Unary::kAbs) {
    if constexpr (std::is_floating_point_v<T>) {
      return Fabs(x);  // NaN stays NaN, -0 becomes +0
    } else {
      return x < T(0) ? Neg(x) : x;  // wrapping, as neg
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (kOp == Unary::kGelu) {
      return T(0.5) * x * (T(1) + Erf(x * T(0.70710678118654752440)));
    }
    if constexpr (kOp == Unary::kExp) return Exp(x);
    if constexpr (kOp == Unary::kSqrt) return Sqrt(x);
    if constexpr (kOp == Unary::kLog) return Log(x);
    if constexpr (kOp == Unary::kSin) return Sin(x);
    if constexpr (kOp == Unary::kCos) return Cos(x);
    if constexpr (kOp == Unary::kTanh) return Tanh(x);
    if constexpr (kOp == Unary::kSigmoid) {
      // Either branch exponentiates a non-positive number, so neither overflows.
      if (x >= T(0)) return T(1) / (T(1) + Exp(-x));
      const T e = Exp(x);
      return e / (T(1) + e);
    }
  }
  return x;  // unreachable: the float-only ops are registered for floats only
}

// Every kernel here computes in Compute<T> (float for f16/bf16) and rounds on store.
template <Unary kOp, typename T>
__global__ void UnaryKernel(const T* x, T* out, int64_t n) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    out[i] = Apply<kOp, Compute<T>>(x[i]);
  }
}

template <Unary kOp, DTypeSet kSet>
Status UnaryOp(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = x.shape.num_elements();
    if (n == 0) return Status::Ok();
    UnaryKernel<kOp>
        <<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), Out<T>(ctx, 0), n);
    return CheckLaunch(ctx, "UnaryKernel");
  });
}

// identity: bytes, for every supported dtype.
Status IdentityOp(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  const size_t bytes = static_cast<size_t>(x.shape.num_elements()) * DTypeSize(x.dtype);
  if (bytes == 0) return Status::Ok();
  return CheckCall(
      ctx, "cudaMemcpyAsync",
      cudaMemcpyAsync(ctx.outputs[0].data, x.data, bytes, cudaMemcpyDeviceToDevice, StreamOf(ctx)));
}

// ---- binary arithmetic, shared by the scalar and the broadcasting ops ----

enum class Binary { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };

template <Binary kOp, typename T>
__device__ T Apply(T a, T b) {
  if constexpr (kOp == Binary::kAdd) return Add(a, b);
  if constexpr (kOp == Binary::kSub) return Sub(a, b);
  if constexpr (kOp == Binary::kMul) return Mul(a, b);
  if constexpr (kOp == Binary::kDiv) {
    // A zero integer divisor has been recorded by the check kernel; 0 keeps it defined.
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
    }
    return Div(a, b);
  }
  if constexpr (kOp == Binary::kMax) return Max(a, b);
  if constexpr (kOp == Binary::kMin) return Min(a, b);
  if constexpr (kOp == Binary::kPow) {
    if constexpr (std::is_floating_point_v<T>) return Pow(a, b);
    return a;  // unreachable: pow is registered for floats only
  }
}

// ---- scalar_add / scalar_mul ----

// As on the CPU: an integral value the integer type holds is exact (wrapping) integer
// arithmetic; any other value is applied in double and converted back (saturating).
template <Binary kOp, typename T>
__global__ void ScalarKernel(const T* x, T* out, int64_t n, Compute<T> c, double value,
                             bool exact) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    out[i] = exact ? T(Apply<kOp, Compute<T>>(x[i], c))
                   : Convert<T>(Apply<kOp>(static_cast<double>(x[i]), value));
  }
}

template <Binary kOp>
Status ScalarOp(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  TESS_ASSIGN_OR_RETURN(const double value, FloatAttr(ctx, "value"));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = x.shape.num_elements();
    if (n == 0) return Status::Ok();
    bool exact = true;
    if constexpr (std::is_integral_v<T>) exact = IsExactInteger<T>(value);
    const Compute<T> c = exact ? static_cast<Compute<T>>(value) : Compute<T>(0);
    ScalarKernel<kOp><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), Out<T>(ctx, 0),
                                                                     n, c, value, exact);
    return CheckLaunch(ctx, "ScalarKernel");
  });
}

// ---- cast ----

template <typename From, typename To>
__global__ void CastKernel(const From* x, To* out, int64_t n) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) out[i] = Convert<To>(x[i]);
}

Status CastOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const DType to, PlanCast(ctx, Device::kCuda));
  return Dispatch<DTypeSet::kAll>(ctx, 0, [&](auto from_t) {
    using From = typename decltype(from_t)::type;
    return Visit<DTypeSet::kAll>(to, [&](auto to_t) {
      using To = typename decltype(to_t)::type;
      const int64_t n = ctx.inputs[0].shape.num_elements();
      if (n == 0) return Status::Ok();
      CastKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(In<From>(ctx, 0), Out<To>(ctx, 0),
                                                                n);
      return CheckLaunch(ctx, "CastKernel");
    });
  });
}

// ---- add_n ----

// Up to kAddNChunk inputs per launch, by value; later launches add onto out. Each
// element is summed in input order, as on the CPU, so results match it bit for bit.
constexpr int kAddNChunk = 8;

template <typename T>
struct AddNInputs {
  const T* in[kAddNChunk];
  int count;
};

template <typename T>
__global__ void AddNKernel(AddNInputs<T> inputs, T* out, int64_t n, bool onto_out) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    // f16/bf16: in float within a launch (rounded between launches of 8 inputs).
    using C = Compute<T>;
    C acc = onto_out ? C(out[i]) : C(inputs.in[0][i]);
    for (int k = onto_out ? 0 : 1; k < inputs.count; ++k) acc = Add(acc, C(inputs.in[k][i]));
    out[i] = acc;
  }
}

Status AddNOp(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(PlanAddN(ctx));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = ctx.inputs[0].shape.num_elements();
    if (n == 0) return Status::Ok();
    for (int first = 0; first < ctx.num_inputs; first += kAddNChunk) {
      AddNInputs<T> inputs{};
      inputs.count = std::min(kAddNChunk, ctx.num_inputs - first);
      for (int k = 0; k < inputs.count; ++k) inputs.in[k] = In<T>(ctx, first + k);
      AddNKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(inputs, Out<T>(ctx, 0), n,
                                                                first > 0);
      TESS_RETURN_IF_ERROR(CheckLaunch(ctx, "AddNKernel"));
    }
    return Status::Ok();
  });
}

// ---- binary, NumPy broadcasting ----

template <Binary kOp, typename T>
__global__ void BinaryFlatKernel(const T* x, const T* y, T* out, int64_t n) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    out[i] = Apply<kOp, Compute<T>>(x[i], y[i]);
  }
}

template <Binary kOp, typename T>
__global__ void BinaryStridedKernel(const T* x, const T* y, T* out, int64_t n, IndexMap<2> map) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    int64_t off[2];
    map.Offsets(i, off);
    out[i] = Apply<kOp, Compute<T>>(x[off[0]], y[off[1]]);
  }
}

template <Binary kOp, DTypeSet kSet = DTypeSet::kNumeric>
Status BinaryOp(const KernelContext& ctx) {
  BroadcastPlan plan;
  TESS_RETURN_IF_ERROR(PlanBroadcast(ctx, &plan));
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = plan.out.num_elements();
    if (n == 0) return Status::Ok();
    if constexpr (kOp == Binary::kDiv && std::is_integral_v<T>) {
      TESS_RETURN_IF_ERROR(CheckData(
          ctx, 1, MakeDataCheckInfo(DataCheck::kZeroDivisor, 0, 0, ctx.inputs[1].shape, Shape{})));
    }
    const T* x = In<T>(ctx, 0);
    const T* y = In<T>(ctx, 1);
    T* out = Out<T>(ctx, 0);
    // Merging can also leave one unit-stride axis, e.g. x [2,3] and y [1,2,3].
    const StridedLoop<3> loop(plan.out, plan.strides);
    const bool flat = plan.same_shapes || loop.ndim() == 0 ||
                      (loop.ndim() == 1 && loop.stride(0, 0) == 1 && loop.stride(1, 0) == 1);
    if (flat) {
      BinaryFlatKernel<kOp><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(x, y, out, n);
    } else {
      BinaryStridedKernel<kOp>
          <<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(x, y, out, n, MakeIndexMap<2>(loop));
    }
    return CheckLaunch(ctx, "BinaryKernel");
  });
}

}  // namespace

Status RegisterElementwiseKernels(KernelRegistry* r) {
  constexpr DTypeSet kNum = DTypeSet::kNumeric;
  constexpr DTypeSet kFloat = DTypeSet::kFloating;
  const KernelEntry kernels[] = {
      {"relu", Checked<UnaryOp<Unary::kRelu, kNum>>},
      {"gelu", Checked<UnaryOp<Unary::kGelu, kFloat>>},
      {"exp", Checked<UnaryOp<Unary::kExp, kFloat>>},
      {"neg", Checked<UnaryOp<Unary::kNeg, kNum>>},
      {"sqrt", Checked<UnaryOp<Unary::kSqrt, kFloat>>},
      {"tanh", Checked<UnaryOp<Unary::kTanh, kFloat>>},
      {"sigmoid", Checked<UnaryOp<Unary::kSigmoid, kFloat>>},
      {"abs", Checked<UnaryOp<Unary::kAbs, kNum>>},
      {"log", Checked<UnaryOp<Unary::kLog, kFloat>>},
      {"sin", Checked<UnaryOp<Unary::kSin, kFloat>>},
      {"cos", Checked<UnaryOp<Unary::kCos, kFloat>>},
      {"identity", Checked<IdentityOp>},
      {"scalar_add", Checked<ScalarOp<Binary::kAdd>>},
      {"scalar_mul", Checked<ScalarOp<Binary::kMul>>},
      {"cast", Checked<CastOp>},
      {"add_n", Checked<AddNOp>},
      {"add", Checked<BinaryOp<Binary::kAdd>>},
      {"sub", Checked<BinaryOp<Binary::kSub>>},
      {"mul", Checked<BinaryOp<Binary::kMul>>},
      {"div", Checked<BinaryOp<Binary::kDiv>>},
      {"maximum", Checked<BinaryOp<Binary::kMax>>},
      {"minimum", Checked<BinaryOp<Binary::kMin>>},
      {"pow", Checked<BinaryOp<Binary::kPow, kFloat>>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
