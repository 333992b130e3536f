// Elementwise kernels: unary math, scalar_add / scalar_mul, cast, add_n, and the
// NumPy-broadcasting binary ops.
//
// Dtypes: relu, neg, abs, identity, scalar ops, cast, add_n and the binary ops but pow
// take f32, f64, i32 and i64; gelu, exp, sqrt, tanh, sigmoid and pow are floating only
// (as their shape functions say). Integer semantics are arith.h's: wrapping
// add/sub/mul/neg (and abs: |INT_MIN| wraps to INT_MIN), truncating div (a zero divisor
// is an error), NaN-propagating maximum/minimum. pow is std::pow (a negative base with a
// non-integer exponent is NaN).
// gelu is the exact (erf) form x * Phi(x) that the op's doc names.
// f16 and bf16 compute every op in float (Compute<T>) and round the result once on
// store; add_n sums all inputs in float before that one rounding.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// ---- unary ----

enum class Unary { kRelu, kGelu, kExp, kNeg, kSqrt, kTanh, kSigmoid, kAbs, kLog, kSin, kCos };

template <Unary kOp, typename T>
T Apply(T x) {
  if constexpr (kOp == Unary::kRelu) return x < T(0) ? T(0) : x;  // NaN stays NaN
  if constexpr (kOp == Unary::kGelu) {
    return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
  }
  if constexpr (kOp == Unary::kExp) return std::exp(x);
  if constexpr (kOp == Unary::kNeg) return Neg(x);
  if constexpr (kOp == Unary::kAbs) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);  // NaN stays NaN, -0 becomes +0
    } else {
      return x < T(0) ? Neg(x) : x;  // wrapping, as neg
    }
  }
  if constexpr (kOp == Unary::kSqrt) return std::sqrt(x);
  if constexpr (kOp == Unary::kLog) return std::log(x);  // log 0 = -inf, log of < 0 NaN
  if constexpr (kOp == Unary::kSin) return std::sin(x);
  if constexpr (kOp == Unary::kCos) return std::cos(x);
  if constexpr (kOp == Unary::kTanh) return std::tanh(x);
  if constexpr (kOp == Unary::kSigmoid) {
    // Either branch exponentiates a non-positive number, so neither overflows.
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  }
}

template <Unary kOp, DTypeSet kSet>
Status UnaryKernel(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* in = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    const int64_t n = x.shape.num_elements();
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp>(static_cast<Compute<T>>(in[i]));
    return Status::Ok();
  });
}

// identity (and any copy of a whole tensor): bytes, for every supported dtype.
Status IdentityKernel(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  const size_t bytes = static_cast<size_t>(x.shape.num_elements()) * DTypeSize(x.dtype);
  if (bytes > 0) std::memcpy(ctx.outputs[0].data, x.data, bytes);
  return Status::Ok();
}

// ---- binary arithmetic, shared by the scalar and the broadcasting ops ----

enum class Binary { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };

template <Binary kOp, typename T>
T Apply(T a, T b) {
  if constexpr (kOp == Binary::kAdd) return Add(a, b);
  if constexpr (kOp == Binary::kSub) return Sub(a, b);
  if constexpr (kOp == Binary::kMul) return Mul(a, b);
  if constexpr (kOp == Binary::kDiv) return Div(a, b);
  if constexpr (kOp == Binary::kMax) return Max(a, b);
  if constexpr (kOp == Binary::kMin) return Min(a, b);
  if constexpr (kOp == Binary::kPow) {
    static_assert(std::is_floating_point_v<T>, "pow computes in float or double only");
    return std::pow(a, b);
  }
}

// ---- scalar_add / scalar_mul ----

// out = x (op) value. On integer tensors an integral value that the type holds is
// exact (wrapping) integer arithmetic; any other value is applied in double and
// converted back with Convert (truncation toward zero, saturating).
template <Binary kOp>
Status ScalarKernel(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  TESS_ASSIGN_OR_RETURN(const double value, FloatAttr(ctx, "value"));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* in = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    const int64_t n = x.shape.num_elements();
    bool exact = true;
    if constexpr (std::is_integral_v<T>) exact = IsExactInteger<T>(value);
    if (exact) {
      using C = Compute<T>;
      const C c = static_cast<C>(value);
      for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp, C>(in[i], c);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Convert<T>(Apply<kOp>(static_cast<double>(in[i]), value));
      }
    }
    return Status::Ok();
  });
}

// ---- cast ----

Status CastKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const DType to, PlanCast(ctx, Device::kCpu));
  return Dispatch<DTypeSet::kAll>(ctx, 0, [&](auto from_t) {
    using From = typename decltype(from_t)::type;
    return Visit<DTypeSet::kAll>(to, [&](auto to_t) {
      using To = typename decltype(to_t)::type;
      const From* in = In<From>(ctx, 0);
      To* out = Out<To>(ctx, 0);
      const int64_t n = ctx.inputs[0].shape.num_elements();
      for (int64_t i = 0; i < n; ++i) out[i] = Convert<To>(in[i]);
      return Status::Ok();
    });
  });
}

// ---- add_n ----

Status AddNKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(PlanAddN(ctx));
  const LocalTensor& first = ctx.inputs[0];
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    T* out = Out<T>(ctx, 0);
    const int64_t n = first.shape.num_elements();
    const T* a = In<T>(ctx, 0);
    const T* b = In<T>(ctx, 1);
    if constexpr (kIsHalf<T>) {
      for (int64_t i = 0; i < n; ++i) {
        float sum = static_cast<float>(a[i]) + static_cast<float>(b[i]);
        for (int k = 2; k < ctx.num_inputs; ++k) sum += static_cast<float>(In<T>(ctx, k)[i]);
        out[i] = sum;
      }
      return Status::Ok();
    }
    for (int64_t i = 0; i < n; ++i) out[i] = Add(a[i], b[i]);
    for (int k = 2; k < ctx.num_inputs; ++k) {
      const T* c = In<T>(ctx, k);
      for (int64_t i = 0; i < n; ++i) out[i] = Add(out[i], c[i]);
    }
    return Status::Ok();
  });
}

// ---- binary, NumPy broadcasting ----

// Computes in C (float for f16/bf16) and stores T.
template <Binary kOp, typename T, typename C = Compute<T>>
void BinaryRun(const T* x, const T* y, T* out, int64_t n, int64_t sx, int64_t sy) {
  if (sx == 1 && sy == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp, C>(x[i], y[i]);
  } else if (sx == 1 && sy == 0) {
    const C b = *y;
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp, C>(x[i], b);
  } else if (sx == 0 && sy == 1) {
    const C a = *x;
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp, C>(a, y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp, C>(x[i * sx], y[i * sy]);
  }
}

// The zero divisor an integer div would hit, as an error naming its position in y.
template <typename T>
Status CheckNoZeroDivisor(const KernelContext& ctx, const T* y, const Shape& shape) {
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] == T(0)) {
      return KernelError(ctx, ZeroDivisorError(shape, i));
    }
  }
  return Status::Ok();
}

template <Binary kOp, DTypeSet kSet = DTypeSet::kNumeric>
Status BinaryKernel(const KernelContext& ctx) {
  BroadcastPlan plan;
  TESS_RETURN_IF_ERROR(PlanBroadcast(ctx, &plan));
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* xp = In<T>(ctx, 0);
    const T* yp = In<T>(ctx, 1);
    T* out = Out<T>(ctx, 0);
    const int64_t n = plan.out.num_elements();
    if (n == 0) return Status::Ok();
    if constexpr (kOp == Binary::kDiv && std::is_integral_v<T>) {
      TESS_RETURN_IF_ERROR(CheckNoZeroDivisor(ctx, yp, ctx.inputs[1].shape));
    }
    if (plan.same_shapes) {
      BinaryRun<kOp>(xp, yp, out, n, 1, 1);
      return Status::Ok();
    }
    StridedLoop<3>(plan.out, plan.strides)
        .Run([&](const int64_t* off, int64_t run, const int64_t* st) {
          BinaryRun<kOp>(xp + off[0], yp + off[1], out + off[2], run, st[0], st[1]);
        });
    return Status::Ok();
  });
}

}  // namespace

Status RegisterElementwiseKernels(KernelRegistry* r) {
  constexpr DTypeSet kNum = DTypeSet::kNumeric;
  constexpr DTypeSet kFloat = DTypeSet::kFloating;
  const KernelEntry kernels[] = {
      {"relu", Checked<UnaryKernel<Unary::kRelu, kNum>>},
      {"gelu", Checked<UnaryKernel<Unary::kGelu, kFloat>>},
      {"exp", Checked<UnaryKernel<Unary::kExp, kFloat>>},
      {"neg", Checked<UnaryKernel<Unary::kNeg, kNum>>},
      {"sqrt", Checked<UnaryKernel<Unary::kSqrt, kFloat>>},
      {"tanh", Checked<UnaryKernel<Unary::kTanh, kFloat>>},
      {"sigmoid", Checked<UnaryKernel<Unary::kSigmoid, kFloat>>},
      {"abs", Checked<UnaryKernel<Unary::kAbs, kNum>>},
      {"log", Checked<UnaryKernel<Unary::kLog, kFloat>>},
      {"sin", Checked<UnaryKernel<Unary::kSin, kFloat>>},
      {"cos", Checked<UnaryKernel<Unary::kCos, kFloat>>},
      {"identity", Checked<IdentityKernel>},
      {"scalar_add", Checked<ScalarKernel<Binary::kAdd>>},
      {"scalar_mul", Checked<ScalarKernel<Binary::kMul>>},
      {"cast", Checked<CastKernel>},
      {"add_n", Checked<AddNKernel>},
      {"add", Checked<BinaryKernel<Binary::kAdd>>},
      {"sub", Checked<BinaryKernel<Binary::kSub>>},
      {"mul", Checked<BinaryKernel<Binary::kMul>>},
      {"div", Checked<BinaryKernel<Binary::kDiv>>},
      {"maximum", Checked<BinaryKernel<Binary::kMax>>},
      {"minimum", Checked<BinaryKernel<Binary::kMin>>},
      {"pow", Checked<BinaryKernel<Binary::kPow, kFloat>>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
