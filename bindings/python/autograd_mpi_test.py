"""Autograd from Python (Tensor.requires_grad/grad/backward, ts.autograd.backward,
ts.no_grad) under mpirun on 1 and 3 ranks: a linear model's gradient against numpy,
its SBP, accumulation, zero_grad, grad mode, detach, retain_graph and bad inputs.
Every rank runs every call in the same order (backward is collective)."""

import threading
import time
import unittest

import numpy as np

import tessera as ts
from tessera_test_util import TesseraTestCase, mpi_main

SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))
X = np.arange(1, 13, dtype=np.float64).reshape(4, 3)
W = np.array([[0.5, -1], [2, 0.25], [-3, 1]], dtype=np.float64)


def expected_grad(times=1):
    """d sum(X @ W) / d W[k][j] = sum_i X[i][k], whatever j (numpy, not tessera)."""
    return times * np.repeat(X.sum(axis=0)[:, None], 2, axis=1)


class Linear:
    """loss = sum(x @ w): x [4,3] rows split over the ranks (uneven at 3), w broadcast."""

    def __init__(self):
        self.x = ts.tensor(X, placement=WORLD, sbp=ts.sbp.split(0))
        self.w = ts.tensor(W, placement=WORLD, sbp=ts.sbp.broadcast)
        self.w.requires_grad = True

    def forward(self):
        return ts.reduce_sum(self.x @ self.w)


class AutogradTest(TesseraTestCase):
    def test_linear_model_gradient(self):
        m = Linear()
        self.assertTrue(m.w.requires_grad)
        self.assertTrue(m.w.is_leaf)
        self.assertIsNone(m.w.grad)  # before any backward
        loss = m.forward()
        self.assertTrue(loss.requires_grad)
        self.assertFalse(loss.is_leaf)
        self.assertFalse(m.x.requires_grad)
        loss.backward()
        g = m.w.grad
        self.assertIsInstance(g, ts.Tensor)
        self.assertEqual(g.shape, (3, 2))
        if SIZE > 1:  # matmul(x^T, dy) with x S(0): each rank's rows, a partial sum
            self.assertEqual(g.sbp, (ts.sbp.partial_sum,))
        np.testing.assert_array_equal(g.numpy(), expected_grad())
        self.assertIsNone(m.x.grad)

    def test_accumulates_until_zeroed(self):
        m = Linear()
        m.forward().backward()
        ts.autograd.backward(m.forward())
        np.testing.assert_array_equal(m.w.grad.numpy(), expected_grad(2))
        m.w.zero_grad()
        self.assertIsNone(m.w.grad)
        ts.autograd.backward([m.forward()], [None])
        np.testing.assert_array_equal(m.w.grad.numpy(), expected_grad(1))

    def test_explicit_root_gradient(self):
        # backward(y, grad=dy) for the [4,2] output: d/dw = x^T @ dy.
        m = Linear()
        y = m.x @ m.w
        dy = np.array([[1, 2], [0, -1], [0.5, 0], [3, 1]], dtype=np.float64)
        y.backward(ts.tensor(dy, placement=WORLD, sbp=ts.sbp.broadcast))
        np.testing.assert_array_equal(m.w.grad.numpy(), X.T @ dy)

    @unittest.skipIf(SIZE < 2, "needs a rank to wait for")
    def test_backward_releases_the_gil(self):
        # A partial-sum gradient for the S(0) output y = x @ w: matmul(x^T, dy) boxes dy
        # across the ranks, so rank 0's backward waits in C for rank 1, which starts 1 s
        # late. A Python thread of rank 0 counts meanwhile (clock samples every 1000
        # counts), which it cannot if the wait holds the GIL; holding it, the counter
        # would run only after the call, so the samples must fall well inside it.
        m = Linear()
        y = m.x @ m.w
        dy = np.array([[1, 2], [0, -1], [0.5, 0], [3, 1]], dtype=np.float64)
        g = ts.tensor(dy, placement=WORLD, sbp=ts.sbp.partial_sum)
        samples, stop = [], []

        def count():
            n = 0
            while not stop:
                n += 1
                if n % 1000 == 0:
                    samples.append(time.monotonic())

        thread = threading.Thread(target=count, daemon=True)
        thread.start()
        if ts.world_rank() == 1:
            time.sleep(1.0)
        start = time.monotonic()
        y.backward(g)
        end = time.monotonic()
        stop.append(True)
        thread.join()
        np.testing.assert_array_equal(m.w.grad.numpy(), X.T @ dy)
        if ts.world_rank() == 0:
            self.assertGreaterEqual(end - start, 0.9, "backward did not wait for rank 1")
            inside = [t for t in samples if start + 0.1 < t < end - 0.1]
            self.assertTrue(inside, "the counter did not run during the %.2f s backward"
                            % (end - start))

    def test_no_grad_records_nothing(self):
        m = Linear()
        self.assertTrue(ts.is_grad_enabled())
        with ts.no_grad():
            self.assertFalse(ts.is_grad_enabled())
            loss = m.forward()
            with ts.enable_grad():
                self.assertTrue(ts.is_grad_enabled())
                self.assertTrue(m.forward().requires_grad)
            self.assertFalse(ts.is_grad_enabled())
        self.assertTrue(ts.is_grad_enabled())
        self.assertFalse(loss.requires_grad)
        self.assertTesseraError(ts.InvalidArgumentError, "requires", loss.backward)

    def test_grad_mode_restored_on_exceptions(self):
        with self.assertRaises(KeyError):
            with ts.no_grad():
                raise KeyError("inside")
        self.assertTrue(ts.is_grad_enabled())
        self.assertTrue(ts.set_grad_enabled(False))
        try:
            with self.assertRaises(KeyError):
                with ts.enable_grad():
                    raise KeyError("inside")
            self.assertFalse(ts.is_grad_enabled())
        finally:
            ts.set_grad_enabled(True)

    def test_grad_mode_is_per_thread(self):
        seen = []
        with ts.no_grad():
            t = threading.Thread(target=lambda: seen.append(ts.is_grad_enabled()))
            t.start()
            t.join()
        self.assertEqual(seen, [True])

    def test_detach(self):
        m = Linear()
        d = m.w.detach()
        self.assertFalse(d.requires_grad)
        self.assertTrue(d.is_leaf)
        np.testing.assert_array_equal(d.numpy(), W)
        loss = ts.reduce_sum(m.x @ d)
        self.assertFalse(loss.requires_grad)

    def test_retain_graph(self):
        m = Linear()
        loss = m.forward()
        loss.backward(retain_graph=True)
        ts.autograd.backward([loss], retain_graph=False)
        np.testing.assert_array_equal(m.w.grad.numpy(), expected_grad(2))
        self.assertTesseraError(ts.FailedPreconditionError, "retain_graph", loss.backward)

    def test_bad_inputs(self):
        i = ts.tensor(np.arange(6, dtype=np.int32), placement=WORLD, sbp=ts.sbp.broadcast)
        with self.assertRaises(ts.InvalidArgumentError) as ctx:
            i.requires_grad = True
        self.assertIn("i32", ctx.exception.message)
        with self.assertRaises(TypeError):
            i.requires_grad = 1
        m = Linear()
        y = m.x @ m.w  # [4,2]: its gradient must be given
        self.assertTesseraError(ts.InvalidArgumentError, "only for a one-element root",
                                y.backward)
        self.assertTesseraError(ts.InvalidArgumentError, "grads has 2 entries for 1 roots",
                                ts.autograd.backward, [y], [None, None])
        with self.assertRaises(TypeError):
            ts.autograd.backward([y, 3])
        with self.assertRaises(TypeError):
            ts.autograd.backward([y], [3])
        self.assertTesseraError(ts.InvalidArgumentError, "root", ts.autograd.backward, [])
        with self.assertRaises(ts.InvalidArgumentError):
            y.requires_grad = False  # an op's output: detach it first
        wrong = ts.tensor(np.ones((2, 2)), placement=WORLD, sbp=ts.sbp.broadcast)
        self.assertTesseraError(ts.InvalidArgumentError, "is [2,2] f64 but the root is [4,2] f64",
                                y.backward, wrong)


if __name__ == "__main__":
    mpi_main()
