"""Eager global tensors: creation (tensor, from_local, zeros/ones/full/arange/
rand/randn), the Tensor class's metadata and data movement (numpy, to_local,
to_global). Every creation, to_global and numpy() is collective: every rank of the
world runs the same calls in the same order. Creation starts the runtime."""

import array
import numbers

from . import _capi
from ._capi import Tensor
from ._dtypes import dtype_code, float32, has_numpy, int64, numpy, numpy_dtype, raw
from ._errors import invalid_argument
from ._handles import attach
from ._placement import Sbp, as_placement, nd_sbp, require
from ._runtime import ensure_started, needs_runtime


def _nested(function, data):
    """(flat list, shape) of a number or a rectangular nested list/tuple of numbers."""
    if isinstance(data, numbers.Number) and not isinstance(data, bool):
        return [data], []
    if not isinstance(data, (list, tuple)):
        raise TypeError("%s: without numpy, data must be a number or nested lists of numbers, "
                        "not %s" % (function, type(data).__name__))
    parts = [_nested(function, item) for item in data]
    inner = parts[0][1] if parts else []
    for i, (_, shape) in enumerate(parts):
        if shape != inner:
            raise invalid_argument("%s: data is not rectangular: element %d has shape %s but "
                                   "element 0 has %s" % (function, i, tuple(shape), tuple(inner)))
    return [x for flat, _ in parts for x in flat], [len(parts)] + inner


# array.array typecodes of the dtypes a tensor can be made from without numpy.
_ARRAY_TYPECODES = {_capi.DTYPE_F32: "f", _capi.DTYPE_F64: "d", _capi.DTYPE_I32: "i",
                    _capi.DTYPE_I64: "q"}


def _tensor_without_numpy(data, dtype, p, s):
    """tensor() of nested lists of Python numbers, with the standard library alone: ints
    become int64 and any float makes float32, as with numpy."""
    flat, shape = _nested("tensor", data)
    if dtype is None:
        dtype = int64 if all(isinstance(x, numbers.Integral) for x in flat) else float32
    code = dtype_code(dtype)
    if code not in _ARRAY_TYPECODES:
        raise invalid_argument("tensor: dtype %s needs numpy" % _capi.dtype_name(code))
    ensure_started()
    return _capi.tensor_from_host(array.array(_ARRAY_TYPECODES[code], flat), shape, code, p, s)


def tensor(data, dtype=None, placement=None, sbp=None):
    """The global tensor whose logical value is `data` (a numpy array, or anything
    numpy.asarray takes; Python floats become float32), held as `sbp` on `placement`.
    Every rank passes the same value. Without numpy, `data` may be a number or nested
    lists of numbers (dtype f32, f64, i32 or i64)."""
    p, s = require("tensor", placement, sbp)
    if not has_numpy():
        return _tensor_without_numpy(data, dtype, p, s)
    np = numpy()
    if dtype is None and not isinstance(data, np.ndarray):
        data = np.asarray(data)
        if data.dtype == np.float64:
            data = data.astype(np.float32)
    code = dtype_code(data.dtype if dtype is None else dtype)
    # asarray, not ascontiguousarray: that one makes a 0-d array 1-d.
    array = np.asarray(data, dtype=numpy_dtype(code), order="C")
    ensure_started()
    return _capi.tensor_from_host(raw(array), list(array.shape), code, p, s)


def from_local(local, placement=None, sbp=None, shape=None):
    """The global tensor whose piece on this rank is `local` (a numpy array): shards
    for split, partial values for partial_*, copies for broadcast. `shape` states the
    logical shape; None infers it from every rank's local shape (collective)."""
    np = numpy()
    p, s = require("from_local", placement, sbp)
    local = np.asarray(local, order="C")
    code = dtype_code(local.dtype)
    if shape is not None:
        shape = [int(d) for d in shape]
        if len(shape) != local.ndim:
            raise invalid_argument(
                "from_local: shape %s has %d dims but the local array has %d"
                % (tuple(shape), len(shape), local.ndim))
    ensure_started()
    return _capi.tensor_from_local(raw(local), list(local.shape), code, p, s, shape)


def _size(size):
    """zeros(2, 3) and zeros((2, 3)) alike."""
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    return [int(d) for d in size]


# The raw creation functions (also exported as tessera.tensor_full, ...).
tensor_full = needs_runtime(_capi.tensor_full)
tensor_arange = needs_runtime(_capi.tensor_arange)
tensor_rand = needs_runtime(_capi.tensor_rand)
tensor_randn = needs_runtime(_capi.tensor_randn)


def full(size, value, dtype=float32, placement=None, sbp=None):
    """Every element `value`."""
    p, s = require("full", placement, sbp)
    return tensor_full(_size((size,)), dtype_code(dtype), float(value), p, s)


def zeros(*size, dtype=float32, placement=None, sbp=None):
    return full(_size(size), 0, dtype=dtype, placement=placement, sbp=sbp)


def ones(*size, dtype=float32, placement=None, sbp=None):
    return full(_size(size), 1, dtype=dtype, placement=placement, sbp=sbp)


def arange(start, end=None, step=1, dtype=None, placement=None, sbp=None):
    """start, start + step, ... below end (arange(n) counts from 0). The dtype defaults
    to int64 for int arguments, else float32."""
    p, s = require("arange", placement, sbp)
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = int64 if ints else float32
    return tensor_arange(float(start), float(end), float(step), dtype_code(dtype), p, s)


def rand(*size, dtype=float32, seed=0, placement=None, sbp=None):
    """Uniform [0, 1) values that depend only on (size, dtype, seed)."""
    p, s = require("rand", placement, sbp)
    return tensor_rand(_size(size), dtype_code(dtype), seed, p, s)


def randn(*size, dtype=float32, seed=0, placement=None, sbp=None):
    """Standard normal values that depend only on (size, dtype, seed)."""
    p, s = require("randn", placement, sbp)
    return tensor_randn(_size(size), dtype_code(dtype), seed, p, s)


attach(Tensor, "tensor_", {"full", "arange", "rand", "randn"},
       {"shape", "num_elements", "string", "local_shape", "local_num_elements"},
       exclude={"from_host", "from_local"})
Tensor.full = staticmethod(tensor_full)
Tensor.arange = staticmethod(tensor_arange)
Tensor.rand = staticmethod(tensor_rand)
Tensor.randn = staticmethod(tensor_randn)


def _tensor_numpy(self):
    """The whole logical value as a new numpy array, on every rank (collective)."""
    out = numpy().empty(self.shape, dtype=numpy_dtype(_capi.tensor_dtype(self)))
    _capi.tensor_to_host(raw(out), self)
    return out


def _tensor_to_local(self):
    """A numpy copy of this rank's local piece (FailedPreconditionError on a rank the
    placement does not hold)."""
    out = numpy().empty(self.local_shape, dtype=numpy_dtype(_capi.tensor_dtype(self)))
    _capi.tensor_copy_local(raw(out), self)
    return out


def _tensor_to_global(self, placement=None, sbp=None):
    """The same logical value on `placement` as `sbp` (each defaults to the tensor's
    own), moved by boxing. Collective."""
    return _capi.tensor_to_global(
        self, self.placement if placement is None else as_placement(placement),
        self.nd_sbp if sbp is None else nd_sbp(sbp))


def _tensor_len(self):
    shape = self.shape
    if not shape:
        raise TypeError("len() of a 0-d tensor")
    return shape[0]


# Shapes come whole from the borrowed getters (tess_tensor_shape, tess_tensor_local_shape),
# copied into a tuple inside the call.
Tensor.shape.__doc__ = "The logical shape as a tuple."
Tensor.local_shape.__doc__ = (
    "This rank's local piece's shape (FailedPreconditionError outside the placement).")
Tensor.ndim = property(lambda self: len(self.shape), doc="The number of logical dims.")
Tensor.local_ndim = property(lambda self: len(self.local_shape),
                             doc="The number of the local piece's dims (as ndim).")
Tensor.dtype = property(lambda self: numpy_dtype(_capi.tensor_dtype(self)),
                        doc="The element type as a numpy dtype.")
Tensor.placement = property(lambda self: _capi.tensor_placement(self), doc="The Placement.")
Tensor.nd_sbp = property(lambda self: _capi.tensor_nd_sbp(self), doc="The NdSbp.")
Tensor.sbp = property(
    lambda self: tuple(Sbp(k, a) for k, a in self.nd_sbp.sbps),
    doc="One sbp value per placement axis, as a tuple.")
Tensor.has_local = property(lambda self: bool(_capi.tensor_has_local(self)),
                            doc="Whether this rank holds a local piece.")
Tensor.numpy = _tensor_numpy
Tensor.to_local = _tensor_to_local
Tensor.to_global = _tensor_to_global
Tensor.__len__ = _tensor_len
Tensor.__repr__ = lambda self: "tessera.Tensor(%s)" % self.string
