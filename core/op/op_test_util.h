// Test helpers: run a registered op's shape function and signature function on plain
// descriptors, outside inference.
#ifndef TESSERA_CORE_OP_OP_TEST_UTIL_H_
#define TESSERA_CORE_OP_OP_TEST_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/op/attr.h"
#include "core/op/op_context.h"

namespace tessera {
namespace op {

// Descriptors of one dtype from shapes.
std::vector<TensorDesc> Descs(std::initializer_list<Shape> shapes, DType dtype = DType::kF32);

// Output descriptors from the global registry's op `name`.
Result<std::vector<TensorDesc>> InferShapes(std::string_view name, std::vector<TensorDesc> inputs,
                                            const AttrMap& attrs = {});

// The error message of a failing shape inference ("" and a test failure if it passes).
std::string ShapeError(std::string_view name, std::vector<TensorDesc> inputs,
                       const AttrMap& attrs = {});

// Signatures (all-B last) for one placement axis of `n` ranks in a placement of
// `total` ranks (0: total = n), each as "a:S(0), b:B -> out:S(0)".
Result<std::vector<std::string>> Signatures(std::string_view name, std::vector<TensorDesc> inputs,
                                            const AttrMap& attrs = {}, int64_t n = 2,
                                            int64_t total = 0);

// Signatures() for a test: records a gtest failure and returns {} on error.
std::vector<std::string> Sigs(std::string_view name, std::vector<TensorDesc> inputs,
                              const AttrMap& attrs = {}, int64_t n = 2, int64_t total = 0);

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OP_TEST_UTIL_H_
