"""SBP signature inference on op calls without data: OpCall, infer(),
InferResult, explain(call), the per-thread inference cache. Local."""

import collections
import json

from . import _capi
from ._capi import Explanation, InferResult, OpCall, NdSbp, Placement
from ._dtypes import dtype as _dtype
from ._handles import attach

attach(OpCall, "op_call_", {"create"}, {"signature", "num_inputs"})
attach(InferResult, "infer_result_", set(),
       {"num_outputs", "num_inputs", "total_cost", "signature_index", "num_candidates"})
attach(Explanation, "explanation_", set(), {"text", "json", "failure"})


def op_names():
    """The registered ops' names, sorted."""
    return tuple(_capi.op_name(i) for i in range(_capi.op_count()))


def _op_call_init(self, op_name):
    """OpCall("matmul"): a call of a registered op; NotFoundError (naming close op
    names) for an unknown one. The builder methods return the call, so they chain."""
    self.this = _capi.op_call_create(op_name).this


def _op_call_attr(self, name, value):
    """Sets attribute `name` by the Python type of `value`: bool, int, float, a str
    dtype name ("f32") or a sequence of ints. InvalidArgumentError when the op
    declares no such attribute or another type (an int is not taken as a float)."""
    if isinstance(value, bool):
        _capi.op_call_set_attr_bool(self, name, 1 if value else 0)
    elif isinstance(value, int):
        _capi.op_call_set_attr_int(self, name, value)
    elif isinstance(value, float):
        _capi.op_call_set_attr_float(self, name, value)
    elif isinstance(value, str):
        _capi.op_call_set_attr_dtype(self, name, _capi.dtype_parse(value))
    else:
        _capi.op_call_set_attr_ints(self, name, list(value))
    return self


def _op_call_input(self, shape, dtype, placement, nd_sbp):
    """Appends the next input: `shape` (ints), `dtype` ("f32" or DTYPE_*),
    `placement` (Placement or its text), `nd_sbp` (NdSbp or its text)."""
    if isinstance(placement, str):
        placement = Placement.parse(placement)
    if isinstance(nd_sbp, str):
        nd_sbp = NdSbp.parse(nd_sbp)
    _capi.op_call_add_input(self, list(shape), _dtype(dtype), placement, nd_sbp)
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
OpCall.constrain_input = _constrain(_capi.op_call_constrain_input)
OpCall.constrain_output = _constrain(_capi.op_call_constrain_output)
OpCall.infer = lambda self: _capi.op_call_infer(self)
OpCall.explain = lambda self: _capi.op_call_explain(self)
OpCall.__str__ = lambda self: self.signature
OpCall.__repr__ = lambda self: "<tessera.OpCall %s, %d inputs>" % (self.signature,
                                                                    self.num_inputs)

TensorMeta = collections.namedtuple("TensorMeta", "shape dtype placement nd_sbp")
TensorMeta.__module__ = "tessera"
TensorMeta.__doc__ = "An output's logical shape, dtype name, Placement and NdSbp."


def _output(self, i):
    return TensorMeta(self.output_shape(i),
                      _capi.dtype_name(self.output_dtype(i)), self.output_placement(i),
                      self.output_nd_sbp(i))


InferResult.output = _output
InferResult.outputs = property(
    lambda self: tuple(self.output(i) for i in range(self.num_outputs)),
    doc="A TensorMeta per output.")
InferResult.input_nd_sbps = property(
    lambda self: tuple(self.input_nd_sbp(i) for i in range(self.num_inputs)),
    doc="The NdSbp each input must be boxed into (its own when no boxing).")
InferResult.needs_boxing = lambda self, i: bool(_capi.infer_result_needs_boxing(self, i))
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

Explanation.record = property(lambda self: json.loads(self.json),
                              doc="The JSON record parsed into dicts and lists.")
Explanation.__str__ = lambda self: self.text

InferCacheStats = collections.namedtuple("InferCacheStats",
                                         "hits misses evictions size capacity")
InferCacheStats.__module__ = "tessera"
InferCacheStats.__doc__ = "The calling thread's inference-cache counters."


def infer(call):
    """Infers `call`'s SBP signature (tess_op_call_infer): an InferResult."""
    return _capi.op_call_infer(call)


def infer_cache_stats():
    """The calling thread's inference-cache statistics (InferCacheStats)."""
    return InferCacheStats(*_capi.infer_cache_get_stats())
