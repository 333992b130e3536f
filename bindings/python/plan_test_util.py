"""The small MLP forward pass the plan tests compile, shared by plan_test.py (one
rank) and plan_mpi_test.py (under mpirun): softmax(relu(x w1 + b1) w2 + b2) with w1
split along its columns (so the first matmul needs boxing on more than one rank),
built three ways: eager ts ops, an explicit ts.Program, and a ts.capture() of the
eager code. The numpy oracle uses float64 and shares nothing with them."""

import numpy as np

import tessera as ts

BATCH, IN, WIDTH, OUT = 7, 6, 8, 5


def values(shape, salt=0, dtype=np.float32):
    """Multiples of 1/8 in [-11/8, 11/8]: exact in float32."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + salt) % 23 - 11) * 0.125).astype(dtype).reshape(shape)


class Mlp(object):
    """The weights as numpy arrays and as tensors on `placement`."""

    def __init__(self, placement):
        self.placement = placement
        self.w1, self.b1 = values((IN, WIDTH), 1), values((WIDTH,), 2)
        self.w2, self.b2 = values((WIDTH, OUT), 3), values((OUT,), 4)
        self.t_w1 = ts.tensor(self.w1, placement=placement, sbp=ts.sbp.split(1))
        self.t_b1 = ts.tensor(self.b1, placement=placement, sbp=ts.sbp.broadcast)
        self.t_w2 = ts.tensor(self.w2, placement=placement, sbp=ts.sbp.broadcast)
        self.t_b2 = ts.tensor(self.b2, placement=placement, sbp=ts.sbp.broadcast)

    def forward(self, x):
        """The model on a Tensor: run eagerly on a real one, recorded on a
        placeholder."""
        h = ts.apply("bias_add", ts.matmul(x, self.t_w1), self.t_b1)[0]
        h = ts.apply("bias_add", ts.relu(h) @ self.t_w2, self.t_b2)[0]
        return ts.softmax(h, axis=-1)

    def oracle(self, x):
        """The model by numpy in float64."""
        h = np.maximum(x.astype(np.float64) @ self.w1 + self.b1, 0)
        logits = h @ self.w2 + self.b2
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def explicit_program(self):
        """The model built value by value."""
        p = ts.Program()
        x = p.add_input("x", (BATCH, IN), "f32", self.placement)
        w1 = p.add_variable("w1", self.t_w1)
        b1 = p.add_variable("b1", self.t_b1)
        w2 = p.add_variable("w2", self.t_w2)
        b2 = p.add_variable("b2", self.t_b2)
        (h,) = p.add_op("matmul", [x, w1])
        (h,) = p.add_op("bias_add", [h, b1])
        (h,) = p.add_op("relu", [h])
        (h,) = p.add_op("matmul", [h, w2], attrs={"transpose_b": False})
        (h,) = p.add_op("bias_add", [h, b2])
        (y,) = p.add_op("softmax", [h], attrs={"axis": -1})
        p.mark_output(y)
        return p

    def captured_program(self):
        """The model recorded from forward()."""
        with ts.capture() as cap:
            x = cap.placeholder("x", (BATCH, IN), np.float32, self.placement)
            cap.set_outputs(self.forward(x))
        return cap.program
