// Gradient checks against central finite differences, in float64, on global tensors
// of any layout. The loss is L = sum_k sum(out_k * w_k) over the op's floating
// outputs, with fixed pseudo-random weights w_k (so every output element matters and
// no two get the same weight). The analytic gradient comes from autograd::Backward;
// the numeric one perturbs each logical input element by +-eps and reruns the op
// with grad mode off: it never touches a gradient rule, so it checks them
// independently. Every rank runs the same calls (SPMD).
#ifndef TESSERA_TESTS_AUTOGRAD_GRAD_CHECK_H_
#define TESSERA_TESTS_AUTOGRAD_GRAD_CHECK_H_

#include <string>
#include <vector>

#include "core/op/attr.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::autograd_test {

struct GradInput {
  Shape shape;
  NdSbp nd_sbp;
  std::vector<double> values;  // logical, row-major; empty: made from the seed
  bool requires_grad = true;
  DType dtype = DType::kF64;  // kI64 for index inputs, kBool for masks (never differentiated)
};

struct GradCheckResult {
  bool ok = false;
  std::string message;  // the first mismatch, or the error
};

// Checks `op` at the inputs on `placement`. Relative tolerance `tol` on
// |analytic - numeric| / max(1, |numeric|).
GradCheckResult CheckGrad(const std::string& op, const std::vector<GradInput>& inputs,
                          const op::AttrMap& attrs, const Placement& placement, double eps = 1e-6,
                          double tol = 1e-6);

// The test's placements: every world rank on one axis, and the same ranks as a 2-d
// hierarchy: [2, 2] at 4 ranks, else [1, n] (so 3 ranks split unevenly on axis 1).
Placement WorldPlacement();
Placement MeshPlacement();

NdSbp L(const std::string& text);
// Every 1-d layout of a tensor of rank `ndim`: S(i) for each axis, B and P.
std::vector<NdSbp> Layouts(int ndim);
// 2-d layouts for MeshPlacement(): splits on both mesh axes (of two tensor axes when
// ndim > 1, else both of axis 0), split with B, and P with B or a split.
std::vector<NdSbp> Layouts2d(int ndim);

// A layout with its placement: every 1-d layout on the world, then every 2-d one on
// the mesh.
struct Case {
  NdSbp layout;
  Placement placement;
};
std::vector<Case> Cases(int ndim);
// A layout of the same kind for another input of rank `ndim` (gamma, indices): its
// splits clamped to the tensor's axes; for an index input (`index`), P becomes B, as
// integers have no partial layout here.
NdSbp Like(const NdSbp& l, int ndim, bool index = false);
// Broadcast on every axis of the case's placement.
NdSbp Bcast(const Case& c);
// n values from `from` by `by`.
std::vector<double> Range(int n, double from, double by);

#define EXPECT_GRAD(...)                                                   \
  do {                                                                     \
    ::tessera::autograd_test::GradCheckResult r_ = CheckGrad(__VA_ARGS__); \
    EXPECT_TRUE(r_.ok) << r_.message;                                      \
  } while (0)

}  // namespace tessera::autograd_test

#endif  // TESSERA_TESTS_AUTOGRAD_GRAD_CHECK_H_
