// Load: find the tensor in the index, read the shards overlapping this rank's piece of
// the TARGET layout (checking each one's CRC32C), copy the overlaps into the piece, and
// make the global tensor from the pieces. List: the index alone.
#include <cstdio>
#include <map>
#include <memory>

#include "core/boxing/strided_copy.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/crc32c.h"
#include "core/checkpoint/file_io.h"
#include "core/checkpoint/safetensors.h"
#include "core/checkpoint/shard_plan.h"
#include "core/checkpoint/world_agree.h"
#include "core/comm/mpi_world.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

namespace tessera::checkpoint {
namespace {

std::string Hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

std::string Describe(DType dtype, const Shape& shape) {
  return std::string(DTypeName(dtype)) + shape.ToString();
}

// The record of `name`, checked against what the caller asked for. Local.
Result<TensorRecord> FindTensor(const std::string& dir, const std::string& name,
                                const Placement& placement, const NdSbp& nd_sbp,
                                const std::optional<Shape>& expect_shape,
                                const std::optional<DType>& expect_dtype) {
  TESS_ASSIGN_OR_RETURN(Index index, ReadIndex(dir));
  const TensorRecord* record = index.Find(name);
  if (record == nullptr) {
    std::string names;
    for (size_t i = 0; i < index.tensors.size() && i < 8; ++i) {
      names += (i > 0 ? ", \"" : "\"") + index.tensors[i].name + "\"";
    }
    if (index.tensors.size() > 8) names += ", ...";
    return NotFound("checkpoint " + dir + " has no tensor \"" + name + "\" (it has " +
                    (names.empty() ? std::string("none") : names) + ")");
  }
  const std::string saved = Describe(record->dtype, record->shape);
  if (expect_dtype.has_value() && *expect_dtype != record->dtype) {
    return InvalidArgument("tensor \"" + name + "\" of checkpoint " + dir + " is " + saved +
                           ", not the dtype " + DTypeName(*expect_dtype) + " asked for");
  }
  if (expect_shape.has_value() && *expect_shape != record->shape) {
    return InvalidArgument("tensor \"" + name + "\" of checkpoint " + dir + " is " + saved +
                           ", not the shape " + expect_shape->ToString() + " asked for");
  }
  TESS_ASSIGN_OR_RETURN(int32_t world_size, comm::WorldSize());
  for (int32_t r : placement.ranks()) {
    if (r >= world_size) {
      return OutOfRange("placement " + placement.ToString() + " names rank " + std::to_string(r) +
                        " but the world has " + std::to_string(world_size));
    }
  }
  Status fits = ValidateNdSbp(nd_sbp, placement, record->shape);
  if (!fits.ok()) {
    return InvalidArgument("loading tensor \"" + name + "\" (" + saved + ") as " +
                           nd_sbp.ToString() + " on " + placement.ToString() + ": " +
                           fits.message());
  }
  return *record;
}

// A shard file opened once per Load, its header read and checked once.
struct ShardFile {
  ReadOnlyFile file;
  SafetensorsHeader header;
};

// Reads the bytes of `shard` of `record` into `out` (shard.bytes of them), checked
// against the index: the entry exists with the slice's dtype and shape, and the bytes
// have the recorded CRC32C.
Status ReadShard(const std::string& dir, const TensorRecord& record, const ShardRecord& shard,
                 std::map<std::string, ShardFile>& files, char* out) {
  const std::string path = dir + "/" + shard.file;
  auto it = files.find(path);
  if (it == files.end()) {
    Result<ReadOnlyFile> file = ReadOnlyFile::Open(path);
    if (!file.ok()) {
      return Status(file.status().code(),
                    "shard of tensor \"" + record.name + "\": " + file.status().message());
    }
    TESS_ASSIGN_OR_RETURN(SafetensorsHeader header, ReadSafetensorsHeader(*file));
    it = files.emplace(path, ShardFile{std::move(file).value(), std::move(header)}).first;
  }
  const ShardFile& opened = it->second;
  const SafetensorsEntry* entry = opened.header.Find(record.name);
  if (entry == nullptr) {
    return DataLoss("shard file " + path + " has no tensor \"" + record.name +
                    "\", which the index places there");
  }
  const Shape slice = shard.SliceShape();
  if (entry->dtype != record.dtype || entry->shape != slice) {
    return DataLoss("shard file " + path + " holds tensor \"" + record.name + "\" as " +
                    SafetensorsDTypeName(entry->dtype) + entry->shape.ToString() +
                    ", the index says " + SafetensorsDTypeName(record.dtype) + slice.ToString());
  }
  const size_t bytes = static_cast<size_t>(shard.bytes);
  Status read = opened.file.ReadAt(opened.header.data_start + entry->begin, out, bytes);
  if (!read.ok()) {
    return Status(read.code(), "shard of tensor \"" + record.name + "\": " + read.message());
  }
  const uint32_t crc = Crc32c(out, bytes);
  if (crc != shard.crc32c) {
    return DataLoss("corrupt shard of tensor \"" + record.name + "\" in " + path + ": CRC32C " +
                    Hex32(crc) + ", the index says " + Hex32(shard.crc32c));
  }
  return Status::Ok();
}

// Fills `piece` (the slice `layout` of the tensor) from the shards overlapping it.
Status AssemblePiece(const std::string& dir, const TensorRecord& record,
                     const PhysicalLayout& layout, std::vector<char>& piece) {
  const int ndim = record.shape.ndim();
  const size_t elem = DTypeSize(record.dtype);
  std::map<std::string, ShardFile> files;
  for (const ShardRecord& shard : record.shards) {
    const std::vector<Range> overlap = Intersect(shard.slice.data(), layout.ranges, ndim);
    Shape box = layout.local_shape;
    int64_t src_begin[Shape::kMaxDims] = {};
    int64_t dst_begin[Shape::kMaxDims] = {};
    for (int axis = 0; axis < ndim; ++axis) {
      box.set_dim(axis, overlap[axis].size());
      src_begin[axis] = overlap[axis].begin - shard.slice[axis].begin;
      dst_begin[axis] = overlap[axis].begin - layout.ranges[axis].begin;
    }
    if (box.num_elements() == 0) continue;
    if (box == layout.local_shape && box == shard.SliceShape()) {
      // The shard is exactly the piece (a load into the saved layout): read it in place.
      TESS_RETURN_IF_ERROR(ReadShard(dir, record, shard, files, piece.data()));
      continue;
    }
    // Not value-initialised: every byte is read from the file before it is used.
    std::unique_ptr<char[]> bytes(new char[static_cast<size_t>(shard.bytes)]);
    TESS_RETURN_IF_ERROR(ReadShard(dir, record, shard, files, bytes.get()));
    boxing::CopyBox(bytes.get(), shard.SliceShape(), src_begin, piece.data(), layout.local_shape,
                    dst_begin, box, elem);
  }
  return Status::Ok();
}

}  // namespace

Result<tensor::Tensor> Load(const std::string& dir_arg, const std::string& name,
                            const Placement& placement, const NdSbp& nd_sbp,
                            const std::optional<Shape>& expect_shape,
                            const std::optional<DType>& expect_dtype) {
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  comm::CallFingerprint call("checkpoint_load", name);
  call.Add(comm::CallField::kOp, HashText(dir_arg))
      .Add(comm::CallField::kAttributes, HashText(name))
      .AddPlacement(placement)
      .AddNdSbp(nd_sbp);
  if (expect_shape.has_value()) call.AddShape(*expect_shape);
  if (expect_dtype.has_value()) call.AddDType(*expect_dtype);
  TESS_RETURN_IF_ERROR(AgreeCallInCheckMode(call));
  Result<std::string> dir = CheckpointDir(dir_arg);
  Result<TensorRecord> record =
      dir.ok() ? FindTensor(*dir, name, placement, nd_sbp, expect_shape, expect_dtype)
               : Result<TensorRecord>(dir.status());
  TESS_RETURN_IF_ERROR(AgreeOnWorld(record.status()));

  // The pieces are read as slices (partial axes as B), and made partial afterwards.
  const NdSbp sliced = WithoutPartial(nd_sbp);
  std::vector<char> piece;
  Shape local_shape = record->shape;  // any shape will do outside the placement
  Status read;
  if (placement.contains(rank)) {
    Result<PhysicalLayout> layout = PhysicalLayoutOfRank(record->shape, placement, sliced, rank);
    read = layout.status();
    if (read.ok()) {
      local_shape = layout->local_shape;
      piece.resize(static_cast<size_t>(local_shape.num_elements()) * DTypeSize(record->dtype));
      read = AssemblePiece(*dir, *record, *layout, piece);
    }
  }
  TESS_RETURN_IF_ERROR(AgreeOnWorld(read));
  TESS_ASSIGN_OR_RETURN(tensor::Tensor loaded,
                        tensor::FromLocal(piece.data(), local_shape, record->dtype, placement,
                                          sliced, &record->shape));
  if (sliced == nd_sbp) return loaded;
  return tensor::ToGlobal(loaded, placement, nd_sbp);
}

Result<Index> List(const std::string& dir_arg) {
  TESS_ASSIGN_OR_RETURN(std::string dir, CheckpointDir(dir_arg));
  return ReadIndex(dir);
}

}  // namespace tessera::checkpoint
