"""Sharded checkpoints (docs/checkpoints.md): save_checkpoint, load_checkpoint,
checkpoint_index. A checkpoint is a directory of safetensors files, one per rank that
holds shards, and index.json. Saving and loading are collective over the world (every
rank calls, with the same arguments); a failure on any rank raises the same error on
every rank, naming the file and the tensor."""

import collections
import os

from . import _capi
from ._capi import CheckpointIndex, CheckpointWriter, Tensor
from ._dtypes import dtype_code
from ._errors import invalid_argument
from ._handles import handle_protocols
from ._placement import require
from ._runtime import ensure_started

handle_protocols(CheckpointWriter, lambda self: "<tessera.CheckpointWriter>")
handle_protocols(CheckpointIndex, lambda self: "<tessera.CheckpointIndex>")

CheckpointEntry = collections.namedtuple(
    "CheckpointEntry", "name shape dtype placement sbp num_shards")
CheckpointEntry.__module__ = "tessera"
CheckpointEntry.__doc__ = (
    "One tensor of a checkpoint's index: its name, logical shape (a tuple), dtype (a "
    "tess_dtype value), the placement and sbp it was saved from (text), and the number "
    "of shards it was written in.")


def save_checkpoint(path, tensors):
    """Saves `tensors` (a dict of name -> Tensor, or (name, Tensor) pairs; the index keeps
    their order) into the directory `path`, atomically: it is written aside and renamed
    into place once every rank has finished, so `path` holds the previous checkpoint,
    intact, until then. `path` may be absent, empty or a checkpoint; its parent must
    exist. Collective over the world."""
    items = list(tensors.items() if isinstance(tensors, dict) else tensors)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Tensor)):
            raise invalid_argument("save_checkpoint: tensors must map names to Tensors; got %r"
                                   % (item,))
    ensure_started()
    with _capi.checkpoint_writer_create() as writer:
        for name, tensor in items:
            _capi.checkpoint_writer_add(writer, name, tensor)
        _capi.checkpoint_writer_save(writer, os.fspath(path))


def load_checkpoint(path, name, placement=None, sbp=None, shape=None, dtype=None):
    """Tensor `name` of the checkpoint at `path`, held as `sbp` on `placement` (any layout:
    loading reshards, also onto another number of ranks). With `shape` and/or `dtype`,
    raises InvalidArgumentError unless the saved tensor has them. Collective over the
    world."""
    p, s = require("load_checkpoint", placement, sbp)
    path = os.fspath(path)
    ensure_started()
    if shape is None and dtype is None:
        return _capi.checkpoint_load(path, name, p, s)
    if shape is None or dtype is None:
        # The missing half comes from the index, so only the given one is checked.
        saved = {e.name: e for e in checkpoint_index(path)}.get(name)
        if saved is None:
            return _capi.checkpoint_load(path, name, p, s)  # raises NotFoundError
        shape = saved.shape if shape is None else shape
        dtype = saved.dtype if dtype is None else dtype
    return _capi.checkpoint_load_checked(path, name, p, s, [int(d) for d in shape],
                                         dtype_code(dtype))


def checkpoint_index(path):
    """The tensors of the checkpoint at `path`, in saved order, as CheckpointEntry
    values. Local: reads index.json only."""
    with _capi.checkpoint_index_open(os.fspath(path)) as index:
        return [CheckpointEntry(_capi.checkpoint_index_name(index, i),
                                _capi.checkpoint_index_shape(index, i),
                                _capi.checkpoint_index_dtype(index, i),
                                _capi.checkpoint_index_placement(index, i),
                                _capi.checkpoint_index_nd_sbp(index, i),
                                _capi.checkpoint_index_num_shards(index, i))
                for i in range(_capi.checkpoint_index_num_tensors(index))]
