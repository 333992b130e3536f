#include "core/checkpoint/safetensors.h"

#include "core/checkpoint/json.h"
#include "core/infer/explain_json.h"

namespace tessera::checkpoint {
namespace {

struct DTypeNames {
  DType dtype;
  const char* name;
};
constexpr DTypeNames kDTypeNames[] = {
    {DType::kF32, "F32"}, {DType::kF64, "F64"}, {DType::kI32, "I32"},
    {DType::kI64, "I64"}, {DType::kF16, "F16"}, {DType::kBF16, "BF16"},
};

// The element count of a shape read from a file, with overflow and size checks.
Result<Shape> ShapeFromJson(const JsonValue& value, const std::string& what) {
  if (!value.is_array()) return InvalidArgument(what + " must be an array of dims");
  if (value.items().size() > static_cast<size_t>(Shape::kMaxDims)) {
    return InvalidArgument(what + " has " + std::to_string(value.items().size()) +
                           " dims, more than " + std::to_string(Shape::kMaxDims));
  }
  std::vector<int64_t> dims;
  for (const JsonValue& dim : value.items()) {
    TESS_ASSIGN_OR_RETURN(int64_t d, dim.AsInt64(what + " dim", 0, INT64_MAX));
    dims.push_back(d);
  }
  return Shape::Make(dims);
}

Status ParseEntry(const std::string& name, const JsonValue& value, SafetensorsEntry& entry) {
  const std::string what = "tensor \"" + name + "\"";
  if (!value.is_object()) return InvalidArgument(what + " must be an object");
  const JsonValue* dtype = value.Find("dtype");
  const JsonValue* shape = value.Find("shape");
  const JsonValue* offsets = value.Find("data_offsets");
  if (dtype == nullptr || shape == nullptr || offsets == nullptr) {
    return InvalidArgument(what + " lacks one of dtype, shape, data_offsets");
  }
  if (!dtype->is_string()) return InvalidArgument(what + " dtype must be a string");
  entry.name = name;
  TESS_ASSIGN_OR_RETURN(entry.dtype, ParseSafetensorsDType(dtype->text()));
  TESS_ASSIGN_OR_RETURN(entry.shape, ShapeFromJson(*shape, what + " shape"));
  if (!offsets->is_array() || offsets->items().size() != 2) {
    return InvalidArgument(what + " data_offsets must be [begin, end]");
  }
  TESS_ASSIGN_OR_RETURN(int64_t begin, offsets->items()[0].AsInt64(what + " begin", 0, INT64_MAX));
  TESS_ASSIGN_OR_RETURN(int64_t end, offsets->items()[1].AsInt64(what + " end", 0, INT64_MAX));
  TESS_RETURN_IF_ERROR(entry.shape.CheckByteSize(DTypeSize(entry.dtype), DTypeName(entry.dtype)));
  const int64_t bytes = entry.shape.num_elements() * static_cast<int64_t>(DTypeSize(entry.dtype));
  if (begin > end || end - begin != bytes) {
    return InvalidArgument(what + " data_offsets [" + std::to_string(begin) + ", " +
                           std::to_string(end) + ") do not hold its " + std::to_string(bytes) +
                           " bytes (" + SafetensorsDTypeName(entry.dtype) + entry.shape.ToString() +
                           ")");
  }
  entry.begin = static_cast<uint64_t>(begin);
  entry.end = static_cast<uint64_t>(end);
  return Status::Ok();
}

// Errors in the JSON are INVALID_ARGUMENT (the caller names the file); data past the
// end of the file is DATA_LOSS naming it already.
Result<SafetensorsHeader> ParseHeaderJson(std::string_view json, uint64_t data_start,
                                          uint64_t file_size, const std::string& path) {
  TESS_ASSIGN_OR_RETURN(JsonValue root, ParseJson(json));
  if (!root.is_object()) return InvalidArgument("the header must be a JSON object");
  SafetensorsHeader header;
  header.data_start = data_start;
  for (const auto& [name, value] : root.members()) {
    if (name == "__metadata__") {
      if (!value.is_object()) return InvalidArgument("__metadata__ must be an object");
      for (const auto& [key, text] : value.members()) {
        if (!text.is_string()) {
          return InvalidArgument("__metadata__ \"" + key + "\" must be a string");
        }
        header.metadata[key] = text.text();
      }
      continue;
    }
    SafetensorsEntry entry;
    TESS_RETURN_IF_ERROR(ParseEntry(name, value, entry));
    if (entry.end > file_size - data_start) {
      return DataLoss("truncated safetensors file " + path + ": tensor \"" + name +
                      "\" needs data bytes [" + std::to_string(entry.begin) + ", " +
                      std::to_string(entry.end) + ") but the file has " +
                      std::to_string(file_size - data_start) + " after its header");
    }
    header.entries.push_back(std::move(entry));
  }
  return header;
}

}  // namespace

const char* SafetensorsDTypeName(DType dtype) {
  for (const DTypeNames& d : kDTypeNames) {
    if (d.dtype == dtype) return d.name;
  }
  return "?";
}

Result<DType> ParseSafetensorsDType(std::string_view name) {
  for (const DTypeNames& d : kDTypeNames) {
    if (name == d.name) return d.dtype;
  }
  return InvalidArgument("unsupported safetensors dtype \"" + std::string(name) +
                         "\" (Tessera reads F32, F64, I32, I64, F16, BF16)");
}

std::string EncodeSafetensorsHeader(std::vector<SafetensorsEntry>& entries,
                                    const std::map<std::string, std::string>& metadata) {
  std::string json = "{";
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : metadata) {
      if (!first) json += ",";
      first = false;
      json += infer::JsonQuote(key) + ":" + infer::JsonQuote(value);
    }
    json += "}";
  }
  uint64_t offset = 0;
  for (SafetensorsEntry& entry : entries) {
    entry.begin = offset;
    entry.end = offset + static_cast<uint64_t>(entry.shape.num_elements()) * DTypeSize(entry.dtype);
    offset = entry.end;
    if (json.size() > 1) json += ",";
    json += infer::JsonQuote(entry.name) + ":{\"dtype\":\"" + SafetensorsDTypeName(entry.dtype) +
            "\",\"shape\":[";
    for (int i = 0; i < entry.shape.ndim(); ++i) {
      if (i > 0) json += ",";
      json += std::to_string(entry.shape.dim(i));
    }
    json += "],\"data_offsets\":[" + std::to_string(entry.begin) + "," + std::to_string(entry.end) +
            "]}";
  }
  json += "}";
  while (json.size() % 8 != 0) json += ' ';
  std::string out(8, '\0');
  const uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + json;
}

const SafetensorsEntry* SafetensorsHeader::Find(std::string_view name) const {
  for (const SafetensorsEntry& entry : entries) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

Result<SafetensorsHeader> ReadSafetensorsHeader(const ReadOnlyFile& file) {
  const std::string& path = file.path();
  if (file.size() < 8) {
    return DataLoss("truncated safetensors file " + path + ": " + std::to_string(file.size()) +
                    " bytes, less than the 8-byte header length");
  }
  unsigned char length_bytes[8];
  TESS_RETURN_IF_ERROR(file.ReadAt(0, length_bytes, 8));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | length_bytes[i];
  if (n > kMaxSafetensorsHeader) {
    return DataLoss("malformed safetensors file " + path + ": header length " + std::to_string(n) +
                    " exceeds " + std::to_string(kMaxSafetensorsHeader));
  }
  if (n > file.size() - 8) {
    return DataLoss("truncated safetensors file " + path + ": header length " + std::to_string(n) +
                    " but only " + std::to_string(file.size() - 8) + " bytes follow");
  }
  std::string json(n, '\0');
  TESS_RETURN_IF_ERROR(file.ReadAt(8, json.data(), json.size()));
  Result<SafetensorsHeader> header = ParseHeaderJson(json, 8 + n, file.size(), path);
  if (!header.ok() && header.status().code() != StatusCode::kDataLoss) {
    return DataLoss("malformed safetensors header in " + path + ": " + header.status().message());
  }
  return header;
}

}  // namespace tessera::checkpoint
