// CudaBoxingBackend in a build without CUDA.
#include "core/boxing/boxing_backend.h"

namespace tessera::boxing {

Result<BoxingBackend*> CudaBoxingBackend() {
  return Unimplemented("Tessera was built without CUDA (build with --config=cuda)");
}

}  // namespace tessera::boxing
