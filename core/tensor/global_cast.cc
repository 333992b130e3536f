#include "core/tensor/global_cast.h"

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/boxing.h"
#include "core/comm/mpi_world.h"
#include "core/op/op_registry.h"
#include "core/tensor/capture_hook.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/device_boxing.h"
#include "core/tensor/host_staging.h"

namespace tessera {
namespace tensor {
namespace {

// In a captured program a layout change on the same placement is an `identity` op whose
// output is pinned to the new nd-sbp: Compile turns it into a boxing step.
Result<Tensor> CaptureToGlobal(const Tensor& x, const Placement& placement, const NdSbp& nd_sbp) {
  if (x->placement() != placement) {
    return Unimplemented("to_global: " + x->meta().ToString() +
                         " is a placeholder; a captured "
                         "program keeps each value on its placement, so moving it to " +
                         placement.ToString() + " is not supported (build the inputs there)");
  }
  static const op::OpDef* identity = [] {
    Result<const op::OpDef*> def = op::OpRegistry::Global().Find("identity");
    return def.ok() ? *def : nullptr;
  }();
  if (identity == nullptr) return Internal("to_global: the identity op is not registered");
  std::vector<Tensor> outputs;
  TESS_RETURN_IF_ERROR(RecordCapturedCall(*identity, &x, 1, op::AttrMap(),
                                          {infer::SbpConstraint{true, 0, nd_sbp}}, &outputs));
  return outputs.at(0);
}

// cuda -> cuda on the device (device_boxing.h). `layouts` are x's and the destination's,
// checked by ToGlobal.
Result<Tensor> DeviceToGlobal(const Tensor& x, boxing::BoxingLayouts layouts,
                              Result<std::shared_ptr<GlobalTensor>> allocated) {
  const bool holds_piece = allocated.ok() && (x->has_local() || (*allocated)->has_local());
  TESS_RETURN_IF_ERROR(BoxBetweenDevices(
      "to_global", allocated.status(), std::move(layouts), x->local_data(),
      allocated.ok() ? (*allocated)->mutable_local_data() : nullptr, holds_piece, nullptr));
  return Tensor(*allocated);
}

}  // namespace

Result<Tensor> ToGlobal(const Tensor& x, const Placement& placement, const NdSbp& nd_sbp_given) {
  if (x == nullptr) return InvalidArgument("to_global: input tensor is NULL");
  // S(-k) counts from the end of x's shape.
  Result<NdSbp> resolved = ResolveNdSbp(nd_sbp_given, x->shape());
  if (!resolved.ok()) return InvalidArgument("to_global: " + resolved.status().message());
  const NdSbp& nd_sbp = *resolved;
  if (x->placement() == placement && x->nd_sbp() == nd_sbp) return x;
  if (x->is_placeholder()) return CaptureToGlobal(x, placement, nd_sbp);
  // The one check of the move: every path below hands these layouts (or their host
  // twins) to boxing, which does not check them again.
  TESS_ASSIGN_OR_RETURN(
      boxing::BoxingLayouts layouts,
      boxing::BoxingLayouts::Make("to_global", x->shape(), x->dtype(), x->placement(), x->nd_sbp(),
                                  placement, nd_sbp));
  const infer::TensorMeta meta{x->shape(), x->dtype(), placement, nd_sbp};  // checked above
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  // A placement this build cannot hold fails on every rank before any communication.
  TESS_RETURN_IF_ERROR(CheckDeviceBuild(placement));
  Result<std::shared_ptr<GlobalTensor>> allocated = GlobalTensor::Allocate(meta, rank);
  if (x->placement().device_type() == DeviceType::kCpu &&
      placement.device_type() == DeviceType::kCpu) {
    TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> out, std::move(allocated));
    TESS_RETURN_IF_ERROR(boxing::Box(
        boxing::BoxingRequest{std::move(layouts), x->local_data(), out->mutable_local_data()}));
    return Tensor(out);
  }
  if (x->placement().device_type() == DeviceType::kCuda &&
      placement.device_type() == DeviceType::kCuda) {
    TESS_ASSIGN_OR_RETURN(const bool shared_devices, WorldSharesDevices());
    if (!shared_devices) return DeviceToGlobal(x, std::move(layouts), std::move(allocated));
  }
  // Between cpu and cuda: host memory in the middle (see global_cast.h). Device
  // memory and the device copy can fail on one rank only.
  Result<Tensor> src = allocated.ok() ? HostCopyOf(x) : Result<Tensor>(allocated.status());
  TESS_RETURN_IF_ERROR(AgreeOnWorld(src.status(), "to_global"));
  const std::shared_ptr<GlobalTensor>& out = *allocated;
  TESS_ASSIGN_OR_RETURN(Placement dst_host, HostPlacement(placement));
  TESS_ASSIGN_OR_RETURN(HostStaging staging, HostStaging::For(out.get()));
  const GlobalTensor& from = **src;
  TESS_ASSIGN_OR_RETURN(boxing::BoxingLayouts on_host,
                        layouts.OnPlacements("to_global", from.placement(), dst_host));
  if (on_host.unchanged()) {
    // Only the device type changes: each rank copies its own piece.
    if (out->has_local() && out->local_bytes() > 0) {
      std::memcpy(staging.data(), from.local_data(), static_cast<size_t>(out->local_bytes()));
    }
  } else {
    TESS_RETURN_IF_ERROR(
        boxing::Box(boxing::BoxingRequest{std::move(on_host), from.local_data(), staging.data()}));
  }
  TESS_RETURN_IF_ERROR(staging.Commit());
  return Tensor(out);
}

namespace {

// Whether every rank of a world of `world_size` holds x's whole logical value as its
// piece. Decided from metadata alone, so every rank answers alike (a rank taking the
// collective-free path while another waits in the broadcast would hang).
bool HoldsWholeValueOnEveryRank(const GlobalTensor& x, int32_t world_size) {
  const std::vector<int32_t>& ranks = x.placement().ranks();
  if (static_cast<int64_t>(ranks.size()) != world_size) return false;
  // Distinct ranks (a placement's are) all inside the world: they are the world.
  for (int32_t rank : ranks) {
    if (rank < 0 || rank >= world_size) return false;
  }
  return world_size == 1 || x.nd_sbp().all_broadcast();
}

}  // namespace

Status ToHost(const Tensor& x, void* host) {
  if (x == nullptr) return InvalidArgument("to_host: input tensor is NULL");
  if (x->is_placeholder()) {
    return FailedPrecondition("to_host: " + x->meta().ToString() +
                              " is a placeholder of a program being captured and has no value "
                              "(compile the program and run the plan)");
  }
  if (host == nullptr && x->shape().num_elements() > 0) {
    return InvalidArgument("to_host: host buffer is NULL but " + x->meta().ToString() + " has " +
                           std::to_string(x->shape().num_elements()) + " elements");
  }
  // When every rank of the world already holds the whole value (B over the world, or a
  // one-rank world), each copies its own piece straight into `host`: no collective, no
  // intermediate host tensor (for a cuda tensor, one device-to-host copy).
  TESS_ASSIGN_OR_RETURN(int32_t world_size, comm::WorldSize());
  if (HoldsWholeValueOnEveryRank(*x, world_size)) return x->CopyLocalToHost(host);
  // A cuda tensor's pieces come down first: the broadcast below then runs on the host,
  // so ranks without a GPU can receive the value too.
  Result<Tensor> host_x = HostCopyOf(x);
  if (x->placement().device_type() == DeviceType::kCuda) {
    TESS_RETURN_IF_ERROR(AgreeOnWorld(host_x.status(), "to_host"));
  }
  // Broadcast over the whole world: every rank then holds the full logical value as
  // its local piece.
  std::vector<int32_t> ranks(static_cast<size_t>(world_size));
  std::iota(ranks.begin(), ranks.end(), 0);
  TESS_ASSIGN_OR_RETURN(Placement world, Placement::Make(DeviceType::kCpu, ranks,
                                                         {static_cast<int64_t>(world_size)}));
  TESS_ASSIGN_OR_RETURN(Tensor all, ToGlobal(*host_x, world, NdSbp(Sbp::Broadcast())));
  if (all->local_bytes() > 0) {
    std::memcpy(host, all->local_data(), static_cast<size_t>(all->local_bytes()));
  }
  return Status::Ok();
}

}  // namespace tensor
}  // namespace tessera
