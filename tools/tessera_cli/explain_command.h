// `tessera explain`: parse an op call from the command line, run inference's explain
// and print the record as text or JSON. Split from main.cc so the parsing is
// unit-tested without a process.
#ifndef TESSERA_TOOLS_TESSERA_CLI_EXPLAIN_COMMAND_H_
#define TESSERA_TOOLS_TESSERA_CLI_EXPLAIN_COMMAND_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/op/attr.h"

namespace tessera {
namespace cli {

// Exit codes: the call was explained; no signature fits (the record, with its
// failure, is still printed); the command line is wrong or the op rejects the call
// (message and usage on stderr).
inline constexpr int kExitOk = 0;
inline constexpr int kExitNoSignature = 1;
inline constexpr int kExitUsage = 2;

// One --input: "NAME:DTYPE[SHAPE]:NDSBP" or, positionally, "DTYPE[SHAPE]:NDSBP",
// e.g. "a:f32[64,32]:S(0)", "i64[]:B", "x:f32[6,5]:(S(0), B)".
struct InputSpec {
  std::string name;  // empty when positional
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::string nd_sbp;
};
Result<InputSpec> ParseInputSpec(std::string_view text);

// An attribute value as text for an attribute of `type`: int "3", float "0.5",
// bool "true"/"false"/"1"/"0", ints "[0,2]" or "0,2" ("[]" is empty), dtype "f32".
Result<op::AttrValue> ParseAttrValue(op::AttrType type, std::string_view text);

// Runs `tessera explain ARGS...` (args exclude "explain"), writing the result to
// `out` and errors to `err`; returns the exit code.
int RunExplain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The usage text of `tessera explain`.
const char* ExplainUsage();

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_TOOLS_TESSERA_CLI_EXPLAIN_COMMAND_H_
