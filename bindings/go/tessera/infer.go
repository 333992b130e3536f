package tessera

// SBP signature inference: dtypes, op calls, results and explanations.

import (
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// --- SBP signature inference -------------------------------------------------------

// Element types (DType values of the C API).
const (
	DTypeF32  = int32(capi.DTYPE_F32)
	DTypeF64  = int32(capi.DTYPE_F64)
	DTypeI32  = int32(capi.DTYPE_I32)
	DTypeI64  = int32(capi.DTYPE_I64)
	DTypeF16  = int32(capi.DTYPE_F16)
	DTypeBF16 = int32(capi.DTYPE_BF16)
	DTypeBool = int32(capi.DTYPE_BOOL)
)

// ParseDType parses "f32", "f64", "i32", "i64", "f16", "bf16" or "bool".
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
	err := capi.Op_call_infer(out, c.c())
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
	err := capi.Op_call_explain(out, c.c())
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
	var meta TensorMeta
	if err := capi.Infer_result_output_shape(&meta.Shape, r.c(), i); err != nil {
		return TensorMeta{}, err
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
