"""The Python binding's test: every function of tessera.h, happy and bad-input cases."""

import threading
import unittest

import tessera


class TesseraTestCase(unittest.TestCase):
    def assertTesseraError(self, cls, code, text, fn, *args):
        """fn(*args) must raise `cls` (a TesseraError) with `code` and `text` in its message."""
        with self.assertRaises(cls) as ctx:
            fn(*args)
        err = ctx.exception
        self.assertIsInstance(err, tessera.TesseraError)
        self.assertEqual(err.code, code)
        self.assertEqual(err.status, tessera.status_string(code))
        self.assertIn(text, err.message)
        self.assertEqual(str(err), "%s: %s" % (err.status, err.message))


class VersionAndStatusTest(TesseraTestCase):
    def test_version(self):
        self.assertEqual(
            tessera.version(),
            "%d.%d.%d" % (tessera.VERSION_MAJOR, tessera.VERSION_MINOR, tessera.VERSION_PATCH))
        self.assertEqual(tessera.version_number(), tessera.VERSION_NUMBER)

    def test_status_string(self):
        self.assertEqual(tessera.status_string(tessera.OK), "OK")
        self.assertEqual(tessera.status_string(tessera.INVALID_ARGUMENT), "INVALID_ARGUMENT")
        self.assertEqual(tessera.status_string(tessera.DATA_LOSS), "DATA_LOSS")
        self.assertEqual(tessera.status_string(-1), "UNKNOWN_CODE")
        self.assertEqual(tessera.status_string(99), "UNKNOWN_CODE")
        self.assertEqual((tessera.INVALID_ARGUMENT, tessera.NOT_FOUND, tessera.OUT_OF_RANGE),
                         (3, 5, 11))

    def test_error_classes(self):
        self.assertTrue(issubclass(tessera.InvalidArgumentError, ValueError))
        self.assertTrue(issubclass(tessera.NotFoundError, LookupError))
        self.assertTrue(issubclass(tessera.OutOfRangeError, IndexError))


class RuntimeTest(TesseraTestCase):
    def test_singleton_world(self):
        tessera.init()  # idempotent; the import already initialised
        self.assertEqual(tessera.world_rank(), 0)
        self.assertEqual(tessera.world_size(), 1)


class IssueExampleTest(TesseraTestCase):
    def setUp(self):
        self.p = tessera.Placement.parse("cpu:[[0,1],[2,3]]")
        self.s = tessera.NdSbp.parse("(S(0), S(1))")

    def test_rank3_layout(self):
        with tessera.layout(self.p, self.s, (6, 5), 3) as l:
            self.assertEqual(str(l), "[3,6)x[3,5)")
            self.assertEqual(l.local_shape, (3, 2))
            self.assertEqual(l.ranges, ((3, 6), (3, 5)))
            self.assertEqual(l.ndim, 2)
            self.assertEqual(l.local_dim(1), 2)
            self.assertEqual(l.range(0), (3, 6))
            self.assertEqual(l.num_elements, 6)
            # The raw functions are there too.
            self.assertEqual(tessera.layout_range(l, 1), (3, 5))
            self.assertTesseraError(
                tessera.OutOfRangeError, tessera.OUT_OF_RANGE,
                "tess_layout_local_dim: dim 2 is outside a layout of 2 dims", l.local_dim, 2)
            self.assertTesseraError(tessera.OutOfRangeError, tessera.OUT_OF_RANGE, "dim 5",
                                    l.range, 5)

    def test_bad_layouts(self):
        self.assertTesseraError(tessera.NotFoundError, tessera.NOT_FOUND,
                                "rank 9 is not in placement cpu:[[0,1],[2,3]]",
                                tessera.layout, self.p, self.s, (6, 5), 9)
        self.assertTesseraError(tessera.InvalidArgumentError, tessera.INVALID_ARGUMENT,
                                "shape dim 1 is -5; dims must be >= 0",
                                tessera.Layout.create, self.p, self.s, [6, -5], 0)
        self.assertTesseraError(
            tessera.InvalidArgumentError, tessera.INVALID_ARGUMENT,
            "nd-sbp (S(0), S(1)) splits tensor axis 1 but the tensor of shape [6] has 1 axes",
            tessera.layout, self.p, self.s, [6], 0)
        one_axis = tessera.NdSbp.parse("S(0)")
        self.assertTesseraError(tessera.InvalidArgumentError, tessera.INVALID_ARGUMENT,
                                "has 1 axes but placement",
                                tessera.layout, self.p, one_axis, (6, 5), 0)
        with self.assertRaises(TypeError):
            tessera.layout(self.p, self.s, ["six", 5], 0)


class PlacementTest(TesseraTestCase):
    def test_queries(self):
        p = tessera.Placement.parse("cpu:[[0,1,2],[3,4,5]]")
        self.assertEqual(str(p), "cpu:[[0,1,2],[3,4,5]]")
        self.assertEqual(p.string, "cpu:[[0,1,2],[3,4,5]]")
        self.assertEqual(p.device_type, tessera.DEVICE_CPU)
        self.assertEqual(p.num_axes, 2)
        self.assertEqual(p.hierarchy_dim(1), 3)
        self.assertEqual(p.hierarchy, (2, 3))
        self.assertEqual(p.parallel_num, 6)
        self.assertEqual(len(p), 6)
        self.assertEqual(p.rank_at(4), 4)
        self.assertEqual(p.ranks, (0, 1, 2, 3, 4, 5))
        self.assertEqual(p.index_of(5), 5)
        self.assertIs(p.contains(3), True)
        self.assertIs(p.contains(9), False)
        self.assertIn(3, p)
        group = p.axis_group(0, 4)
        self.assertEqual(str(group), "cpu:[1,4]")
        same = tessera.Placement.create(tessera.DEVICE_CPU, range(6), [2, 3])
        self.assertTrue(p.equal(same))
        self.assertEqual(p, same)
        self.assertNotEqual(p, group)
        self.assertEqual(p.hash(), same.hash())
        self.assertEqual(hash(p), hash(same))
        self.assertEqual(len({p, same, group}), 2)
        self.assertEqual(tessera.Placement.create(tessera.DEVICE_CUDA, [7]).string, "cuda:[7]")

        self.assertTesseraError(
            tessera.OutOfRangeError, tessera.OUT_OF_RANGE,
            "tess_placement_hierarchy_dim: axis 2 is outside cpu:[[0,1,2],[3,4,5]], which has 2 axes",
            p.hierarchy_dim, 2)
        self.assertTesseraError(tessera.OutOfRangeError, tessera.OUT_OF_RANGE, "6", p.rank_at, 6)
        self.assertTesseraError(tessera.NotFoundError, tessera.NOT_FOUND,
                                "rank 9 is not in placement cpu:[[0,1,2],[3,4,5]]",
                                p.index_of, 9)
        self.assertTesseraError(tessera.OutOfRangeError, tessera.OUT_OF_RANGE, "3",
                                p.axis_group, 3, 0)
        self.assertTesseraError(tessera.NotFoundError, tessera.NOT_FOUND, "7",
                                p.axis_group, 0, 7)

    def test_bad_input(self):
        P = tessera.Placement
        E = tessera.InvalidArgumentError
        code = tessera.INVALID_ARGUMENT
        self.assertTesseraError(E, code, "lists rank 0 twice", P.parse, "cpu:[0,0]")
        self.assertTesseraError(E, code, "expected ']'", P.parse, "cpu:[[0,1],[2,3]")
        self.assertTesseraError(E, code, "empty rank list", P.parse, "cpu:[]")
        self.assertTesseraError(E, code, "tess_placement_parse: argument \"text\" is NULL",
                                P.parse, None)
        self.assertTesseraError(E, code, "placement hierarchy [2,2] does not hold 3 ranks",
                                P.create, tessera.DEVICE_CPU, [0, 1, 2], [2, 2])
        self.assertTesseraError(E, code, "placement device type 5 is not cpu (0) or cuda (1)",
                                P.create, 5, [0, 1, 2], [3])
        with self.assertRaises(OverflowError):
            P.create(tessera.DEVICE_CPU, [2**40], [1])

    def test_close(self):
        with tessera.Placement.parse("cpu:[0,1]") as p:
            self.assertEqual(p.parallel_num, 2)
        p.close()  # idempotent
        with self.assertRaises(TypeError):
            p.parallel_num


class NdSbpTest(TesseraTestCase):
    def test_queries(self):
        s = tessera.NdSbp.parse("(S(1), P(max))")
        self.assertEqual(str(s), "(S(1), P(max))")
        self.assertEqual(s.num_axes, 2)
        self.assertEqual(s.get(0), (tessera.SBP_SPLIT, 1))
        self.assertEqual(s.get(1), (tessera.SBP_PARTIAL_MAX, -1))
        self.assertEqual(s.sbps, ((tessera.SBP_SPLIT, 1), (tessera.SBP_PARTIAL_MAX, -1)))
        made = tessera.NdSbp.create([(tessera.SBP_SPLIT, 1), (tessera.SBP_PARTIAL_MAX, 99)])
        self.assertTrue(s.equal(made))
        self.assertEqual(s, made)
        self.assertNotEqual(s, tessera.NdSbp.parse("B"))
        self.assertTesseraError(
            tessera.OutOfRangeError, tessera.OUT_OF_RANGE,
            "tess_nd_sbp_get: axis 2 is outside (S(1), P(max)), which has 2 axes", s.get, 2)

    def test_bad_input(self):
        N = tessera.NdSbp
        E = tessera.InvalidArgumentError
        code = tessera.INVALID_ARGUMENT
        self.assertTesseraError(E, code, "got S(-1)", N.parse, "S(-1)")
        self.assertTesseraError(E, code, '"sum", "max" or "min"', N.parse, "P(avg)")
        self.assertTesseraError(E, code, "", N.parse, "(S(0), B")
        self.assertTesseraError(E, code,
                                "tess_nd_sbp_create: axis 0: split axis -2 is outside [0, 7]",
                                N.create, [(tessera.SBP_SPLIT, -2)])
        self.assertTesseraError(E, code, "axis 1: sbp kind 17",
                                N.create, [(tessera.SBP_SPLIT, 0), (17, 0)])
        self.assertTesseraError(E, code, "tess_nd_sbp_create: num_axes is 0; expected 1 to 8",
                                N.create, [])
        with self.assertRaises(TypeError):
            N.create([(tessera.SBP_SPLIT,)])


class ThreadLocalMessageTest(TesseraTestCase):
    def test_threads_see_their_own_messages(self):
        failures = []

        def work(rank):
            for _ in range(100):
                try:
                    tessera.Placement.parse("cpu:[%d,%d]" % (rank, rank))
                    failures.append("no error for rank %d" % rank)
                except tessera.InvalidArgumentError as e:
                    if "lists rank %d twice" % rank not in e.message:
                        failures.append(e.message)

        threads = [threading.Thread(target=work, args=(r,)) for r in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()
