"""ts.box, ts.allreduce and ts.bucketed_allreduce under mpirun (2 and 3 ranks): every
rank runs this script, so every collective happens everywhere in the same order.
Each rank cuts its source piece from a logical array it builds itself (slices by
ts.layout's ranges; for partial sum, rank 0 of the placement holds the value and the
others zeros) and compares the result with numpy. Values are multiples of 1/4, so
float sums are exact in any order. Exits non-zero on any failure."""

import os
import socket
import unittest

import numpy as np

import tessera as ts
from tessera_test_util import mpi_main

RANK = ts.world_rank()
SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))


def values(shape, salt=0, dtype=np.float32):
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + salt) % 23 - 11) * 0.25).astype(dtype).reshape(shape)


def piece(logical, placement, sbp):
    """This rank's piece of `logical` held as `sbp` (one 1-d sbp) on `placement`."""
    if RANK not in placement:
        return None
    l = ts.layout(placement, ts.NdSbp.parse(str(sbp)), logical.shape, RANK)
    part = logical[tuple(slice(b, e) for b, e in l.ranges)].copy()
    if str(sbp) == "P" and placement.index_of(RANK) != 0:
        part[...] = 0
    return part


def expected_hosts():
    """World rank -> host, from the launcher, not from Tessera: pretend hosts of
    TESSERA_RANKS_PER_HOST, else the hosts tools/multihost.sh states (ranks by block), else
    one host (plain mpirun)."""
    per_host = int(os.environ.get("TESSERA_RANKS_PER_HOST") or 0) or int(
        os.environ.get("TESSERA_TEST_RANKS_PER_HOST") or SIZE)
    return [r // per_host for r in range(SIZE)]


class MpiCollectivesTest(unittest.TestCase):
    def test_world(self):
        self.assertGreater(SIZE, 1)

    def test_topology(self):
        host_of = expected_hosts()
        local_of = [host_of[:r].count(host_of[r]) for r in range(SIZE)]
        sizes = [host_of.count(h) for h in range(max(host_of) + 1)]
        t = ts.topology()
        self.assertEqual((t.world_size, t.world_rank), (SIZE, RANK))
        self.assertEqual((t.host_count, t.host_index), (len(sizes), host_of[RANK]))
        self.assertEqual((t.local_rank, t.local_size), (local_of[RANK], sizes[host_of[RANK]]))
        self.assertEqual((t.min_ranks_per_host, t.max_ranks_per_host), (min(sizes), max(sizes)))
        self.assertEqual(t.pretend_ranks_per_host,
                         int(os.environ.get("TESSERA_RANKS_PER_HOST") or 0))
        for r in range(SIZE):
            self.assertEqual(ts.rank_host(r), (host_of[r], local_of[r]))
        with self.assertRaisesRegex(ts.OutOfRangeError, "world_rank %d" % SIZE):
            ts.rank_host(SIZE)
        text = ts.topology_string()
        self.assertTrue(text.startswith("%d ranks on %d host" % (SIZE, len(sizes))), text)
        self.assertIn(socket.gethostname(), text.splitlines()[1 + host_of[RANK]])

    def test_box_every_pair(self):
        a = values((7, 5), 3)
        sbps = [ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast, ts.sbp.partial_sum]
        backwards = ts.placement("cpu", ranks=list(reversed(range(SIZE))))
        for src in sbps:
            for dst_p in (WORLD, backwards):
                for dst in (ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast):
                    with self.subTest(src=str(src), dst="%s %s" % (dst_p, dst)):
                        out = ts.box(piece(a, WORLD, src), a.shape, WORLD, src, dst_p, dst)
                        np.testing.assert_array_equal(out, piece(a, dst_p, dst))

    def test_box_to_a_sub_placement(self):
        a = values((4, 3), 1, np.int64)
        last = ts.placement("cpu", ranks=[SIZE - 1])
        out = ts.box(piece(a, WORLD, ts.sbp.split(0)), a.shape, WORLD, ts.sbp.split(0), last,
                     ts.sbp.broadcast)
        if RANK == SIZE - 1:
            np.testing.assert_array_equal(out, a)
        else:
            self.assertIsNone(out)
        # And back: only the last rank has a piece to send.
        back = ts.box(out, a.shape, last, ts.sbp.broadcast, WORLD, ts.sbp.split(1), dtype=np.int64)
        np.testing.assert_array_equal(back, piece(a, WORLD, ts.sbp.split(1)))

    def test_box_plan_names_the_steps(self):
        plan = ts.box_plan((7, 5), "f32", WORLD, ts.sbp.partial_sum, WORLD, ts.sbp.split(1))
        self.assertGreater(plan.num_steps, 0)
        for i, step in enumerate(plan.steps):
            self.assertIn("%d. %s\n" % (i + 1, step), str(plan))

    def test_allreduce(self):
        for algorithm in ("flat", "auto", "hierarchical"):
            for op, fn in (("sum", np.sum), ("max", np.max), ("min", np.min)):
                with self.subTest(algorithm=algorithm, op=op):
                    a = values(1000, RANK)
                    want = fn([values(1000, r) for r in range(SIZE)], axis=0)
                    np.testing.assert_array_equal(ts.allreduce(a, op, algorithm=algorithm), want)
        first_two = ts.placement("cpu", ranks=[1, 0])
        a = values(9, RANK, np.int32)
        ts.allreduce(a, "sum", placement=first_two)
        if RANK < 2:
            np.testing.assert_array_equal(a, values(9, 0, np.int32) + values(9, 1, np.int32))
        else:
            np.testing.assert_array_equal(a, values(9, RANK, np.int32))

    def test_bucketed_allreduce_of_a_hundred_arrays(self):
        sizes = [0 if i % 10 == 0 else (i * 29) % 300 for i in range(100)]
        reducer = ts.BucketedAllReducer(1024)
        for op, fn in (("sum", np.sum), ("max", np.max), ("min", np.min)):
            arrays = [values(n, RANK * 3 + i) for i, n in enumerate(sizes)]
            reducer.allreduce(arrays, op)
            for i, n in enumerate(sizes):
                want = fn([values(n, r * 3 + i) for r in range(SIZE)], axis=0)
                np.testing.assert_array_equal(arrays[i], want, err_msg="op %s array %d" % (op, i))
        self.assertEqual(reducer.stats.plans_built, 1)
        self.assertGreater(reducer.stats.buckets, reducer.stats.in_place_buckets)


if __name__ == "__main__":
    mpi_main()
