"""Optimizers from Python (ts.optim.SGD / Adam / AdamW) under mpirun on 1 and 3 ranks: a
few steps on a data-parallel linear model (weight and bias broadcast, data split over
the ranks, unevenly at 3) against numpy references written from PyTorch's documented
update rules; fused and per-tensor give the same values; set_lr, stats and bad inputs.
Every rank runs every call in the same order (create, step and zero_grad are
collective)."""

import unittest

import numpy as np

import tessera as ts
from tessera_test_util import TesseraTestCase, mpi_main

SIZE = ts.world_size()
WORLD = ts.placement("cpu", ranks=list(range(SIZE)))
X = np.linspace(-1.0, 1.5, 15, dtype=np.float64).reshape(5, 3)
W0 = np.array([[0.5, -1.0], [2.0, 0.25], [-3.0, 1.0]], dtype=np.float64)
B0 = np.array([0.1, -0.2], dtype=np.float64)
STEPS = 3


def grads(w, b):
    """loss = sum((X @ w + b)^2) / 2: dw = X^T y, db = sum_rows y (numpy, not tessera)."""
    y = X @ w + b
    return X.T @ y, y.sum(axis=0)


def sgd_reference(lr, momentum=0.0, dampening=0.0, nesterov=False, weight_decay=0.0,
                  lrs=None):
    """torch.optim.SGD's documented algorithm, STEPS steps."""
    params, bufs = [W0.copy(), B0.copy()], [None, None]
    for t in range(STEPS):
        step_lr = lr if lrs is None else lrs[t]
        gs = grads(*params)
        for i, (p, g) in enumerate(zip(params, gs)):
            g = g + weight_decay * p
            if momentum != 0:
                bufs[i] = g.copy() if bufs[i] is None else (
                    momentum * bufs[i] + (1 - dampening) * g)
                g = g + momentum * bufs[i] if nesterov else bufs[i]
            params[i] = p - step_lr * g
    return params


def adam_reference(lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=True):
    """torch.optim.AdamW (decoupled) / Adam (L2 in the gradient), STEPS steps."""
    b1, b2 = betas
    params = [W0.copy(), B0.copy()]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, STEPS + 1):
        gs = grads(*params)
        for i, (p, g) in enumerate(zip(params, gs)):
            if decoupled:
                p = p * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * p
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            m_hat = m[i] / (1 - b1 ** t)
            v_hat = v[i] / (1 - b2 ** t)
            params[i] = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return params


class Model:
    def __init__(self):
        self.x = ts.tensor(X, placement=WORLD, sbp=ts.sbp.split(0))
        self.w = ts.tensor(W0, placement=WORLD, sbp=ts.sbp.broadcast)
        self.b = ts.tensor(B0, placement=WORLD, sbp=ts.sbp.broadcast)
        self.w.requires_grad = True
        self.b.requires_grad = True

    def params(self):
        return [self.w, self.b]

    def train(self, opt, lrs=None):
        for t in range(STEPS):
            if lrs is not None:
                opt.lr = lrs[t]
            y = ts.bias_add(self.x @ self.w, self.b, axis=1)
            loss = ts.scalar_mul(ts.reduce_sum(y * y), 0.5)
            loss.backward()
            opt.step()
            opt.zero_grad()
        return [self.w.numpy(), self.b.numpy()]


class OptimTest(TesseraTestCase):
    def check(self, got, want):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)

    def test_sgd_plain(self):
        m = Model()
        self.check(m.train(ts.optim.SGD(m.params(), lr=0.01)), sgd_reference(0.01))

    def test_sgd_momentum_weight_decay(self):
        for fused in (False, True):
            m = Model()
            opt = ts.optim.SGD(m.params(), lr=0.01, momentum=0.9, dampening=0.1,
                               weight_decay=0.05, fused=fused)
            self.check(m.train(opt), sgd_reference(0.01, 0.9, 0.1, False, 0.05))

    def test_sgd_nesterov(self):
        m = Model()
        opt = ts.optim.SGD(m.params(), lr=0.02, momentum=0.5, nesterov=True)
        self.check(m.train(opt), sgd_reference(0.02, 0.5, 0.0, True))

    def test_adamw_per_tensor_and_fused(self):
        results = []
        for fused in (False, True):
            m = Model()
            opt = ts.optim.AdamW(m.params(), lr=0.1, weight_decay=0.1, fused=fused)
            results.append(m.train(opt))
            self.check(results[-1], adam_reference(0.1, weight_decay=0.1))
            self.assertIs(opt.params[0], m.w)  # the Tensors keep their identity
        for a, b in zip(*results):
            np.testing.assert_array_equal(a, b)

    def test_adam(self):
        m = Model()
        opt = ts.optim.Adam(m.params(), lr=0.05, betas=(0.8, 0.99), weight_decay=0.01)
        self.check(m.train(opt), adam_reference(0.05, (0.8, 0.99), 1e-8, 0.01, False))

    def test_set_lr_takes_effect(self):
        m = Model()
        opt = ts.optim.SGD(m.params(), lr=0.5)
        self.assertEqual(opt.lr, 0.5)
        lrs = [0.01, 0.0, 0.03]
        self.check(m.train(opt, lrs), sgd_reference(None, lrs=lrs))
        self.assertEqual(opt.lr, 0.03)

    def test_stats(self):
        m = Model()
        opt = ts.optim.AdamW(m.params(), lr=0.01, fused=True)
        m.train(opt)
        s = opt.stats()
        self.assertIsInstance(s, ts.optim.OptimizerStats)
        self.assertEqual(s.steps, STEPS)
        self.assertEqual(s.num_params, 2)
        self.assertEqual(s.num_buckets, 1)  # one dtype and layout, far under 25 MiB
        self.assertGreater(s.state_bytes, 0)
        m2 = Model()
        s2 = ts.optim.SGD(m2.params()).stats()
        self.assertEqual((s2.steps, s2.num_params, s2.num_buckets), (0, 2, 0))

    def test_parameter_without_grad_is_skipped(self):
        m = Model()
        opt = ts.optim.SGD(m.params(), lr=0.1)
        opt.step()  # no backward yet: nothing changes, as in PyTorch
        np.testing.assert_array_equal(m.w.numpy(), W0)

    def test_bad_inputs(self):
        m = Model()
        self.assertTesseraError(ts.InvalidArgumentError, "lr is -0.1",
                                ts.optim.SGD, m.params(), lr=-0.1)
        self.assertTesseraError(ts.InvalidArgumentError, "beta1 is 1",
                                ts.optim.AdamW, m.params(), betas=(1.0, 0.999))
        self.assertTesseraError(ts.InvalidArgumentError, "eps is -1",
                                ts.optim.Adam, m.params(), eps=-1.0)
        self.assertTesseraError(ts.InvalidArgumentError, "nesterov",
                                ts.optim.SGD, m.params(), nesterov=True)
        plain = ts.tensor(W0, placement=WORLD, sbp=ts.sbp.broadcast)
        self.assertTesseraError(ts.InvalidArgumentError, "parameter 1",
                                ts.optim.SGD, [m.w, plain])
        self.assertTesseraError(ts.InvalidArgumentError, "parameter 1",
                                ts.optim.SGD, [m.w, m.w])
        self.assertTesseraError(ts.InvalidArgumentError, "bucket_bytes",
                                ts.optim.SGD, m.params(), fused=True, bucket_bytes=0)
        self.assertTesseraError(ts.InvalidArgumentError, "zero1",
                                ts.optim.SGD, m.params(), zero1=True)
        with self.assertRaises(TypeError):
            ts.optim.SGD([m.w, "b"])
        opt = ts.optim.SGD(m.params())
        self.assertTesseraError(ts.InvalidArgumentError, "lr is -1", opt.set_lr, -1.0)
        self.assertTesseraError(ts.InvalidArgumentError, "lr is nan", opt.set_lr,
                                float("nan"))
        self.assertEqual(opt.lr, 0.01)  # unchanged by the refused values
        opt.close()
        with self.assertRaises(TypeError):
            opt.step()  # a closed handle


if __name__ == "__main__":
    mpi_main()
