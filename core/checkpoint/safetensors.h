// The safetensors file format (https://github.com/huggingface/safetensors), written
// and read here: 8 bytes of little-endian header length N, then N bytes of JSON
// {"<name>": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"<key>": "<string>"}}, then the data, each tensor's bytes
// row-major little-endian at [begin, end) counted from the end of the header. The
// header is padded with spaces to a multiple of 8 bytes, as the reference writer
// does, so the data starts aligned.
//
// Reading checks what a damaged or foreign file could get wrong: a header length past
// the file or over kMaxSafetensorsHeader, malformed JSON, unknown dtypes, offsets that
// disagree with the shape or run past the file. Every error names the file.
#ifndef TESSERA_CORE_CHECKPOINT_SAFETENSORS_H_
#define TESSERA_CORE_CHECKPOINT_SAFETENSORS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/checkpoint/file_io.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"

namespace tessera::checkpoint {

// The reference implementation refuses larger headers too.
inline constexpr uint64_t kMaxSafetensorsHeader = 100 * 1000 * 1000;

// "F32", "F64", "I32", "I64", "F16", "BF16": safetensors' names for Tessera's dtypes.
const char* SafetensorsDTypeName(DType dtype);
// INVALID_ARGUMENT for a name Tessera has no dtype for (U8, BOOL, F8_E4M3, ...).
Result<DType> ParseSafetensorsDType(std::string_view name);

struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;
  uint64_t begin = 0;  // data_offsets, from the start of the data
  uint64_t end = 0;
};

// The header for entries whose data follow in order, without gaps: sets each entry's
// begin/end from its shape and dtype, and returns the 8 length bytes plus the padded
// JSON. The data are then the entries' bytes concatenated.
std::string EncodeSafetensorsHeader(std::vector<SafetensorsEntry>& entries,
                                    const std::map<std::string, std::string>& metadata);

struct SafetensorsHeader {
  uint64_t data_start = 0;  // 8 + N: where offset 0 of the data is in the file
  std::vector<SafetensorsEntry> entries;
  std::map<std::string, std::string> metadata;
  // The entry named `name`, or NULL.
  const SafetensorsEntry* Find(std::string_view name) const;
};

// Reads and checks the header of `file`. DATA_LOSS naming the file for a truncated
// or malformed header, an entry whose data_offsets do not hold its shape's bytes or
// run past the end of the file.
Result<SafetensorsHeader> ReadSafetensorsHeader(const ReadOnlyFile& file);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_SAFETENSORS_H_
