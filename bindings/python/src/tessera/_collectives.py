"""Boxing and collectives on numpy arrays, without eager tensors: box() moves this
rank's piece of a logical tensor between layouts; allreduce() and
bucketed_allreduce() reduce arrays in place over a placement's ranks (or the world).
Each is collective (SPMD): every rank concerned makes the same calls in the same
order. box_plan() is local and needs no runtime."""

import collections
import threading

from . import _capi
from ._capi import BoxingPlan, BucketedAllReducer
from ._dtypes import dtype_code, in_place, numpy, numpy_dtype
from ._errors import invalid_argument
from ._handles import attach
from ._placement import as_placement, layout, nd_sbp
from ._runtime import ensure_started

attach(BoxingPlan, "boxing_plan_", {"create"}, {"string", "num_steps", "cost"})
BoxingPlan.steps = property(
    lambda self: tuple(self.step_string(i) for i in range(self.num_steps)),
    doc="One line per step (as in the text, without the numbers).")
BoxingPlan.__repr__ = lambda self: "<tessera.BoxingPlan %s>" % self.string.split("\n", 1)[0]

_REDUCE_OPS = {"sum": _capi.REDUCE_SUM, "max": _capi.REDUCE_MAX, "min": _capi.REDUCE_MIN}
_ALGORITHMS = {"flat": _capi.ALLREDUCE_FLAT, "auto": _capi.ALLREDUCE_AUTO,
               "hierarchical": _capi.ALLREDUCE_HIERARCHICAL}


def _choice(function, what, value, names):
    """A C API value from its name in `names` (or the value itself)."""
    if not isinstance(value, str):
        return value
    if value not in names:
        raise invalid_argument("%s: %s %r is not one of %s" % (
            function, what, value, ", ".join(sorted(names))))
    return names[value]


def _layouts(src_placement, src_sbp, dst_placement, dst_sbp):
    """(src Placement, src NdSbp, dst Placement, dst NdSbp); dst ones default to src's."""
    src_p = as_placement(src_placement)
    dst_p = src_p if dst_placement is None else as_placement(dst_placement)
    return (src_p, nd_sbp(src_sbp), dst_p, nd_sbp(src_sbp if dst_sbp is None else dst_sbp))


def set_collective_timeout(seconds):
    """Bounds every collective from now on to `seconds` (0: wait forever)."""
    _capi.comm_set_collective_timeout(seconds)


def collective_timeout():
    """The bound set_collective_timeout set, else TESSERA_COLLECTIVE_TIMEOUT_S, else 0."""
    return _capi.comm_collective_timeout()


def box_plan(shape, dtype, src_placement, src_sbp, dst_placement=None, dst_sbp=None):
    """The BoxingPlan box() runs for these arguments: str() is the text explain
    shows; .steps, .num_steps and .cost (modelled seconds). Local; needs no world."""
    src_p, src_s, dst_p, dst_s = _layouts(src_placement, src_sbp, dst_placement, dst_sbp)
    return _capi.boxing_plan_create([int(d) for d in shape], dtype_code(dtype), src_p, src_s,
                                    dst_p, dst_s)


def box(local, shape, src_placement, src_sbp, dst_placement=None, dst_sbp=None, dtype=None):
    """This rank's piece of the logical tensor of `shape` held as `src_sbp` on
    `src_placement` (`local`: a numpy array of the piece's shape, None on a rank the
    placement lacks), moved to `dst_sbp` on `dst_placement` (each defaults to the
    source's). Returns a new numpy array of this rank's destination piece, or None
    on a rank the destination lacks. `dtype` defaults to local's (required where
    local is None). Collective over both placements' ranks."""
    np = numpy()
    src_p, src_s, dst_p, dst_s = _layouts(src_placement, src_sbp, dst_placement, dst_sbp)
    shape = [int(d) for d in shape]
    if dtype is None and local is None:
        raise invalid_argument("box: dtype is required when local is None")
    code = dtype_code(np.asarray(local).dtype if dtype is None else dtype)
    ensure_started()
    rank = _capi.runtime_world_rank()
    if rank in src_p:
        want = layout(src_p, src_s, shape, rank).local_shape
        have = None if local is None else np.shape(local)
        if have != want:
            raise invalid_argument(
                "box: local has shape %s but rank %d's piece of %s as %s on %s has shape %s"
                % (have, rank, tuple(shape), src_s, src_p, want))
        # asarray, not ascontiguousarray: that one makes a 0-d array 1-d.
        local = np.asarray(local, dtype=numpy_dtype(code), order="C")
    elif local is not None and np.size(local) > 0:
        raise invalid_argument(
            "box: rank %d is not in the source placement %s, so local must be None or empty"
            % (rank, src_p))
    else:
        local = None
    out = None
    if rank in dst_p:
        out = np.empty(layout(dst_p, dst_s, shape, rank).local_shape, dtype=numpy_dtype(code))
    _capi.boxing_run(out if out is not None else bytearray(0), local, shape, code, src_p, src_s, dst_p,
              dst_s)
    return out


def allreduce(array, op="sum", placement=None, algorithm="flat"):
    """array := op over the ranks of `placement` (None: the world) of array, in place
    (a C-contiguous writable numpy array; returned). op: "sum", "max", "min";
    algorithm: "flat", "auto" (host by host for large arrays when hosts have several
    ranks) or "hierarchical" (always host by host). Ranks outside the placement
    return at once. Collective over the placement."""
    array = in_place("allreduce", "array", array)
    code = dtype_code(array.dtype)
    op_code = _choice("allreduce", "op", op, _REDUCE_OPS)
    algorithm_code = _choice("allreduce", "algorithm", algorithm, _ALGORITHMS)
    ensure_started()
    _capi.comm_allreduce(array, array.size, code, op_code,
                    None if placement is None else as_placement(placement), algorithm_code)
    return array


BucketStats = collections.namedtuple("BucketStats", "calls plans_built buckets in_place_buckets")
BucketStats.__module__ = "tessera"
BucketStats.__doc__ = ("A BucketedAllReducer's calls and plans built, and its last call's "
                       "buckets and how many of those went without a copy.")

attach(BucketedAllReducer, "bucketed_allreducer_", {"create"}, set(), exclude={"get_stats"})


def _reducer_init(self, bucket_bytes=0):
    """BucketedAllReducer(bucket_bytes=0): packs arrays into buckets of at most
    bucket_bytes (0: 25 MiB) and keeps its plans, so repeated calls with the same
    sizes allocate nothing. One thread at a time."""
    self.this = _capi.bucketed_allreducer_create(int(bucket_bytes)).this


def _reducer_allreduce(self, arrays, op="sum", placement=None):
    """arrays[i] := op over the ranks of `placement` (None: the world) of arrays[i],
    in place, for a list of C-contiguous writable numpy arrays of one dtype, with one
    all-reduce per bucket. Returns the list. Collective over the placement."""
    arrays = list(arrays)
    code = _capi.DTYPE_F32
    for i, a in enumerate(arrays):
        in_place("bucketed_allreduce", "arrays[%d]" % i, a)
        c = dtype_code(a.dtype)
        if i == 0:
            code = c
        elif c != code:
            raise invalid_argument(
                "bucketed_allreduce: arrays[%d] is %s but arrays[0] is %s; one dtype per call"
                % (i, a.dtype, arrays[0].dtype))
    op_code = _choice("bucketed_allreduce", "op", op, _REDUCE_OPS)
    ensure_started()
    _capi.bucketed_allreducer_run(self, arrays, [a.size for a in arrays], code, op_code,
                             None if placement is None else as_placement(placement))
    return arrays


BucketedAllReducer.__init__ = _reducer_init
BucketedAllReducer.allreduce = _reducer_allreduce
BucketedAllReducer.stats = property(
    lambda self: BucketStats(*_capi.bucketed_allreducer_get_stats(self)),
    doc="The reducer's BucketStats.")
BucketedAllReducer.__str__ = lambda self: "BucketedAllReducer(%s)" % (self.stats,)
BucketedAllReducer.__repr__ = lambda self: "<tessera.%s>" % self

_thread_reducers = threading.local()


def bucketed_allreduce(arrays, op="sum", placement=None):
    """BucketedAllReducer.allreduce with the calling thread's default reducer (25 MiB
    buckets), so repeated calls reuse its plans."""
    reducer = getattr(_thread_reducers, "reducer", None)
    if reducer is None:
        reducer = _thread_reducers.reducer = BucketedAllReducer()
    return reducer.allreduce(arrays, op, placement)
