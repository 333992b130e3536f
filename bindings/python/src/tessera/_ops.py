"""Ops on eager tensors (each collective, like every op: every rank runs it) and
Tensor's operators and op methods; explain().

Every registered op has its function in _ops_generated (written by tools/opgen from
the op registry); this module adds what the registry cannot say: numbers as scalar
tensors for the binary ops, reduce's `axis` spelling, the operators and the Tensor
methods."""

import numbers

from . import _capi
from . import _ops_generated as _gen
from ._capi import NdSbp, OpCall, Tensor


def _as_tensor(value, like):
    """`value` itself if a Tensor, else a scalar tensor of `like`'s dtype broadcast on
    its placement (collective, like every op)."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, numbers.Number):
        raise TypeError("expected a Tensor or a number, got %r" % (value,))
    p = like.placement
    return _capi.tensor_full([], _capi.tensor_dtype(like), float(value), p,
                             NdSbp.create([(_capi.SBP_BROADCAST, 0)] * p.num_axes))


def _binary(name):
    raw = getattr(_gen, name)

    def op(x, y):
        if not isinstance(x, Tensor):
            x = _as_tensor(x, y)
        return raw(x, _as_tensor(y, x))

    op.__name__ = op.__qualname__ = name
    op.__module__ = "tessera"
    op.__doc__ = "%s(x, y) elementwise, numpy broadcasting; a number becomes a scalar." % name
    return op


add, sub, mul, div, maximum, minimum, pow = (  # noqa: A001 (tessera.pow, as numpy's)
    _binary(n) for n in ("add", "sub", "mul", "div", "maximum", "minimum", "pow"))

relu, gelu, sigmoid, tanh, exp, neg, sqrt, abs = (  # noqa: A001
    _gen.relu, _gen.gelu, _gen.sigmoid, _gen.tanh, _gen.exp, _gen.neg, _gen.sqrt, _gen.abs)
matmul, softmax = _gen.matmul, _gen.softmax


def _reduce(name):
    raw = getattr(_gen, name)

    def op(x, axis=None, keepdims=False):
        return raw(x, axes=axis, keepdims=keepdims)

    op.__name__ = op.__qualname__ = name
    op.__module__ = "tessera"
    op.__doc__ = ("%s(x, axis=None, keepdims=False): over `axis` (an int, a sequence, or "
                  "None for every axis)." % name)
    return op


reduce_sum, reduce_mean, reduce_max, reduce_min = (
    _reduce(n) for n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min"))


def apply(op, *inputs, **attrs):
    """Runs op (a name or an OpCall without inputs) on the input Tensors with the
    given attributes; returns a tuple of output Tensors."""
    call = OpCall(op) if isinstance(op, str) else op
    for name, value in attrs.items():
        call.attr(name, value)
    return _capi.op_call_apply(call, list(inputs))


def explain(call=None):
    """explain(): the Explanation of this thread's last op (also one that failed);
    explain(call): that of an OpCall with input metas (uncached inference)."""
    return _capi.explanation_last() if call is None else _capi.op_call_explain(call)


def _reflected(fn):
    return lambda self, other: fn(other, self)


Tensor.__add__ = lambda self, other: add(self, other)
Tensor.__radd__ = _reflected(add)
Tensor.__sub__ = lambda self, other: sub(self, other)
Tensor.__rsub__ = _reflected(sub)
Tensor.__mul__ = lambda self, other: mul(self, other)
Tensor.__rmul__ = _reflected(mul)
Tensor.__truediv__ = lambda self, other: div(self, other)
Tensor.__rtruediv__ = _reflected(div)
Tensor.__pow__ = lambda self, other: pow(self, other)
Tensor.__rpow__ = _reflected(pow)
Tensor.__matmul__ = lambda self, other: matmul(self, other)
Tensor.__neg__ = lambda self: neg(self)
Tensor.__abs__ = lambda self: abs(self)
for _fn in (relu, gelu, sigmoid, tanh, exp, sqrt, softmax, matmul, reduce_sum, reduce_mean,
            reduce_max, reduce_min):
    setattr(Tensor, _fn.__name__, _fn)
del _fn
Tensor.sum, Tensor.mean = reduce_sum, reduce_mean
Tensor.neg = lambda self: neg(self)
Tensor.abs = lambda self: abs(self)
