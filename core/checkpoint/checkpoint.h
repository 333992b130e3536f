// Sharded checkpoints of global tensors (docs/checkpoints.md).
//
// A checkpoint is a directory: one safetensors file per rank that wrote shards
// ("rank-00003.safetensors") and index.json, written by rank 0, describing every
// tensor (shape, dtype, placement, nd-SBP) and its shards (file, slice, bytes,
// CRC32C). Save and Load are collective over the WORLD (every rank calls, with the
// same arguments, as for every other SPMD call: boxing a partial tensor and the
// agreement on errors need the world), and the directory must be on a filesystem that
// every rank sees at the same path.
//
// Errors. A failure on any rank (a full disk, a corrupt shard only one rank reads) is
// agreed over the world (comm::AgreeLocalStatus): every rank returns the lowest failing
// rank's error, naming the file and tensor, and no rank is left waiting. In check mode
// (comm/call_check.h) the ranks first agree the call itself (directory, names, layouts):
// FAILED_PRECONDITION on every rank when they differ.
#ifndef TESSERA_CORE_CHECKPOINT_CHECKPOINT_H_
#define TESSERA_CORE_CHECKPOINT_CHECKPOINT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/checkpoint/index.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

namespace tessera::checkpoint {

using NamedTensor = std::pair<std::string, tensor::Tensor>;

// Saves `tensors` into `dir`, replacing a checkpoint there atomically: everything is
// written into the sibling "<dir>.tmp-<nonce>" and fsync'd; after every rank has
// finished (the agreement is the barrier) rank 0 renames an existing <dir> aside to
// "<dir>.old-<nonce>", renames the new one to <dir> and removes the old one. Until the
// second rename <dir> holds the previous checkpoint, intact; a failed save removes its
// temporary directory and leaves <dir> as it was. Each distinct slice is written once,
// by the lowest rank holding it (B pieces once); a partial (P) tensor is first boxed to
// B on its partial axes, so its logical value is saved.
//
// INVALID_ARGUMENT for an empty dir, an invalid or repeated name, a placeholder; the
// parent of `dir` must exist (NOT_FOUND otherwise). File errors are DATA_LOSS or
// NOT_FOUND naming the path.
Status Save(const std::string& dir, const std::vector<NamedTensor>& tensors);

// Loads tensor `name` of the checkpoint at `dir` as (placement, nd_sbp), which may
// differ from the saved ones in every way (another rank count, another split axis, B,
// P): each rank reads only the shards overlapping the piece it needs, checks each
// one's CRC32C, and assembles its piece. `expect_shape` / `expect_dtype`, when given,
// must match the saved tensor (INVALID_ARGUMENT otherwise).
//
// NOT_FOUND: no index ("missing checkpoint index <dir>/index.json"), no tensor of that
// name, a missing shard file. DATA_LOSS: a malformed index or safetensors header, a
// truncated shard, a checksum mismatch ("corrupt shard ..."), each naming the file and
// the tensor.
Result<tensor::Tensor> Load(const std::string& dir, const std::string& name,
                            const Placement& placement, const NdSbp& nd_sbp,
                            const std::optional<Shape>& expect_shape = std::nullopt,
                            const std::optional<DType>& expect_dtype = std::nullopt);

// The checkpoint's index (names, shapes, dtypes, saved placements and nd-SBPs, shards).
// Local: reads index.json only; errors as Load's.
Result<Index> List(const std::string& dir);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_CHECKPOINT_H_
