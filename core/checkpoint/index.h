// The checkpoint index (index.json, written by rank 0; docs/checkpoints.md): for each
// tensor its logical shape, dtype, placement and nd-SBP as saved, and its shards:
// which file holds each, the slice of the logical tensor it is (per axis [start,
// stop)), its byte count and its CRC32C. A shard's data is the tensor named like the
// checkpoint tensor inside its safetensors file.
//
// ParseIndex checks everything a loader relies on, so a damaged index is one clear
// DATA_LOSS naming the file: the grammar, the field types, known dtypes, slices inside
// the shape, shards that tile the tensor exactly (disjoint, covering every element),
// shard files that are plain names inside the checkpoint directory.
#ifndef TESSERA_CORE_CHECKPOINT_INDEX_H_
#define TESSERA_CORE_CHECKPOINT_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/sbp/balanced_split.h"

namespace tessera::checkpoint {

inline constexpr const char kIndexFileName[] = "index.json";
inline constexpr const char kIndexFormat[] = "tessera-checkpoint";
inline constexpr int64_t kIndexVersion = 1;
// An index larger than this is not one Tessera wrote.
inline constexpr uint64_t kMaxIndexBytes = 256ull << 20;
// Shards of one tensor (distinct pieces of its layout) a checkpoint may hold: checking
// that they tile the tensor compares every pair, so a hostile index of millions of
// shards would take hours; Save refuses tensors of more pieces, with the same message.
inline constexpr int64_t kMaxShardsPerTensor = int64_t{1} << 14;

struct ShardRecord {
  std::string file;          // a plain file name in the checkpoint directory
  std::vector<Range> slice;  // one [start, stop) per tensor axis
  int64_t bytes = 0;         // the shard's data bytes: product of the slice * dtype size
  uint32_t crc32c = 0;       // of those bytes

  Shape SliceShape() const;
};

struct TensorRecord {
  std::string name;
  Shape shape;
  DType dtype = DType::kF32;
  std::string placement;  // the text form as saved, e.g. "cpu:[0,1,2,3]"
  std::string nd_sbp;     // as saved, e.g. "S(0)" (the tensor's own, P axes included)
  std::vector<ShardRecord> shards;
};

struct Index {
  int64_t world_size = 1;
  std::vector<TensorRecord> tensors;

  // NULL when no tensor has that name.
  const TensorRecord* Find(std::string_view name) const;
};

// "rank-00003.safetensors": the file world rank `rank` writes.
std::string ShardFileName(int32_t rank);

// INVALID_ARGUMENT unless `name` can name a checkpoint tensor: 1 to 1024 bytes, no
// control characters, not "__metadata__" (safetensors reserves it).
Status CheckTensorName(std::string_view name);

// INVALID_ARGUMENT naming the tensor when it has more than kMaxShardsPerTensor shards.
Status CheckShardCount(const std::string& name, size_t shards);

// Pretty-printed JSON, ending in a newline.
std::string IndexToJson(const Index& index);

// `path` names the file in errors: every error is DATA_LOSS "checkpoint index <path>:
// ...".
Result<Index> ParseIndex(std::string_view text, const std::string& path);

// Reads <dir>/index.json: NOT_FOUND "missing checkpoint index <path>" when absent.
Result<Index> ReadIndex(const std::string& dir);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_INDEX_H_
