// Test helpers: tensor metas from text and registry ops by name.
#ifndef TESSERA_CORE_INFER_INFER_TEST_UTIL_H_
#define TESSERA_CORE_INFER_INFER_TEST_UTIL_H_

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/infer/tensor_meta.h"
#include "core/op/op_def.h"

namespace tessera {
namespace infer {

// Aborts on malformed text (a bug in the test).
TensorMeta Meta(Shape shape, const char* placement, const char* nd_sbp, DType dtype = DType::kF32);
NdSbp Nd(const char* text);
const op::OpDef& Op(const char* name);

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_INFER_TEST_UTIL_H_
