// Save: plan the shards, write this rank's into the temporary directory, agree, then
// rank 0 writes the index and swaps the directories (checkpoint.h says the protocol;
// docs/checkpoints.md its crash windows).
#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/crc32c.h"
#include "core/checkpoint/file_io.h"
#include "core/checkpoint/safetensors.h"
#include "core/checkpoint/shard_plan.h"
#include "core/checkpoint/world_agree.h"
#include "core/comm/call_check.h"
#include "core/comm/mpi_world.h"
#include "core/tensor/global_cast.h"

namespace tessera::checkpoint {
namespace {

Status CheckSaveArgs(const std::vector<NamedTensor>& tensors) {
  std::set<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, value] = tensors[i];
    TESS_RETURN_IF_ERROR(CheckTensorName(name));
    if (!names.insert(name).second) {
      return InvalidArgument("tensor name \"" + name + "\" appears twice");
    }
    if (value == nullptr) return InvalidArgument("tensor \"" + name + "\" is NULL");
    if (value->is_placeholder()) {
      return InvalidArgument("tensor \"" + name +
                             "\" is a placeholder of a capture; it has no value to save");
    }
  }
  return Status::Ok();
}

// A fresh name part for the temporary and aside directories, so that concurrent or
// crashed saves never collide.
uint64_t MakeNonce() {
  std::random_device device;
  const uint64_t now =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return ((static_cast<uint64_t>(device()) << 32) ^ device() ^ now) & 0x7FFFFFFFFFFFFFFFull;
}

std::string Hex(uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// The parent must exist; and replacing <dir> removes it, so it must be a checkpoint
// (or an empty directory), not whatever a mistyped path names.
Status CheckReplaceable(const std::string& dir) {
  const std::string parent = ParentDirectory(dir);
  if (!PathExists(parent)) {
    return NotFound("the parent directory " + parent + " of checkpoint " + dir + " does not exist");
  }
  if (!PathExists(dir) || PathExists(dir + "/" + kIndexFileName)) return Status::Ok();
  Result<std::vector<std::string>> entries = ListDirectory(dir);
  if (!entries.ok()) {
    return FailedPrecondition(dir + " exists and is not a checkpoint directory (" +
                              entries.status().message() + "); not replacing it");
  }
  if (!entries->empty()) {
    return FailedPrecondition(dir + " exists, is not empty and has no " + kIndexFileName +
                              ": not a checkpoint; not replacing it");
  }
  return Status::Ok();
}

// This rank's shards of every tensor into <tmp>/rank-<r>.safetensors (no file when it
// writes none); fills `index` (all shards, every rank the same) and this rank's CRCs
// in `crcs` (one slot per shard, in index order, 0 for other ranks' shards).
Status WriteOwnShards(const std::string& tmp, int32_t rank, const std::vector<NamedTensor>& named,
                      const std::vector<tensor::Tensor>& values, Index& index,
                      std::vector<int64_t>& crcs) {
  std::vector<SafetensorsEntry> entries;
  std::vector<std::vector<char>> data;
  const std::string file = ShardFileName(rank);
  for (size_t k = 0; k < values.size(); ++k) {
    const tensor::Tensor& value = values[k];
    TensorRecord record;
    record.name = named[k].first;
    record.shape = value->shape();
    record.dtype = value->dtype();
    record.placement = named[k].second->placement().ToString();
    record.nd_sbp = named[k].second->nd_sbp().ToString();
    TESS_ASSIGN_OR_RETURN(std::vector<PlannedShard> plan,
                          PlanShards(value->shape(), value->placement(), value->nd_sbp()));
    TESS_RETURN_IF_ERROR(CheckShardCount(record.name, plan.size()));
    for (const PlannedShard& planned : plan) {
      ShardRecord shard;
      shard.file = ShardFileName(planned.writer);
      shard.slice.assign(planned.layout.ranges, planned.layout.ranges + value->shape().ndim());
      shard.bytes = planned.layout.local_shape.num_elements() *
                    static_cast<int64_t>(DTypeSize(value->dtype()));
      crcs.push_back(0);
      if (planned.writer == rank) {
        std::vector<char>& bytes = data.emplace_back(static_cast<size_t>(shard.bytes));
        TESS_RETURN_IF_ERROR(value->CopyLocalToHost(bytes.data()));
        crcs.back() = Crc32c(bytes.data(), bytes.size());
        entries.push_back(
            SafetensorsEntry{record.name, value->dtype(), planned.layout.local_shape, 0, 0});
      }
      record.shards.push_back(std::move(shard));
    }
    index.tensors.push_back(std::move(record));
  }
  if (entries.empty()) return Status::Ok();
  const std::string header = EncodeSafetensorsHeader(
      entries, {{"format", "tessera-checkpoint-shard"}, {"rank", std::to_string(rank)}});
  std::vector<ByteSpan> spans{{header.data(), header.size()}};
  for (const std::vector<char>& bytes : data) spans.push_back({bytes.data(), bytes.size()});
  return WriteFileDurably(tmp + "/" + file, spans);
}

// Rank 0, after every rank wrote its shards: the index, then the directory swap.
Status WriteIndexAndCommit(const std::string& dir, const std::string& tmp, const std::string& nonce,
                           const Index& index) {
  const std::string json = IndexToJson(index);
  TESS_RETURN_IF_ERROR(WriteFileDurably(tmp + "/" + kIndexFileName, {{json.data(), json.size()}}));
  TESS_RETURN_IF_ERROR(SyncDirectory(tmp));
  const std::string old = dir + ".old-" + nonce;
  const bool had_old = PathExists(dir);
  if (had_old) TESS_RETURN_IF_ERROR(RenamePath(dir, old));
  Status moved_in = RenamePath(tmp, dir);
  if (!moved_in.ok()) {
    // Put the previous checkpoint back; if even that fails, say where it is.
    if (had_old && !RenamePath(old, dir).ok()) {
      return Status(moved_in.code(), moved_in.message() + "; the previous checkpoint is at " + old);
    }
    return moved_in;
  }
  TESS_RETURN_IF_ERROR(SyncDirectory(ParentDirectory(dir)));
  if (had_old) {
    Status removed = RemoveTree(old);
    if (!removed.ok()) {
      return Status(removed.code(), "the new checkpoint is in place at " + dir +
                                        ", but the previous one stays at " + old + ": " +
                                        removed.message());
    }
  }
  return Status::Ok();
}

}  // namespace

Status Save(const std::string& dir_arg, const std::vector<NamedTensor>& tensors) {
  Result<std::string> dir = CheckpointDir(dir_arg);
  Status args = dir.ok() ? CheckSaveArgs(tensors) : dir.status();
  TESS_RETURN_IF_ERROR(AgreeOnWorld(args));
  comm::CallFingerprint call("checkpoint_save", *dir);
  call.Add(comm::CallField::kOp, HashText(*dir));
  for (const auto& [name, value] : tensors) {
    call.Add(comm::CallField::kAttributes, HashText(name))
        .AddLayout(value->shape(), value->dtype(), value->placement(), value->nd_sbp());
  }
  TESS_RETURN_IF_ERROR(AgreeCallInCheckMode(call));
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t world_size, comm::WorldSize());
  TESS_ASSIGN_OR_RETURN(comm::Communicator * world, comm::WorldGroup());

  // Partial values are boxed to B on their partial axes: what is saved is the logical
  // value, as slices. Collective; its errors are every rank's already.
  std::vector<tensor::Tensor> values;
  for (const auto& [name, value] : tensors) {
    const NdSbp sliced = WithoutPartial(value->nd_sbp());
    if (sliced == value->nd_sbp()) {
      values.push_back(value);
    } else {
      TESS_ASSIGN_OR_RETURN(tensor::Tensor boxed,
                            tensor::ToGlobal(value, value->placement(), sliced));
      values.push_back(std::move(boxed));
    }
  }

  int64_t nonce = rank == 0 ? static_cast<int64_t>(MakeNonce()) : 0;
  TESS_RETURN_IF_ERROR(world->Broadcast(&nonce, 1, DType::kI64, 0));
  const std::string nonce_text = Hex(static_cast<uint64_t>(nonce));
  const std::string tmp = *dir + ".tmp-" + nonce_text;

  Status made;
  if (rank == 0) {
    made = CheckReplaceable(*dir);
    if (made.ok()) made = MakeDirectory(tmp);
  }
  TESS_RETURN_IF_ERROR(AgreeOnWorld(made));

  // From here on a failure removes the temporary directory (rank 0, after all agreed).
  auto abandon = [&](Status failed) {
    if (rank == 0) (void)RemoveTree(tmp);
    return failed;
  };
  Index index;
  index.world_size = world_size;
  std::vector<int64_t> crcs;
  Status wrote = WriteOwnShards(tmp, rank, tensors, values, index, crcs);
  Status all_wrote = AgreeOnWorld(wrote);
  if (!all_wrote.ok()) return abandon(all_wrote);

  // Each shard's CRC is non-zero-summed from its one writer: a sum gathers them all.
  if (!crcs.empty()) {
    Status summed = world->AllReduce(crcs.data(), crcs.data(), static_cast<int64_t>(crcs.size()),
                                     DType::kI64, comm::ReduceOp::kSum);
    if (!summed.ok()) return abandon(summed);
  }
  size_t slot = 0;
  for (TensorRecord& record : index.tensors) {
    for (ShardRecord& shard : record.shards) shard.crc32c = static_cast<uint32_t>(crcs[slot++]);
  }

  Status committed = rank == 0 ? WriteIndexAndCommit(*dir, tmp, nonce_text, index) : Status::Ok();
  Status all_committed = AgreeOnWorld(committed);
  if (!all_committed.ok() && rank == 0 && PathExists(tmp)) (void)RemoveTree(tmp);
  return all_committed;
}

}  // namespace tessera::checkpoint
