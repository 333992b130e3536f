package tessera

// Sharded checkpoints (docs/checkpoints.md): a directory of safetensors files, one per
// rank that holds shards, and index.json. SaveCheckpoint and LoadCheckpoint are
// collective over the world: every rank calls with the same arguments, and an error on
// any rank (a corrupt shard only one rank reads) is returned on every rank, naming the
// file and the tensor. ReadCheckpointIndex is local.

import (
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// NamedTensor is one tensor of a checkpoint and its name.
type NamedTensor struct {
	// Name is the tensor's name in the checkpoint (1 to 1024 bytes, no control
	// characters, not "__metadata__").
	Name string
	// Tensor is the tensor saved under Name.
	Tensor *Tensor
}

// SaveCheckpoint saves tensors (the index keeps their order) into dir, atomically: it
// is written aside and renamed into place once every rank has finished, so dir holds
// the previous checkpoint, intact, until then. dir may be absent, empty or a
// checkpoint; its parent must exist. Each distinct slice is written once; a partial
// tensor's logical value is saved.
func SaveCheckpoint(dir string, tensors []NamedTensor) error {
	if err := Init(); err != nil {
		return err
	}
	out := []uintptr{0}
	if err := capi.Checkpoint_writer_create(out); err != nil {
		return err
	}
	writer := capi.SwigcptrCheckpointWriter(out[0])
	defer capi.DeleteCheckpointWriter(writer)
	for _, nt := range tensors {
		err := capi.Checkpoint_writer_add(writer, nt.Name, nt.Tensor.c())
		runtime.KeepAlive(nt.Tensor)
		if err != nil {
			return err
		}
	}
	return capi.Checkpoint_writer_save(writer, dir)
}

// LoadCheckpoint is tensor name of the checkpoint at dir, held as ndSbp on placement:
// any layout, also on another number of ranks than it was saved from (loading
// reshards). Each rank reads only the shards overlapping its piece and checks their
// CRC32C. ErrNotFound: no index, no such tensor, a missing shard; ErrDataLoss: a
// malformed, truncated or corrupt file.
func LoadCheckpoint(dir, name string, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Checkpoint_load(out, dir, name, placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// LoadCheckpointChecked is LoadCheckpoint, and ErrInvalidArgument on every rank unless
// the saved tensor has shape and dtype ("f32", ...).
func LoadCheckpointChecked(dir, name string, placement *Placement, ndSbp *NdSbp, shape []int64,
	dtype string) (*Tensor, error) {
	d, err := ParseDType(dtype)
	if err != nil {
		return nil, err
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err = capi.Checkpoint_load_checked(out, dir, name, placement.c(), ndSbp.c(), shape, int(d))
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// CheckpointEntry is one tensor of a checkpoint's index: its name, logical shape,
// dtype, the placement and nd-sbp it was saved from, and its number of shards.
type CheckpointEntry struct {
	// Name is the tensor's name.
	Name string
	// Shape is its logical shape (empty for a 0-d tensor).
	Shape []int64
	// DType is its dtype's name, e.g. "f32".
	DType string
	// Placement is the placement it was saved from, e.g. "cpu:[0,1]".
	Placement string
	// NdSbp is the nd-sbp it was saved as, e.g. "S(0)" (a partial tensor says "P").
	NdSbp string
	// NumShards is the number of shards it was written in.
	NumShards int64
}

// ReadCheckpointIndex lists the tensors of the checkpoint at dir in saved order.
// Local: reads index.json only.
func ReadCheckpointIndex(dir string) ([]CheckpointEntry, error) {
	out := []uintptr{0}
	if err := capi.Checkpoint_index_open(out, dir); err != nil {
		return nil, err
	}
	index := capi.SwigcptrCheckpointIndex(out[0])
	defer capi.DeleteCheckpointIndex(index)
	count := []int64{0}
	if err := capi.Checkpoint_index_num_tensors(count, index); err != nil {
		return nil, err
	}
	entries := make([]CheckpointEntry, count[0])
	for i := range entries {
		e := &entries[i]
		at := int64(i)
		e.Name = capi.Checkpoint_index_name(index, at)
		e.Placement = capi.Checkpoint_index_placement(index, at)
		e.NdSbp = capi.Checkpoint_index_nd_sbp(index, at)
		dtype, shards := []int32{0}, []int64{0}
		if err := capi.Checkpoint_index_shape(&e.Shape, index, at); err != nil {
			return nil, err
		}
		if err := capi.Checkpoint_index_dtype(dtype, index, at); err != nil {
			return nil, err
		}
		if err := capi.Checkpoint_index_num_shards(shards, index, at); err != nil {
			return nil, err
		}
		e.DType, e.NumShards = DTypeName(dtype[0]), shards[0]
	}
	return entries, nil
}
