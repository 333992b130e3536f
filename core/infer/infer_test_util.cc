#include "core/infer/infer_test_util.h"

#include <cstdio>
#include <cstdlib>

#include "core/op/op_registry.h"

namespace tessera {
namespace infer {
namespace {

template <typename T>
T OrDie(Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "test helper: %s: %s\n", what, r.status().ToString().c_str());
    std::abort();
  }
  return std::move(r).value();
}

}  // namespace

TensorMeta Meta(Shape shape, const char* placement, const char* nd_sbp, DType dtype) {
  return OrDie(TensorMeta::Make(shape, dtype, OrDie(Placement::Parse(placement), placement),
                                OrDie(NdSbp::Parse(nd_sbp), nd_sbp)),
               nd_sbp);
}

NdSbp Nd(const char* text) { return OrDie(NdSbp::Parse(text), text); }

const op::OpDef& Op(const char* name) { return *OrDie(op::OpRegistry::Global().Find(name), name); }

}  // namespace infer
}  // namespace tessera
