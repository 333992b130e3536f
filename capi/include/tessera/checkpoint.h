/*
 * Tessera C API. Sharded checkpoints of global tensors (docs/checkpoints.md).
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_CHECKPOINT_H_
#define TESSERA_CHECKPOINT_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/dtype.h"
#include "tessera/placement.h"
#include "tessera/sbp.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A checkpoint is a directory: one safetensors file per rank that holds shards
 * ("rank-00003.safetensors") and index.json (each tensor's shape, dtype, placement,
 * nd-sbp and shards, each shard's slice and CRC32C). The directory must be on a
 * filesystem every rank sees at the same path.
 *
 * Saving and loading are collective over the WORLD: every rank calls, with the same
 * arguments, in the same order (as for tensor creation). A failure on any rank (a
 * full disk, a corrupt shard that only one rank reads) is returned by every rank:
 * the lowest failing rank's error, naming the file and the tensor. Errors:
 * INVALID_ARGUMENT for bad arguments; NOT_FOUND for a missing index, tensor name or
 * shard file; DATA_LOSS for a malformed index or safetensors header, a truncated
 * shard or a checksum mismatch ("corrupt shard"); FAILED_PRECONDITION before
 * tess_runtime_init. */

/* The named tensors of one save: built locally with tess_checkpoint_writer_add,
 * written collectively with tess_checkpoint_writer_save. Holds a reference to each
 * tensor. One thread at a time. */
typedef struct tess_checkpoint_writer tess_checkpoint_writer;

TESS_API tess_status tess_checkpoint_writer_create(tess_checkpoint_writer** out);
TESS_API void tess_checkpoint_writer_destroy(tess_checkpoint_writer* writer);
/* Adds `tensor` as `name` (1 to 1024 bytes, no control characters, not
 * "__metadata__"). INVALID_ARGUMENT for a bad or repeated name or a placeholder of a
 * capture. Local. */
TESS_API tess_status tess_checkpoint_writer_add(tess_checkpoint_writer* writer, const char* name,
                                                const tess_tensor* tensor);
/* Saves the writer's tensors into `dir`, atomically: everything is written to the
 * sibling directory "<dir>.tmp-<nonce>" and fsync'd; once every rank has finished,
 * rank 0 renames an existing <dir> aside, renames the new one to <dir> and removes
 * the old one. <dir> holds the previous checkpoint, intact, until then, and a failed
 * save leaves it as it was. <dir> may be absent, an empty directory or a checkpoint
 * (FAILED_PRECONDITION for anything else: it is never replaced); its parent must
 * exist. Each distinct slice is written once, by the lowest rank holding it; a P
 * tensor's logical value is saved. Collective over the world. */
TESS_API tess_status tess_checkpoint_writer_save(const tess_checkpoint_writer* writer,
                                                 const char* dir);

/* Tensor `name` of the checkpoint at `dir`, as `nd_sbp` on `placement` (any cpu or
 * cuda placement of the world and any nd-sbp that fits: loading reshards, also onto
 * another number of ranks). Each rank reads only the shards overlapping its piece and
 * checks their checksums. Collective over the world. */
TESS_API tess_status tess_checkpoint_load(tess_tensor** out, const char* dir, const char* name,
                                          const tess_placement* placement,
                                          const tess_nd_sbp* nd_sbp);
/* tess_checkpoint_load, and INVALID_ARGUMENT on every rank unless the saved tensor
 * has this shape (ndim dims) and dtype. */
TESS_API tess_status tess_checkpoint_load_checked(tess_tensor** out, const char* dir,
                                                  const char* name, const tess_placement* placement,
                                                  const tess_nd_sbp* nd_sbp, const int64_t* shape,
                                                  size_t ndim, tess_dtype dtype);

/* A checkpoint's index, read once: the tensors in saved order and their metadata.
 * Local (no communication); immutable, so any thread may read it. */
typedef struct tess_checkpoint_index tess_checkpoint_index;

TESS_API tess_status tess_checkpoint_index_open(tess_checkpoint_index** out, const char* dir);
TESS_API void tess_checkpoint_index_destroy(tess_checkpoint_index* index);
TESS_API tess_status tess_checkpoint_index_num_tensors(size_t* out,
                                                       const tess_checkpoint_index* index);
/* Tensor i's name, and its placement and nd-sbp as saved ("cpu:[0,1]", "S(0)"); ""
 * for NULL or past the last tensor. Valid while `index` lives. */
TESS_API const char* tess_checkpoint_index_name(const tess_checkpoint_index* index, size_t i);
TESS_API const char* tess_checkpoint_index_placement(const tess_checkpoint_index* index, size_t i);
TESS_API const char* tess_checkpoint_index_nd_sbp(const tess_checkpoint_index* index, size_t i);
/* Tensor i's logical shape, borrowed: valid while `index` lives. INVALID_ARGUMENT
 * past the last tensor, as for the two below. */
TESS_API tess_status tess_checkpoint_index_shape(const int64_t** out_dims, size_t* out_ndim,
                                                 const tess_checkpoint_index* index, size_t i);
TESS_API tess_status tess_checkpoint_index_dtype(tess_dtype* out,
                                                 const tess_checkpoint_index* index, size_t i);
/* The number of shards tensor i was saved in. */
TESS_API tess_status tess_checkpoint_index_num_shards(size_t* out,
                                                      const tess_checkpoint_index* index, size_t i);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_CHECKPOINT_H_ */
