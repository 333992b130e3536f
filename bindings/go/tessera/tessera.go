package tessera

// Runtime, versions, the world and the local handles (Placement, NdSbp, Layout) and
// SBP signature inference.

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Device types.
const (
	DeviceCPU  = int32(capi.DEVICE_CPU)
	DeviceCUDA = int32(capi.DEVICE_CUDA)
)

// SBP kinds.
const (
	SbpSplit      = int32(capi.SBP_SPLIT)
	SbpBroadcast  = int32(capi.SBP_BROADCAST)
	SbpPartialSum = int32(capi.SBP_PARTIAL_SUM)
	SbpPartialMax = int32(capi.SBP_PARTIAL_MAX)
	SbpPartialMin = int32(capi.SBP_PARTIAL_MIN)
)

// Versions of the header the binding was built from.
const (
	VersionMajor = capi.VERSION_MAJOR
	VersionMinor = capi.VERSION_MINOR
	VersionPatch = capi.VERSION_PATCH
)

// VersionNumber is MAJOR * 10000 + MINOR * 100 + PATCH of the header.
var VersionNumber = capi.VERSION_NUMBER

// started says whether Init succeeded (and Finalize has not run since): the fast path
// of every call that needs the runtime. mu serialises Init and Finalize.
var (
	started atomic.Bool
	mu      sync.Mutex
)

// Init starts the runtime if it is not running: it checks that the loaded
// libtessera.so is the version the binding was built for, then calls tess_init,
// which initialises MPI (unless the program already did; without mpirun the process
// is a world of one rank). Idempotent and safe from several goroutines.
//
// Importing the package starts nothing: every function that needs the runtime
// (WorldRank, WorldSize, tensor creation, Box, AllReduce, Capture, Compile, ...)
// calls Init on first use. MPI expects Finalize on the OS thread that initialised
// it, so a program that calls Finalize should call Init first from main with the
// main goroutine locked to its thread (runtime.LockOSThread in an init function).
func Init() error {
	if started.Load() {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if started.Load() {
		return nil
	}
	if v := capi.Version_number(); v != capi.VERSION_NUMBER {
		return &Error{Code: FailedPrecondition, Status: StatusString(FailedPrecondition),
			Message: fmt.Sprintf("tessera: binding built for %d but the library is %s (%d)",
				capi.VERSION_NUMBER, capi.Version(), v)}
	}
	if err := capi.Init(); err != nil {
		return err
	}
	started.Store(true)
	return nil
}

// Finalize shuts the runtime down (MPI_Finalize if Init initialised MPI); a no-op
// when it is not running. MPI cannot restart: Init, and so every call that needs the
// runtime, fails with FailedPrecondition afterwards. Call it from the OS thread
// that ran Init, after every other Tessera call.
func Finalize() error {
	mu.Lock()
	defer mu.Unlock()
	started.Store(false)
	return capi.Finalize()
}

// Version is the loaded library's version, e.g. "0.1.0".
func Version() string { return capi.Version() }

// LibraryVersionNumber is the loaded library's VersionNumber.
func LibraryVersionNumber() int { return capi.Version_number() }

// WorldRank is this process's rank in the world.
func WorldRank() (int32, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	out := []int32{0}
	err := capi.World_rank(out)
	return out[0], err
}

// WorldSize is the number of ranks in the world.
func WorldSize() (int32, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	out := []int32{0}
	err := capi.World_size(out)
	return out[0], err
}

// CudaInfo says whether cuda placements can hold tensors in this process: whether
// the library was built with CUDA (--config=cuda) and how many CUDA devices the
// process sees (0 without a CUDA build or a GPU). Without a CUDA build tensor calls on
// cuda placements fail with Unimplemented, with one but no device with Unavailable.
// Local.
func CudaInfo() (builtWithCUDA bool, deviceCount int32, err error) {
	built, count := []int32{0}, []int32{0}
	if err := capi.Cuda_info(built, count); err != nil {
		return false, 0, err
	}
	return built[0] != 0, count[0], nil
}

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

// Ndim is the number of tensor dims.
func (l *Layout) Ndim() (int64, error) {
	out := []int64{0}
	err := capi.Layout_ndim(out, l.c())
	runtime.KeepAlive(l)
	return out[0], err
}

// LocalDim is the size of the local tensor along dim.
func (l *Layout) LocalDim(dim int64) (int64, error) {
	out := []int64{0}
	err := capi.Layout_local_dim(out, l.c(), dim)
	runtime.KeepAlive(l)
	return out[0], err
}

// LocalShape is the local tensor's shape.
func (l *Layout) LocalShape() ([]int64, error) {
	n, err := l.Ndim()
	if err != nil {
		return nil, err
	}
	dims := make([]int64, n)
	for dim := range dims {
		if dims[dim], err = l.LocalDim(int64(dim)); err != nil {
			return nil, err
		}
	}
	return dims, nil
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

// --- SBP signature inference -------------------------------------------------------

// Element types (DType values of the C API).
const (
	DTypeF32  = int32(capi.DTYPE_F32)
	DTypeF64  = int32(capi.DTYPE_F64)
	DTypeI32  = int32(capi.DTYPE_I32)
	DTypeI64  = int32(capi.DTYPE_I64)
	DTypeF16  = int32(capi.DTYPE_F16)
	DTypeBF16 = int32(capi.DTYPE_BF16)
)

// ParseDType parses "f32", "f64", "i32", "i64", "f16" or "bf16".
func ParseDType(text string) (int32, error) {
	out := []int32{0}
	err := capi.Dtype_parse(out, text)
	return out[0], err
}

// DTypeName names a dtype value: "f32"; "" if unknown.
func DTypeName(dtype int32) string { return capi.Dtype_name(int(dtype)) }

// OpNames lists the registered ops, sorted.
func OpNames() []string {
	names := make([]string, capi.Op_count())
	for i := range names {
		names[i] = capi.Op_name(int64(i))
	}
	return names
}

// OpCall describes one op call before inference: op, attributes, inputs and
// constraints. One goroutine at a time may change it.
type OpCall struct{ h capi.OpCall }

func (c *OpCall) c() capi.OpCall {
	if c == nil || c.h == nil {
		return capi.SwigcptrOpCall(0)
	}
	return c.h
}

// NewOpCall is a call of the registered op named op; a NotFound error, naming
// close op names, when there is none.
func NewOpCall(op string) (*OpCall, error) {
	out := []uintptr{0}
	if err := capi.Op_call_create(out, op); err != nil {
		return nil, err
	}
	c := &OpCall{h: capi.SwigcptrOpCall(out[0])}
	runtime.SetFinalizer(c, (*OpCall).Close)
	return c, nil
}

// Close destroys the call. Idempotent.
func (c *OpCall) Close() {
	if c == nil {
		return
	}
	if h := take(&c.h); h != nil {
		runtime.SetFinalizer(c, nil)
		capi.DeleteOpCall(h)
		destroyed("OpCall")
	}
}

// Signature is the op's signature, e.g. "add(x, y) -> (out)" ("" once closed).
func (c *OpCall) Signature() string {
	s := capi.Op_call_signature(c.c())
	runtime.KeepAlive(c)
	return s
}

// SetAttrInt sets an int attribute. Like every SetAttr*, an InvalidArgument error
// when the op has no such attribute or declares another type.
func (c *OpCall) SetAttrInt(name string, value int64) error {
	err := capi.Op_call_set_attr_int(c.c(), name, value)
	runtime.KeepAlive(c)
	return err
}

// SetAttrFloat sets a float attribute.
func (c *OpCall) SetAttrFloat(name string, value float64) error {
	err := capi.Op_call_set_attr_float(c.c(), name, value)
	runtime.KeepAlive(c)
	return err
}

// SetAttrBool sets a bool attribute.
func (c *OpCall) SetAttrBool(name string, value bool) error {
	v := 0
	if value {
		v = 1
	}
	err := capi.Op_call_set_attr_bool(c.c(), name, v)
	runtime.KeepAlive(c)
	return err
}

// SetAttrInts sets an ints attribute.
func (c *OpCall) SetAttrInts(name string, values []int64) error {
	err := capi.Op_call_set_attr_ints(c.c(), name, values)
	runtime.KeepAlive(c)
	return err
}

// SetAttrDType sets a dtype attribute from its name, e.g. "f64".
func (c *OpCall) SetAttrDType(name string, dtype string) error {
	d, err := ParseDType(dtype)
	if err != nil {
		return err
	}
	err = capi.Op_call_set_attr_dtype(c.c(), name, int(d))
	runtime.KeepAlive(c)
	return err
}

// AddInput appends the next input: a global tensor of shape and dtype (a name,
// e.g. "f32") placed on placement with ndSbp. An InvalidArgument error names the
// input for a bad shape, dtype or nd-sbp or a placement other than the first input's.
func (c *OpCall) AddInput(shape []int64, dtype string, placement *Placement, ndSbp *NdSbp) error {
	d, err := ParseDType(dtype)
	if err != nil {
		return err
	}
	err = capi.Op_call_add_input(c.c(), shape, int(d), placement.c(), ndSbp.c())
	runtime.KeepAlive(c)
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return err
}

// NumInputs is the number of inputs added so far.
func (c *OpCall) NumInputs() (int64, error) {
	out := []int64{0}
	err := capi.Op_call_num_inputs(out, c.c())
	runtime.KeepAlive(c)
	return out[0], err
}

// ConstrainInput requires input slot to have ndSbp (replacing an earlier constraint).
func (c *OpCall) ConstrainInput(slot int64, ndSbp *NdSbp) error {
	err := capi.Op_call_constrain_input(c.c(), slot, ndSbp.c())
	runtime.KeepAlive(c)
	runtime.KeepAlive(ndSbp)
	return err
}

// ConstrainOutput requires output slot to have ndSbp (replacing an earlier constraint).
func (c *OpCall) ConstrainOutput(slot int64, ndSbp *NdSbp) error {
	err := capi.Op_call_constrain_output(c.c(), slot, ndSbp.c())
	runtime.KeepAlive(c)
	runtime.KeepAlive(ndSbp)
	return err
}

// Infer infers the call's SBP signature through the inference cache of the OS
// thread the goroutine runs on.
func (c *OpCall) Infer() (*InferResult, error) {
	out := []uintptr{0}
	err := capi.Infer(out, c.c())
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	r := &InferResult{h: capi.SwigcptrInferResult(out[0])}
	runtime.SetFinalizer(r, (*InferResult).Close)
	return r, nil
}

// Explain records every candidate, the choice and the boxing (uncached). When no
// signature fits, the error is nil and Failure says why.
func (c *OpCall) Explain() (*Explanation, error) {
	out := []uintptr{0}
	err := capi.Explain(out, c.c())
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	e := &Explanation{h: capi.SwigcptrExplanation(out[0])}
	runtime.SetFinalizer(e, (*Explanation).Close)
	return e, nil
}

// TensorMeta is an output's logical shape, dtype name, placement and nd-sbp.
type TensorMeta struct {
	Shape     []int64    // logical shape
	DType     string     // dtype name, e.g. "f32"
	Placement *Placement // a new handle: Close it
	NdSbp     *NdSbp     // a new handle: Close it
}

// InferResult is the outcome of inference. Immutable.
type InferResult struct{ h capi.InferResult }

func (r *InferResult) c() capi.InferResult {
	if r == nil || r.h == nil {
		return capi.SwigcptrInferResult(0)
	}
	return r.h
}

// Close destroys the result. Idempotent.
func (r *InferResult) Close() {
	if r == nil {
		return
	}
	if h := take(&r.h); h != nil {
		runtime.SetFinalizer(r, nil)
		capi.DeleteInferResult(h)
		destroyed("InferResult")
	}
}

// NumOutputs is the number of outputs.
func (r *InferResult) NumOutputs() (int64, error) {
	out := []int64{0}
	err := capi.Infer_result_num_outputs(out, r.c())
	runtime.KeepAlive(r)
	return out[0], err
}

// Output is output i's meta; an OutOfRange error past the last output.
func (r *InferResult) Output(i int64) (TensorMeta, error) {
	defer runtime.KeepAlive(r)
	ndim := []int64{0}
	if err := capi.Infer_result_output_ndim(ndim, r.c(), i); err != nil {
		return TensorMeta{}, err
	}
	meta := TensorMeta{Shape: make([]int64, ndim[0])}
	for d := range meta.Shape {
		dim := []int64{0}
		if err := capi.Infer_result_output_dim(dim, r.c(), i, int64(d)); err != nil {
			return TensorMeta{}, err
		}
		meta.Shape[d] = dim[0]
	}
	dtype := []int32{0}
	if err := capi.Infer_result_output_dtype(dtype, r.c(), i); err != nil {
		return TensorMeta{}, err
	}
	meta.DType = DTypeName(dtype[0])
	p := []uintptr{0}
	if err := capi.Infer_result_output_placement(p, r.c(), i); err != nil {
		return TensorMeta{}, err
	}
	meta.Placement = newPlacement(p[0])
	s := []uintptr{0}
	if err := capi.Infer_result_output_nd_sbp(s, r.c(), i); err != nil {
		return TensorMeta{}, err
	}
	meta.NdSbp = newNdSbp(s[0])
	return meta, nil
}

// Outputs is every output's meta.
func (r *InferResult) Outputs() ([]TensorMeta, error) {
	n, err := r.NumOutputs()
	if err != nil {
		return nil, err
	}
	metas := make([]TensorMeta, n)
	for i := range metas {
		if metas[i], err = r.Output(int64(i)); err != nil {
			return nil, err
		}
	}
	return metas, nil
}

// NumInputs is the number of inputs.
func (r *InferResult) NumInputs() (int64, error) {
	out := []int64{0}
	err := capi.Infer_result_num_inputs(out, r.c())
	runtime.KeepAlive(r)
	return out[0], err
}

// InputNdSbp is the nd-sbp input i must be boxed into (its own when no boxing).
func (r *InferResult) InputNdSbp(i int64) (*NdSbp, error) {
	out := []uintptr{0}
	err := capi.Infer_result_input_nd_sbp(out, r.c(), i)
	runtime.KeepAlive(r)
	if err != nil {
		return nil, err
	}
	return newNdSbp(out[0]), nil
}

// NeedsBoxing reports whether input i's data must move.
func (r *InferResult) NeedsBoxing(i int64) (bool, error) {
	out := []int32{0}
	err := capi.Infer_result_needs_boxing(out, r.c(), i)
	runtime.KeepAlive(r)
	return out[0] != 0, err
}

// InputCost is the modelled bytes moved to box input i.
func (r *InferResult) InputCost(i int64) (float64, error) {
	out := []float64{0}
	err := capi.Infer_result_input_cost(out, r.c(), i)
	runtime.KeepAlive(r)
	return out[0], err
}

// TotalCost is the sum of the input costs.
func (r *InferResult) TotalCost() (float64, error) {
	out := []float64{0}
	err := capi.Infer_result_total_cost(out, r.c())
	runtime.KeepAlive(r)
	return out[0], err
}

// SignatureIndex is the chosen signature's declared position; -1 on one rank.
func (r *InferResult) SignatureIndex() (int32, error) {
	out := []int32{0}
	err := capi.Infer_result_signature_index(out, r.c())
	runtime.KeepAlive(r)
	return out[0], err
}

// NumCandidates is the number of candidate signatures considered.
func (r *InferResult) NumCandidates() (int32, error) {
	out := []int32{0}
	err := capi.Infer_result_num_candidates(out, r.c())
	runtime.KeepAlive(r)
	return out[0], err
}

// Explanation is the full record of one inference. Immutable.
type Explanation struct{ h capi.Explanation }

func (e *Explanation) c() capi.Explanation {
	if e == nil || e.h == nil {
		return capi.SwigcptrExplanation(0)
	}
	return e.h
}

// Close destroys the explanation. Idempotent.
func (e *Explanation) Close() {
	if e == nil {
		return
	}
	if h := take(&e.h); h != nil {
		runtime.SetFinalizer(e, nil)
		capi.DeleteExplanation(h)
		destroyed("Explanation")
	}
}

// Text is the multi-line readable record ("" once closed).
func (e *Explanation) Text() string {
	s := capi.Explanation_text(e.c())
	runtime.KeepAlive(e)
	return s
}

// JSON is the record as one JSON object ("" once closed).
func (e *Explanation) JSON() string {
	s := capi.Explanation_json(e.c())
	runtime.KeepAlive(e)
	return s
}

// Failure is "" when a signature was chosen, else the message Infer fails with.
func (e *Explanation) Failure() string {
	s := capi.Explanation_failure(e.c())
	runtime.KeepAlive(e)
	return s
}

// CacheStats are an inference cache's counters.
type CacheStats struct {
	Hits      uint64 // lookups answered from the cache
	Misses    uint64 // lookups that ran inference
	Evictions uint64 // entries dropped for capacity
	Size      int64  // entries now
	Capacity  int64  // most entries kept
}

// InferCacheStats reads the inference cache of the OS thread the goroutine runs
// on: the cache is per thread, so lock the goroutine (runtime.LockOSThread) to
// follow one cache.
func InferCacheStats() (CacheStats, error) {
	hits, misses, evictions := []uint64{0}, []uint64{0}, []uint64{0}
	size, capacity := []int64{0}, []int64{0}
	err := capi.Infer_cache_get_stats(hits, misses, evictions, size, capacity)
	return CacheStats{hits[0], misses[0], evictions[0], size[0], capacity[0]}, err
}

// ClearInferCache drops the current thread's cache entries and zeroes its counters.
func ClearInferCache() { capi.Infer_cache_clear() }

// SetInferCacheCapacity drops the current thread's cache entries (counters kept)
// and sets its capacity (>= 1).
func SetInferCacheCapacity(capacity int64) error { return capi.Infer_cache_set_capacity(capacity) }
