"""Plan mode from Python under mpirun (2 and 3 ranks): the MLP of plan_test_util.py,
built explicitly and by capture, compiled and run on several inputs; every rank
checks the outputs against the same model run eagerly and against its own numpy
oracle, whole (output().numpy()) and piece by piece (output_local()). Exits non-zero
on any failure."""

import threading
import unittest

import numpy as np

import tessera as ts
from tessera_test_util import mpi_main
from plan_test_util import BATCH, IN, OUT, Mlp, values

RANK = ts.world_rank()
SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))


def piece(value, tensor):
    """This rank's slice of the logical `value` held as `tensor` holds it."""
    ranges = ts.layout(tensor.placement, tensor.nd_sbp, value.shape, RANK).ranges
    return value[tuple(slice(b, e) for b, e in ranges)]


class MpiPlanTest(unittest.TestCase):
    def setUp(self):
        self.mlp = Mlp(WORLD)

    def check_program(self, program):
        instance = ts.compile(program).instantiate()
        for salt in (10, 20, 30, 10):
            x = values((BATCH, IN), salt)
            tx = ts.tensor(x, placement=WORLD, sbp=ts.sbp.split(0))
            want = self.mlp.oracle(x)
            instance.run(tx)
            (y,) = instance.outputs()
            self.assertEqual(y.shape, (BATCH, OUT))
            got = y.numpy()
            np.testing.assert_allclose(got, self.mlp.forward(tx).numpy(), rtol=0, atol=1e-6)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
            local = instance.output_local(0)
            self.assertEqual(local.shape, y.local_shape)
            if not any(str(s).startswith("P") for s in y.sbp):
                np.testing.assert_allclose(local, piece(want, y), rtol=0, atol=1e-5)
            np.testing.assert_array_equal(local, y.to_local())
            # This rank's piece of x in, the same piece of y out.
            instance.run_local(piece(x, tx))
            np.testing.assert_array_equal(instance.output_local(0), local)
        stats = instance.stats()
        self.assertGreater(stats["boxing_steps"], 0)  # w1 is split, x is split
        self.assertEqual(stats["steps"], 6 + stats["boxing_steps"])
        self.assertEqual(stats["runs"], 8)
        self.assertEqual(stats["allocator_calls_last_run"], 0)
        (case,) = stats["mem_cases"]
        self.assertLessEqual(case["lower_bound"], case["block_bytes"])
        self.assertLessEqual(case["block_bytes"], case["no_reuse_bytes"])

    def test_pipelined_push_and_run(self):
        # input_register_num 2: a Python pusher thread feeds 10 sets while this thread
        # runs them (the GIL is released while either waits); each output must be its
        # own input's.
        instance = ts.compile(self.mlp.explicit_program(), input_register_num=2).instantiate()
        xs = [values((BATCH, IN), 40 + k) for k in range(10)]
        txs = [ts.tensor(x, placement=WORLD, sbp=ts.sbp.split(0)) for x in xs]
        wants = [self.mlp.oracle(x) for x in xs]
        errors = []

        def pusher():
            try:
                for t in txs:
                    instance.push(t)
            except Exception as e:  # reported below, on the main thread
                errors.append(e)

        thread = threading.Thread(target=pusher)
        thread.start()
        for k, want in enumerate(wants):
            instance.run_pushed(timeout=30)
            np.testing.assert_allclose(instance.output(0).numpy(), want, rtol=0, atol=1e-5,
                                       err_msg="set %d" % k)
        thread.join()
        self.assertEqual(errors, [])
        self.assertEqual(instance.stats()["allocator_calls_last_run"], 0)
        with self.assertRaises(ts.DeadlineExceededError):
            instance.run_pushed(timeout=0)
        with self.assertRaises(ts.InvalidArgumentError):
            instance.push(txs[0], timeout=-1)
        instance.close_pipeline()
        with self.assertRaises(ts.CancelledError):
            instance.push(txs[0])

    def test_explicit_program(self):
        self.check_program(self.mlp.explicit_program())

    def test_captured_program(self):
        program = self.mlp.captured_program()
        self.assertEqual(program.sizes, ts.ProgramSizes(values=11, ops=6, inputs=1, outputs=1))
        self.check_program(program)

    def test_input_in_another_sbp_is_boxed_in(self):
        instance = ts.compile(self.mlp.explicit_program()).instantiate()
        x = values((BATCH, IN), 5)
        for sbp in (ts.sbp.broadcast, ts.sbp.split(1)):
            instance.run(ts.tensor(x, placement=WORLD, sbp=sbp))
            np.testing.assert_allclose(instance.output(0).numpy(), self.mlp.oracle(x), rtol=0,
                                       atol=1e-5)

    def test_output_on_part_of_the_world(self):
        # relu on rank 0 alone: the others compile and run it too (SPMD) but hold no
        # piece of the output.
        rank0 = ts.placement("cpu", ranks=[0])
        program = ts.Program()
        x = program.add_input("x", (3, 4), "f32", rank0)
        program.mark_output(program.add_op("relu", [x])[0])
        instance = ts.compile(program).instantiate()
        a = values((3, 4), 7)
        instance.run(ts.tensor(a, placement=rank0, sbp=ts.sbp.split(0)))
        if RANK == 0:
            np.testing.assert_array_equal(instance.output_local(0), np.maximum(a, 0))
        else:
            with self.assertRaises(ts.FailedPreconditionError) as ctx:
                instance.output_local(0)
            self.assertIn("no piece of output #0", ctx.exception.message)
        np.testing.assert_array_equal(instance.output(0).numpy(), np.maximum(a, 0))

    def test_bad_input_fails_on_every_rank(self):
        instance = ts.compile(self.mlp.explicit_program()).instantiate()
        wrong = ts.tensor(values((BATCH + 1, IN)), placement=WORLD, sbp=ts.sbp.split(0))
        with self.assertRaises(ts.InvalidArgumentError) as ctx:
            instance.run(wrong)
        self.assertIn("[8,6]", ctx.exception.message)
        # The instance still runs.
        x = values((BATCH, IN), 1)
        instance.run(ts.tensor(x, placement=WORLD, sbp=ts.sbp.split(0)))
        np.testing.assert_allclose(instance.output(0).numpy(), self.mlp.oracle(x), rtol=0,
                                   atol=1e-5)


if __name__ == "__main__":
    mpi_main(min_world_size=2)
