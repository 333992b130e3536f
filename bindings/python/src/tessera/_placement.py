"""Placements, SBP values and physical layouts: Placement, NdSbp, Layout (SWIG
handles), placement(), sbp.*, layout(). All local; none needs the runtime."""

from . import _capi
from ._capi import Layout, NdSbp, Placement
from ._errors import invalid_argument
from ._handles import attach

attach(Placement, "placement_", {"parse", "create"},
       {"string", "device_type", "num_axes", "parallel_num"})
attach(NdSbp, "nd_sbp_", {"parse", "create"}, {"string", "num_axes"})
attach(Layout, "layout_", {"create"}, {"string", "local_shape", "num_elements"})


# Placement: the C API's 0/1 answers become bools; whole-array views.
def _placement_create(device_type, ranks, hierarchy=None):
    """Placement.create(device_type, ranks, hierarchy=None): `ranks` in row-major
    order over `hierarchy` (default: one axis of len(ranks))."""
    ranks = list(ranks)
    return _capi.placement_create(device_type, ranks,
                                  [len(ranks)] if hierarchy is None else hierarchy)


Placement.create = staticmethod(_placement_create)
Placement.contains = lambda self, rank: bool(_capi.placement_contains(self, rank))
Placement.__contains__ = Placement.contains
Placement.equal = lambda self, other: bool(_capi.placement_equal(self, other))
Placement.__eq__ = lambda self, other: isinstance(other, Placement) and self.equal(other)
Placement.__ne__ = lambda self, other: not self == other
Placement.__hash__ = lambda self: _capi.placement_hash(self)
Placement.__len__ = lambda self: self.parallel_num
Placement.hierarchy = property(
    lambda self: tuple(self.hierarchy_dim(a) for a in range(self.num_axes)),
    doc="The hierarchy (shape of the rank array) as a tuple.")
Placement.ranks = property(
    lambda self: tuple(self.rank_at(i) for i in range(self.parallel_num)),
    doc="The ranks in row-major order as a tuple.")
Placement.__repr__ = lambda self: "tessera.Placement(%r)" % self.string

# NdSbp: create from (kind, split_axis) pairs; sbps as a tuple of pairs.
NdSbp.equal = lambda self, other: bool(_capi.nd_sbp_equal(self, other))
NdSbp.__eq__ = lambda self, other: isinstance(other, NdSbp) and self.equal(other)
NdSbp.__ne__ = lambda self, other: not self == other
NdSbp.__hash__ = lambda self: hash(self.string)
NdSbp.sbps = property(
    lambda self: tuple(self.get(a) for a in range(self.num_axes)),
    doc="((kind, split_axis), ...) per hierarchy axis; split_axis is -1 unless a split.")
NdSbp.__repr__ = lambda self: "tessera.NdSbp(%r)" % self.string

# Layout: whole-shape views; the shape from one borrowed getter (tess_layout_local_shape).
Layout.local_shape.__doc__ = "The local tensor's shape as a tuple."
Layout.ndim = property(lambda self: len(self.local_shape), doc="The number of dims.")
Layout.ranges = property(
    lambda self: tuple(self.range(d) for d in range(self.ndim)),
    doc="((begin, end), ...): the logical index range held along each dim.")
Layout.__repr__ = lambda self: "<tessera.Layout %s>" % self.string


def layout(placement, nd_sbp, shape, rank):
    """The Layout `rank` holds of a tensor of `shape` on `placement` with `nd_sbp`."""
    return _capi.layout_create(placement, nd_sbp, list(shape), rank)


_SPLIT, _B, _P, _PMAX, _PMIN = (_capi.SBP_SPLIT, _capi.SBP_BROADCAST, _capi.SBP_PARTIAL_SUM,
                                _capi.SBP_PARTIAL_MAX, _capi.SBP_PARTIAL_MIN)


class Sbp(object):
    """One placement axis's SBP: split(axis), broadcast or partial_sum/max/min."""

    __slots__ = ("kind", "axis")

    def __init__(self, kind, axis=-1):
        self.kind = kind
        self.axis = axis

    def __eq__(self, other):
        return isinstance(other, Sbp) and (self.kind, self.axis) == (other.kind, other.axis)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.kind, self.axis))

    def __str__(self):
        if self.kind == _SPLIT:
            return "S(%d)" % self.axis
        return {_B: "B", _P: "P", _PMAX: "P(max)", _PMIN: "P(min)"}[self.kind]

    def __repr__(self):
        if self.kind == _SPLIT:
            return "tessera.sbp.split(%d)" % self.axis
        return "tessera.sbp." + {_B: "broadcast", _P: "partial_sum", _PMAX: "partial_max",
                                 _PMIN: "partial_min"}[self.kind]


Sbp.__module__ = "tessera"


class sbp(object):
    """SBP values: sbp.split(axis), sbp.broadcast, sbp.partial_sum, sbp.partial_max,
    sbp.partial_min. A tensor's nd-sbp is one of them or a tuple (one per placement
    axis)."""

    @staticmethod
    def split(axis):
        """Split along tensor axis `axis` (uneven splits give the first parts one
        more element)."""
        if not isinstance(axis, int) or isinstance(axis, bool) or axis < 0:
            raise invalid_argument("sbp.split: axis must be an int >= 0, got %r" % (axis,))
        return Sbp(_SPLIT, axis)

    broadcast = Sbp(_B)
    partial_sum = Sbp(_P)
    partial_max = Sbp(_PMAX)
    partial_min = Sbp(_PMIN)


sbp.__module__ = "tessera"


def nd_sbp(value):
    """An NdSbp from an NdSbp, its text, one sbp value or a tuple/list of them."""
    if isinstance(value, NdSbp):
        return value
    if isinstance(value, str):
        return NdSbp.parse(value)
    if isinstance(value, Sbp):
        value = (value,)
    if isinstance(value, (tuple, list)) and value:
        pairs = []
        for item in value:
            if isinstance(item, str):
                item = NdSbp.parse(item).sbps
                if len(item) != 1:
                    raise invalid_argument("sbp: %r is not one placement axis's sbp" % (item,))
                pairs.append(item[0])
            elif isinstance(item, Sbp):
                pairs.append((item.kind, item.axis if item.kind == _SPLIT else 0))
            else:
                raise TypeError("sbp: expected sbp values, got %r" % (item,))
        return NdSbp.create(pairs)
    raise TypeError("sbp: expected an sbp value, a tuple of them, an NdSbp or text; got %r"
                    % (value,))


def optional_nd_sbp(value):
    return None if value is None else nd_sbp(value)


def _flatten_ranks(ranks):
    """(flat ranks, hierarchy) of a nested list of ints with a rectangular shape."""
    if isinstance(ranks, int):
        return [ranks], []
    ranks = list(ranks)
    if not ranks:
        raise invalid_argument("placement: empty rank list")
    parts = [_flatten_ranks(r) for r in ranks]
    inner = parts[0][1]
    for i, (_, h) in enumerate(parts):
        if h != inner:
            raise invalid_argument("placement: ranks are not rectangular: element %d has shape "
                                   "%s but element 0 has %s" % (i, h, inner))
    return [r for flat, _ in parts for r in flat], [len(ranks)] + inner


def placement(type, ranks=None):
    """placement("cpu", ranks=[0, 1]) or placement("cuda", ranks=[[0, 1], [2, 3]]) (the
    nesting is the hierarchy); placement("cpu:[0,1]") parses the text form."""
    if ranks is None:
        return Placement.parse(type)
    devices = {"cpu": _capi.DEVICE_CPU, "cuda": _capi.DEVICE_CUDA}
    if type not in devices:
        raise invalid_argument("placement: device type %r is not \"cpu\" or \"cuda\"" % (type,))
    flat, hierarchy = _flatten_ranks(ranks)
    if not hierarchy:
        hierarchy = [1]
    return _capi.placement_create(devices[type], flat, hierarchy)


def as_placement(value):
    return Placement.parse(value) if isinstance(value, str) else value


def require(name, placement, sbp):
    """(Placement, NdSbp) from the placement= and sbp= arguments, which are required."""
    if placement is None or sbp is None:
        raise invalid_argument("%s: placement and sbp are required" % name)
    return as_placement(placement), nd_sbp(sbp)
