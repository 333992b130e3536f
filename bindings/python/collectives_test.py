"""Boxing and collectives on numpy arrays in a world of one rank: ts.box, ts.box_plan,
ts.allreduce, ts.bucketed_allreduce / BucketedAllReducer and the collective timeout.
Over one rank every piece is the whole tensor and every reduction the identity, so
the oracle is the input itself; plans are checked on placements of several ranks,
which need no world. Multi-rank runs: collectives_mpi_test.py."""

import unittest

import numpy as np

import tessera as ts


def values(shape, dtype=np.float32, salt=0):
    n = int(np.prod(shape))
    v = (np.arange(n) * 7 + salt) % 23 - 11
    return (v * 0.25).astype(dtype).reshape(shape)


class CollectivesTestCase(unittest.TestCase):
    def assertTesseraError(self, cls, text, fn, *args, **kwargs):
        with self.assertRaises(cls) as ctx:
            fn(*args, **kwargs)
        self.assertIsInstance(ctx.exception, ts.TesseraError)
        self.assertEqual(text, ctx.exception.message)
        return ctx.exception


class BoxTest(CollectivesTestCase):
    def test_one_rank_hands_back_its_input(self):
        sbps = [ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast, ts.sbp.partial_sum,
                ts.sbp.partial_max, ts.sbp.partial_min]
        for dtype in (np.float32, np.float64, np.int32, np.int64):
            a = values((5, 7), dtype)
            for src in sbps:
                for dst in sbps:
                    out = ts.box(a, a.shape, "cpu:[0]", src, "cpu:[0]", dst)
                    self.assertEqual(out.dtype, a.dtype)
                    np.testing.assert_array_equal(out, a)
        a = values((3, 4))
        out = ts.box(a, (3, 4), "cpu:[[0]]", (ts.sbp.split(1), ts.sbp.partial_sum),
                     ts.placement("cpu", ranks=[0]), "B")
        np.testing.assert_array_equal(out, a)
        # dst defaults to the source, and dtype converts the input.
        np.testing.assert_array_equal(ts.box(a, (3, 4), "cpu:[0]", "S(0)", dtype="f64"),
                                      a.astype(np.float64))
        scalar = ts.box(np.float64(2.5), (), "cpu:[0]", "B", "cpu:[[0]]", "(P, B)")
        self.assertEqual(scalar.shape, ())
        self.assertEqual(float(scalar), 2.5)

    def test_box_bad_inputs(self):
        a = values((5, 7))
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "box: local has shape (5, 6) but rank 0's piece of (5, 7) as S(0) on cpu:[0] has "
            "shape (5, 7)", ts.box, a[:, :6], (5, 7), "cpu:[0]", "S(0)")
        self.assertTesseraError(ts.InvalidArgumentError,
                                "box: dtype is required when local is None",
                                ts.box, None, (5, 7), "cpu:[0]", "S(0)")
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "box: rank 0 is not in the source placement cpu:[1], so local must be None or empty",
            ts.box, a, (5, 7), "cpu:[1]", "S(0)", "cpu:[0]", "B")
        self.assertTesseraError(
            ts.OutOfRangeError,
            "tess_boxing_run: Box: src placement cpu:[1] names rank 1 but the world has 1 ranks",
            ts.box, None, (5, 7), "cpu:[1]", "S(0)", "cpu:[0]", "B", dtype=np.float32)
        # f16 boxes like any other dtype (numpy float16 in, float16 out).
        half = ts.box(a.astype(np.float16), (5, 7), "cpu:[0]", "S(0)", "cpu:[0]", "B")
        np.testing.assert_array_equal(half, a.astype(np.float16))

    def test_box_plan(self):
        plan = ts.box_plan((6, 4), "f32", "cpu:[0,1]", "S(0)", "cpu:[0,1]", ts.sbp.broadcast)
        self.assertEqual(plan.num_steps, 1)
        self.assertTrue(plan.steps[0].startswith("axis 0: S(0) -> B  all-gather"), plan.steps)
        text = str(plan)
        self.assertTrue(text.startswith("boxing f32[6,4]: cpu:[0,1] S(0) -> cpu:[0,1] B\n"), text)
        self.assertIn("\n1. " + plan.steps[0] + "\n", text)
        self.assertIn("total: 1 step", text)
        self.assertGreater(plan.cost, 0)
        across = ts.box_plan((7, 5), np.int64, "cpu:[[0,1],[2,3]]", "(S(0), P)", "cpu:[4,5]",
                             "S(0)")
        self.assertGreaterEqual(across.num_steps, 2)
        self.assertTrue(any(s.startswith("reshard ") for s in across.steps), str(across))
        same = ts.box_plan((3,), "f64", "cpu:[0]", "B")
        self.assertEqual((same.num_steps, same.steps, same.cost), (0, (), 0.0))
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "tess_boxing_plan_create: src nd-sbp S(2) splits tensor axis 2 but the tensor of "
            "shape [6,4] has 2 axes",
            ts.box_plan, (6, 4), "f32", "cpu:[0,1]", "S(2)", "cpu:[0,1]", "B")


class AllReduceTest(CollectivesTestCase):
    def test_one_rank_is_the_identity(self):
        for dtype in (np.float32, np.float64, np.int32, np.int64):
            for op in ("sum", "max", "min", ts.REDUCE_SUM):
                for algorithm in ("flat", "auto", "hierarchical", ts.ALLREDUCE_FLAT):
                    a = values((4, 9), dtype)
                    self.assertIs(ts.allreduce(a, op, algorithm=algorithm), a)
                    np.testing.assert_array_equal(a, values((4, 9), dtype))
        a = values(6)
        ts.allreduce(a, "max", placement="cpu:[0]")
        np.testing.assert_array_equal(a, values(6))

    def test_bad_inputs(self):
        self.assertTesseraError(ts.InvalidArgumentError,
                                "allreduce: op 'avg' is not one of max, min, sum",
                                ts.allreduce, values(3), "avg")
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "allreduce: algorithm 'ring' is not one of auto, flat, hierarchical",
            ts.allreduce, values(3), algorithm="ring")
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "allreduce: array must be C-contiguous and writable: it is reduced in place",
            ts.allreduce, values((4, 4))[:, 1])
        frozen = values(3)
        frozen.flags.writeable = False
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "allreduce: array must be C-contiguous and writable: it is reduced in place",
            ts.allreduce, frozen)
        with self.assertRaises(TypeError):
            ts.allreduce([1.0, 2.0])
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "tess_comm_allreduce: op 7 is not a known reduce op (sum 0, max 1, min 2)",
            ts.allreduce, values(3), 7)
        self.assertTesseraError(
            ts.OutOfRangeError,
            "tess_comm_allreduce: placement cpu:[0,1] names rank 1 but the world has 1 ranks",
            ts.allreduce, values(3), placement="cpu:[0,1]")


class BucketedAllReduceTest(CollectivesTestCase):
    def test_hundred_arrays_in_place(self):
        arrays = [values((i * 37) % 150, np.float64, i) for i in range(100)]
        want = [a.copy() for a in arrays]
        reducer = ts.BucketedAllReducer(1024)
        for op in ("sum", "max", "min"):
            self.assertIs(reducer.allreduce(arrays, op)[7], arrays[7])
            for a, w in zip(arrays, want):
                np.testing.assert_array_equal(a, w)
        stats = reducer.stats
        self.assertEqual((stats.calls, stats.plans_built), (3, 1))
        self.assertGreater(stats.buckets, stats.in_place_buckets)
        self.assertGreater(stats.in_place_buckets, 0)
        # The module function keeps a reducer per thread.
        ts.bucketed_allreduce(arrays, placement="cpu:[0]")
        ts.bucketed_allreduce(arrays)
        for a, w in zip(arrays, want):
            np.testing.assert_array_equal(a, w)
        self.assertEqual(ts.bucketed_allreduce([]), [])

    def test_bad_inputs(self):
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "bucketed_allreduce: arrays[1] is float64 but arrays[0] is float32; one dtype per "
            "call", ts.bucketed_allreduce, [values(3), values(3, np.float64)])
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "bucketed_allreduce: arrays[0] must be C-contiguous and writable: it is reduced in "
            "place", ts.bucketed_allreduce, [values((3, 3)).T])
        # f16 reduces like any other dtype (one rank: unchanged).
        half = values(3, np.float16)
        ts.bucketed_allreduce([half])
        np.testing.assert_array_equal(half, values(3, np.float16))
        self.assertTesseraError(
            ts.InvalidArgumentError,
            "tess_bucketed_allreducer_create: options->bucket_bytes is -1; expected >= 0 (0 = "
            "the default, 25 MiB)",
            ts.BucketedAllReducer, -1)


class TimeoutTest(CollectivesTestCase):
    def test_set_and_read(self):
        ts.set_collective_timeout(3.25)
        try:
            self.assertEqual(ts.collective_timeout(), 3.25)
            a = values(5)
            ts.allreduce(a)
            np.testing.assert_array_equal(a, values(5))
            self.assertTesseraError(
                ts.InvalidArgumentError,
                "tess_comm_set_collective_timeout: seconds is -2; it must be a finite number >= 0 "
                "(0 = no limit)", ts.set_collective_timeout, -2)
            self.assertEqual(ts.collective_timeout(), 3.25)
        finally:
            ts.set_collective_timeout(0)
        self.assertEqual(ts.collective_timeout(), 0)


if __name__ == "__main__":
    unittest.main()
