// tess_init / tess_finalize and the world queries.
#include "capi/src/capi_error.h"
#include "core/comm/mpi_world.h"
#include "tessera/tessera.h"

using tessera::capi::Report;

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

}  // extern "C"
