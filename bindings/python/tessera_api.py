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
    cls.close = _close
    cls.__enter__ = _enter
    cls.__exit__ = _exit
    cls.__str__ = lambda self: self.string


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
