// Definitions of the opaque C handles: each wraps one immutable core value plus
// the text that the *_string getters lend out.
#ifndef TESSERA_CAPI_SRC_HANDLES_H_
#define TESSERA_CAPI_SRC_HANDLES_H_

#include <memory>
#include <mutex>
#include <string>

#include "core/autograd/variable.h"
#include "core/infer/explain.h"
#include "core/infer/infer.h"
#include "core/infer/op_call.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

struct tess_placement {
  tessera::Placement value;
};

struct tess_nd_sbp {
  tessera::NdSbp value;
  std::string text;
};

struct tess_layout {
  tessera::PhysicalLayout value;
  std::string text;
};

struct tess_op_call {
  tessera::infer::OpCall value;
  std::string signature;
};

// Shares the cache's immutable entry: no copy of the result.
struct tess_infer_result {
  std::shared_ptr<const tessera::infer::InferResult> value;
};

struct tess_explanation {
  tessera::infer::Explanation value;
  std::string text;
  std::string json;
};

// Shares the immutable core tensor. The text is made on first use, not here: making
// it would be a second allocation on every op's hot path.
// `autograd` is the tensor's autograd record (core/autograd/variable.h), beside the
// immutable data: null for a tensor that needs no gradient.
struct tess_tensor {
  tessera::tensor::Tensor value;
  mutable std::once_flag text_once;
  mutable std::string text;
  std::shared_ptr<tessera::autograd::AutogradMeta> autograd;
};

#endif  // TESSERA_CAPI_SRC_HANDLES_H_
