"""Plan-mode training from Python (ts.capture_assign, Optimizer.capture_step) under
mpirun on 1 and 3 ranks: one SGD step of a data-parallel linear model (w broadcast, the
data a placeholder split over the ranks, unevenly at 3) captured, compiled and run
twice; w and the loss must follow the update computed here with numpy. Then
capture_assign alone (a counter) and the bad inputs of both."""

import unittest

import numpy as np

import tessera as ts
from tessera_test_util import TesseraTestCase, mpi_main

SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))
X = np.linspace(-1.0, 1.5, 15, dtype=np.float64).reshape(5, 3)
W0 = np.array([[0.5, -1.0], [2.0, 0.25], [-3.0, 1.0]], dtype=np.float64)
LR = 0.01


class TrainPlanTest(TesseraTestCase):
    def test_captured_sgd_step_trains(self):
        w = ts.tensor(W0, placement=WORLD, sbp=ts.sbp.broadcast)
        w.requires_grad = True
        # Momentum 0: the recorded step (one after the first) is exactly the first too.
        opt = ts.optim.SGD([w], lr=LR)
        with ts.capture() as cap:
            x = cap.placeholder("x", X.shape, "f64", WORLD, ts.sbp.split(0))
            y = x @ w
            loss = ts.scalar_mul(ts.reduce_sum(y * y), 0.5)
            loss.backward()
            opt.capture_step()
            cap.set_outputs(loss)
        instance = ts.compile(cap.program).instantiate()
        xt = ts.tensor(X, placement=WORLD, sbp=ts.sbp.split(0))
        want = W0.copy()
        for run in (1, 2):
            instance.run(xt)
            # loss = sum((X w)^2) / 2, dloss/dw = X^T X w (numpy, not tessera).
            want_loss = 0.5 * np.sum((X @ want) ** 2)
            want = want - LR * (X.T @ (X @ want))
            np.testing.assert_allclose(instance.output(0).numpy(), want_loss, rtol=1e-12,
                                       err_msg="run %d" % run)
            np.testing.assert_allclose(w.numpy(), want, rtol=1e-12, atol=1e-14,
                                       err_msg="run %d" % run)
        self.assertEqual(opt.stats().steps, 0)  # plan runs are not eager steps

    def test_assign_counter_and_bad_inputs(self):
        zeros = np.zeros(3)
        counter = ts.tensor(zeros, placement=WORLD, sbp=ts.sbp.broadcast)
        self.assertTesseraError(ts.FailedPreconditionError, "no capture",
                                ts.capture_assign, counter, counter)
        w = ts.tensor(zeros, placement=WORLD, sbp=ts.sbp.broadcast)
        w.requires_grad = True
        self.assertTesseraError(ts.FailedPreconditionError, "capture",
                                ts.optim.SGD([w], lr=LR).capture_step)
        step = np.array([1.0, -2.0, 0.5])
        with ts.capture() as cap:
            x = cap.placeholder("x", (3,), "f64", WORLD, ts.sbp.broadcast)
            total = counter + x
            self.assertTesseraError(ts.InvalidArgumentError, "placeholder",
                                    ts.capture_assign, x, total)
            self.assertTesseraError(ts.InvalidArgumentError, "real tensor",
                                    ts.capture_assign, counter, counter)
            with self.assertRaisesRegex(TypeError, "value"):
                ts.capture_assign(counter, step)
            ts.capture_assign(counter, total)
            cap.set_outputs(total)
        instance = ts.compile(cap.program).instantiate()
        xt = ts.tensor(step, placement=WORLD, sbp=ts.sbp.broadcast)
        for run in (1, 2, 3):
            instance.run(xt)
            np.testing.assert_array_equal(counter.numpy(), run * step)


if __name__ == "__main__":
    mpi_main()
