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
        tessera.init()  # idempotent; any earlier call that needed the runtime started it
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
            self.assertEqual(l.range(0), (3, 6))
            self.assertEqual(l.num_elements, 6)
            # The raw functions are there too; the shape is one borrowed getter's tuple.
            self.assertEqual(tessera.layout_range(l, 1), (3, 5))
            self.assertEqual(tessera.layout_local_shape(l), (3, 2))
            self.assertTesseraError(tessera.OutOfRangeError, tessera.OUT_OF_RANGE, "dim 5",
                                    l.range, 5)
        # A rank past the end of an uneven split holds a 0-sized piece of every dim.
        with tessera.layout(self.p, self.s, (1, 5), 3) as l:
            self.assertEqual(l.local_shape, (0, 2))
            self.assertEqual(l.ranges, ((1, 1), (3, 5)))
        with tessera.layout(self.p, tessera.NdSbp.parse("(B, B)"), (), 0) as l:
            self.assertEqual((l.local_shape, l.ndim, l.num_elements), ((), 0, 1))

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

    def test_unclosed_handles_keep_memory_bounded(self):
        """Handles dropped without close() are freed by reference counting (SWIG's
        destructor calls tess_placement_destroy): 200,000 placements leave VmRSS within
        4 MiB of where it was after the first 20,000. Leaked, the native placements
        (about 270 bytes each) would add about 50 MB. Not a million: each parse costs a
        few microseconds through SWIG, and 200,000 keep the test to about a second."""
        def rss():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
            self.fail("no VmRSS in /proc/self/status")

        for _ in range(100000):
            tessera.Placement.parse("cpu:[0]")
        before = rss()
        for _ in range(900000):  # a million placements in all
            tessera.Placement.parse("cpu:[0]")
        after = rss()
        self.assertLessEqual(after - before, 4 << 20,
                             f"RSS grew from {before} to {after} bytes over 900000 placements")


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
        self.assertTesseraError(E, code, "got S(-9)", N.parse, "S(-9)")
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


class InferenceTest(TesseraTestCase):
    def setUp(self):
        tessera.infer_cache_clear()

    def test_seed_example_add(self):
        p = tessera.Placement.parse("cpu:[0,1]")
        call = tessera.OpCall("add").input((4, 6), "f32", p, "S(0)").input(
            [4, 6], tessera.DTYPE_F32, "cpu:[0,1]", tessera.NdSbp.parse("S(1)"))
        self.assertEqual(call.signature, "add(x, y) -> (out)")
        self.assertEqual(call.num_inputs, 2)
        r = tessera.infer(call)
        (out,) = r.outputs
        self.assertEqual(out.shape, (4, 6))
        self.assertEqual(out.dtype, "f32")
        self.assertEqual(out.placement, p)
        self.assertEqual(out.nd_sbp, tessera.NdSbp.parse("S(0)"))
        self.assertEqual([s.string for s in r.input_nd_sbps], ["S(0)", "S(0)"])
        self.assertEqual(r.boxed_inputs, (1,))
        self.assertIs(r.needs_boxing(0), False)
        # y: S(1) -> S(0) on 2 ranks: an all-to-all of 96 bytes * 1/2.
        self.assertEqual(r.input_costs, (0.0, 48.0))
        self.assertEqual(r.total_cost, 48.0)
        self.assertEqual(r.signature_index, 0)
        self.assertGreater(r.num_candidates, 1)
        self.assertEqual(str(r), "S(0), S(0) -> S(0)")

        e = tessera.explain(call)
        self.assertIn("  chosen: #0 x:S(0), y:S(0) -> out:S(0)\n", e.text)
        self.assertIn("    y: S(1) -> S(0) (cost 48)\n", e.text)
        self.assertEqual(e.failure, "")
        rec = e.record
        self.assertEqual(rec["op"], "add")
        self.assertEqual(rec["chosen"], 0)
        self.assertEqual(rec["boxing"], [{"input": 1, "name": "y", "from": "S(1)", "to": "S(0)",
                                          "cost": 48}])
        self.assertIsNone(rec["failure"])

    def test_matmul_attrs_and_2d(self):
        call = (tessera.OpCall("matmul").attr("transpose_b", True)
                .input([64, 32], "f32", "cpu:[0,1,2,3]", "S(0)")
                .input([16, 32], "f32", "cpu:[0,1,2,3]", "B"))
        r = call.infer()
        self.assertEqual(r.outputs[0].shape, (64, 16))
        self.assertEqual(r.outputs[0].nd_sbp.string, "S(0)")
        self.assertEqual(r.boxed_inputs, ())
        self.assertEqual(call.explain().record["attrs"], "{transpose_b=true}")

        two_d = (tessera.OpCall("matmul")
                 .input([8, 6], "f64", "cpu:[[0,1],[2,3]]", "(S(0), B)")
                 .input([6, 4], "f64", "cpu:[[0,1],[2,3]]", "(B, S(1))"))
        r = two_d.infer()
        self.assertEqual(r.outputs[0].nd_sbp.string, "(S(0), S(1))")
        self.assertEqual(r.outputs[0].dtype, "f64")
        two_d.constrain_output(0, "(S(0), B)")
        r = two_d.infer()
        self.assertEqual(r.outputs[0].nd_sbp.string, "(S(0), B)")
        self.assertEqual([s.string for s in r.input_nd_sbps], ["(S(0), B)", "(B, B)"])
        self.assertEqual(r.boxed_inputs, (1,))

    def test_other_attr_types(self):
        tessera.OpCall("cast").attr("dtype", "i64")
        tessera.OpCall("transpose").attr("perm", (1, 0))
        tessera.OpCall("scalar_mul").attr("value", 2.5)
        tessera.OpCall("layer_norm").attr("begin_norm_axis", 1)

    def test_cache_stats(self):
        call = tessera.OpCall("relu").input([8], "f32", "cpu:[0,1]", "S(0)")
        self.assertEqual(tessera.infer_cache_stats()[:4], (0, 0, 0, 0))
        call.infer()
        call.infer()
        stats = tessera.infer_cache_stats()
        self.assertEqual((stats.hits, stats.misses, stats.size), (1, 1, 1))
        tessera.infer_cache_set_capacity(1)
        self.assertEqual(tessera.infer_cache_stats().capacity, 1)
        self.assertTesseraError(tessera.InvalidArgumentError, tessera.INVALID_ARGUMENT,
                                "tess_infer_cache_set_capacity: capacity is 0; expected >= 1",
                                tessera.infer_cache_set_capacity, 0)
        tessera.infer_cache_set_capacity(4096)
        tessera.infer_cache_clear()
        self.assertEqual(tessera.infer_cache_stats().misses, 0)

    def test_op_names_and_dtypes(self):
        names = tessera.op_names()
        self.assertIn("matmul", names)
        self.assertEqual(list(names), sorted(names))
        self.assertEqual(tessera.op_name(len(names)), "")
        self.assertEqual(tessera.dtype_parse("bf16"), tessera.DTYPE_BF16)
        self.assertEqual(tessera.dtype_name(tessera.DTYPE_I32), "i32")
        self.assertTesseraError(tessera.InvalidArgumentError, tessera.INVALID_ARGUMENT,
                                'unknown dtype "float"', tessera.dtype_parse, "float")

    def test_bad_calls(self):
        E = tessera.InvalidArgumentError
        code = tessera.INVALID_ARGUMENT
        self.assertTesseraError(tessera.NotFoundError, tessera.NOT_FOUND,
                                'no op named "matmull"; did you mean: ', tessera.OpCall, "matmull")
        call = tessera.OpCall("matmul")
        self.assertTesseraError(
            E, code, 'tess_op_call_set_attr_int: matmul: attribute "transpose_b" must be bool but '
            'got int 1', call.attr, "transpose_b", 1)
        self.assertTesseraError(
            E, code, 'matmul: unknown attribute "alpha"; known attributes: transpose_a, '
            'transpose_b', call.attr, "alpha", 0.5)
        self.assertTesseraError(E, code, 'matmul: input "a": shape dim 1 is -2; dims must be >= 0',
                                call.input, [4, -2], "f32", "cpu:[0,1]", "B")
        self.assertTesseraError(E, code, 'matmul: input "a": ',
                                call.input, [4, 2], "f32", "cpu:[0,1]", "S(2)")
        self.assertTesseraError(E, code, 'unknown dtype "f8"',
                                call.input, [4, 2], "f8", "cpu:[0,1]", "B")
        call.input([4, 2], "f32", "cpu:[0,1]", "B")
        self.assertTesseraError(
            E, code, 'matmul: input "b" is on placement cpu:[0,1,2] but input "a" is on cpu:[0,1]',
            call.input, [2, 3], "f32", "cpu:[0,1,2]", "B")
        self.assertTesseraError(E, code, "matmul: takes 2 inputs but got 1", tessera.infer, call)
        self.assertTesseraError(E, code, "matmul: takes 2 inputs but got 1", tessera.explain, call)
        self.assertTesseraError(E, code, "constraint names output slot 1 but the op has 1 output",
                                call.constrain_output, 1, "B")
        self.assertTesseraError(E, code, 'tess_op_call_infer: argument "call" is NULL', tessera.infer, None)

    def test_no_fitting_signature(self):
        call = tessera.OpCall("relu").input([1], "f32", "cpu:[0,1]", "B").constrain_output(0, "S(0)")
        self.assertTesseraError(
            tessera.InvalidArgumentError, tessera.INVALID_ARGUMENT,
            "relu: no SBP signature fits the inputs x: B [1] on cpu:[0,1] with constraints out = "
            "S(0); candidates:\n  #0 x:S(0) -> out:S(0): input \"x\": S(0) splits axis 0",
            call.infer)
        e = call.explain()
        self.assertTrue(e.failure.startswith("relu: no SBP signature fits"))
        self.assertEqual(e.record["chosen"], -1)

    def test_out_of_range_getters(self):
        r = tessera.OpCall("relu").input([4, 2], "f32", "cpu:[0,1]", "S(0)").infer()
        self.assertEqual(r.output_shape(0), (4, 2))
        self.assertTesseraError(
            tessera.OutOfRangeError, tessera.OUT_OF_RANGE,
            "tess_infer_result_output_shape: output 1 is outside a result with 1 output",
            r.output_shape, 1)
        self.assertTesseraError(
            tessera.OutOfRangeError, tessera.OUT_OF_RANGE,
            "tess_infer_result_output_shape: output 1 is outside a result with 1 output",
            r.output, 1)
        self.assertTesseraError(tessera.OutOfRangeError, tessera.OUT_OF_RANGE,
                                "input 3 is outside a result with 1 input", r.input_nd_sbp, 3)


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
