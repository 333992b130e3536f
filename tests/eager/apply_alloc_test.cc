// The eager hot path on a cpu placement allocates only its output tensor
// (warm_add_check.h).
#include <gtest/gtest.h>

#include "tests/eager/warm_add_check.h"

namespace tessera::eager_test {
namespace {

TEST(ApplyAllocTest, WarmAddAllocatesOnlyItsOutputTensor) {
  ExpectWarmAddAllocatesOnlyItsOutput("cpu:[0]");
}

}  // namespace
}  // namespace tessera::eager_test
