#include "core/boxing/box_1d.h"

#include <string>
#include <vector>

#include "core/sbp/balanced_split.h"

namespace tessera::boxing {
namespace {

using comm::ReduceOp;

ReduceOp OpOf(SbpKind kind) {
  switch (kind) {
    case SbpKind::kPartialMax: return ReduceOp::kMax;
    case SbpKind::kPartialMin: return ReduceOp::kMin;
    default: return ReduceOp::kSum;
  }
}

// Product of dims [from, to).
int64_t Prod(const Shape& shape, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; ++i) p *= shape.dim(i);
  return p;
}

Shape WithDim(Shape shape, int axis, int64_t value) {
  shape.set_dim(axis, value);
  return shape;
}

// Everything one boxing call needs; `n` parts, this rank is part `me`.
struct Call {
  const char* in;
  char* out;
  const Shape& shape;
  DType dtype;
  size_t elem;
  int64_t n;
  int64_t me;
  comm::Communicator& comm;
  BoxingWorkspace& ws;
  const LocalOps& ops;

  Range Part(int axis, int64_t index) const { return BalancedRange(shape.dim(axis), n, index); }
  // Local shape of part `index` of S(axis).
  Shape PartShape(int axis, int64_t index) const {
    return WithDim(shape, axis, Part(axis, index).size());
  }
};

// Offsets with `value` on `axis` and 0 elsewhere.
struct Begin {
  int64_t at[Shape::kMaxDims] = {};
  Begin(int axis, int64_t value) { at[axis] = value; }
  Begin() = default;
};

// The slab of the row-major `tensor` whose index along `axis` lies in `range`, as a
// block for AllToAllBlocks.
comm::BlockView Slab(const Shape& tensor, int axis, Range range) {
  return comm::BlockView::Box(tensor, Begin(axis, range.begin).at,
                              WithDim(tensor, axis, range.size()));
}

Status SplitToBroadcast(const Call& c, int a) {
  // Parts of S(a) are consecutive runs of the logical tensor when nothing before
  // axis a varies: gather straight into the output.
  if (Prod(c.shape, 0, a) == 1) {
    std::vector<int64_t>& counts = c.ws.Vector(0, c.n);
    std::vector<int64_t>& displs = c.ws.Vector(1, c.n);
    int64_t offset = 0;
    for (int64_t r = 0; r < c.n; ++r) {
      counts[r] = c.PartShape(a, r).num_elements();
      displs[r] = offset;
      offset += counts[r];
    }
    return c.comm.AllGatherV(c.in, counts[c.me], c.out, counts, displs, c.dtype);
  }
  // Otherwise each part is a strided slab of the output. The own part goes straight
  // from in to out; every other rank's part is received into its slab in place
  // (MPI derived datatypes), with no staging to unpack.
  std::vector<comm::BlockView>& send = c.ws.Blocks(0, c.n);
  std::vector<comm::BlockView>& recv = c.ws.Blocks(1, c.n);
  const int64_t own = c.PartShape(a, c.me).num_elements();
  for (int64_t r = 0; r < c.n; ++r) {
    const bool self = r == c.me;
    send[r] = comm::BlockView::Run(0, self ? 0 : own);
    recv[r] = self ? comm::BlockView::Run(0, 0) : Slab(c.shape, a, c.Part(a, r));
  }
  TESS_RETURN_IF_ERROR(c.comm.AllToAllBlocks(c.in, send, c.out, recv, c.dtype));
  const Shape part = c.PartShape(a, c.me);
  TESS_RETURN_IF_ERROR(c.ops.CopyBox(c.in, part, Begin().at, c.out, c.shape,
                                     Begin(a, c.Part(a, c.me).begin).at, part, c.elem));
  return Status::Ok();
}

Status PartialToSplit(const Call& c, ReduceOp op, int b) {
  std::vector<int64_t>& counts = c.ws.Vector(0, c.n);
  int64_t total = 0;
  for (int64_t r = 0; r < c.n; ++r) {
    counts[r] = c.PartShape(b, r).num_elements();
    total += counts[r];
  }
  if (Prod(c.shape, 0, b) == 1) return c.comm.ReduceScatterV(c.in, c.out, counts, c.dtype, op);
  // Reduce-scatter takes each rank's block as one run: pack the parts first.
  TESS_ASSIGN_OR_RETURN(void* staging, c.ws.Staging(0, total * c.elem));
  char* stage = static_cast<char*>(staging);
  const Begin zero;
  int64_t offset = 0;
  for (int64_t r = 0; r < c.n; ++r) {
    Shape part = c.PartShape(b, r);
    TESS_RETURN_IF_ERROR(c.ops.CopyBox(c.in, c.shape, Begin(b, c.Part(b, r).begin).at,
                                       stage + offset * c.elem, part, zero.at, part, c.elem));
    offset += counts[r];
  }
  return c.comm.ReduceScatterV(stage, c.out, counts, c.dtype, op);
}

Status SplitToSplit(const Call& c, int a, int b) {
  const Shape in_shape = c.PartShape(a, c.me);
  const Shape out_shape = c.PartShape(b, c.me);
  // The own block never leaves the rank: copy it directly, exchange the rest. The
  // block for rank r is this rank's input restricted along b to r's part (sent), and
  // r's input part along a restricted to this rank's part along b (received).
  TESS_RETURN_IF_ERROR(c.ops.CopyBox(c.in, in_shape, Begin(b, c.Part(b, c.me).begin).at, c.out,
                                     out_shape, Begin(a, c.Part(a, c.me).begin).at,
                                     WithDim(in_shape, b, c.Part(b, c.me).size()), c.elem));
  // Blocks are contiguous on a side when nothing before the other split dim varies
  // there. Decided from the largest parts (index 0), so that every rank picks the
  // same collective: a smaller part is contiguous whenever the largest one is.
  const bool send_direct = Prod(c.PartShape(a, 0), 0, b) == 1;
  const bool recv_direct = Prod(c.PartShape(b, 0), 0, a) == 1;
  if (send_direct && recv_direct) {
    std::vector<int64_t>& send_counts = c.ws.Vector(0, c.n);
    std::vector<int64_t>& send_displs = c.ws.Vector(1, c.n);
    std::vector<int64_t>& recv_counts = c.ws.Vector(2, c.n);
    std::vector<int64_t>& recv_displs = c.ws.Vector(3, c.n);
    const int64_t send_inner = Prod(in_shape, b + 1, in_shape.ndim());
    const int64_t recv_inner = Prod(out_shape, a + 1, out_shape.ndim());
    for (int64_t r = 0; r < c.n; ++r) {
      const bool self = r == c.me;
      send_counts[r] = self ? 0 : WithDim(in_shape, b, c.Part(b, r).size()).num_elements();
      recv_counts[r] = self ? 0 : WithDim(out_shape, a, c.Part(a, r).size()).num_elements();
      send_displs[r] = c.Part(b, r).begin * send_inner;
      recv_displs[r] = c.Part(a, r).begin * recv_inner;
    }
    return c.comm.AllToAllV(c.in, send_counts, send_displs, c.out, recv_counts, recv_displs,
                            c.dtype);
  }
  // Strided blocks move as they lie (MPI derived datatypes): no pack, no unpack.
  std::vector<comm::BlockView>& send = c.ws.Blocks(0, c.n);
  std::vector<comm::BlockView>& recv = c.ws.Blocks(1, c.n);
  for (int64_t r = 0; r < c.n; ++r) {
    if (r == c.me) {
      send[r] = recv[r] = comm::BlockView::Run(0, 0);
      continue;
    }
    send[r] = Slab(in_shape, b, c.Part(b, r));
    recv[r] = Slab(out_shape, a, c.Part(a, r));
  }
  return c.comm.AllToAllBlocks(c.in, send, c.out, recv, c.dtype);
}

// P(max) and P(min) are idempotent, so a value every rank already holds (B) or can get
// (P(x) all-reduced) stays a copy on every rank: local values remain real numbers, which
// the op signatures assume (an identity such as -inf or an integer's lowest() breaks
// them: 0 * -inf is NaN, lowest() + 1 wraps). P (sum) keeps the value on index 0 and 0
// elsewhere. Only S -> P(y) writes y's identity, outside the own slice, since the other
// slices are not here.
Status ToPartial(const Call& c, Sbp in, ReduceOp op) {
  const int64_t count = c.shape.num_elements();
  const bool idempotent = op != ReduceOp::kSum;
  if (in.is_broadcast()) {
    if (c.me == 0 || idempotent) {
      TESS_RETURN_IF_ERROR(c.ops.CopyBytes(c.out, c.in, count * c.elem));
    } else {
      TESS_RETURN_IF_ERROR(c.ops.FillReductionIdentity(c.out, count, c.dtype, op));
    }
    return Status::Ok();
  }
  if (in.is_split()) {
    const int a = in.axis;
    Shape part = c.PartShape(a, c.me);
    // Only the complement of the own slice needs the identity, but one fill of the
    // whole buffer then one copy is simpler and streams better.
    TESS_RETURN_IF_ERROR(c.ops.FillReductionIdentity(c.out, count, c.dtype, op));
    TESS_RETURN_IF_ERROR(c.ops.CopyBox(c.in, part, Begin().at, c.out, c.shape,
                                       Begin(a, c.Part(a, c.me).begin).at, part, c.elem));
    return Status::Ok();
  }
  // P(x) -> P(y), x != y. Into P(max)/P(min) every rank keeps x's reduction (an
  // all-reduce); into P only one rank needs it (a reduce, cheaper).
  if (idempotent) return c.comm.AllReduce(c.in, c.out, count, c.dtype, OpOf(in.kind));
  TESS_RETURN_IF_ERROR(c.comm.Reduce(c.in, c.out, count, c.dtype, OpOf(in.kind), /*root=*/0));
  if (c.me != 0) {
    TESS_RETURN_IF_ERROR(c.ops.FillReductionIdentity(c.out, count, c.dtype, op));
  }
  return Status::Ok();
}

Status CheckSbp(const char* name, Sbp sbp, const Placement& placement, const Shape& shape) {
  if (sbp.kind != SbpKind::kSplit && sbp.kind != SbpKind::kBroadcast && !sbp.is_partial()) {
    return InvalidArgument(std::string("Box1d: ") + name + " sbp kind value " +
                           std::to_string(static_cast<int>(sbp.kind)) + " is not an SBP kind");
  }
  if (sbp.is_split() && sbp.axis < 0) {
    return InvalidArgument(std::string("Box1d: ") + name + " sbp splits axis " +
                           std::to_string(sbp.axis) + ", which is negative");
  }
  Status s = ValidateNdSbp(NdSbp(sbp), placement, shape);
  if (!s.ok()) return Status(s.code(), std::string("Box1d: ") + name + " " + s.message());
  return Status::Ok();
}

}  // namespace

Status Box1d(const void* in_local, const Shape& logical_shape, DType dtype,
             const Placement& placement, Sbp in, Sbp out, void* out_local, comm::Communicator& comm,
             BoxingWorkspace* workspace, const LocalOps* ops) {
  if (!IsValidDType(static_cast<int>(dtype)) || !IsSupported(dtype)) {
    std::string name = IsValidDType(static_cast<int>(dtype))
                           ? DTypeName(dtype)
                           : "value " + std::to_string(static_cast<int>(dtype));
    return InvalidArgument("Box1d: dtype " + name +
                           " is not supported (supported: f32, f64, f16, bf16, i32, i64, bool)");
  }
  if (placement.num_axes() != 1) {
    return InvalidArgument("Box1d: placement " + placement.ToString() + " has " +
                           std::to_string(placement.num_axes()) +
                           " hierarchy axes; Box1d boxes along a 1-d placement");
  }
  if (comm.size() != placement.parallel_num()) {
    return InvalidArgument("Box1d: the communicator has " + std::to_string(comm.size()) +
                           " ranks but placement " + placement.ToString() + " has " +
                           std::to_string(placement.parallel_num()));
  }
  const LocalOps& local_ops = ops != nullptr ? *ops : HostLocalOps();
  const DeviceType staging_device =
      workspace != nullptr ? workspace->device_type() : DeviceType::kCpu;
  if (staging_device != local_ops.device_type()) {
    return InvalidArgument(std::string("Box1d: the local ops work on ") +
                           DeviceTypeName(local_ops.device_type()) + " memory but the " +
                           (workspace != nullptr ? "workspace's" : "default") + " staging is " +
                           DeviceTypeName(staging_device) +
                           " memory; pass a workspace whose staging is where the pieces are");
  }
  TESS_RETURN_IF_ERROR(CheckSbp("input", in, placement, logical_shape));
  TESS_RETURN_IF_ERROR(CheckSbp("output", out, placement, logical_shape));

  const int64_t n = comm.size();
  const int64_t me = comm.rank();
  auto local_count = [&](Sbp sbp) {
    if (!sbp.is_split()) return logical_shape.num_elements();
    return WithDim(logical_shape, sbp.axis,
                   BalancedRange(logical_shape.dim(sbp.axis), n, me).size())
        .num_elements();
  };
  const int64_t in_count = local_count(in);
  const int64_t out_count = local_count(out);
  if (in_local == nullptr && in_count > 0) {
    return InvalidArgument("Box1d: in_local is NULL but the local " + in.ToString() +
                           " tensor holds " + std::to_string(in_count) + " elements");
  }
  if (out_local == nullptr && out_count > 0) {
    return InvalidArgument("Box1d: out_local is NULL but the local " + out.ToString() +
                           " tensor holds " + std::to_string(out_count) + " elements");
  }
  // Every rank sees the same logical shape, so all skip together.
  if (logical_shape.num_elements() == 0) return Status::Ok();

  if (in == out) {
    if (in_count > 0 && in_local != out_local) {
      TESS_RETURN_IF_ERROR(local_ops.CopyBytes(out_local, in_local, in_count * DTypeSize(dtype)));
    }
    return Status::Ok();
  }

  BoxingWorkspace local_workspace;
  Call c{static_cast<const char*>(in_local),
         static_cast<char*>(out_local),
         logical_shape,
         dtype,
         DTypeSize(dtype),
         n,
         me,
         comm,
         workspace != nullptr ? *workspace : local_workspace,
         local_ops};

  if (out.is_partial()) return ToPartial(c, in, OpOf(out.kind));
  if (out.is_broadcast()) {
    if (in.is_split()) return SplitToBroadcast(c, in.axis);
    return comm.AllReduce(in_local, out_local, logical_shape.num_elements(), dtype, OpOf(in.kind));
  }
  // out is S(b).
  const int b = out.axis;
  if (in.is_broadcast()) {
    Shape part = c.PartShape(b, me);
    TESS_RETURN_IF_ERROR(c.ops.CopyBox(in_local, logical_shape, Begin(b, c.Part(b, me).begin).at,
                                       out_local, part, Begin().at, part, c.elem));
    return Status::Ok();
  }
  if (in.is_partial()) return PartialToSplit(c, OpOf(in.kind), b);
  return SplitToSplit(c, in.axis, b);
}

}  // namespace tessera::boxing
