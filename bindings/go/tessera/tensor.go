package tessera

// Eager global tensors and the ops on them.
//
// Every creation, ToGlobal, ToHost and op is collective: every rank of the world
// makes the same calls in the same order (SPMD). The C API's per-thread state (the
// inference cache, ExplainLast's record) follows the OS thread: lock the goroutine
// to its thread (runtime.LockOSThread) to use ExplainLast.

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Element is a Go element type with a Tessera dtype: float32 (f32), float64 (f64),
// int32 (i32) or int64 (i64).
type Element interface {
	float32 | float64 | int32 | int64
}

func dtypeOf[T Element]() int32 {
	var zero T
	switch any(zero).(type) {
	case float32:
		return DTypeF32
	case float64:
		return DTypeF64
	case int32:
		return DTypeI32
	default:
		return DTypeI64
	}
}

// bytesOf views s as bytes, without copying; nil for an empty slice.
func bytesOf[T Element](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

func invalid(format string, args ...any) error {
	return &Error{Code: InvalidArgument, Status: StatusString(InvalidArgument),
		Message: fmt.Sprintf(format, args...)}
}

// elements is the product of shape's dims (negative dims count as 0; the C API
// rejects them with its own message).
func elements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			d = 0
		}
		n *= d
	}
	return n
}

// Tensor is a global tensor: logical shape, dtype, placement and nd-sbp, plus this
// rank's local piece when the placement holds this rank. Immutable; safe to read
// from several goroutines. Close it (defer t.Close()).
type Tensor struct{ h capi.Tensor }

func newTensor(handle uintptr) *Tensor {
	t := &Tensor{h: capi.SwigcptrTensor(handle)}
	runtime.SetFinalizer(t, (*Tensor).Close)
	return t
}

func (t *Tensor) c() capi.Tensor {
	if t == nil || t.h == nil {
		return capi.SwigcptrTensor(0)
	}
	return t.h
}

// Close releases the tensor. Idempotent; not collective.
func (t *Tensor) Close() {
	if t == nil {
		return
	}
	if h := take(&t.h); h != nil {
		runtime.SetFinalizer(t, nil)
		capi.DeleteTensor(h)
		destroyed("Tensor")
	}
}

// made wraps out[0] as a new tensor unless err is set.
func made(out []uintptr, err error) (*Tensor, error) {
	if err != nil {
		return nil, err
	}
	return newTensor(out[0]), nil
}

// FromHost makes the global tensor whose logical value is data (row-major, the
// same on every rank) of shape, held as ndSbp on placement.
func FromHost[T Element](data []T, shape []int64, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	if n := elements(shape); int64(len(data)) != n {
		return nil, invalid("FromHost: data has %d elements but shape %v needs %d", len(data), shape, n)
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Tensor_from_host(out, bytesOf(data), shape, int(dtypeOf[T]()), placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// FromLocal makes the global tensor whose piece on this rank is local of
// localShape: shards for S, partial values for P, copies for B. logicalShape nil
// infers the logical shape from every rank's local shape (collective).
func FromLocal[T Element](local []T, localShape []int64, placement *Placement, ndSbp *NdSbp,
	logicalShape []int64) (*Tensor, error) {
	if n := elements(localShape); int64(len(local)) != n {
		return nil, invalid("FromLocal: local has %d elements but local shape %v needs %d",
			len(local), localShape, n)
	}
	if logicalShape != nil && len(logicalShape) != len(localShape) {
		return nil, invalid("FromLocal: logical shape %v has %d dims but the local shape %v has %d",
			logicalShape, len(logicalShape), localShape, len(localShape))
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Tensor_from_local(out, bytesOf(local), localShape, int(dtypeOf[T]()), placement.c(),
		ndSbp.c(), logicalShape)
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// Full makes a tensor of shape whose every element is value (which dtype, e.g.
// "f32", must hold exactly).
func Full(shape []int64, dtype string, value float64, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	d, err := ParseDType(dtype)
	if err != nil {
		return nil, err
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err = capi.Tensor_full(out, shape, int(d), value, placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// Zeros is Full with 0.
func Zeros(shape []int64, dtype string, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	return Full(shape, dtype, 0, placement, ndSbp)
}

// Ones is Full with 1.
func Ones(shape []int64, dtype string, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	return Full(shape, dtype, 1, placement, ndSbp)
}

// Arange makes the 1-d tensor start, start + step, ... up to but excluding stop.
func Arange(start, stop, step float64, dtype string, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	d, err := ParseDType(dtype)
	if err != nil {
		return nil, err
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err = capi.Tensor_arange(out, start, stop, step, int(d), placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

type randomFn func([]uintptr, []int64, int, uint64, capi.Placement, capi.NdSbp) error

func random(fn randomFn, shape []int64, dtype string, seed uint64, placement *Placement,
	ndSbp *NdSbp) (*Tensor, error) {
	d, err := ParseDType(dtype)
	if err != nil {
		return nil, err
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err = fn(out, shape, int(d), seed, placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// Rand makes uniform [0, 1) values that depend only on (shape, dtype, seed).
func Rand(shape []int64, dtype string, seed uint64, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	return random(capi.Tensor_rand, shape, dtype, seed, placement, ndSbp)
}

// Randn makes standard normal values that depend only on (shape, dtype, seed).
func Randn(shape []int64, dtype string, seed uint64, placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	return random(capi.Tensor_randn, shape, dtype, seed, placement, ndSbp)
}

// String is e.g. "[4,6] f32 cpu:[0,1] S(0)" ("" once closed).
func (t *Tensor) String() string {
	s := capi.Tensor_string(t.c())
	runtime.KeepAlive(t)
	return s
}

// Ndim is the number of logical dims (len of Shape).
func (t *Tensor) Ndim() (int64, error) {
	shape, err := t.Shape()
	return int64(len(shape)), err
}

// Dim is the logical size along dim; OutOfRange outside [0, Ndim).
func (t *Tensor) Dim(dim int64) (int64, error) {
	shape, err := t.Shape()
	if err != nil {
		return 0, err
	}
	return dimOf("Tensor.Dim", shape, dim)
}

// dimOf is shape[dim], or an OutOfRange error naming function, dim and shape.
func dimOf(function string, shape []int64, dim int64) (int64, error) {
	if dim < 0 || dim >= int64(len(shape)) {
		return 0, &Error{Code: OutOfRange, Status: StatusString(OutOfRange),
			Message: fmt.Sprintf("%s: dim %d is outside the shape %s, which has %d dims",
				function, dim, shapeString(shape), len(shape))}
	}
	return shape[dim], nil
}

// shapeString is shape as the C API writes one: "[5,6]".
func shapeString(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Shape is the logical shape (a new slice; empty for a 0-d tensor).
func (t *Tensor) Shape() ([]int64, error) {
	var shape []int64
	err := capi.Tensor_shape(&shape, t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return shape, nil
}

// NumElements is the number of logical elements.
func (t *Tensor) NumElements() (int64, error) {
	out := []int64{0}
	err := capi.Tensor_num_elements(out, t.c())
	runtime.KeepAlive(t)
	return out[0], err
}

func (t *Tensor) dtype() (int32, error) {
	out := []int32{0}
	err := capi.Tensor_dtype(out, t.c())
	runtime.KeepAlive(t)
	return out[0], err
}

// DType is the dtype's name, e.g. "f32".
func (t *Tensor) DType() (string, error) {
	d, err := t.dtype()
	return DTypeName(d), err
}

// Placement is the tensor's placement (a new handle).
func (t *Tensor) Placement() (*Placement, error) {
	out := []uintptr{0}
	err := capi.Tensor_placement(out, t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return newPlacement(out[0]), nil
}

// NdSbp is the tensor's nd-sbp (a new handle).
func (t *Tensor) NdSbp() (*NdSbp, error) {
	out := []uintptr{0}
	err := capi.Tensor_nd_sbp(out, t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return newNdSbp(out[0]), nil
}

// Synchronize waits until the work queued so far on the device holding this rank's
// piece has finished, and returns the error any of it hit (ops on cuda placements
// return once queued). Returns at once on cpu placements. Not collective.
func (t *Tensor) Synchronize() error {
	err := capi.Tensor_synchronize(t.c())
	runtime.KeepAlive(t)
	return err
}

// HasLocal reports whether this rank holds a local piece.
func (t *Tensor) HasLocal() (bool, error) {
	out := []int32{0}
	err := capi.Tensor_has_local(out, t.c())
	runtime.KeepAlive(t)
	return out[0] != 0, err
}

// LocalShape is this rank's piece's shape (a new slice); FailedPrecondition outside
// the placement.
func (t *Tensor) LocalShape() ([]int64, error) {
	var shape []int64
	err := capi.Tensor_local_shape(&shape, t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return shape, nil
}

// LocalNumElements is the number of elements of this rank's piece.
func (t *Tensor) LocalNumElements() (int64, error) {
	out := []int64{0}
	err := capi.Tensor_local_num_elements(out, t.c())
	runtime.KeepAlive(t)
	return out[0], err
}

// checkDType fails unless t's dtype is T's.
func checkDType[T Element](function string, t *Tensor) error {
	have, err := t.dtype()
	if err != nil {
		return err
	}
	if want := dtypeOf[T](); have != want {
		return invalid("%s: the tensor is %s, not %s", function, DTypeName(have), DTypeName(want))
	}
	return nil
}

// ToHost is the whole logical value (row-major) as a []T, on every rank; T must be
// the tensor's element type. Collective.
func ToHost[T Element](t *Tensor) ([]T, error) {
	if err := checkDType[T]("ToHost", t); err != nil {
		return nil, err
	}
	n, err := t.NumElements()
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	err = capi.Tensor_to_host(bytesOf(out), t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CopyLocal is a copy of this rank's local piece (row-major) as a []T. Not
// collective.
func CopyLocal[T Element](t *Tensor) ([]T, error) {
	if err := checkDType[T]("CopyLocal", t); err != nil {
		return nil, err
	}
	n, err := t.LocalNumElements()
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	err = capi.Tensor_copy_local(bytesOf(out), t.c())
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ToGlobal is the same logical value held as ndSbp on placement. Collective.
func (t *Tensor) ToGlobal(placement *Placement, ndSbp *NdSbp) (*Tensor, error) {
	out := []uintptr{0}
	err := capi.Tensor_to_global(out, t.c(), placement.c(), ndSbp.c())
	runtime.KeepAlive(t)
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// --- Ops ---------------------------------------------------------------------------

// The typed ops (Add, Relu, Matmul, ReduceSum, ...) are in ops_generated.go, written
// by tools/opgen from the op registry.

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxOutputs is more outputs than any registered op has (the C API says so if an
// op ever has more).
const maxOutputs = 16

// Apply runs call (its attributes and constraints; no AddInput) on inputs and
// returns the op's outputs.
func Apply(call *OpCall, inputs ...*Tensor) ([]*Tensor, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	in := make([]uintptr, len(inputs))
	for i, t := range inputs {
		in[i] = t.c().Swigcptr()
	}
	handles := make([]uintptr, maxOutputs)
	err := capi.Op_call_apply(handles, call.c(), in)
	runtime.KeepAlive(call)
	runtime.KeepAlive(inputs)
	if err != nil {
		return nil, err
	}
	var outputs []*Tensor
	for _, h := range handles {
		if h == 0 {
			break
		}
		outputs = append(outputs, newTensor(h))
	}
	return outputs, nil
}

// ExplainLast is the full inference record of the last op this OS thread ran
// (also one that failed). Lock the goroutine to its thread around the op and this
// call; FailedPrecondition on a thread that has run no op.
func ExplainLast() (*Explanation, error) {
	out := []uintptr{0}
	if err := capi.Explanation_last(out); err != nil {
		return nil, err
	}
	e := &Explanation{h: capi.SwigcptrExplanation(out[0])}
	runtime.SetFinalizer(e, (*Explanation).Close)
	return e, nil
}
