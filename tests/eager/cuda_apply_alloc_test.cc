// The eager hot path on a cuda placement (--config=cuda, one rank, on a GPU) allocates
// only its output tensor, as on the cpu (warm_add_check.h): device storage comes from
// the device's caching allocator, the stream and device are set up once, and the
// kernel is only queued.
#include <gtest/gtest.h>

#include "kernels/cuda/cuda_test_util.h"
#include "tests/eager/warm_add_check.h"

namespace tessera::eager_test {
namespace {

TEST(CudaApplyAllocTest, WarmAddAllocatesOnlyItsOutputTensor) {
  TESS_SKIP_WITHOUT_GPU();
  ExpectWarmAddAllocatesOnlyItsOutput("cuda:[0]");
}

}  // namespace
}  // namespace tessera::eager_test
