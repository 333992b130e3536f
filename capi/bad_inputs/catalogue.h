// The catalogue of bad inputs (issue 16, item 8): what every case shares. Each case is
// one call of a public C function handed what a careless or hostile caller would hand
// it, with the status the header promises and a fragment (the argument or value) its
// message must hold, both written from the headers' contracts, not read off the
// library. The cases are grouped by module in the files beside this one;
// catalogue_main.cc runs them (docs/reliability.md, "Bad inputs").
#ifndef TESSERA_CAPI_BAD_INPUTS_CATALOGUE_H_
#define TESSERA_CAPI_BAD_INPUTS_CATALOGUE_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace tessera::bad_inputs {

constexpr int64_t kBig = (int64_t{1} << 62) + 1;  // [kBig, 4] wraps to 4 elements unchecked
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Valid objects the cases misuse one argument of. Made once, before the cases run.
struct Fixture {
  tess_placement* p = nullptr;            // cpu:[0]
  tess_placement* p2d = nullptr;          // cpu:[[0]] (two axes)
  tess_placement* cuda = nullptr;         // cuda:[0]
  tess_nd_sbp* b = nullptr;               // B
  tess_nd_sbp* s0 = nullptr;              // S(0)
  tess_nd_sbp* s1 = nullptr;              // S(1)
  tess_nd_sbp* s2 = nullptr;              // S(2)
  tess_nd_sbp* bb = nullptr;              // (B, B)
  tess_nd_sbp* psum = nullptr;            // P
  tess_tensor* x = nullptr;               // f32 [2,3] B
  tess_tensor* y = nullptr;               // f32 [3,2] B
  tess_tensor* v = nullptr;               // f32 [4] B
  tess_tensor* xi = nullptr;              // i32 [2,3] B
  tess_tensor* xd = nullptr;              // f64 [2,3] B
  tess_op_call* add = nullptr;            // "add" with no inputs yet
  tess_op_call* relu = nullptr;           // "relu" with one f32 [2,3] input
  tess_op_call* bare_relu = nullptr;      // "relu" without input metas (for apply)
  tess_infer_result* inferred = nullptr;  // relu's
  tess_program* program = nullptr;        // input "a" f32 [2,3] B -> relu -> output
  int64_t program_input = -1;
  tess_plan* plan = nullptr;
  tess_plan_instance* instance = nullptr;
  tess_boxing_plan* boxing = nullptr;  // [2,3] f32 B -> S(0) on cpu:[0]
  tess_bucketed_allreducer* reducer = nullptr;
  tess_server* server = nullptr;          // 1 rank (the driver), serving `plan` as plan 0
  tess_serve_request* request = nullptr;  // for plan 0, no input set
  float data[64] = {};
};
extern Fixture f;

// A DLPack tensor over `f.data` (f32 [2,3] compact) whose deleter counts its calls
// (dlpack_deletions); the cases change its fields, dl_shape and dl_strides.
extern int dlpack_deletions;
extern int64_t dl_shape[8];
extern int64_t dl_strides[8];
DLManagedTensorVersioned* Versioned();
DLManagedTensor* Legacy();

struct Case {
  const char* function;  // the C function called
  const char* input;     // what is wrong with the call, in words
  tess_status expected;
  const char* fragment;  // the message must contain this
  tess_status (*call)();
};

#define CASE(fn, input, code, fragment, ...)                       \
  Case {                                                           \
    fn, input, code, fragment, []() -> tess_status { __VA_ARGS__ } \
  }

inline constexpr tess_status kInvalid = TESS_INVALID_ARGUMENT;
inline constexpr tess_status kOutOfRange = TESS_OUT_OF_RANGE;
inline constexpr tess_status kPrecondition = TESS_FAILED_PRECONDITION;
inline constexpr tess_status kNotFound = TESS_NOT_FOUND;

inline constexpr int64_t kShape23[] = {2, 3};
inline constexpr int64_t kOverflowing[] = {kBig, 4};
inline constexpr int64_t kNegative[] = {2, -3};
inline constexpr int64_t kNineDims[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

// The cases, by module, in the catalogue's order.
std::vector<Case> ValueCases();     // values.cc
std::vector<Case> TensorCases();    // tensors.cc
std::vector<Case> OpCases();        // ops.cc
std::vector<Case> RunCases();       // runs.cc
std::vector<Case> ServeCases();     // serve.cc
std::vector<Case> AutogradCases();  // autograd.cc

// tessera/checkpoint.h's cases, in checkpoints.cc.
std::vector<Case> CheckpointCases();

// tessera/optim.h's cases, in optim.cc.
std::vector<Case> OptimCases();

}  // namespace tessera::bad_inputs

#endif  // TESSERA_CAPI_BAD_INPUTS_CATALOGUE_H_
