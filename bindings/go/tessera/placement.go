package tessera

// The local handles: Placement, NdSbp and Layout (one rank's part of a tensor).

import (
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// --- Placement -------------------------------------------------------------------

// Placement is a device type plus an N-d array of ranks. Immutable; safe to read
// from several goroutines.
type Placement struct{ h capi.Placement }

func newPlacement(handle uintptr) *Placement {
	p := &Placement{h: capi.SwigcptrPlacement(handle)}
	runtime.SetFinalizer(p, (*Placement).Close)
	return p
}

// c is the C handle; nil (rejected by the C API as INVALID_ARGUMENT) once closed.
func (p *Placement) c() capi.Placement {
	if p == nil || p.h == nil {
		return capi.SwigcptrPlacement(0)
	}
	return p.h
}

// Close destroys the placement. Idempotent.
func (p *Placement) Close() {
	if p == nil {
		return
	}
	if h := take(&p.h); h != nil {
		runtime.SetFinalizer(p, nil)
		capi.DeletePlacement(h)
		destroyed("Placement")
	}
}

// ParsePlacement parses "cpu:[0,1,2,3]", "cuda:[[0,1],[2,3]]", "cpu:0-3", "cpu:[0-1,4]".
func ParsePlacement(text string) (*Placement, error) {
	out := []uintptr{0}
	if err := capi.Placement_parse(out, text); err != nil {
		return nil, err
	}
	return newPlacement(out[0]), nil
}

// NewPlacement makes a placement of ranks in row-major order over hierarchy.
func NewPlacement(deviceType int32, ranks []int32, hierarchy []int64) (*Placement, error) {
	out := []uintptr{0}
	if err := capi.Placement_create(out, int(deviceType), ranks, hierarchy); err != nil {
		return nil, err
	}
	return newPlacement(out[0]), nil
}

// String is the canonical text, e.g. "cpu:[[0,1],[2,3]]" ("" once closed).
func (p *Placement) String() string {
	s := capi.Placement_string(p.c())
	runtime.KeepAlive(p)
	return s
}

// DeviceType is DeviceCPU or DeviceCUDA.
func (p *Placement) DeviceType() (int32, error) {
	out := []int32{0}
	err := capi.Placement_device_type(out, p.c())
	runtime.KeepAlive(p)
	return out[0], err
}

// NumAxes is the number of hierarchy axes.
func (p *Placement) NumAxes() (int64, error) {
	out := []int64{0}
	err := capi.Placement_num_axes(out, p.c())
	runtime.KeepAlive(p)
	return out[0], err
}

// HierarchyDim is the size of hierarchy axis axis.
func (p *Placement) HierarchyDim(axis int64) (int64, error) {
	out := []int64{0}
	err := capi.Placement_hierarchy_dim(out, p.c(), axis)
	runtime.KeepAlive(p)
	return out[0], err
}

// Hierarchy is the shape of the rank array.
func (p *Placement) Hierarchy() ([]int64, error) {
	n, err := p.NumAxes()
	if err != nil {
		return nil, err
	}
	dims := make([]int64, n)
	for axis := range dims {
		if dims[axis], err = p.HierarchyDim(int64(axis)); err != nil {
			return nil, err
		}
	}
	return dims, nil
}

// ParallelNum is the number of ranks.
func (p *Placement) ParallelNum() (int64, error) {
	out := []int64{0}
	err := capi.Placement_parallel_num(out, p.c())
	runtime.KeepAlive(p)
	return out[0], err
}

// RankAt is the rank at row-major parallel index index.
func (p *Placement) RankAt(index int64) (int32, error) {
	out := []int32{0}
	err := capi.Placement_rank_at(out, p.c(), index)
	runtime.KeepAlive(p)
	return out[0], err
}

// IndexOf is rank's parallel index; a NotFound error if the placement lacks it.
func (p *Placement) IndexOf(rank int32) (int64, error) {
	out := []int64{0}
	err := capi.Placement_index_of(out, p.c(), int(rank))
	runtime.KeepAlive(p)
	return out[0], err
}

// Contains reports whether the placement holds rank.
func (p *Placement) Contains(rank int32) (bool, error) {
	out := []int32{0}
	err := capi.Placement_contains(out, p.c(), int(rank))
	runtime.KeepAlive(p)
	return out[0] != 0, err
}

// AxisGroup is the 1-d placement of the ranks that differ from rank only along
// hierarchy axis axis: rank's communication group along that axis.
func (p *Placement) AxisGroup(axis int64, rank int32) (*Placement, error) {
	out := []uintptr{0}
	err := capi.Placement_axis_group(out, p.c(), axis, int(rank))
	runtime.KeepAlive(p)
	if err != nil {
		return nil, err
	}
	return newPlacement(out[0]), nil
}

// Equal reports whether both have the same device type, hierarchy and ranks.
func (p *Placement) Equal(other *Placement) (bool, error) {
	out := []int32{0}
	err := capi.Placement_equal(out, p.c(), other.c())
	runtime.KeepAlive(p)
	runtime.KeepAlive(other)
	return out[0] != 0, err
}

// Hash is equal for equal placements.
func (p *Placement) Hash() (uint64, error) {
	out := []uint64{0}
	err := capi.Placement_hash(out, p.c())
	runtime.KeepAlive(p)
	return out[0], err
}

// --- NdSbp -----------------------------------------------------------------------

// NdSbp is one SBP per placement hierarchy axis. Immutable.
type NdSbp struct{ h capi.NdSbp }

// Sbp is one hierarchy axis's SBP: Kind (SbpSplit, ...) and, for a split, the
// split tensor axis (-1 otherwise).
type Sbp struct {
	Kind      int32 // SbpSplit, SbpBroadcast, SbpPartialSum, SbpPartialMax or SbpPartialMin
	SplitAxis int32 // the split tensor axis; -1 unless Kind is SbpSplit
}

func newNdSbp(handle uintptr) *NdSbp {
	s := &NdSbp{h: capi.SwigcptrNdSbp(handle)}
	runtime.SetFinalizer(s, (*NdSbp).Close)
	return s
}

func (s *NdSbp) c() capi.NdSbp {
	if s == nil || s.h == nil {
		return capi.SwigcptrNdSbp(0)
	}
	return s.h
}

// Close destroys the nd-sbp. Idempotent.
func (s *NdSbp) Close() {
	if s == nil {
		return
	}
	if h := take(&s.h); h != nil {
		runtime.SetFinalizer(s, nil)
		capi.DeleteNdSbp(h)
		destroyed("NdSbp")
	}
}

// ParseNdSbp parses "(S(0), B)", "S(1)", "P", "P(max)", "(P(min), S(0))".
func ParseNdSbp(text string) (*NdSbp, error) {
	out := []uintptr{0}
	if err := capi.Nd_sbp_parse(out, text); err != nil {
		return nil, err
	}
	return newNdSbp(out[0]), nil
}

// NewNdSbp makes an nd-sbp from one Sbp per hierarchy axis (SplitAxis is ignored
// unless Kind is SbpSplit).
func NewNdSbp(sbps []Sbp) (*NdSbp, error) {
	pairs := make([][2]int32, len(sbps))
	for i, sbp := range sbps {
		pairs[i] = [2]int32{sbp.Kind, sbp.SplitAxis}
	}
	out := []uintptr{0}
	if err := capi.Nd_sbp_create(out, pairs); err != nil {
		return nil, err
	}
	return newNdSbp(out[0]), nil
}

// String is "(S(0), B)" or, for one axis, "S(0)" ("" once closed).
func (s *NdSbp) String() string {
	text := capi.Nd_sbp_string(s.c())
	runtime.KeepAlive(s)
	return text
}

// NumAxes is the number of hierarchy axes.
func (s *NdSbp) NumAxes() (int64, error) {
	out := []int64{0}
	err := capi.Nd_sbp_num_axes(out, s.c())
	runtime.KeepAlive(s)
	return out[0], err
}

// Get is the SBP of hierarchy axis axis.
func (s *NdSbp) Get(axis int64) (Sbp, error) {
	kind, split := []int32{0}, []int32{0}
	err := capi.Nd_sbp_get(kind, split, s.c(), axis)
	runtime.KeepAlive(s)
	return Sbp{Kind: kind[0], SplitAxis: split[0]}, err
}

// Equal reports whether both have the same SBPs.
func (s *NdSbp) Equal(other *NdSbp) (bool, error) {
	out := []int32{0}
	err := capi.Nd_sbp_equal(out, s.c(), other.c())
	runtime.KeepAlive(s)
	runtime.KeepAlive(other)
	return out[0] != 0, err
}

// --- Layout ----------------------------------------------------------------------

// Layout is the part of a logical tensor that one rank holds. Immutable.
type Layout struct{ h capi.Layout }

func (l *Layout) c() capi.Layout {
	if l == nil || l.h == nil {
		return capi.SwigcptrLayout(0)
	}
	return l.h
}

// Close destroys the layout. Idempotent.
func (l *Layout) Close() {
	if l == nil {
		return
	}
	if h := take(&l.h); h != nil {
		runtime.SetFinalizer(l, nil)
		capi.DeleteLayout(h)
		destroyed("Layout")
	}
}

// NewLayout is the layout rank holds of a tensor of shape placed on placement with
// ndSbp (nested ND splits, hierarchy axis 0 first; uneven splits give the first
// dim % n parts one extra element). A NotFound error if placement lacks rank.
func NewLayout(placement *Placement, ndSbp *NdSbp, shape []int64, rank int32) (*Layout, error) {
	out := []uintptr{0}
	err := capi.Layout_create(out, placement.c(), ndSbp.c(), shape, int(rank))
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	if err != nil {
		return nil, err
	}
	l := &Layout{h: capi.SwigcptrLayout(out[0])}
	runtime.SetFinalizer(l, (*Layout).Close)
	return l, nil
}

// String is e.g. "[0,3)x[3,5)" ("" once closed).
func (l *Layout) String() string {
	s := capi.Layout_string(l.c())
	runtime.KeepAlive(l)
	return s
}

// Ndim is the number of tensor dims (len of LocalShape).
func (l *Layout) Ndim() (int64, error) {
	shape, err := l.LocalShape()
	return int64(len(shape)), err
}

// LocalDim is the size of the local tensor along dim; OutOfRange outside [0, Ndim).
func (l *Layout) LocalDim(dim int64) (int64, error) {
	shape, err := l.LocalShape()
	if err != nil {
		return 0, err
	}
	return dimOf("Layout.LocalDim", shape, dim)
}

// LocalShape is the local tensor's shape (a new slice).
func (l *Layout) LocalShape() ([]int64, error) {
	var shape []int64
	err := capi.Layout_local_shape(&shape, l.c())
	runtime.KeepAlive(l)
	if err != nil {
		return nil, err
	}
	return shape, nil
}

// Range is the logical index range [begin, end) held along dim.
func (l *Layout) Range(dim int64) (begin, end int64, err error) {
	b, e := []int64{0}, []int64{0}
	err = capi.Layout_range(b, e, l.c(), dim)
	runtime.KeepAlive(l)
	return b[0], e[0], err
}

// NumElements is the number of local elements (0 for an empty part).
func (l *Layout) NumElements() (int64, error) {
	out := []int64{0}
	err := capi.Layout_num_elements(out, l.c())
	runtime.KeepAlive(l)
	return out[0], err
}
