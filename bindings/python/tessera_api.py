# Idiomatic Python over the SWIG functions above (appended to the generated
# tessera.py by bindings/tessera.i; it runs in that module's namespace).
#
# The raw functions (placement_parse, layout_range, ...) already return values
# and raise TesseraError; this layer adds classes: every raw function named
# `<prefix>_<verb>` becomes a method `<verb>` of the handle class for <prefix>,
# nullary queries become properties, and a few methods get Python protocols
# (==, hash, str, `in`, context managers).

import functools as _functools


# --- Errors --------------------------------------------------------------------


class TesseraError(Exception):
    """A failed Tessera call: `code` (TESS_* status code), `message` (the C API's
    text), `status` (the code's name, e.g. "INVALID_ARGUMENT")."""

    def __init__(self, code, message):
        self.code = int(code)
        self.message = message
        self.status = status_string(self.code)
        super().__init__("%s: %s" % (self.status, message))


def _error_class(name, code, *bases):
    cls = type(name, (TesseraError,) + bases, {"CODE": code, "__module__": __name__})
    cls.__doc__ = "TesseraError with code %s (%d)." % (status_string(code), code)
    return cls


CancelledError = _error_class("CancelledError", CANCELLED)
UnknownError = _error_class("UnknownError", UNKNOWN)
InvalidArgumentError = _error_class("InvalidArgumentError", INVALID_ARGUMENT, ValueError)
DeadlineExceededError = _error_class("DeadlineExceededError", DEADLINE_EXCEEDED, TimeoutError)
NotFoundError = _error_class("NotFoundError", NOT_FOUND, LookupError)
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _error_class("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _error_class("ResourceExhaustedError", RESOURCE_EXHAUSTED, MemoryError)
FailedPreconditionError = _error_class("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _error_class("AbortedError", ABORTED)
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE, IndexError)
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED, NotImplementedError)
InternalError = _error_class("InternalError", INTERNAL)
UnavailableError = _error_class("UnavailableError", UNAVAILABLE)
DataLossError = _error_class("DataLossError", DATA_LOSS)

_ERRORS_BY_CODE = {
    cls.CODE: cls
    for cls in (
        CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
        NotFoundError, AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError,
        FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError,
        InternalError, UnavailableError, DataLossError,
    )
}


def _make_error(code, message):
    cls = _ERRORS_BY_CODE.get(code)
    return cls(code, message) if cls is not None else TesseraError(code, message)


_set_error_factory(_make_error)


# --- Handle classes ------------------------------------------------------------


def _close(self):
    """Destroys the handle now (idempotent). Later calls on it raise TypeError."""
    this = self.__dict__.get("this")
    if this is not None and this.own():
        self.__swig_destroy__(self)
    self.__dict__["this"] = None


def _enter(self):
    return self


def _exit(self, *exc_info):
    self.close()
    return False


def _as_method(fn):
    @_functools.wraps(fn)
    def method(self, *args):
        return fn(self, *args)

    return method


def _as_property(fn):
    return property(_as_method(fn), doc=fn.__doc__)


def _handle_protocols(cls, to_string):
    """close(), `with` and str() (`to_string(self)`) for a handle class."""
    cls.close = _close
    cls.__enter__ = _enter
    cls.__exit__ = _exit
    cls.__str__ = to_string


def _attach(cls, prefix, factories, properties):
    """Attaches each raw `prefix_verb` function to `cls`: factories as static
    methods, `properties` as read-only properties, the rest as methods."""
    for name, fn in list(globals().items()):
        if not name.startswith(prefix) or not callable(fn):
            continue
        verb = name[len(prefix):]
        if verb in factories:
            setattr(cls, verb, staticmethod(fn))
        elif verb in properties:
            setattr(cls, verb, _as_property(fn))
        else:
            setattr(cls, verb, _as_method(fn))
    _handle_protocols(cls, lambda self: self.string)


_attach(Placement, "placement_", {"parse", "create"},
        {"string", "device_type", "num_axes", "parallel_num"})
_attach(NdSbp, "nd_sbp_", {"parse", "create"}, {"string", "num_axes"})
_attach(Layout, "layout_", {"create"}, {"string", "ndim", "num_elements"})


# Placement: the C API's 0/1 answers become bools; whole-array views.
def _placement_create(device_type, ranks, hierarchy=None):
    """Placement.create(device_type, ranks, hierarchy=None): `ranks` in row-major
    order over `hierarchy` (default: one axis of len(ranks))."""
    ranks = list(ranks)
    return placement_create(device_type, ranks, [len(ranks)] if hierarchy is None else hierarchy)


Placement.create = staticmethod(_placement_create)
Placement.contains = lambda self, rank: bool(placement_contains(self, rank))
Placement.__contains__ = Placement.contains
Placement.equal = lambda self, other: bool(placement_equal(self, other))
Placement.__eq__ = lambda self, other: isinstance(other, Placement) and self.equal(other)
Placement.__ne__ = lambda self, other: not self == other
Placement.__hash__ = lambda self: placement_hash(self)
Placement.__len__ = lambda self: self.parallel_num
Placement.hierarchy = property(
    lambda self: tuple(self.hierarchy_dim(a) for a in range(self.num_axes)),
    doc="The hierarchy (shape of the rank array) as a tuple.")
Placement.ranks = property(
    lambda self: tuple(self.rank_at(i) for i in range(self.parallel_num)),
    doc="The ranks in row-major order as a tuple.")
Placement.__repr__ = lambda self: "tessera.Placement(%r)" % self.string


# NdSbp: create from (kind, split_axis) pairs; sbps as a tuple of pairs.
NdSbp.equal = lambda self, other: bool(nd_sbp_equal(self, other))
NdSbp.__eq__ = lambda self, other: isinstance(other, NdSbp) and self.equal(other)
NdSbp.__ne__ = lambda self, other: not self == other
NdSbp.__hash__ = lambda self: hash(self.string)
NdSbp.sbps = property(
    lambda self: tuple(self.get(a) for a in range(self.num_axes)),
    doc="((kind, split_axis), ...) per hierarchy axis; split_axis is -1 unless a split.")
NdSbp.__repr__ = lambda self: "tessera.NdSbp(%r)" % self.string


# Layout: whole-shape views.
Layout.local_shape = property(
    lambda self: tuple(self.local_dim(d) for d in range(self.ndim)),
    doc="The local tensor's shape as a tuple.")
Layout.ranges = property(
    lambda self: tuple(self.range(d) for d in range(self.ndim)),
    doc="((begin, end), ...): the logical index range held along each dim.")
Layout.__repr__ = lambda self: "<tessera.Layout %s>" % self.string


def layout(placement, nd_sbp, shape, rank):
    """The Layout `rank` holds of a tensor of `shape` on `placement` with `nd_sbp`."""
    return layout_create(placement, nd_sbp, list(shape), rank)


# --- Runtime -------------------------------------------------------------------

# Idempotent; without mpirun the process is a world of one rank. finalize() is
# exposed for programs that must shut MPI down before exit.
init()

if version_number() != VERSION_NUMBER:
    raise ImportError("tessera: bindings built for %d but the library is %s (%d)"
                      % (VERSION_NUMBER, version(), version_number()))


# --- SBP signature inference ---------------------------------------------------

import collections as _collections
import json as _json

_attach(OpCall, "op_call_", {"create"}, {"signature", "num_inputs"})
_attach(InferResult, "infer_result_", set(),
        {"num_outputs", "num_inputs", "total_cost", "signature_index", "num_candidates"})
_attach(Explanation, "explanation_", set(), {"text", "json", "failure"})


def op_names():
    """The registered ops' names, sorted."""
    return tuple(op_name(i) for i in range(op_count()))


def _dtype(value):
    """A tess_dtype from a name ("f32") or a DTYPE_* value."""
    return dtype_parse(value) if isinstance(value, str) else value


def _op_call_init(self, op_name):
    """OpCall("matmul"): a call of a registered op; NotFoundError (naming close op
    names) for an unknown one. The builder methods return the call, so they chain."""
    self.this = op_call_create(op_name).this


def _op_call_attr(self, name, value):
    """Sets attribute `name` by the Python type of `value`: bool, int, float, a str
    dtype name ("f32") or a sequence of ints. InvalidArgumentError when the op
    declares no such attribute or another type (an int is not taken as a float)."""
    if isinstance(value, bool):
        op_call_set_attr_bool(self, name, 1 if value else 0)
    elif isinstance(value, int):
        op_call_set_attr_int(self, name, value)
    elif isinstance(value, float):
        op_call_set_attr_float(self, name, value)
    elif isinstance(value, str):
        op_call_set_attr_dtype(self, name, dtype_parse(value))
    else:
        op_call_set_attr_ints(self, name, list(value))
    return self


def _op_call_input(self, shape, dtype, placement, nd_sbp):
    """Appends the next input: `shape` (ints), `dtype` ("f32" or DTYPE_*),
    `placement` (Placement or its text), `nd_sbp` (NdSbp or its text)."""
    if isinstance(placement, str):
        placement = Placement.parse(placement)
    if isinstance(nd_sbp, str):
        nd_sbp = NdSbp.parse(nd_sbp)
    op_call_add_input(self, list(shape), _dtype(dtype), placement, nd_sbp)
    return self


def _constrain(raw):
    def constrain(self, slot, nd_sbp):
        raw(self, slot, NdSbp.parse(nd_sbp) if isinstance(nd_sbp, str) else nd_sbp)
        return self

    constrain.__doc__ = ("Requires slot `slot` to have `nd_sbp` (NdSbp or its text); "
                         "replaces an earlier constraint on that slot.")
    return constrain


OpCall.__init__ = _op_call_init
OpCall.attr = _op_call_attr
OpCall.input = _op_call_input
OpCall.constrain_input = _constrain(op_call_constrain_input)
OpCall.constrain_output = _constrain(op_call_constrain_output)
OpCall.infer = lambda self: infer(self)
OpCall.explain = lambda self: explain(self)
OpCall.__str__ = lambda self: self.signature
OpCall.__repr__ = lambda self: "<tessera.OpCall %s, %d inputs>" % (self.signature, self.num_inputs)

TensorMeta = _collections.namedtuple("TensorMeta", "shape dtype placement nd_sbp")
TensorMeta.__doc__ = "An output's logical shape, dtype name, Placement and NdSbp."


def _output(self, i):
    return TensorMeta(tuple(self.output_dim(i, d) for d in range(self.output_ndim(i))),
                      dtype_name(self.output_dtype(i)), self.output_placement(i),
                      self.output_nd_sbp(i))


InferResult.output = _output
InferResult.outputs = property(
    lambda self: tuple(self.output(i) for i in range(self.num_outputs)),
    doc="A TensorMeta per output.")
InferResult.input_nd_sbps = property(
    lambda self: tuple(self.input_nd_sbp(i) for i in range(self.num_inputs)),
    doc="The NdSbp each input must be boxed into (its own when no boxing).")
InferResult.needs_boxing = lambda self, i: bool(infer_result_needs_boxing(self, i))
InferResult.boxed_inputs = property(
    lambda self: tuple(i for i in range(self.num_inputs) if self.needs_boxing(i)),
    doc="Indices of the inputs whose data must move.")
InferResult.input_costs = property(
    lambda self: tuple(self.input_cost(i) for i in range(self.num_inputs)),
    doc="Modelled bytes moved to box each input.")
InferResult.__str__ = lambda self: "%s -> %s" % (
    ", ".join(s.string for s in self.input_nd_sbps),
    ", ".join(o.nd_sbp.string for o in self.outputs))
InferResult.__repr__ = lambda self: "<tessera.InferResult %s>" % self

Explanation.record = property(lambda self: _json.loads(self.json),
                              doc="The JSON record parsed into dicts and lists.")
Explanation.__str__ = lambda self: self.text

InferCacheStats = _collections.namedtuple("InferCacheStats",
                                          "hits misses evictions size capacity")
InferCacheStats.__doc__ = "The calling thread's inference-cache counters."
_infer_cache_stats_raw = infer_cache_stats


def infer_cache_stats():
    """The calling thread's inference-cache statistics (InferCacheStats)."""
    return InferCacheStats(*_infer_cache_stats_raw())


CudaInfo = _collections.namedtuple("CudaInfo", "built_with_cuda device_count")
CudaInfo.__doc__ = ("Whether the library was built with CUDA (--config=cuda), and the CUDA "
                    "devices this process sees (0 without a CUDA build or a GPU).")
_cuda_info_raw = cuda_info


def cuda_info():
    """Whether cuda placements can hold tensors here (CudaInfo): without a CUDA build
    their tensor calls raise UnimplementedError, with one but no device
    UnavailableError. Local."""
    built, count = _cuda_info_raw()
    return CudaInfo(bool(built), count)


# --- Eager tensors ---------------------------------------------------------------
#
# The user API of global tensors, after OneFlow's names: placement(), sbp.*,
# tensor(), from_local(), zeros/ones/full/arange/rand/randn, Tensor methods and
# operators, the ops, explain() and DLPack. Every creation, to_global, numpy() and op
# is collective: every rank of the world runs the same calls in the same order.

import numbers as _numbers

try:
    import numpy as _np
except ImportError:  # the placement / inference API works without numpy
    _np = None


def _numpy():
    if _np is None:
        raise ImportError("tessera tensors need numpy (Debian: python3-numpy)")
    return _np


# tess_dtype <-> numpy dtype names. bf16 has no numpy type.
_NUMPY_NAMES = {DTYPE_F32: "float32", DTYPE_F64: "float64", DTYPE_I32: "int32",
                DTYPE_I64: "int64", DTYPE_F16: "float16"}
_DTYPE_OF_NUMPY = {name: code for code, name in _NUMPY_NAMES.items()}
float32, float64, int32, int64, float16 = "float32", "float64", "int32", "int64", "float16"
bfloat16 = "bf16"


def _dtype_code(dtype):
    """A tess_dtype from a numpy dtype or type, a name ("float32", "f32") or DTYPE_*."""
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return dtype
    if isinstance(dtype, str) and dtype not in _DTYPE_OF_NUMPY:
        return dtype_parse(dtype)
    name = dtype if isinstance(dtype, str) else _numpy().dtype(dtype).name
    if name not in _DTYPE_OF_NUMPY:
        raise InvalidArgumentError(
            INVALID_ARGUMENT, "dtype %s has no Tessera dtype; float32, float64, int32, int64 "
            "and float16 do" % name)
    return _DTYPE_OF_NUMPY[name]


def _numpy_dtype(code):
    name = _NUMPY_NAMES.get(code)
    if name is None:
        raise UnimplementedError(UNIMPLEMENTED, "dtype %s has no numpy type" % dtype_name(code))
    return _numpy().dtype(name)


class _Sbp(object):
    """One placement axis's SBP: split(axis), broadcast or partial_sum/max/min."""

    __slots__ = ("kind", "axis")

    def __init__(self, kind, axis=-1):
        self.kind = kind
        self.axis = axis

    def __eq__(self, other):
        return isinstance(other, _Sbp) and (self.kind, self.axis) == (other.kind, other.axis)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.kind, self.axis))

    def __str__(self):
        if self.kind == SBP_SPLIT:
            return "S(%d)" % self.axis
        return {SBP_BROADCAST: "B", SBP_PARTIAL_SUM: "P", SBP_PARTIAL_MAX: "P(max)",
                SBP_PARTIAL_MIN: "P(min)"}[self.kind]

    def __repr__(self):
        if self.kind == SBP_SPLIT:
            return "tessera.sbp.split(%d)" % self.axis
        return "tessera.sbp." + {SBP_BROADCAST: "broadcast", SBP_PARTIAL_SUM: "partial_sum",
                                 SBP_PARTIAL_MAX: "partial_max",
                                 SBP_PARTIAL_MIN: "partial_min"}[self.kind]


class sbp(object):
    """SBP values: sbp.split(axis), sbp.broadcast, sbp.partial_sum, sbp.partial_max,
    sbp.partial_min. A tensor's nd-sbp is one of them or a tuple (one per placement
    axis)."""

    @staticmethod
    def split(axis):
        """Split along tensor axis `axis` (uneven splits give the first parts one
        more element)."""
        if not isinstance(axis, int) or isinstance(axis, bool) or axis < 0:
            raise InvalidArgumentError(INVALID_ARGUMENT,
                                       "sbp.split: axis must be an int >= 0, got %r" % (axis,))
        return _Sbp(SBP_SPLIT, axis)

    broadcast = _Sbp(SBP_BROADCAST)
    partial_sum = _Sbp(SBP_PARTIAL_SUM)
    partial_max = _Sbp(SBP_PARTIAL_MAX)
    partial_min = _Sbp(SBP_PARTIAL_MIN)


def _nd_sbp(value):
    """An NdSbp from an NdSbp, its text, one sbp value or a tuple/list of them."""
    if isinstance(value, NdSbp):
        return value
    if isinstance(value, str):
        return NdSbp.parse(value)
    if isinstance(value, _Sbp):
        value = (value,)
    if isinstance(value, (tuple, list)) and value:
        pairs = []
        for item in value:
            if isinstance(item, str):
                item = NdSbp.parse(item).sbps
                if len(item) != 1:
                    raise InvalidArgumentError(INVALID_ARGUMENT,
                                               "sbp: %r is not one placement axis's sbp" % item)
                pairs.append(item[0])
            elif isinstance(item, _Sbp):
                pairs.append((item.kind, item.axis if item.kind == SBP_SPLIT else 0))
            else:
                raise TypeError("sbp: expected sbp values, got %r" % (item,))
        return NdSbp.create(pairs)
    raise TypeError("sbp: expected an sbp value, a tuple of them, an NdSbp or text; got %r"
                    % (value,))


def _flatten_ranks(ranks):
    """(flat ranks, hierarchy) of a nested list of ints with a rectangular shape."""
    if isinstance(ranks, int):
        return [ranks], []
    ranks = list(ranks)
    if not ranks:
        raise InvalidArgumentError(INVALID_ARGUMENT, "placement: empty rank list")
    parts = [_flatten_ranks(r) for r in ranks]
    inner = parts[0][1]
    for i, (_, h) in enumerate(parts):
        if h != inner:
            raise InvalidArgumentError(
                INVALID_ARGUMENT, "placement: ranks are not rectangular: element %d has shape "
                "%s but element 0 has %s" % (i, h, inner))
    return [r for flat, _ in parts for r in flat], [len(ranks)] + inner


def placement(type, ranks=None):
    """placement("cpu", ranks=[0, 1]) or placement("cuda", ranks=[[0, 1], [2, 3]]) (the
    nesting is the hierarchy); placement("cpu:[0,1]") parses the text form."""
    if ranks is None:
        return Placement.parse(type)
    devices = {"cpu": DEVICE_CPU, "cuda": DEVICE_CUDA}
    if type not in devices:
        raise InvalidArgumentError(INVALID_ARGUMENT,
                                   "placement: device type %r is not \"cpu\" or \"cuda\"" % type)
    flat, hierarchy = _flatten_ranks(ranks)
    if not hierarchy:
        hierarchy = [1]
    return placement_create(devices[type], flat, hierarchy)


def _placement(value):
    return Placement.parse(value) if isinstance(value, str) else value


def _require(name, placement, sbp):
    """(Placement, NdSbp) from the placement= and sbp= arguments, which are required."""
    if placement is None or sbp is None:
        raise InvalidArgumentError(INVALID_ARGUMENT, "%s: placement and sbp are required" % name)
    return _placement(placement), _nd_sbp(sbp)


_tensor_from_host = tensor_from_host
_tensor_from_local = tensor_from_local
del tensor_from_host, tensor_from_local  # raw buffers: only the checked forms below


def tensor(data, dtype=None, placement=None, sbp=None):
    """The global tensor whose logical value is `data` (a numpy array, or anything
    numpy.asarray takes; Python floats become float32), held as `sbp` on `placement`.
    Every rank passes the same value."""
    np = _numpy()
    p, s = _require("tensor", placement, sbp)
    if dtype is None and not isinstance(data, np.ndarray):
        data = np.asarray(data)
        if data.dtype == np.float64:
            data = data.astype(np.float32)
    code = _dtype_code(data.dtype if dtype is None else dtype)
    # asarray, not ascontiguousarray: that one makes a 0-d array 1-d.
    array = np.asarray(data, dtype=_numpy_dtype(code), order="C")
    return _tensor_from_host(array, list(array.shape), code, p, s)


def from_local(local, placement=None, sbp=None, shape=None):
    """The global tensor whose piece on this rank is `local` (a numpy array): shards
    for split, partial values for partial_*, copies for broadcast. `shape` states the
    logical shape; None infers it from every rank's local shape (collective)."""
    np = _numpy()
    p, s = _require("from_local", placement, sbp)
    local = np.asarray(local, order="C")
    code = _dtype_code(local.dtype)
    if shape is not None:
        shape = [int(d) for d in shape]
        if len(shape) != local.ndim:
            raise InvalidArgumentError(
                INVALID_ARGUMENT, "from_local: shape %s has %d dims but the local array has %d"
                % (tuple(shape), len(shape), local.ndim))
    return _tensor_from_local(local, list(local.shape), code, p, s, shape)


def _size(size):
    """zeros(2, 3) and zeros((2, 3)) alike."""
    if len(size) == 1 and not isinstance(size[0], _numbers.Integral):
        size = tuple(size[0])
    return [int(d) for d in size]


def full(size, value, dtype=float32, placement=None, sbp=None):
    """Every element `value`."""
    p, s = _require("full", placement, sbp)
    return tensor_full(_size((size,)), _dtype_code(dtype), float(value), p, s)


def zeros(*size, dtype=float32, placement=None, sbp=None):
    return full(_size(size), 0, dtype=dtype, placement=placement, sbp=sbp)


def ones(*size, dtype=float32, placement=None, sbp=None):
    return full(_size(size), 1, dtype=dtype, placement=placement, sbp=sbp)


def arange(start, end=None, step=1, dtype=None, placement=None, sbp=None):
    """start, start + step, ... below end (arange(n) counts from 0). The dtype defaults
    to int64 for int arguments, else float32."""
    p, s = _require("arange", placement, sbp)
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, _numbers.Integral) for v in (start, end, step))
        dtype = int64 if ints else float32
    return tensor_arange(float(start), float(end), float(step), _dtype_code(dtype), p, s)


def rand(*size, dtype=float32, seed=0, placement=None, sbp=None):
    """Uniform [0, 1) values that depend only on (size, dtype, seed)."""
    p, s = _require("rand", placement, sbp)
    return tensor_rand(_size(size), _dtype_code(dtype), seed, p, s)


def randn(*size, dtype=float32, seed=0, placement=None, sbp=None):
    """Standard normal values that depend only on (size, dtype, seed)."""
    p, s = _require("randn", placement, sbp)
    return tensor_randn(_size(size), _dtype_code(dtype), seed, p, s)


_attach(Tensor, "tensor_", {"full", "arange", "rand", "randn"}, {"ndim", "num_elements", "string", "local_ndim",
                                   "local_num_elements"})


def _tensor_numpy(self):
    """The whole logical value as a new numpy array, on every rank (collective)."""
    out = _numpy().empty(self.shape, dtype=_numpy_dtype(tensor_dtype(self)))
    tensor_to_host(out, self)
    return out


def _tensor_to_local(self):
    """A numpy copy of this rank's local piece (FailedPreconditionError on a rank the
    placement does not hold)."""
    out = _numpy().empty(self.local_shape, dtype=_numpy_dtype(tensor_dtype(self)))
    tensor_copy_local(out, self)
    return out


def _tensor_to_global(self, placement=None, sbp=None):
    """The same logical value on `placement` as `sbp` (each defaults to the tensor's
    own), moved by boxing. Collective."""
    return tensor_to_global(self, self.placement if placement is None else _placement(placement),
                            self.nd_sbp if sbp is None else _nd_sbp(sbp))


def _tensor_dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of this rank's local piece, zero-copy and read-only:
    "dltensor_versioned" when the consumer passes max_version >= (1, 0), else the
    pre-1.0 "dltensor" (numpy < 2.1 asks for that)."""
    if stream is not None:
        raise BufferError("tessera: cpu tensors take no stream, got %r" % (stream,))
    if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
        raise BufferError("tessera: cannot export to device %r" % (dl_device,))
    if copy:
        raise BufferError("tessera: __dlpack__ exports without copying; use to_local()")
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    return _tensor_to_capsule(self, 1 if versioned else 0)


def _tensor_dlpack_device(self):
    """(kDLCPU = 1, 0) for a cpu tensor."""
    return (1, 0) if self.placement.device_type == DEVICE_CPU else (2, 0)


Tensor.shape = property(lambda self: tuple(self.dim(d) for d in range(self.ndim)),
                        doc="The logical shape as a tuple.")
Tensor.local_shape = property(
    lambda self: tuple(self.local_dim(d) for d in range(self.local_ndim)),
    doc="This rank's local piece's shape (FailedPreconditionError outside the placement).")
Tensor.dtype = property(lambda self: _numpy_dtype(tensor_dtype(self)),
                        doc="The element type as a numpy dtype.")
Tensor.placement = property(lambda self: tensor_placement(self), doc="The Placement.")
Tensor.nd_sbp = property(lambda self: tensor_nd_sbp(self), doc="The NdSbp.")
Tensor.sbp = property(
    lambda self: tuple(_Sbp(k, a) for k, a in self.nd_sbp.sbps),
    doc="One sbp value per placement axis, as a tuple.")
Tensor.has_local = property(lambda self: bool(tensor_has_local(self)),
                            doc="Whether this rank holds a local piece.")
Tensor.numpy = _tensor_numpy
Tensor.to_local = _tensor_to_local
Tensor.to_global = _tensor_to_global
Tensor.__dlpack__ = _tensor_dlpack
Tensor.__dlpack_device__ = _tensor_dlpack_device


def _tensor_len(self):
    if self.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.dim(0)


Tensor.__len__ = _tensor_len
Tensor.__repr__ = lambda self: "tessera.Tensor(%s)" % self.string


def from_dlpack(obj, placement=None, sbp=None, shape=None):
    """The global tensor whose piece on this rank is `obj` (anything with
    __dlpack__, such as a numpy array, or a DLPack capsule): the data is copied, as
    from_local does; `shape` as there."""
    p, s = _require("from_dlpack", placement, sbp)
    capsule = obj
    if hasattr(obj, "__dlpack__"):
        try:
            try:
                capsule = obj.__dlpack__(max_version=(1, 0))
            except TypeError:  # a producer from before DLPack 1.0 (numpy < 2.1)
                capsule = obj.__dlpack__()
        except BufferError:
            # numpy < 2.1 will not export a read-only array (the old struct cannot say
            # so); the data is copied either way.
            if _np is None or not isinstance(obj, _np.ndarray):
                raise
            return from_local(obj, placement=placement, sbp=sbp, shape=shape)
    return _tensor_from_capsule(capsule, p, s,
                                None if shape is None else [int(d) for d in shape])


# --- Ops on eager tensors ----------------------------------------------------------

_raw_ops = {name: globals()[name] for name in (
    "add", "sub", "mul", "div", "maximum", "minimum", "relu", "gelu", "sigmoid", "tanh", "exp",
    "neg", "sqrt", "matmul", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "softmax",
    "apply", "explain")}


def _as_tensor(value, like):
    """`value` itself if a Tensor, else a scalar tensor of `like`'s dtype broadcast on
    its placement (collective, like every op)."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, _numbers.Number):
        raise TypeError("expected a Tensor or a number, got %r" % (value,))
    p = like.placement
    return tensor_full([], tensor_dtype(like), float(value), p,
                       NdSbp.create([(SBP_BROADCAST, 0)] * p.num_axes))


def _binary(name):
    raw = _raw_ops[name]

    def op(x, y):
        if not isinstance(x, Tensor):
            x = _as_tensor(x, y)
        return raw(x, _as_tensor(y, x))

    op.__name__ = name
    op.__doc__ = "%s(x, y) elementwise, numpy broadcasting; a number becomes a scalar." % name
    return op


add, sub, mul, div, maximum, minimum = (_binary(n) for n in
                                        ("add", "sub", "mul", "div", "maximum", "minimum"))


def matmul(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b), op transposing the last two dims when asked."""
    return _raw_ops["matmul"](a, b, 1 if transpose_a else 0, 1 if transpose_b else 0)


def _axes(axis):
    if axis is None:
        return []
    if isinstance(axis, _numbers.Integral):
        return [int(axis)]
    return [int(a) for a in axis]


def _reduce(name):
    raw = _raw_ops[name]

    def op(x, axis=None, keepdims=False):
        return raw(x, _axes(axis), 1 if keepdims else 0)

    op.__name__ = name
    op.__doc__ = ("%s(x, axis=None, keepdims=False): over `axis` (an int, a sequence, or "
                  "None for every axis)." % name)
    return op


reduce_sum, reduce_mean, reduce_max, reduce_min = (
    _reduce(n) for n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min"))


def softmax(x, axis=-1):
    """Normalised exponentials along `axis`."""
    return _raw_ops["softmax"](x, axis)


def apply(op, *inputs, **attrs):
    """Runs op (a name or an OpCall without inputs) on the input Tensors with the
    given attributes; returns a tuple of output Tensors."""
    call = OpCall(op) if isinstance(op, str) else op
    for name, value in attrs.items():
        call.attr(name, value)
    return _raw_ops["apply"](call, list(inputs))


def explain(call=None):
    """explain(): the Explanation of this thread's last op (also one that failed);
    explain(call): that of an OpCall with input metas (uncached inference)."""
    return explain_last() if call is None else _raw_ops["explain"](call)


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
Tensor.__matmul__ = lambda self, other: matmul(self, other)
Tensor.__neg__ = lambda self: neg(self)
for _name in ("relu", "gelu", "sigmoid", "tanh", "exp", "sqrt", "softmax", "matmul",
              "reduce_sum", "reduce_mean", "reduce_max", "reduce_min"):
    setattr(Tensor, _name, globals()[_name])
Tensor.sum, Tensor.mean = reduce_sum, reduce_mean
Tensor.neg = lambda self: neg(self)
del _name


# --- Boxing and collectives on numpy arrays ----------------------------------------
#
# Local pieces in, local pieces out, without eager tensors: box() moves this rank's
# piece of a logical tensor between layouts; allreduce() and bucketed_allreduce()
# reduce arrays in place over a placement's ranks (or the world). Each is collective
# (SPMD): every rank concerned makes the same calls in the same order.

import threading as _threading

_box_raw = box
_allreduce_raw = allreduce
_bucketed_allreduce_raw = bucketed_allreduce
del box, allreduce, bucketed_allreduce  # raw buffers and counts: only the checked forms below

_attach(BoxingPlan, "boxing_plan_", {"create"}, {"string", "num_steps", "cost"})
BoxingPlan.steps = property(
    lambda self: tuple(self.step_string(i) for i in range(self.num_steps)),
    doc="One line per step (as in the text, without the numbers).")
BoxingPlan.__repr__ = lambda self: "<tessera.BoxingPlan %s>" % self.string.split("\n", 1)[0]

_REDUCE_OPS = {"sum": REDUCE_SUM, "max": REDUCE_MAX, "min": REDUCE_MIN}
_ALGORITHMS = {"flat": ALLREDUCE_FLAT, "auto": ALLREDUCE_AUTO,
               "hierarchical": ALLREDUCE_HIERARCHICAL}


def _choice(function, what, value, names):
    """A C API value from its name in `names` (or the value itself)."""
    if not isinstance(value, str):
        return value
    if value not in names:
        raise InvalidArgumentError(INVALID_ARGUMENT, "%s: %s %r is not one of %s" % (
            function, what, value, ", ".join(sorted(names))))
    return names[value]


def _layouts(src_placement, src_sbp, dst_placement, dst_sbp):
    """(src Placement, src NdSbp, dst Placement, dst NdSbp); dst ones default to src's."""
    src_p = _placement(src_placement)
    dst_p = src_p if dst_placement is None else _placement(dst_placement)
    return (src_p, _nd_sbp(src_sbp), dst_p, _nd_sbp(src_sbp if dst_sbp is None else dst_sbp))


def box_plan(shape, dtype, src_placement, src_sbp, dst_placement=None, dst_sbp=None):
    """The BoxingPlan box() runs for these arguments: str() is the text explain
    shows; .steps, .num_steps and .cost (modelled seconds). Local; needs no world."""
    src_p, src_s, dst_p, dst_s = _layouts(src_placement, src_sbp, dst_placement, dst_sbp)
    return boxing_plan_create([int(d) for d in shape], _dtype_code(dtype), src_p, src_s, dst_p,
                              dst_s)


def box(local, shape, src_placement, src_sbp, dst_placement=None, dst_sbp=None, dtype=None):
    """This rank's piece of the logical tensor of `shape` held as `src_sbp` on
    `src_placement` (`local`: a numpy array of the piece's shape, None on a rank the
    placement lacks), moved to `dst_sbp` on `dst_placement` (each defaults to the
    source's). Returns a new numpy array of this rank's destination piece, or None
    on a rank the destination lacks. `dtype` defaults to local's (required where
    local is None). Collective over both placements' ranks."""
    np = _numpy()
    src_p, src_s, dst_p, dst_s = _layouts(src_placement, src_sbp, dst_placement, dst_sbp)
    shape = [int(d) for d in shape]
    if dtype is None and local is None:
        raise InvalidArgumentError(INVALID_ARGUMENT, "box: dtype is required when local is None")
    code = _dtype_code(np.asarray(local).dtype if dtype is None else dtype)
    rank = world_rank()
    if rank in src_p:
        want = layout(src_p, src_s, shape, rank).local_shape
        have = None if local is None else np.shape(local)
        if have != want:
            raise InvalidArgumentError(INVALID_ARGUMENT, (
                "box: local has shape %s but rank %d's piece of %s as %s on %s has shape %s"
                % (have, rank, tuple(shape), src_s, src_p, want)))
        # asarray, not ascontiguousarray: that one makes a 0-d array 1-d.
        local = np.asarray(local, dtype=_numpy_dtype(code), order="C")
    elif local is not None and np.size(local) > 0:
        raise InvalidArgumentError(INVALID_ARGUMENT, (
            "box: rank %d is not in the source placement %s, so local must be None or empty"
            % (rank, src_p)))
    else:
        local = None
    out = None
    if rank in dst_p:
        out = np.empty(layout(dst_p, dst_s, shape, rank).local_shape, dtype=_numpy_dtype(code))
    _box_raw(out if out is not None else bytearray(0), local, shape, code, src_p, src_s, dst_p,
             dst_s)
    return out


def _in_place(function, name, array):
    """`array` as a numpy array that can be reduced in place."""
    np = _numpy()
    if not isinstance(array, np.ndarray):
        raise TypeError("%s: %s is not a numpy array but %s"
                        % (function, name, type(array).__name__))
    if not (array.flags.c_contiguous and array.flags.writeable):
        raise InvalidArgumentError(INVALID_ARGUMENT, (
            "%s: %s must be C-contiguous and writable: it is reduced in place" % (function, name)))
    return array


def allreduce(array, op="sum", placement=None, algorithm="flat"):
    """array := op over the ranks of `placement` (None: the world) of array, in place
    (a C-contiguous writable numpy array; returned). op: "sum", "max", "min";
    algorithm: "flat", "auto" (host by host for large arrays when hosts have several
    ranks) or "hierarchical" (always host by host). Ranks outside the placement
    return at once. Collective over the placement."""
    array = _in_place("allreduce", "array", array)
    _allreduce_raw(array, array.size, _dtype_code(array.dtype),
                   _choice("allreduce", "op", op, _REDUCE_OPS),
                   None if placement is None else _placement(placement),
                   _choice("allreduce", "algorithm", algorithm, _ALGORITHMS))
    return array


BucketStats = _collections.namedtuple("BucketStats", "calls plans_built buckets in_place_buckets")
BucketStats.__doc__ = ("A BucketedAllReducer's calls and plans built, and its last call's "
                       "buckets and how many of those went without a copy.")

_attach(BucketedAllReducer, "bucketed_allreducer_", {"create"}, set())
_bucketed_allreducer_stats_raw = bucketed_allreducer_stats


def _reducer_init(self, bucket_bytes=0):
    """BucketedAllReducer(bucket_bytes=0): packs arrays into buckets of at most
    bucket_bytes (0: 25 MiB) and keeps its plans, so repeated calls with the same
    sizes allocate nothing. One thread at a time."""
    self.this = bucketed_allreducer_create(int(bucket_bytes)).this


def _reducer_allreduce(self, arrays, op="sum", placement=None):
    """arrays[i] := op over the ranks of `placement` (None: the world) of arrays[i],
    in place, for a list of C-contiguous writable numpy arrays of one dtype, with one
    all-reduce per bucket. Returns the list. Collective over the placement."""
    arrays = list(arrays)
    code = DTYPE_F32
    for i, a in enumerate(arrays):
        _in_place("bucketed_allreduce", "arrays[%d]" % i, a)
        c = _dtype_code(a.dtype)
        if i == 0:
            code = c
        elif c != code:
            raise InvalidArgumentError(INVALID_ARGUMENT, (
                "bucketed_allreduce: arrays[%d] is %s but arrays[0] is %s; one dtype per call"
                % (i, a.dtype, arrays[0].dtype)))
    _bucketed_allreduce_raw(self, arrays, [a.size for a in arrays], code,
                            _choice("bucketed_allreduce", "op", op, _REDUCE_OPS),
                            None if placement is None else _placement(placement))
    return arrays


BucketedAllReducer.__init__ = _reducer_init
BucketedAllReducer.allreduce = _reducer_allreduce
BucketedAllReducer.stats = property(lambda self: BucketStats(*_bucketed_allreducer_stats_raw(self)),
                                    doc="The reducer's BucketStats.")
BucketedAllReducer.__str__ = lambda self: "BucketedAllReducer(%s)" % (self.stats,)
BucketedAllReducer.__repr__ = lambda self: "<tessera.%s>" % self

_thread_reducers = _threading.local()


def bucketed_allreduce(arrays, op="sum", placement=None):
    """BucketedAllReducer.allreduce with the calling thread's default reducer (25 MiB
    buckets), so repeated calls reuse its plans."""
    reducer = getattr(_thread_reducers, "reducer", None)
    if reducer is None:
        reducer = _thread_reducers.reducer = BucketedAllReducer()
    return reducer.allreduce(arrays, op, placement)


# --- Plan mode -----------------------------------------------------------------------
#
# A Program (built explicitly, or recorded by `with capture()`), compiled into a Plan
# whose register memory a PlanInstance allocates once; runs then reuse it. Building
# and compiling are local; run(), output() and outputs() are collective like the ops
# they stand for; every rank builds, compiles and runs the same program.

ProgramSizes = _collections.namedtuple("ProgramSizes", "values ops inputs outputs")
ProgramSizes.__doc__ = "A Program's counts of values, ops, data inputs and outputs."

_attach(Program, "program_", {"create"}, {"string"})


def _program_init(self):
    """Program(): an empty program. Values (inputs, variables, op outputs) are
    numbered 0, 1, ... in the order they are added."""
    self.this = program_create().this


def _optional_nd_sbp(sbp):
    return None if sbp is None else _nd_sbp(sbp)


def _program_add_input(self, name, shape, dtype, placement, sbp=None):
    """Adds a data input (fed at every run) of `shape`, `dtype` (numpy dtype or name)
    and `placement`, held as `sbp` (default: split(0) on every placement axis,
    broadcast for a 0-d input). Returns its value id."""
    return program_add_input(self, name, [int(d) for d in shape], _dtype_code(dtype),
                             _placement(placement), _optional_nd_sbp(sbp))


def _program_add_variable(self, name, tensor):
    """Adds a variable: the program keeps `tensor` (a Tensor with data) and every run
    reads it in place. Returns its value id."""
    if not isinstance(tensor, Tensor):
        raise TypeError("Program.add_variable: %r is not a Tensor" % (tensor,))
    return program_add_variable(self, name, tensor)


def _slots(sbps):
    """(slot, NdSbp) pairs from a {slot: sbp} dict or a sequence (None: free)."""
    if sbps is None:
        return []
    items = sbps.items() if isinstance(sbps, dict) else enumerate(sbps)
    return [(int(slot), _nd_sbp(s)) for slot, s in items if s is not None]


def _program_add_op(self, op, inputs, attrs=None, input_sbps=None, output_sbps=None):
    """Appends op `op` (a name, or an OpCall without inputs, which this call then
    modifies) applied to the value ids `inputs`, with attributes `attrs` (a dict, as
    OpCall.attr takes them) and SBP constraints on input or output slots
    (`input_sbps` / `output_sbps`: {slot: sbp} or a sequence with None for a free
    slot). The op is inferred at once, so a bad call raises here. Returns the list
    of its output value ids."""
    call = OpCall(op) if isinstance(op, str) else op
    if not isinstance(call, OpCall):
        raise TypeError("Program.add_op: op must be an op name or an OpCall, got %r" % (op,))
    for name, value in (attrs or {}).items():
        call.attr(name, value)
    for slot, nd_sbp in _slots(input_sbps):
        call.constrain_input(slot, nd_sbp)
    for slot, nd_sbp in _slots(output_sbps):
        call.constrain_output(slot, nd_sbp)
    first, count = program_add_op(self, call, [int(i) for i in inputs])
    return list(range(first, first + count))


def _program_mark_output(self, value_id):
    """Makes value `value_id` the program's next output."""
    program_mark_output(self, int(value_id))


Program.__init__ = _program_init
Program.add_input = _program_add_input
Program.add_variable = _program_add_variable
Program.add_op = _program_add_op
Program.mark_output = _program_mark_output
Program.sizes = property(lambda self: ProgramSizes(*program_sizes(self)),
                         doc="The program's ProgramSizes.")
Program.compile = lambda self, input_register_num=1: compile(self, input_register_num)
Program.__repr__ = lambda self: "<tessera.Program %d values, %d ops, %d inputs, %d outputs>" % (
    tuple(self.sizes))


class capture(object):
    """Records eager ops into a Program instead of running them:

        with ts.capture() as cap:
            x = cap.placeholder("x", (8, 16), "f32", p)   # a Tensor without data
            y = ts.softmax(ts.relu(x @ w1) @ w2)         # recorded; w1, w2 variables
            cap.set_outputs(y)
        plan = ts.compile(cap.program)

    Ops with a placeholder input are recorded and return placeholders; real tensors
    they use become variables; ops on real tensors alone run as usual. The block
    must call set_outputs(); an exception in it aborts the capture. One capture per
    thread, used once."""

    def __init__(self):
        self._state = "new"  # new -> active -> done (or failed)
        self._outputs = None
        self._program = None

    def __enter__(self):
        if self._state != "new":
            raise FailedPreconditionError(
                FAILED_PRECONDITION, "capture: this capture was already used (%s); make a new "
                "ts.capture()" % self._state)
        capture_begin()
        self._state = "active"
        return self

    def _require_active(self, function):
        if self._state != "active":
            raise FailedPreconditionError(
                FAILED_PRECONDITION, "capture.%s: the capture is %s; call it inside its with "
                "block" % (function, self._state))

    def placeholder(self, name, shape, dtype, placement, sbp=None):
        """A data input of the program (Program.add_input's arguments) as a
        placeholder Tensor: metadata, no data."""
        self._require_active("placeholder")
        return capture_placeholder(name, [int(d) for d in shape], _dtype_code(dtype),
                                   _placement(placement), _optional_nd_sbp(sbp))

    def set_outputs(self, *tensors):
        """The program's outputs, in order: placeholders of this capture. Replaces an
        earlier call's; checked when the block ends."""
        self._require_active("set_outputs")
        if not tensors:
            raise InvalidArgumentError(INVALID_ARGUMENT, "capture.set_outputs: no outputs")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError("capture.set_outputs: output %d (%r) is not a Tensor" % (i, t))
        self._outputs = list(tensors)

    def __exit__(self, exc_type, exc, tb):
        if self._state != "active":
            return False
        self._state = "failed"
        outputs, self._outputs = self._outputs, None
        if exc_type is not None:
            capture_abort()
            return False
        if outputs is None:
            capture_abort()
            raise InvalidArgumentError(INVALID_ARGUMENT,
                                       "capture: the block ended without set_outputs()")
        try:
            program = capture_end(outputs)
        except BaseException:
            capture_abort()  # capture_end ends it too, unless the call never reached C
            raise
        self._program = program
        self._state = "done"
        return False

    @property
    def active(self):
        """Whether the with block is running."""
        return self._state == "active"

    @property
    def program(self):
        """The recorded Program, once the with block has ended without error."""
        if self._state != "done":
            raise FailedPreconditionError(
                FAILED_PRECONDITION, "capture.program: the capture is %s; the program exists "
                "once its with block has ended without error" % self._state)
        return self._program


def capturing():
    """Whether a capture is active on the calling thread."""
    return bool(capture_active())


def compile(program, input_register_num=1):
    """Compiles `program` for this rank into a Plan: its steps (kernels and explicit
    boxing) and its register memory, packed with reuse. `input_register_num` copies
    of each data input's register. Local."""
    if not isinstance(program, Program):
        raise TypeError("compile: %r is not a Program" % (program,))
    return plan_compile(program, int(input_register_num))


_handle_protocols(Plan, lambda self: plan_string(self))
Plan.string = property(lambda self: plan_string(self),
                       doc="The program, the steps and the memory table.")
Plan.instantiate = lambda self: plan_instantiate(self)
Plan.instantiate.__doc__ = ("A PlanInstance: allocates the plan's register memory once; "
                            "its runs reuse it.")
Plan.__repr__ = lambda self: "<tessera.Plan>"


def _output_index(instance, index):
    """`index` as a C index; negative ones count from the end, as lists do."""
    index = int(index)
    n = instance.num_outputs
    if -n <= index < 0:
        index += n
    if index < 0:
        raise OutOfRangeError(OUT_OF_RANGE, "output index %d but the program has %d outputs"
                              % (index, n))
    return index


def _instance_run(self, *tensors):
    """Runs the plan on the data inputs (Tensors, in the program's input order; a
    different sbp is boxed in). The outputs stay in the instance until the next run.
    Returns the instance. Collective."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("PlanInstance.run: input %d (%r) is not a Tensor" % (i, t))
    plan_run(self, tensors)
    return self


def _timeout(name, timeout):
    if timeout is None:
        return -1.0
    timeout = float(timeout)
    if timeout < 0:
        raise InvalidArgumentError(INVALID_ARGUMENT,
                                   "%s: timeout is %r; None (wait forever) or >= 0" % (name, timeout))
    return timeout


def _instance_push(self, *tensors, timeout=None):
    """Pipelining (a plan compiled with input_register_num >= 2): copies one input
    set into the next free slot, waiting up to `timeout` seconds (None: forever)
    while every slot is full. One pusher thread may call this while another thread
    runs run_pushed(); the GIL is released while either waits. An input in another
    sbp is boxed (collective), which first waits for every earlier set to run.
    Returns the instance."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("PlanInstance.push: input %d (%r) is not a Tensor" % (i, t))
    plan_push(self, tensors, _timeout("PlanInstance.push", timeout))
    return self


def _instance_run_pushed(self, timeout=None):
    """Runs the plan on the oldest pushed input set, waiting up to `timeout` seconds
    (None: forever) for one: DeadlineExceededError when none came. The outputs then
    read as after run(). Returns the instance. Collective."""
    plan_run_pushed(self, _timeout("PlanInstance.run_pushed", timeout))
    return self


def _instance_run_local(self, *locals):
    """run() with this rank's pieces of the inputs (numpy arrays in each input's
    declared sbp and dtype; None on a rank the input's placement lacks). Returns the
    instance. Collective."""
    np = _numpy()
    plan_run_local(self, [None if a is None else np.ascontiguousarray(a) for a in locals])
    return self


def _instance_output(self, index):
    """Output `index` of the last run as a new Tensor (a copy). Collective."""
    return plan_output(self, _output_index(self, index))


def _instance_output_local(self, index, out=None):
    """This rank's piece of output `index` of the last run as a numpy array: a new
    one, or `out` (C-contiguous, writable, of the piece's shape and dtype) filled in
    place. Local."""
    np = _numpy()
    index = _output_index(self, index)
    dtype = _numpy_dtype(plan_output_dtype(self, index))
    shape = tuple(plan_output_local_dim(self, index, d)
                  for d in range(plan_output_local_ndim(self, index)))
    if out is None:
        out = np.empty(shape, dtype=dtype)
    else:
        out = _in_place("PlanInstance.output_local", "out", out)
        if out.shape != shape or out.dtype != dtype:
            raise InvalidArgumentError(INVALID_ARGUMENT, (
                "PlanInstance.output_local: out is %s %s but output #%d's piece is %s %s"
                % (out.dtype, out.shape, index, dtype, shape)))
    plan_output_local(out, self, index)
    return out


def _instance_stats(self):
    """The instance's counters: registers, steps, boxing_steps, runs,
    allocator_calls_last_run (0 once warm), heap_allocations_last_run (-1: not
    counted in this process), and per memory case ("cpu", "cuda:0") its packed
    block_bytes, lower_bound (most bytes live at once) and no_reuse_bytes."""
    registers, steps, boxing_steps, runs = plan_stats(self)
    allocator_calls, heap_allocations = plan_last_run_allocations(self)
    mem_cases = []
    for i in range(plan_num_mem_cases(self)):
        block, lower, no_reuse = plan_mem_case_bytes(self, i)
        mem_cases.append({"name": plan_mem_case_name(self, i), "block_bytes": block,
                          "lower_bound": lower, "no_reuse_bytes": no_reuse})
    return {"registers": registers, "steps": steps, "boxing_steps": boxing_steps, "runs": runs,
            "allocator_calls_last_run": allocator_calls,
            "heap_allocations_last_run": heap_allocations, "mem_cases": mem_cases}


_handle_protocols(PlanInstance, lambda self: "PlanInstance(%d outputs, %d runs)" % (
    self.num_outputs, plan_stats(self)[3]))
PlanInstance.num_outputs = property(lambda self: plan_num_outputs(self),
                                    doc="The number of the program's outputs.")
PlanInstance.run = _instance_run
PlanInstance.run_local = _instance_run_local
PlanInstance.push = _instance_push
PlanInstance.run_pushed = _instance_run_pushed
PlanInstance.close_pipeline = lambda self: plan_close(self)
PlanInstance.close_pipeline.__doc__ = (
    "Wakes every waiting push / run_pushed with CancelledError and makes later ones fail "
    "the same way (the instance stays readable). Any thread.")
PlanInstance.output = _instance_output
PlanInstance.outputs = lambda self: [self.output(i) for i in range(self.num_outputs)]
PlanInstance.outputs.__doc__ = "Every output of the last run as new Tensors. Collective."
PlanInstance.output_local = _instance_output_local
PlanInstance.stats = _instance_stats
PlanInstance.__repr__ = lambda self: "<tessera.%s>" % self
