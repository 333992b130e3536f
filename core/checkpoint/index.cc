#include "core/checkpoint/index.h"

#include <cstdio>
#include <unordered_set>

#include "core/checkpoint/file_io.h"
#include "core/checkpoint/json.h"
#include "core/checkpoint/safetensors.h"
#include "core/infer/explain_json.h"

namespace tessera::checkpoint {
namespace {

using infer::JsonQuote;

std::string DimsJson(const Shape& shape) {
  std::string out = "[";
  for (int i = 0; i < shape.ndim(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape.dim(i));
  }
  return out + "]";
}

// The member `key` of `object`, of kind `kind`.
Result<const JsonValue*> Member(const JsonValue& object, const char* key, JsonValue::Kind kind,
                                const std::string& where) {
  const JsonValue* value = object.Find(key);
  if (value == nullptr) return InvalidArgument(where + " lacks \"" + key + "\"");
  if (value->kind() != kind) {
    return InvalidArgument(where + " \"" + key + "\" must be a " + JsonValue::KindName(kind) +
                           ", not a " + JsonValue::KindName(value->kind()));
  }
  return value;
}

Result<std::string> StringMember(const JsonValue& object, const char* key,
                                 const std::string& where) {
  TESS_ASSIGN_OR_RETURN(const JsonValue* value,
                        Member(object, key, JsonValue::Kind::kString, where));
  return value->text();
}

Status CheckFileName(const std::string& file, const std::string& where) {
  if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos ||
      file.find('\0') != std::string::npos) {
    return InvalidArgument(where + " file \"" + file +
                           "\" is not a plain file name in the checkpoint directory");
  }
  return Status::Ok();
}

Result<ShardRecord> ParseShard(const JsonValue& value, const TensorRecord& tensor,
                               const std::string& where) {
  if (!value.is_object()) return InvalidArgument(where + " must be an object");
  ShardRecord shard;
  TESS_ASSIGN_OR_RETURN(shard.file, StringMember(value, "file", where));
  TESS_RETURN_IF_ERROR(CheckFileName(shard.file, where));
  TESS_ASSIGN_OR_RETURN(const JsonValue* slice,
                        Member(value, "slice", JsonValue::Kind::kArray, where));
  if (slice->items().size() != static_cast<size_t>(tensor.shape.ndim())) {
    return InvalidArgument(where + " slice has " + std::to_string(slice->items().size()) +
                           " axes, the tensor " + std::to_string(tensor.shape.ndim()));
  }
  for (int axis = 0; axis < tensor.shape.ndim(); ++axis) {
    const JsonValue& range = slice->items()[axis];
    const std::string what = where + " slice axis " + std::to_string(axis);
    if (!range.is_array() || range.items().size() != 2) {
      return InvalidArgument(what + " must be [start, stop]");
    }
    const int64_t dim = tensor.shape.dim(axis);
    TESS_ASSIGN_OR_RETURN(int64_t start, range.items()[0].AsInt64(what + " start", 0, dim));
    TESS_ASSIGN_OR_RETURN(int64_t stop, range.items()[1].AsInt64(what + " stop", start, dim));
    shard.slice.push_back(Range{start, stop});
  }
  TESS_ASSIGN_OR_RETURN(const JsonValue* bytes,
                        Member(value, "bytes", JsonValue::Kind::kNumber, where));
  TESS_ASSIGN_OR_RETURN(shard.bytes, bytes->AsInt64(where + " bytes", 0, INT64_MAX));
  const int64_t expected =
      shard.SliceShape().num_elements() * static_cast<int64_t>(DTypeSize(tensor.dtype));
  if (shard.bytes != expected) {
    return InvalidArgument(where + " has " + std::to_string(shard.bytes) + " bytes, its slice " +
                           std::to_string(expected));
  }
  TESS_ASSIGN_OR_RETURN(const JsonValue* crc,
                        Member(value, "crc32c", JsonValue::Kind::kNumber, where));
  TESS_ASSIGN_OR_RETURN(int64_t crc_value, crc->AsInt64(where + " crc32c", 0, UINT32_MAX));
  shard.crc32c = static_cast<uint32_t>(crc_value);
  return shard;
}

bool Overlap(const ShardRecord& a, const ShardRecord& b) {
  for (size_t axis = 0; axis < a.slice.size(); ++axis) {
    if (a.slice[axis].end <= b.slice[axis].begin || b.slice[axis].end <= a.slice[axis].begin) {
      return false;
    }
  }
  return true;
}

// Disjoint shards whose sizes add up to the tensor's cover it exactly.
Status CheckTiling(const TensorRecord& tensor, const std::string& where) {
  int64_t covered = 0;
  for (size_t i = 0; i < tensor.shards.size(); ++i) {
    if (tensor.shards[i].SliceShape().num_elements() == 0) {
      return InvalidArgument(where + " shard " + std::to_string(i) + " is empty");
    }
    for (size_t j = 0; j < i; ++j) {
      if (Overlap(tensor.shards[i], tensor.shards[j])) {
        return InvalidArgument(where + " shards " + std::to_string(j) + " and " +
                               std::to_string(i) + " overlap");
      }
    }
    covered += tensor.shards[i].SliceShape().num_elements();
  }
  if (covered != tensor.shape.num_elements()) {
    return InvalidArgument(where + " shards hold " + std::to_string(covered) + " of its " +
                           std::to_string(tensor.shape.num_elements()) + " elements");
  }
  return Status::Ok();
}

Result<TensorRecord> ParseTensor(const JsonValue& value, size_t i) {
  std::string where = "tensor " + std::to_string(i);
  if (!value.is_object()) return InvalidArgument(where + " must be an object");
  TensorRecord tensor;
  TESS_ASSIGN_OR_RETURN(tensor.name, StringMember(value, "name", where));
  TESS_RETURN_IF_ERROR(CheckTensorName(tensor.name));
  where = "tensor \"" + tensor.name + "\"";
  TESS_ASSIGN_OR_RETURN(std::string dtype, StringMember(value, "dtype", where));
  TESS_ASSIGN_OR_RETURN(tensor.dtype, ParseSafetensorsDType(dtype));
  TESS_ASSIGN_OR_RETURN(const JsonValue* shape,
                        Member(value, "shape", JsonValue::Kind::kArray, where));
  if (shape->items().size() > static_cast<size_t>(Shape::kMaxDims)) {
    return InvalidArgument(where + " shape has more than " + std::to_string(Shape::kMaxDims) +
                           " dims");
  }
  std::vector<int64_t> dims;
  for (const JsonValue& dim : shape->items()) {
    TESS_ASSIGN_OR_RETURN(int64_t d, dim.AsInt64(where + " shape dim", 0, INT64_MAX));
    dims.push_back(d);
  }
  TESS_ASSIGN_OR_RETURN(tensor.shape, Shape::Make(dims));
  TESS_RETURN_IF_ERROR(tensor.shape.CheckByteSize(DTypeSize(tensor.dtype), dtype.c_str()));
  TESS_ASSIGN_OR_RETURN(tensor.placement, StringMember(value, "placement", where));
  TESS_ASSIGN_OR_RETURN(tensor.nd_sbp, StringMember(value, "nd_sbp", where));
  TESS_ASSIGN_OR_RETURN(const JsonValue* shards,
                        Member(value, "shards", JsonValue::Kind::kArray, where));
  TESS_RETURN_IF_ERROR(CheckShardCount(tensor.name, shards->items().size()));
  for (size_t s = 0; s < shards->items().size(); ++s) {
    TESS_ASSIGN_OR_RETURN(ShardRecord shard, ParseShard(shards->items()[s], tensor,
                                                        where + " shard " + std::to_string(s)));
    tensor.shards.push_back(std::move(shard));
  }
  TESS_RETURN_IF_ERROR(CheckTiling(tensor, where));
  return tensor;
}

Result<Index> ParseIndexOrInvalid(std::string_view text) {
  TESS_ASSIGN_OR_RETURN(JsonValue root, ParseJson(text));
  if (!root.is_object()) return InvalidArgument("the index must be a JSON object");
  const std::string where = "the index";
  TESS_ASSIGN_OR_RETURN(std::string format, StringMember(root, "format", where));
  if (format != kIndexFormat) {
    return InvalidArgument("format is \"" + format + "\", not \"" + kIndexFormat + "\"");
  }
  TESS_ASSIGN_OR_RETURN(const JsonValue* version,
                        Member(root, "version", JsonValue::Kind::kNumber, where));
  TESS_ASSIGN_OR_RETURN(int64_t v, version->AsInt64("version", 1, INT64_MAX));
  if (v != kIndexVersion) {
    return InvalidArgument("version " + std::to_string(v) + " is newer than this reader's " +
                           std::to_string(kIndexVersion));
  }
  Index index;
  TESS_ASSIGN_OR_RETURN(const JsonValue* world,
                        Member(root, "world_size", JsonValue::Kind::kNumber, where));
  TESS_ASSIGN_OR_RETURN(index.world_size, world->AsInt64("world_size", 1, INT32_MAX));
  TESS_ASSIGN_OR_RETURN(const JsonValue* tensors,
                        Member(root, "tensors", JsonValue::Kind::kArray, where));
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < tensors->items().size(); ++i) {
    TESS_ASSIGN_OR_RETURN(TensorRecord tensor, ParseTensor(tensors->items()[i], i));
    if (!names.insert(tensor.name).second) {
      return InvalidArgument("tensor \"" + tensor.name + "\" appears twice");
    }
    index.tensors.push_back(std::move(tensor));
  }
  return index;
}

}  // namespace

Shape ShardRecord::SliceShape() const {
  std::vector<int64_t> dims;
  for (const Range& r : slice) dims.push_back(r.size());
  // The ranges were checked to lie inside a valid shape, so Make cannot fail.
  return Shape::Make(dims).value();
}

const TensorRecord* Index::Find(std::string_view name) const {
  for (const TensorRecord& tensor : tensors) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

std::string ShardFileName(int32_t rank) {
  char name[40];
  std::snprintf(name, sizeof name, "rank-%05d.safetensors", rank);
  return name;
}

Status CheckTensorName(std::string_view name) {
  if (name.empty() || name.size() > 1024) {
    return InvalidArgument("tensor name \"" + std::string(name.substr(0, 64)) +
                           "\" must have 1 to 1024 bytes");
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return InvalidArgument("tensor name " + infer::JsonQuote(name) +
                             " contains a control character");
    }
  }
  if (name == "__metadata__") {
    return InvalidArgument("tensor name \"__metadata__\" is reserved by safetensors");
  }
  return Status::Ok();
}

Status CheckShardCount(const std::string& name, size_t shards) {
  if (shards <= static_cast<size_t>(kMaxShardsPerTensor)) return Status::Ok();
  return InvalidArgument("tensor \"" + name + "\" has " + std::to_string(shards) +
                         " shards, more than the " + std::to_string(kMaxShardsPerTensor) +
                         " a checkpoint may hold");
}

std::string IndexToJson(const Index& index) {
  std::string out = "{\n  \"format\": " + JsonQuote(kIndexFormat) +
                    ",\n  \"version\": " + std::to_string(kIndexVersion) +
                    ",\n  \"checksum\": \"crc32c\",\n" +
                    "  \"world_size\": " + std::to_string(index.world_size) + ",\n  \"tensors\": [";
  for (size_t t = 0; t < index.tensors.size(); ++t) {
    const TensorRecord& tensor = index.tensors[t];
    out += t == 0 ? "\n" : ",\n";
    out += "    {\"name\": " + JsonQuote(tensor.name) + ", \"dtype\": \"" +
           SafetensorsDTypeName(tensor.dtype) + "\", \"shape\": " + DimsJson(tensor.shape) +
           ",\n     \"placement\": " + JsonQuote(tensor.placement) +
           ", \"nd_sbp\": " + JsonQuote(tensor.nd_sbp) + ",\n     \"shards\": [";
    for (size_t s = 0; s < tensor.shards.size(); ++s) {
      const ShardRecord& shard = tensor.shards[s];
      out += s == 0 ? "\n" : ",\n";
      out += "       {\"file\": " + JsonQuote(shard.file) + ", \"slice\": [";
      for (size_t axis = 0; axis < shard.slice.size(); ++axis) {
        if (axis > 0) out += ", ";
        out += "[" + std::to_string(shard.slice[axis].begin) + ", " +
               std::to_string(shard.slice[axis].end) + "]";
      }
      out += "], \"bytes\": " + std::to_string(shard.bytes) +
             ", \"crc32c\": " + std::to_string(shard.crc32c) + "}";
    }
    out += tensor.shards.empty() ? "]}" : "\n     ]}";
  }
  out += index.tensors.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

Result<Index> ParseIndex(std::string_view text, const std::string& path) {
  Result<Index> index = ParseIndexOrInvalid(text);
  if (!index.ok()) return DataLoss("checkpoint index " + path + ": " + index.status().message());
  return index;
}

Result<Index> ReadIndex(const std::string& dir) {
  const std::string path = dir + "/" + kIndexFileName;
  Result<std::string> text = ReadWholeFile(path, kMaxIndexBytes);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound("missing checkpoint index " + path);
    }
    return text.status();
  }
  return ParseIndex(*text, path);
}

}  // namespace tessera::checkpoint
