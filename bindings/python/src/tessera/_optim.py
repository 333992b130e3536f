"""Optimizers (tessera/optim.h), as `ts.optim`: SGD, Adam and AdamW over parameters
(leaf tensors with requires_grad), following PyTorch's update rules.

    opt = ts.optim.AdamW(model_params, lr=1e-3, weight_decay=1e-2, fused=True)
    loss.backward(); opt.step(); opt.zero_grad()

step() updates every parameter that has a gradient IN PLACE: the Tensor objects keep
their identity and see the new values. With fused=True the parameters' data moves into
flat buckets (one update kernel per bucket, gradient all-reduce overlapped with
backward); the Tensors stay valid. Creating, step() and zero_grad() are collective over
the parameters' placements; the GIL is released while they run."""

import collections

from . import _capi
from ._capi import Optimizer as _Handle
from ._capi import Tensor
from ._handles import handle_protocols
from ._runtime import ensure_started

handle_protocols(_Handle, lambda self: "<tessera.optim handle>")

OptimizerStats = collections.namedtuple(
    "OptimizerStats",
    "steps num_params num_buckets allreduces_in_backward allreduce_seconds "
    "allreduce_wait_seconds state_bytes")
OptimizerStats.__module__ = "tessera.optim"
OptimizerStats.__doc__ = (
    "What an optimizer has done: step() calls, parameters, flat buckets (fused; else 0), "
    "gradient all-reduces started during backward, seconds they were in flight and of "
    "those the seconds step() waited (fused), optimizer state bytes in the buckets.")

# The C API's default bucket size (TESS_OPTIMIZER_OPTIONS_INIT).
DEFAULT_BUCKET_BYTES = 25 << 20


class Optimizer(object):
    """An optimizer over `params`; build one with SGD, Adam or AdamW. Usable in `with`
    (close() frees its state now)."""

    def __init__(self, algorithm, params, lr, weight_decay=0.0, momentum=0.0, dampening=0.0,
                 nesterov=False, betas=(0.9, 0.999), eps=1e-8, fused=False,
                 bucket_bytes=DEFAULT_BUCKET_BYTES, zero1=False):
        params = [params] if isinstance(params, Tensor) else list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError("params[%d] is a %s, not a Tensor" % (i, type(p).__name__))
        beta1, beta2 = betas
        ensure_started()
        # The C API checks every value and names the offending one.
        self._handle = _capi.optimizer_create(
            params, algorithm, float(lr), float(weight_decay), float(momentum),
            float(dampening), 1 if nesterov else 0, float(beta1), float(beta2), float(eps),
            1 if fused else 0, int(bucket_bytes), 1 if zero1 else 0)
        self._params = params

    @property
    def params(self):
        """The parameters, in the order given."""
        return list(self._params)

    def step(self):
        """Updates every parameter that has a gradient, in place. Collective."""
        _capi.optimizer_step(self._handle)

    def capture_step(self):
        """Inside `with ts.capture()`, after a captured backward: records one step
        (update ops, and capture_assign of the new parameters and state) instead of
        taking it, so every run of the compiled plan trains. Per-tensor mode only
        (UnimplementedError when fused); plan runs do not count in stats().steps."""
        _capi.optimizer_capture_step(self._handle)

    def zero_grad(self):
        """Drops every parameter's gradient. Collective."""
        _capi.optimizer_zero_grad(self._handle)

    def set_lr(self, lr):
        """The learning rate of the next steps (InvalidArgumentError if negative or not
        finite)."""
        _capi.optimizer_set_lr(self._handle, float(lr))
        self._lr = float(lr)

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, value):
        self.set_lr(value)

    def stats(self):
        """An OptimizerStats."""
        return OptimizerStats(*_capi.optimizer_get_stats(self._handle))

    def close(self):
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


def _make(algorithm, params, lr, kwargs):
    opt = Optimizer(algorithm, params, lr, **kwargs)
    opt._lr = float(lr)
    return opt


def SGD(params, lr=0.01, momentum=0.0, dampening=0.0, nesterov=False, weight_decay=0.0,
        fused=False, bucket_bytes=DEFAULT_BUCKET_BYTES, zero1=False):
    """torch.optim.SGD: momentum, dampening, Nesterov, weight decay added to the gradient.
    zero1 (with fused) splits optimizer state across data-parallel ranks."""
    return _make(_capi.OPTIMIZER_SGD, params, lr, dict(
        momentum=momentum, dampening=dampening, nesterov=nesterov, weight_decay=weight_decay,
        fused=fused, bucket_bytes=bucket_bytes, zero1=zero1))


def Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, fused=False,
         bucket_bytes=DEFAULT_BUCKET_BYTES, zero1=False):
    """torch.optim.Adam: weight decay added to the gradient (L2)."""
    return _make(_capi.OPTIMIZER_ADAM, params, lr, dict(
        betas=betas, eps=eps, weight_decay=weight_decay, fused=fused,
        bucket_bytes=bucket_bytes, zero1=zero1))


def AdamW(params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, fused=False,
          bucket_bytes=DEFAULT_BUCKET_BYTES, zero1=False):
    """torch.optim.AdamW: decoupled weight decay (p -= lr * weight_decay * p)."""
    return _make(_capi.OPTIMIZER_ADAMW, params, lr, dict(
        betas=betas, eps=eps, weight_decay=weight_decay, fused=fused,
        bucket_bytes=bucket_bytes, zero1=zero1))
