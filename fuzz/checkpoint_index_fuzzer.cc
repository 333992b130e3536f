// The checkpoint index reader (core/checkpoint/index.h) and its JSON parser over
// arbitrary bytes, the text of a damaged or hostile index.json. ParseJson answers a
// value or INVALID_ARGUMENT "malformed JSON at byte N ..."; ParseIndex answers an index
// or DATA_LOSS naming the file, and an index it accepts writes out (IndexToJson) to a
// text that parses back to the same index.
#include <cstdint>
#include <string>

#include "core/checkpoint/index.h"
#include "core/checkpoint/json.h"
#include "core/common/status.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  using namespace tessera::checkpoint;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Result<JsonValue> json = ParseJson(text);
  FUZZ_CHECK(json.ok() || (json.status().code() == StatusCode::kInvalidArgument &&
                           json.status().message().rfind("malformed JSON at byte ", 0) == 0),
             "ParseJson: " + json.status().ToString());
  Result<Index> index = ParseIndex(text, "f/index.json");
  if (!index.ok()) {
    FUZZ_CHECK(index.status().code() == StatusCode::kDataLoss &&
                   index.status().message().rfind("checkpoint index f/index.json: ", 0) == 0,
               "ParseIndex: " + index.status().ToString());
    return 0;
  }
  FUZZ_CHECK(json.ok(), "ParseIndex accepted text ParseJson refused");
  const std::string written = IndexToJson(*index);
  Result<Index> again = ParseIndex(written, "f/index.json");
  FUZZ_CHECK(again.ok(), "an accepted index does not read back: " + again.status().ToString());
  FUZZ_CHECK(IndexToJson(*again) == written, "an accepted index reads back differently");
  return 0;
}
