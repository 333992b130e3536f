// The C API targets' one-time start: MPI as a singleton (no mpirun), a world of one rank.
#ifndef TESSERA_FUZZ_CAPI_RUNTIME_H_
#define TESSERA_FUZZ_CAPI_RUNTIME_H_

#include <string>

#include "fuzz/fuzz_input.h"
#include "tessera/tessera.h"

namespace tessera::fuzz {

inline void StartRuntime() {
  FUZZ_CHECK(tess_runtime_init() == TESS_OK,
             std::string("tess_runtime_init: ") + tess_last_error_message());
  int32_t size = 0;
  FUZZ_CHECK(tess_runtime_world_size(&size) == TESS_OK && size == 1,
             "the C API targets run on one rank (start them without mpirun)");
}

}  // namespace tessera::fuzz

#endif  // TESSERA_FUZZ_CAPI_RUNTIME_H_
