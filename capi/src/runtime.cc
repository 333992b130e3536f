// tess_init / tess_finalize, the world queries and what CUDA this process has.
#include "capi/src/capi_error.h"
#include "capi/src/tensor_args.h"
#include "core/comm/mpi_world.h"
#include "tessera/tessera.h"
#if defined(TESSERA_WITH_CUDA)
#include "core/device/device.h"
#endif

using tessera::capi::Report;
using tessera::capi::ReportIn;

extern "C" {

tess_status tess_init(void) {
  TESS_CAPI_BEGIN
  return Report(tessera::comm::InitWorld());
  TESS_CAPI_END
}

tess_status tess_finalize(void) {
  TESS_CAPI_BEGIN
  return Report(tessera::comm::FinalizeWorld());
  TESS_CAPI_END
}

tess_status tess_world_rank(int32_t* out_rank) {
  TESS_CAPI_REQUIRE(out_rank);
  TESS_CAPI_BEGIN
  tessera::Result<int32_t> rank = tessera::comm::WorldRank();
  if (!rank.ok()) return Report(rank.status());
  *out_rank = *rank;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_world_size(int32_t* out_size) {
  TESS_CAPI_REQUIRE(out_size);
  TESS_CAPI_BEGIN
  tessera::Result<int32_t> size = tessera::comm::WorldSize();
  if (!size.ok()) return Report(size.status());
  *out_size = *size;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_cuda_info(int32_t* out_built_with_cuda, int32_t* out_device_count) {
  TESS_CAPI_REQUIRE(out_built_with_cuda);
  TESS_CAPI_REQUIRE(out_device_count);
  TESS_CAPI_BEGIN
#if defined(TESSERA_WITH_CUDA)
  // The count eager's device choice (comm::DefaultDevice) divides by, so the answer
  // says exactly whether a cuda placement's tensors will find a device.
  tessera::Result<int> count = tessera::device::DeviceCount();
  if (!count.ok()) return ReportIn(__func__, count.status());
  *out_built_with_cuda = 1;
  *out_device_count = *count;
#else
  *out_built_with_cuda = 0;
  *out_device_count = 0;
#endif
  return TESS_OK;
  TESS_CAPI_END
}

}  // extern "C"
