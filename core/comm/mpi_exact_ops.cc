#include "core/comm/mpi_exact_ops.h"

#include <mutex>

#include "core/common/exact_minmax.h"
#include "core/common/half.h"

namespace tessera::comm {
namespace {

// MPI's user function: inout[i] = in[i] op inout[i]. The order is immaterial (the
// ops are commutative up to which NaN comes out), so the ops are created commutative
// and MPI may use its reordering algorithms.
template <typename T, typename Op>
__attribute__((always_inline)) inline void CombineBody(void* in_v, void* inout_v, int* len) {
  const T* __restrict in = static_cast<const T*>(in_v);
  T* __restrict inout = static_cast<T*>(inout_v);
  const Op op;
  const int n = *len;
  for (int i = 0; i < n; ++i) inout[i] = op(inout[i], in[i]);
}

template <typename T, typename Op>
void Combine(void* in, void* inout, int* len, MPI_Datatype*) {
  CombineBody<T, Op>(in, inout, len);
}

// The build targets baseline x86-64 (SSE2), while Open MPI's built-in MPI_MAX runs
// AVX code where the CPU has it; twice the vector width, chosen at run time, keeps
// the exact op level with it on data in cache.
#if defined(__x86_64__) && defined(__GNUC__)
#define TESSERA_EXACT_OPS_AVX2 1
template <typename T, typename Op>
__attribute__((target("avx2"))) void CombineAvx2(void* in, void* inout, int* len, MPI_Datatype*) {
  CombineBody<T, Op>(in, inout, len);
}
#endif

template <typename T, typename Op>
MPI_User_function* CombineFor() {
#ifdef TESSERA_EXACT_OPS_AVX2
  if (__builtin_cpu_supports("avx2")) return &CombineAvx2<T, Op>;
#endif
  return &Combine<T, Op>;
}

// a + b in float for f16/bf16 (Float16 + Float16 is float + float), rounded on return.
struct HalfSumOp {
  template <typename T>
  T operator()(T a, T b) const {
    return a + b;
  }
};

// One op per dtype; index with Slot().
struct Ops {
  MPI_Op max_f32 = MPI_OP_NULL, max_f64 = MPI_OP_NULL;
  MPI_Op min_f32 = MPI_OP_NULL, min_f64 = MPI_OP_NULL;
  MPI_Op sum_f16 = MPI_OP_NULL, max_f16 = MPI_OP_NULL, min_f16 = MPI_OP_NULL;
  MPI_Op sum_bf16 = MPI_OP_NULL, max_bf16 = MPI_OP_NULL, min_bf16 = MPI_OP_NULL;
};

const Ops& ExactOps() {
  static Ops ops;
  static std::once_flag once;
  std::call_once(once, [] {
    // A failed creation leaves MPI_OP_NULL, which the collective then reports.
    MPI_Op_create(CombineFor<float, ExactMaxOp>(), /*commute=*/1, &ops.max_f32);
    MPI_Op_create(CombineFor<double, ExactMaxOp>(), /*commute=*/1, &ops.max_f64);
    MPI_Op_create(CombineFor<float, ExactMinOp>(), /*commute=*/1, &ops.min_f32);
    MPI_Op_create(CombineFor<double, ExactMinOp>(), /*commute=*/1, &ops.min_f64);
    MPI_Op_create(CombineFor<Float16, HalfSumOp>(), /*commute=*/1, &ops.sum_f16);
    MPI_Op_create(CombineFor<Float16, ExactMaxOp>(), /*commute=*/1, &ops.max_f16);
    MPI_Op_create(CombineFor<Float16, ExactMinOp>(), /*commute=*/1, &ops.min_f16);
    MPI_Op_create(CombineFor<BFloat16, HalfSumOp>(), /*commute=*/1, &ops.sum_bf16);
    MPI_Op_create(CombineFor<BFloat16, ExactMaxOp>(), /*commute=*/1, &ops.max_bf16);
    MPI_Op_create(CombineFor<BFloat16, ExactMinOp>(), /*commute=*/1, &ops.min_bf16);
  });
  return ops;
}

}  // namespace

MPI_Op ToMpiOp(ReduceOp op, DType dtype) {
  const bool f32 = dtype == DType::kF32, f64 = dtype == DType::kF64;
  if (dtype == DType::kF16 || dtype == DType::kBF16) {
    const bool f16 = dtype == DType::kF16;
    switch (op) {
      case ReduceOp::kSum: return f16 ? ExactOps().sum_f16 : ExactOps().sum_bf16;
      case ReduceOp::kMax: return f16 ? ExactOps().max_f16 : ExactOps().max_bf16;
      case ReduceOp::kMin: return f16 ? ExactOps().min_f16 : ExactOps().min_bf16;
    }
    return MPI_OP_NULL;
  }
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kMax:
      if (f32) return ExactOps().max_f32;
      if (f64) return ExactOps().max_f64;
      return MPI_MAX;
    case ReduceOp::kMin:
      if (f32) return ExactOps().min_f32;
      if (f64) return ExactOps().min_f64;
      return MPI_MIN;
  }
  return MPI_OP_NULL;
}

}  // namespace tessera::comm
