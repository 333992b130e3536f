"""The Python tensor API under mpirun (2, 3 and 4 ranks): every rank runs this script,
so every collective call happens everywhere in the same order. Results are checked
against numpy on the logical values each rank builds itself; values are multiples of
1/4, so float sums are exact in any order. Exits non-zero on any failure."""

import unittest

import numpy as np

import tessera as ts
from tessera_test_util import mpi_main

RANK = ts.world_rank()
SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))
SBPS = [ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast, ts.sbp.partial_sum,
        ts.sbp.partial_max, ts.sbp.partial_min]


def values(shape, salt=0, dtype=np.float32):
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + salt) % 23 - 11) * 0.25).astype(dtype).reshape(shape)


def layouts():
    """(placement, sbp) pairs: every 1-d sbp on the world; with 4 ranks the grid too."""
    out = [(WORLD, s) for s in SBPS]
    if SIZE == 4:
        grid = ts.placement("cpu", ranks=[[0, 1], [2, 3]])
        out += [(grid, (ts.sbp.split(0), ts.sbp.split(1))),
                (grid, (ts.sbp.partial_sum, ts.sbp.split(0))),
                (grid, (ts.sbp.broadcast, ts.sbp.partial_max))]
    return out


class MpiTensorTest(unittest.TestCase):
    def test_world(self):
        self.assertGreater(SIZE, 1)
        self.assertEqual(len(WORLD), SIZE)

    def test_synchronize(self):
        # cpu pieces: returns at once on every rank, and on a rank outside the placement.
        t = ts.tensor(values((2, 3)), placement=ts.placement("cpu", ranks=[0]), sbp="B")
        self.assertIsNone(t.synchronize())
        with self.assertRaisesRegex(ts.InvalidArgumentError,
                                    'tess_tensor_synchronize: argument "tensor" is NULL'):
            ts.tensor_synchronize(None)

    def test_ops_to_global_numpy(self):
        x, y, w = values((5, 3)), values((5, 3), 5), values((3, 4), 9)
        want = (np.maximum((x + y) * x, 0) @ w).sum(axis=0)
        for p, s in layouts():
            with self.subTest(placement=str(p), sbp=str(s)):
                bcast = tuple(ts.sbp.broadcast for _ in range(p.num_axes))
                tx = ts.tensor(x, placement=p, sbp=s)
                ty = ts.tensor(y, placement=p, sbp=bcast)
                tw = ts.tensor(w, placement=p, sbp=ts.sbp.split(1) if p.num_axes == 1 else bcast)
                out = ts.reduce_sum(ts.relu((tx + ty) * tx) @ tw, 0)
                np.testing.assert_array_equal(out.numpy(), want)
                moved = out.to_global(placement=WORLD, sbp=ts.sbp.broadcast)
                np.testing.assert_array_equal(moved.to_local(), want)
                np.testing.assert_allclose((tx / 2 - 1).numpy(), x / 2 - 1)

    def test_check_mode(self):
        # ts.init(check=True): the last rank's mul against the others' add raises
        # FailedPreconditionError on every rank, naming it; then the ranks stay in step.
        ts.init(check=True)
        try:
            x = ts.tensor(values((6,)), placement=WORLD, sbp=ts.sbp.split(0))
            last = RANK == SIZE - 1
            with self.assertRaises(ts.FailedPreconditionError) as caught:
                _ = x * x if last else x + x
            self.assertIn("did not issue the same call: op: rank %d differs from rank" %
                          (SIZE - 1), caught.exception.message)
            np.testing.assert_array_equal((x + x).numpy(), 2 * values((6,)))
        finally:
            ts.init(check=False)

    def test_to_global_between_layouts(self):
        a = values((7, 5), 3)
        for p_in, s_in in layouts():
            t = ts.tensor(a, placement=p_in, sbp=s_in)
            for p_out, s_out in layouts():
                with self.subTest(src=str(t), dst="%s %s" % (p_out, s_out)):
                    np.testing.assert_array_equal(
                        t.to_global(placement=p_out, sbp=s_out).numpy(), a)

    def test_local_pieces_and_dlpack(self):
        a = values((7, 5), 1)
        for p, s in layouts():
            t = ts.tensor(a, placement=p, sbp=s)
            if any(str(v).startswith("P") for v in t.sbp):
                continue  # partial pieces are not slices of the value
            with self.subTest(tensor=str(t)):
                l = ts.layout(p, t.nd_sbp, a.shape, RANK)
                piece = a[tuple(slice(b, e) for b, e in l.ranges)]
                np.testing.assert_array_equal(t.to_local(), piece)
                view = np.from_dlpack(t)
                np.testing.assert_array_equal(view, piece)
                # Importing either as this rank's piece gives the tensor back.
                for source in (t, view, piece):
                    back = ts.from_dlpack(source, placement=p, sbp=t.sbp)
                    np.testing.assert_array_equal(back.numpy(), a)

    def test_from_local_uneven(self):
        rows = 3 * SIZE + 1  # rank 0 holds 4 rows, the others 3
        a = values((rows, 2), 4)
        first = 0 if RANK == 0 else 4 + 3 * (RANK - 1)
        mine = 4 if RANK == 0 else 3
        t = ts.from_local(a[first:first + mine], placement=WORLD, sbp=ts.sbp.split(0))
        self.assertEqual(t.shape, (rows, 2))
        np.testing.assert_array_equal(t.numpy(), a)
        part = np.full((2, 3), RANK + 1, np.int64)
        t = ts.from_local(part, placement=WORLD, sbp=ts.sbp.partial_sum, shape=(2, 3))
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), SIZE * (SIZE + 1) // 2))

    def test_sub_placement(self):
        last = ts.placement("cpu", ranks=[SIZE - 1])
        a = values((2, 3), 2)
        t = -ts.tensor(a, placement=last, sbp=ts.sbp.broadcast)
        self.assertEqual(t.has_local, RANK == SIZE - 1)
        np.testing.assert_array_equal(t.numpy(), -a)
        if not t.has_local:
            with self.assertRaises(ts.FailedPreconditionError):
                t.to_local()
        with self.assertRaises(ts.InvalidArgumentError) as ctx:
            ts.add(ts.tensor(a, placement=WORLD, sbp=ts.sbp.broadcast), t)
        self.assertIn(str(last), ctx.exception.message)

    def test_explain_shows_boxing(self):
        x = ts.tensor(values((4, 6)), placement=WORLD, sbp=ts.sbp.split(0))
        y = ts.tensor(values((4, 6), 1), placement=WORLD, sbp=ts.sbp.split(1))
        np.testing.assert_array_equal((x + y).numpy(), values((4, 6)) + values((4, 6), 1))
        text = ts.explain().text
        self.assertIn("add", text)
        self.assertIn("S(1) -> S(0)", text)


if __name__ == "__main__":
    mpi_main()
