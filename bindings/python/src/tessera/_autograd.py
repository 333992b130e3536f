"""Reverse-mode autograd (tessera/autograd.h), as `ts.autograd`: Tensor's
requires_grad, is_leaf, grad, zero_grad(), detach() and backward(), plus backward over
several roots and the per-thread grad mode (no_grad, enable_grad, is_grad_enabled).

Typed ops record themselves when an input requires a gradient and grad mode is on;
backward adds into each reached leaf's `grad`, so call zero_grad() between steps.
Gradients are global tensors with the SBP backward chose (a broadcast weight under
batch-split data gets a partial-sum gradient). backward is collective: every rank
calls it alike; the GIL is released while it runs."""

import contextlib

from . import _capi
from ._capi import Tensor
from ._errors import invalid_argument


def _tensor_list(name, value):
    """`value` (one Tensor or a sequence of them) as a list, checked for type."""
    items = [value] if isinstance(value, Tensor) else list(value)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            raise TypeError("%s[%d] is a %s, not a Tensor" % (name, i, type(item).__name__))
    return items


def backward(roots, grads=None, retain_graph=False):
    """Backpropagates from `roots` (a Tensor or a sequence), adding into the `grad` of
    every leaf reached. `grads`: None (ones, for one-element roots only), or one Tensor
    or None per root, shaped and typed as its root. retain_graph=True keeps the graph
    for another backward; without it a second one raises FailedPreconditionError.
    Collective over the recorded ops' placements."""
    roots = _tensor_list("roots", roots)
    if grads is None:
        grads = []
    else:
        grads = [grads] if isinstance(grads, Tensor) else list(grads)
        for i, g in enumerate(grads):
            if g is not None and not isinstance(g, Tensor):
                raise TypeError("grads[%d] is a %s, not a Tensor or None"
                                % (i, type(g).__name__))
        if len(grads) != len(roots):
            raise invalid_argument("grads has %d entries for %d roots"
                                   % (len(grads), len(roots)))
    _capi.autograd_backward(roots, grads, 1 if retain_graph else 0)


def is_grad_enabled():
    """Whether ops record for autograd on this thread (on by default)."""
    return bool(_capi.autograd_is_grad_enabled())


def set_grad_enabled(enabled):
    """Turns grad mode on or off for this thread; returns the previous mode."""
    return bool(_capi.autograd_set_grad_enabled(1 if enabled else 0))


@contextlib.contextmanager
def _grad_mode(enabled):
    previous = set_grad_enabled(enabled)
    try:
        yield
    finally:
        set_grad_enabled(previous)


def no_grad():
    """`with ts.no_grad():` records nothing inside (evaluation, optimizer updates), and
    restores the previous mode on the way out, exceptions included. Also a decorator."""
    return _grad_mode(False)


def enable_grad():
    """`with ts.enable_grad():` records inside even within no_grad, then restores the
    previous mode. Also a decorator."""
    return _grad_mode(True)


def _tensor_set_requires_grad(self, value):
    if not isinstance(value, bool):
        raise TypeError("requires_grad must be a bool, not %s" % type(value).__name__)
    _capi.tensor_set_requires_grad(self, 1 if value else 0)


def _tensor_backward(self, grad=None, retain_graph=False):
    """Backpropagates from this tensor (one element, or with `grad` of its shape):
    ts.autograd.backward([self], [grad], retain_graph). Collective."""
    backward([self], None if grad is None else [grad], retain_graph)


def _tensor_zero_grad(self):
    """Drops the accumulated gradient: the next backward starts from zero."""
    _capi.tensor_zero_grad(self)


def _tensor_detach(self):
    """The same data as a new tensor that requires no gradient and records nothing."""
    return _capi.tensor_detach(self)


Tensor.requires_grad = property(
    lambda self: bool(_capi.tensor_requires_grad(self)), _tensor_set_requires_grad,
    doc="Whether gradients flow into this tensor. Set True on a floating leaf to make it "
        "a parameter (InvalidArgumentError for an integer tensor or an op's output).")
Tensor.is_leaf = property(lambda self: bool(_capi.tensor_is_leaf(self)),
                          doc="True unless this tensor is the output of a recorded op.")
Tensor.grad = property(lambda self: _capi.tensor_grad(self),
                       doc="The accumulated gradient (a Tensor), or None before any "
                           "backward reached this leaf or after zero_grad().")
Tensor.zero_grad = _tensor_zero_grad
Tensor.detach = _tensor_detach
Tensor.backward = _tensor_backward
