"""Plan mode from Python in a world of one rank: ts.Program, ts.capture(),
ts.compile, Plan and PlanInstance (run, run_local, outputs, output_local, stats),
checked against eager ops and a numpy oracle, and every call's bad inputs. Multi-rank
runs: plan_mpi_test.py."""

import threading
import unittest

import numpy as np

import tessera as ts
from plan_test_util import BATCH, IN, OUT, Mlp, values
from tessera_test_util import TesseraTestCase


class PlanTestCase(TesseraTestCase):
    def setUp(self):
        self.p = ts.placement("cpu", ranks=[0])
        self.mlp = Mlp(self.p)

    def tearDown(self):
        # A failed test must not leave a capture behind for the next one.
        ts.capture_abort()

    def x(self, salt):
        return values((BATCH, IN), salt)

    def tx(self, salt, sbp=ts.sbp.split(0)):
        return ts.tensor(self.x(salt), placement=self.p, sbp=sbp)

    def relu_program(self):
        """relu(x) on [BATCH, IN], one output."""
        program = ts.Program()
        x = program.add_input("x", (BATCH, IN), "f32", self.p)
        program.mark_output(program.add_op("relu", [x])[0])
        return program


class ProgramTest(PlanTestCase):
    def test_explicit_mlp_graph(self):
        program = self.mlp.explicit_program()
        self.assertEqual(program.sizes, ts.ProgramSizes(values=11, ops=6, inputs=1, outputs=1))
        text = str(program)
        self.assertIn('%0 = input "x" [7,6] f32 cpu:[0] S(0)', text)
        self.assertIn("%5 = matmul(%0, %1)", text)
        self.assertIn("outputs: %10", text)
        self.assertEqual(repr(program), "<tessera.Program 11 values, 6 ops, 1 inputs, 1 outputs>")

    def test_add_op_returns_consecutive_ids_and_honours_constraints(self):
        program = ts.Program()
        x = program.add_input("x", (4, 3), ts.float32, self.p, sbp=ts.sbp.broadcast)
        self.assertEqual(x, 0)
        self.assertEqual(program.add_op("relu", [x]), [1])
        call = ts.OpCall("neg")
        self.assertEqual(program.add_op(call, [x], output_sbps={0: "S(1)"}), [2])
        self.assertEqual(program.add_op("exp", [x], input_sbps=["S(0)"]), [3])
        text = str(program).splitlines()
        self.assertIn("[4,3] f32 cpu:[0] B", text[0])
        self.assertTrue(text[2].endswith("S(1)"), text[2])
        self.assertTrue(text[3].startswith("%3 = exp(%0)"), text[3])
        # Attributes go through OpCall.attr, so their types are checked.
        self.assertEqual(program.add_op("reduce_sum", [x], attrs={"axes": [1], "keepdims": True}),
                         [4])
        self.assertIn("[4,1]", str(program).splitlines()[4])

    def test_add_input_bad(self):
        program = ts.Program()
        self.assertTesseraError(ts.InvalidArgumentError, "name", program.add_input, "",
                                (2, 3), "f32", self.p)
        self.assertTesseraError(ts.InvalidArgumentError, "99", program.add_input, "x", (2, 3),
                                99, self.p)
        self.assertTesseraError(ts.InvalidArgumentError, "-1", program.add_input, "x", (-1, 3),
                                "f32", self.p)
        self.assertTesseraError(ts.InvalidArgumentError, "S(7)", program.add_input, "x", (2, 3),
                                "f32", self.p, sbp="S(7)")
        with self.assertRaises(TypeError):
            program.add_input("x", (2, 3), "f32", self.p, sbp=42)
        program.add_input("x", (2, 3), "f32", self.p)
        self.assertTesseraError(ts.InvalidArgumentError, '"x"', program.add_input, "x", (2, 3),
                                "f32", self.p)
        self.assertEqual(program.sizes.inputs, 1)

    def test_add_variable_bad(self):
        program = ts.Program()
        self.assertTesseraError(ts.InvalidArgumentError, "name", program.add_variable, "",
                                self.mlp.t_w1)
        with self.assertRaises(TypeError):
            program.add_variable("w", np.zeros(3, np.float32))
        self.assertEqual(program.add_variable("w", self.mlp.t_w1), 0)
        self.assertTesseraError(ts.InvalidArgumentError, '"w"', program.add_variable, "w",
                                self.mlp.t_w2)
        with ts.capture() as cap:
            x = cap.placeholder("x", (2, 3), "f32", self.p)
            self.assertTesseraError(ts.FailedPreconditionError, "placeholder",
                                    program.add_variable, "v", x)
            cap.set_outputs(ts.neg(x))

    def test_add_op_bad(self):
        program = ts.Program()
        x = program.add_input("x", (BATCH, IN), "f32", self.p)
        self.assertTesseraError(ts.NotFoundError, "no_such_op", program.add_op, "no_such_op", [x])
        self.assertTesseraError(ts.InvalidArgumentError, "42", program.add_op, "relu", [42])
        self.assertTesseraError(ts.InvalidArgumentError, "relu", program.add_op, "relu", [x, x])
        self.assertTesseraError(ts.InvalidArgumentError, "matmul", program.add_op, "matmul",
                                [x, x])
        self.assertTesseraError(ts.InvalidArgumentError, "no_such_attr", program.add_op, "relu",
                                [x], attrs={"no_such_attr": 1})
        with_meta = ts.OpCall("relu").input((BATCH, IN), "f32", self.p, "B")
        self.assertTesseraError(ts.InvalidArgumentError, "input metas", program.add_op,
                                with_meta, [x])
        with self.assertRaises(TypeError):
            program.add_op(3, [x])
        with self.assertRaises(TypeError):
            program.add_op("relu", [self.mlp.t_w1])  # tensors are added as variables first
        # Nothing was added by the failures.
        self.assertEqual(program.sizes, ts.ProgramSizes(values=1, ops=0, inputs=1, outputs=0))

    def test_mark_output_bad(self):
        program = ts.Program()
        x = program.add_input("x", (2, 3), "f32", self.p)
        self.assertTesseraError(ts.InvalidArgumentError, "99", program.mark_output, 99)
        program.mark_output(x)
        self.assertTesseraError(ts.InvalidArgumentError, "", program.mark_output, x)
        self.assertEqual(program.sizes.outputs, 1)

    def test_close(self):
        with ts.Program() as program:
            program.add_input("x", (2,), "f32", self.p)
        with self.assertRaises(TypeError):
            program.sizes


class CompileAndRunTest(PlanTestCase):
    def check_runs(self, program):
        """Runs `program` on inputs (salts 10, 20, 10) against eager and numpy; returns
        the instance."""
        plan = ts.compile(program)
        self.assertIn("kernel matmul", str(plan))
        self.assertEqual(plan.string, str(plan))
        instance = plan.instantiate()
        del plan  # the instance keeps what it needs
        self.assertEqual(instance.num_outputs, 1)
        for salt in (10, 20, 10):
            x = self.x(salt)
            tx = self.tx(salt)
            self.assertIs(instance.run(tx), instance)
            (y,) = instance.outputs()
            self.assertEqual(y.shape, (BATCH, OUT))
            got = y.numpy()
            np.testing.assert_allclose(got, self.mlp.forward(tx).numpy(), rtol=0, atol=1e-6)
            np.testing.assert_allclose(got, self.mlp.oracle(x), rtol=0, atol=1e-5)
            local = instance.output_local(0)
            self.assertEqual(local.dtype, np.float32)
            np.testing.assert_array_equal(local, got)  # one rank: the piece is the whole
            np.testing.assert_array_equal(instance.output(-1).numpy(), got)
            # The same input as this rank's piece gives the same output.
            instance.run_local(tx.to_local())
            np.testing.assert_array_equal(instance.output_local(0), local)
        return instance

    def test_explicit_program_matches_eager_and_numpy(self):
        instance = self.check_runs(self.mlp.explicit_program())
        stats = instance.stats()
        self.assertEqual(stats["runs"], 6)
        self.assertEqual(stats["steps"], 6 + stats["boxing_steps"])
        self.assertGreater(stats["registers"], 0)
        self.assertEqual(stats["allocator_calls_last_run"], 0)
        self.assertEqual(stats["heap_allocations_last_run"], -1)  # the .so does not count
        # CUDA graph replay is for cuda placements only.
        self.assertEqual((stats["cuda_graphs"], stats["cuda_graph_launches"]), (0, 0))
        (case,) = stats["mem_cases"]
        self.assertEqual(case["name"], "cpu")
        self.assertGreater(case["lower_bound"], 0)
        self.assertLessEqual(case["lower_bound"], case["block_bytes"])
        self.assertLessEqual(case["block_bytes"], case["no_reuse_bytes"])
        self.assertEqual(str(instance), "PlanInstance(1 outputs, 6 runs)")

    def test_captured_program_matches_eager_and_numpy(self):
        program = self.mlp.captured_program()
        self.assertEqual(program.sizes, ts.ProgramSizes(values=11, ops=6, inputs=1, outputs=1))
        self.assertIn('variable "v0" [6,8] f32 cpu:[0] S(1)', str(program))
        self.check_runs(program)
        self.check_runs(program)  # a program compiles any number of times

    def test_input_with_another_sbp_is_boxed_in(self):
        instance = self.mlp.explicit_program().compile().instantiate()
        instance.run(self.tx(3, sbp=ts.sbp.broadcast))
        np.testing.assert_allclose(instance.output(0).numpy(), self.mlp.oracle(self.x(3)),
                                   rtol=0, atol=1e-5)

    def test_float16_program_sizes_registers_by_dtype(self):
        """A plan over f16 values: registers of 2 bytes an element, checked against
        numpy's float16 arithmetic (f32 compute, one rounding: Tessera's contract)."""
        program = ts.Program()
        x = program.add_input("x", (BATCH, IN), "f16", self.p)
        (y,) = program.add_op("mul", [x, x])
        (z,) = program.add_op("add", [y, x])
        program.mark_output(z)
        instance = ts.compile(program).instantiate()
        a = (self.x(5) * 3).astype(np.float16)
        instance.run(ts.tensor(a, placement=self.p, sbp=ts.sbp.split(0)))
        (out,) = instance.outputs()
        self.assertEqual(out.dtype, np.float16)
        np.testing.assert_array_equal(out.numpy(), a * a + a)

    def test_output_local_into_an_array(self):
        instance = self.mlp.explicit_program().compile().instantiate()
        instance.run(self.tx(4))
        out = np.full((BATCH, OUT), -1, np.float32)
        self.assertIs(instance.output_local(0, out=out), out)
        np.testing.assert_allclose(out, self.mlp.oracle(self.x(4)), rtol=0, atol=1e-5)
        self.assertTesseraError(ts.InvalidArgumentError, "(7, 5)", instance.output_local, 0,
                                out=np.zeros((BATCH, OUT + 1), np.float32))
        self.assertTesseraError(ts.InvalidArgumentError, "float64", instance.output_local, 0,
                                out=np.zeros((BATCH, OUT), np.float64))
        self.assertTesseraError(ts.InvalidArgumentError, "C-contiguous", instance.output_local, 0,
                                out=np.zeros((OUT, BATCH), np.float32).T)
        with self.assertRaises(TypeError):
            instance.output_local(0, out=[0.0] * (BATCH * OUT))

    def test_compile_bad(self):
        empty = ts.Program()
        self.assertTesseraError(ts.InvalidArgumentError, "output", ts.compile, empty)
        program = self.relu_program()
        self.assertTesseraError(ts.InvalidArgumentError, "input_register_num", ts.compile,
                                program, -1)
        self.assertTesseraError(ts.InvalidArgumentError, "input_register_num", ts.compile,
                                program, 9)
        with self.assertRaises(TypeError):
            ts.compile(str(program))

    def test_run_and_outputs_bad(self):
        instance = ts.compile(self.relu_program()).instantiate()
        # Nothing to read before the first run.
        self.assertTesseraError(ts.FailedPreconditionError, "", instance.output, 0)
        self.assertTesseraError(ts.FailedPreconditionError, "", instance.output_local, 0)
        self.assertTesseraError(ts.OutOfRangeError, "output index 1", instance.output, 1)
        self.assertTesseraError(ts.OutOfRangeError, "output index -2", instance.output, -2)
        self.assertTesseraError(ts.OutOfRangeError, "output index 3", instance.output_local, 3)
        # The piece's shape is known before the first run (tess_plan_instance_output_local_shape).
        self.assertEqual(ts.plan_instance_output_local_shape(instance, 0), (BATCH, IN))
        self.assertTesseraError(ts.OutOfRangeError, "tess_plan_instance_output_local_shape: "
                                "PlanInstance::OutputLocalPiece: output index 3",
                                ts.plan_instance_output_local_shape, instance, 3)
        elsewhere = ts.Program()
        (y,) = elsewhere.add_op("relu", [elsewhere.add_input(
            "x", (4, 3), "f32", ts.placement("cpu", ranks=[1]))])
        elsewhere.mark_output(y)
        self.assertTesseraError(ts.FailedPreconditionError,
                                "tess_plan_instance_output_local_shape: this rank holds no "
                                "piece of output #0 ([4,3] f32 cpu:[1] B)",
                                ts.compile(elsewhere).instantiate().output_local, 0)
        # Wrong inputs.
        self.assertTesseraError(ts.InvalidArgumentError, "1 inputs", instance.run)
        x = self.tx(1)
        self.assertTesseraError(ts.InvalidArgumentError, "1 inputs", instance.run, x, x)
        wrong = ts.tensor(values((3, 4)), placement=self.p, sbp=ts.sbp.split(0))
        self.assertTesseraError(ts.InvalidArgumentError, "[3,4]", instance.run, wrong)
        as_f64 = ts.tensor(self.x(1), dtype=ts.float64, placement=self.p, sbp=ts.sbp.split(0))
        self.assertTesseraError(ts.InvalidArgumentError, "f64", instance.run, as_f64)
        with self.assertRaises(TypeError):
            instance.run(self.x(1))
        self.assertTesseraError(ts.InvalidArgumentError, "3 bytes", instance.run_local,
                                bytearray(3))
        self.assertTesseraError(ts.InvalidArgumentError, "1 inputs", instance.run_local,
                                self.x(1), self.x(1))
        self.assertTesseraError(ts.InvalidArgumentError, "0 bytes", instance.run_local, None)
        self.assertEqual(instance.stats()["runs"], 0)
        # A good run after the bad ones.
        instance.run(x)
        np.testing.assert_array_equal(instance.output_local(0), np.maximum(self.x(1), 0))

    def test_instances_are_independent(self):
        plan = ts.compile(self.relu_program())
        a, b = plan.instantiate(), plan.instantiate()
        a.run(self.tx(1))
        b.run(self.tx(2))
        np.testing.assert_array_equal(a.output_local(0), np.maximum(self.x(1), 0))
        np.testing.assert_array_equal(b.output_local(0), np.maximum(self.x(2), 0))


class CaptureTest(PlanTestCase):
    def test_capture_records_ops_on_placeholders_only(self):
        real = self.tx(1)
        with ts.capture() as cap:
            self.assertTrue(cap.active)
            self.assertTrue(ts.capturing())
            x = cap.placeholder("x", (BATCH, IN), "f32", self.p, sbp=ts.sbp.broadcast)
            self.assertEqual(x.shape, (BATCH, IN))
            self.assertEqual(str(x.nd_sbp), "B")
            eager = ts.relu(real)  # real tensors alone still run
            y = ts.neg(x) * 2.0
            cap.set_outputs(y, x)
        self.assertFalse(ts.capturing())
        self.assertFalse(cap.active)
        np.testing.assert_array_equal(eager.numpy(), np.maximum(self.x(1), 0))
        program = cap.program
        self.assertEqual(program.sizes.outputs, 2)
        self.assertEqual(program.sizes.inputs, 1)
        instance = ts.compile(program).instantiate()
        instance.run(real)
        y_out, x_out = instance.outputs()
        np.testing.assert_array_equal(y_out.numpy(), -self.x(1) * 2)
        np.testing.assert_array_equal(x_out.numpy(), self.x(1))

    def test_placeholders_have_no_data(self):
        with ts.capture() as cap:
            x = cap.placeholder("x", (2, 3), "f32", self.p)
            self.assertTesseraError(ts.FailedPreconditionError, "placeholder", x.numpy)
            self.assertTesseraError(ts.FailedPreconditionError, "placeholder", x.to_local)
            cap.set_outputs(ts.relu(x))
        # A placeholder outlives its capture but takes part in nothing.
        self.assertTesseraError(ts.FailedPreconditionError, "", ts.neg, x)

    def test_bad_op_fails_at_the_call(self):
        with ts.capture() as cap:
            x = cap.placeholder("x", (2, 3), "f32", self.p)
            self.assertTesseraError(ts.InvalidArgumentError, "matmul", ts.matmul, x, x)
            cap.set_outputs(ts.matmul(x, x, transpose_b=True))
        self.assertEqual(cap.program.sizes.ops, 1)

    def test_use_outside_the_block(self):
        cap = ts.capture()
        self.assertTesseraError(ts.FailedPreconditionError, "inside its with block",
                                cap.placeholder, "x", (2,), "f32", self.p)
        self.assertTesseraError(ts.FailedPreconditionError, "new", lambda: cap.program)
        with cap:
            x = cap.placeholder("x", (2,), "f32", self.p)
            cap.set_outputs(ts.neg(x))
        self.assertTesseraError(ts.FailedPreconditionError, "inside its with block",
                                cap.set_outputs, x)
        self.assertTesseraError(ts.FailedPreconditionError, "already used", cap.__enter__)
        # The C calls say the same without a capture.
        self.assertTesseraError(ts.FailedPreconditionError, "no capture", ts.capture_placeholder,
                                "x", [2], ts.DTYPE_F32, self.p, None)

    def test_exception_in_block_aborts(self):
        with self.assertRaises(KeyError):
            with ts.capture() as cap:
                cap.placeholder("x", (2,), "f32", self.p)
                raise KeyError("boom")
        self.assertFalse(ts.capturing())
        self.assertTesseraError(ts.FailedPreconditionError, "failed", lambda: cap.program)
        # The thread can capture again.
        with ts.capture() as again:
            again.set_outputs(ts.neg(again.placeholder("x", (2,), "f32", self.p)))
        self.assertEqual(again.program.sizes.ops, 1)

    def test_nested_capture_fails_and_aborts_the_outer(self):
        with self.assertRaises(ts.FailedPreconditionError):
            with ts.capture():
                with ts.capture():
                    pass
        self.assertFalse(ts.capturing())

    def test_bad_outputs(self):
        with self.assertRaises(ts.InvalidArgumentError) as ctx:
            with ts.capture() as cap:
                cap.placeholder("x", (2,), "f32", self.p)
        self.assertIn("set_outputs", ctx.exception.message)
        self.assertFalse(ts.capturing())

        with self.assertRaises(ts.InvalidArgumentError) as ctx:
            with ts.capture() as cap:
                y = ts.neg(cap.placeholder("x", (2,), "f32", self.p))
                cap.set_outputs(y, y)
        self.assertIn("already an output", ctx.exception.message)
        self.assertFalse(ts.capturing())

        real = self.tx(1)
        with self.assertRaises(ts.InvalidArgumentError):
            with ts.capture() as cap:
                cap.placeholder("x", (2,), "f32", self.p)
                cap.set_outputs(real)
        self.assertFalse(ts.capturing())

        with ts.capture() as cap:
            self.assertTesseraError(ts.InvalidArgumentError, "no outputs", cap.set_outputs)
            with self.assertRaises(TypeError):
                cap.set_outputs(self.x(1))
            cap.set_outputs(ts.neg(cap.placeholder("x", (2,), "f32", self.p)))
        self.assertEqual(cap.program.sizes.outputs, 1)

    def test_placeholder_bad(self):
        with ts.capture() as cap:
            self.assertTesseraError(ts.InvalidArgumentError, "name", cap.placeholder, "", (2,),
                                    "f32", self.p)
            self.assertTesseraError(ts.InvalidArgumentError, "S(3)", cap.placeholder, "x", (2,),
                                    "f32", self.p, sbp="S(3)")
            x = cap.placeholder("x", (2,), "f32", self.p)
            self.assertTesseraError(ts.InvalidArgumentError, '"x"', cap.placeholder, "x", (2,),
                                    "f32", self.p)
            cap.set_outputs(ts.neg(x))

    def test_capture_is_per_thread(self):
        errors = []

        def other_thread(cap):
            try:
                cap.placeholder("y", (2,), "f32", self.p)
            except ts.FailedPreconditionError as e:
                errors.append(e)
            errors.append(ts.capturing())

        with ts.capture() as cap:
            t = threading.Thread(target=other_thread, args=(cap,))
            t.start()
            t.join()
            cap.set_outputs(ts.neg(cap.placeholder("x", (2,), "f32", self.p)))
        self.assertEqual(len(errors), 2, errors)
        self.assertIsInstance(errors[0], ts.FailedPreconditionError)
        self.assertFalse(errors[1])


if __name__ == "__main__":
    unittest.main()
