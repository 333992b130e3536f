// The per-op reading of a kernel call that every device's kernel shares: each Plan*
// checks the call's shapes, dtypes and attributes exactly as the op's semantics need
// (and the output the caller allocated against them) and returns the geometry the
// kernel loops over. A CPU and a CUDA kernel of one op therefore accept the same calls
// and refuse the others with the same message.
//
// Every Plan* expects a call that passed CheckKernelCall, reads no tensor storage, and
// allocates nothing on success; errors are INVALID_ARGUMENT "<op>: <message>".
#ifndef TESSERA_KERNELS_COMMON_KERNEL_PLANS_H_
#define TESSERA_KERNELS_COMMON_KERNEL_PLANS_H_

#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"

namespace tessera {
namespace kernels {

// ---- elementwise ----

// cast: the target dtype, which `device`'s kernel must support (every one but f16 and
// bf16: f32, f64, i32, i64, bool); checks the output.
Result<DType> PlanCast(const KernelContext& ctx, Device device);

// add_n: every input has in[0]'s dtype and shape (no broadcasting); checks the output.
Status PlanAddN(const KernelContext& ctx);

// Binary ops with NumPy broadcasting: y has x's dtype and the shapes broadcast.
struct BroadcastPlan {
  Shape out;
  bool same_shapes = false;  // x and y have out's shape: a flat loop does
  // Element strides over out's axes of x, y (0 where broadcast) and out (contiguous):
  // StridedLoop<3>'s input. Only the first out.ndim() entries of each are set.
  int64_t strides[3][Shape::kMaxDims];
};
// Fills `plan`, which the caller keeps on its stack: every elementwise op plans once
// per call, and a plan returned by value was zeroed and copied twice (rep stos/movs of
// ~300 bytes each), a quarter of a 4-element add's eager dispatch.
Status PlanBroadcast(const KernelContext& ctx, BroadcastPlan* plan);
// The same with an output of dtype `out_dtype` (bool for the comparisons).
Status PlanBroadcast(const KernelContext& ctx, DType out_dtype, BroadcastPlan* plan);

// where(cond, x, y): cond bool, y of x's dtype, all three broadcast.
struct WherePlan {
  Shape out;
  // Element strides over out's axes of cond, x, y (0 where broadcast) and out
  // (contiguous): StridedLoop<4>'s input.
  int64_t strides[4][Shape::kMaxDims] = {};
};
Result<WherePlan> PlanWhere(const KernelContext& ctx);

// ---- matmul, batch_matmul ----

// out[b] = op(a[b]) op(b[b]) for each of `batch` entries; op(a) is m x k, op(b) k x n.
// b entry i starts at element i * b_stride (0: one b shared by every entry).
struct MatmulPlan {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  int64_t b_stride = 0;
};
// matmul: a of rank >= 2 and a 2-d b shared by a's leading axes (folded into m unless
// transpose_a); batch_matmul: equal ranks >= 3 with equal batch axes.
Result<MatmulPlan> PlanMatmul(const KernelContext& ctx, bool batched);

// ---- reductions ----

struct ReducePlan {
  bool reduced[Shape::kMaxDims] = {};  // per axis of x
  Shape out;
  int64_t count = 1;  // x elements folded into each output element
};
// reduce_*: attributes "axes" ([] = all) and "keepdims".
Result<ReducePlan> PlanReduce(const KernelContext& ctx);

// ---- along one axis ----

// A tensor seen as [outer, len, inner] around one axis.
struct AxisSplit {
  int axis = 0;
  int64_t outer = 1, len = 1, inner = 1;
};
AxisSplit SplitAt(const Shape& shape, int axis);

// softmax, log_softmax: attribute "axis"; out has x's shape and dtype.
Result<AxisSplit> PlanSoftmax(const KernelContext& ctx);
// bias_add: the 1-d b runs along attribute "axis" of a.
Result<AxisSplit> PlanBiasAdd(const KernelContext& ctx);

// sparse_softmax_cross_entropy: prediction [..., classes], label [...] (checked for
// dtype by the kernel's dispatch), prob like prediction, out like label.
struct CrossEntropyPlan {
  Shape batch;  // prediction's shape without the class axis
  int64_t rows = 0, classes = 0;
};
Result<CrossEntropyPlan> PlanSparseSoftmaxCrossEntropy(const KernelContext& ctx);
// "label[1] = 7 is outside [0, 4), the classes of \"prediction\" [2,4]".
std::string LabelError(const Shape& prediction, const Shape& batch, int64_t flat, int64_t label);

// layer_norm: rows of x over the axes >= begin_norm_axis; gamma and beta of shape
// x.shape[begin_params_axis:] (so the gamma entry of flat x index f is f % params).
struct LayerNormPlan {
  int64_t rows = 1, cols = 1, params = 1;  // params = |gamma| = |beta|
  double epsilon = 0;
};
Result<LayerNormPlan> PlanLayerNorm(const KernelContext& ctx);

// ---- moving elements ----

// Row-major element strides of `shape` (the last axis has stride 1).
void ContiguousStrides(const Shape& shape, int64_t* strides);

// out (contiguous) element (i_0, ..) is x element offset + sum_a i_a * strides[0][a].
struct StridedCopyPlan {
  Shape out;
  int64_t offset = 0;
  // Element strides over out's axes of x and out (contiguous): StridedLoop<2>'s input.
  int64_t strides[2][Shape::kMaxDims] = {};
};
Result<StridedCopyPlan> PlanTranspose(const KernelContext& ctx);
// Python slicing per axis: negative start/stop count from the end, then clamp into
// [0, dim]; steps >= 1.
Result<StridedCopyPlan> PlanSlice(const KernelContext& ctx);

// reshape (and squeeze, unsqueeze, flatten): out has x's dtype and element count (its
// shape is the caller's).
Status PlanReshape(const KernelContext& ctx);

// expand: x broadcasts (numpy rules) to the output's shape. That shape is the caller's:
// for an output split along an expanded axis it is a piece of the "shape" attribute,
// so the kernel reads the geometry from the tensors, not the attribute.
Result<StridedCopyPlan> PlanExpand(const KernelContext& ctx);

// concat: each outer index takes one contiguous chunk of in[k].dim(axis) * inner
// elements of every input, in order.
struct ConcatPlan {
  Shape out;
  int axis = 0;
  int64_t outer = 1, inner = 1;
};
Result<ConcatPlan> PlanConcat(const KernelContext& ctx);

// ---- gather, embedding ----

// params viewed as [pre, axis_size, post]; out as [pre, num_indices, post].
struct GatherPlan {
  int axis = 0;  // the indexed axis of params; -1 for embedding's rows of weight
  int64_t pre = 1, axis_size = 0, post = 1;
};
Result<GatherPlan> PlanGather(const KernelContext& ctx);
Result<GatherPlan> PlanEmbedding(const KernelContext& ctx);
// "indices[0,1] = 7 is outside [0, 4), axis 0 of \"params\" [4,3]" (for embedding:
// "the rows of \"weight\" [4,3]"); `data` is params or weight.
std::string IndexError(const GatherPlan& plan, const Shape& data, const Shape& indices,
                       int64_t flat, int64_t index);

// "input \"y\" has 0 at [1,2]; integer division by zero".
std::string ZeroDivisorError(const Shape& y, int64_t flat);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_KERNEL_PLANS_H_
