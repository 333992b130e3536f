// LocalOps: the local work a boxing does on its pieces' memory (copies between and
// within pieces, reduction-identity fills), behind one interface so the same executor
// (Box1d, ReshardProgram, RankProgram) runs on host memory and on device memory.
//
// Host memory (HostLocalOps) does the work at once on the calling thread, with the
// functions of strided_copy.h and reduction_identity.h, and Finish has nothing to wait
// for. Device memory (core/boxing/cuda) queues each call on the stream of the step's
// communicator, so the work is ordered with the step's collectives without waiting in
// between; Finish waits for everything queued and reports its errors.
#ifndef TESSERA_CORE_BOXING_LOCAL_OPS_H_
#define TESSERA_CORE_BOXING_LOCAL_OPS_H_

#include <cstddef>
#include <cstdint>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera::boxing {

class LocalOps {
 public:
  virtual ~LocalOps() = default;

  // Where the buffers these ops take live.
  virtual DeviceType device_type() const = 0;

  // As boxing::CopyBytes (strided_copy.h): `bytes` bytes, no overlap, NULL allowed
  // when bytes is 0.
  virtual Status CopyBytes(void* dst, const void* src, size_t bytes) const = 0;
  // As boxing::CopyBox, with its preconditions.
  virtual Status CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin,
                         void* dst, const Shape& dst_shape, const int64_t* dst_begin,
                         const Shape& box, size_t elem_size) const = 0;
  // As FillReductionIdentity (reduction_identity.h). Precondition: IsSupported(dtype).
  virtual Status FillReductionIdentity(void* buffer, int64_t count, DType dtype,
                                       comm::ReduceOp op) const = 0;
  // Returns once every call above has taken effect; the first error of queued work.
  virtual Status Finish() const = 0;
};

// Host memory: today's functions, run at once. Process-wide and stateless.
const LocalOps& HostLocalOps();

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_LOCAL_OPS_H_
