"""Checkpoints from Python under mpirun (1 and 3 ranks): save_checkpoint, checkpoint_index,
load_checkpoint into other layouts (values checked against numpy), shape/dtype checks,
and a corrupted shard raising DataLossError on every rank, naming the file."""

import json
import os
import struct
import tempfile
import unittest

import numpy as np

import tessera as ts
from tessera_test_util import TesseraTestCase, mpi_main

RANK = ts.world_rank()
SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))
# Every rank must use the same directory: Bazel's TEST_TMPDIR, inherited through mpirun.
BASE = os.environ.get("TEST_TMPDIR", tempfile.gettempdir())


def values(shape, salt, dtype=np.float32):
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + salt) % 23 - 11) * 0.25).astype(dtype).reshape(shape)


LAYOUTS = [ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast, ts.sbp.partial_sum]


class CheckpointTest(TesseraTestCase):
    def test_round_trip_into_every_layout(self):
        path = os.path.join(BASE, "py_round_trip")
        w = values((7, 5), 1)
        b = values((5,), 2, np.float64)
        step = np.array(3, dtype=np.int64)
        ts.save_checkpoint(path, {"w": ts.tensor(w, placement=WORLD, sbp=ts.sbp.split(0)),
                                  "b": ts.tensor(b, placement=WORLD, sbp=ts.sbp.partial_sum),
                                  "step": ts.tensor(step, placement=WORLD, sbp=ts.sbp.broadcast)})
        index = ts.checkpoint_index(path)
        self.assertEqual([e.name for e in index], ["w", "b", "step"])
        self.assertEqual(index[0].shape, (7, 5))
        self.assertEqual(index[0].dtype, ts.DTYPE_F32)
        self.assertEqual(index[0].placement, str(WORLD))
        self.assertEqual(index[0].sbp, "S(0)")
        self.assertEqual(index[0].num_shards, min(SIZE, 7))
        self.assertEqual(index[1].sbp, "P")
        self.assertEqual(index[1].num_shards, 1)
        self.assertEqual(index[2].shape, ())
        for sbp in LAYOUTS:
            with self.subTest(sbp=str(sbp)):
                t = ts.load_checkpoint(path, "w", placement=WORLD, sbp=sbp)
                np.testing.assert_array_equal(t.numpy(), w)
                if str(sbp) != str(ts.sbp.split(1)):  # b has one axis
                    t = ts.load_checkpoint(path, "b", placement=WORLD, sbp=sbp, dtype="float64")
                    np.testing.assert_array_equal(t.numpy(), b)
        one = ts.placement("cpu", ranks=[SIZE - 1])
        t = ts.load_checkpoint(path, "step", placement=one, sbp=ts.sbp.broadcast, shape=())
        self.assertEqual(int(t.numpy()), 3)

    def test_shard_files_are_safetensors(self):
        """A shard file read with struct, json and numpy alone, as the safetensors format
        defines it: each entry holds its slice of the logical value."""
        path = os.path.join(BASE, "py_format")
        w = values((7, 3), 4)
        ts.save_checkpoint(path, {"w": ts.tensor(w, placement=WORLD, sbp=ts.sbp.split(0))})
        rows = [7 // SIZE + (1 if r < 7 % SIZE else 0) for r in range(SIZE)]
        begin = sum(rows[:RANK])
        with open(os.path.join(path, "rank-%05d.safetensors" % RANK), "rb") as f:
            blob = f.read()
        (n,) = struct.unpack("<Q", blob[:8])
        header = json.loads(blob[8:8 + n])
        self.assertEqual(n % 8, 0)
        entry = header["w"]
        self.assertEqual(entry["dtype"], "F32")
        self.assertEqual(entry["shape"], [rows[RANK], 3])
        start, end = entry["data_offsets"]
        data = np.frombuffer(blob[8 + n + start:8 + n + end], dtype="<f4").reshape(rows[RANK], 3)
        np.testing.assert_array_equal(data, w[begin:begin + rows[RANK]])
        self.assertEqual(header["__metadata__"]["rank"], str(RANK))

    def test_errors(self):
        path = os.path.join(BASE, "py_errors")
        ts.save_checkpoint(path, [("w", ts.tensor(values((6, 4), 3), placement=WORLD,
                                                  sbp=ts.sbp.split(0)))])
        self.assertTesseraError(ts.NotFoundError, 'has no tensor "nope"', ts.load_checkpoint,
                                path, "nope", placement=WORLD, sbp=ts.sbp.broadcast)
        self.assertTesseraError(ts.InvalidArgumentError, "not the shape [4,6] asked for",
                                ts.load_checkpoint, path, "w", placement=WORLD,
                                sbp=ts.sbp.broadcast, shape=(4, 6))
        self.assertTesseraError(ts.InvalidArgumentError, "not the dtype i32 asked for",
                                ts.load_checkpoint, path, "w", placement=WORLD,
                                sbp=ts.sbp.broadcast, dtype="int32")
        self.assertTesseraError(ts.NotFoundError, "missing checkpoint index",
                                ts.checkpoint_index, os.path.join(BASE, "py_absent"))
        self.assertTesseraError(ts.InvalidArgumentError, "must map names to Tensors",
                                ts.save_checkpoint, path, {"w": 1.0})
        # One flipped byte at the end of the last rank's shard: every rank raises.
        shard = os.path.join(path, "rank-%05d.safetensors" % (SIZE - 1))
        if RANK == 0:
            with open(shard, "r+b") as f:
                f.seek(-1, os.SEEK_END)
                last = f.read(1)
                f.seek(-1, os.SEEK_END)
                f.write(bytes([last[0] ^ 0x40]))
        ts.allreduce(np.zeros(1, np.float32), placement=WORLD)  # everyone waits for the damage
        self.assertTesseraError(ts.DataLossError, 'corrupt shard of tensor "w" in ' + shard,
                                ts.load_checkpoint, path, "w", placement=WORLD,
                                sbp=ts.sbp.split(0))


if __name__ == "__main__":
    mpi_main()
