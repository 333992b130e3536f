// Internal: the inference algorithm shared by InferSignature (which keeps only the
// winner) and Explain (which records every candidate).
#ifndef TESSERA_CORE_INFER_SEARCH_H_
#define TESSERA_CORE_INFER_SEARCH_H_

#include <vector>

#include "core/common/status.h"
#include "core/infer/explain.h"
#include "core/infer/infer.h"

namespace tessera {
namespace infer {

// Fills `result`; when `trace` is non-null also fills it, and a "no signature fits"
// failure is reported in trace->failure with an OK status.
Status Search(const op::OpDef& def, const std::vector<TensorMeta>& inputs, const op::AttrMap& attrs,
              const std::vector<SbpConstraint>& constraints, InferResult* result,
              Explanation* trace);

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_SEARCH_H_
