package tessera

import (
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Optimizers (tessera/optim.h): SGD, Adam and AdamW over parameters (leaf tensors that
// require a gradient), following PyTorch's update rules. Step updates every parameter
// that has a gradient IN PLACE: the *Tensor values keep their identity and see the new
// values. With Fused the parameters' data moves into flat buckets (one update kernel
// per bucket, gradient all-reduce overlapped with backward); the tensors stay valid.
// NewOptimizer, Step and ZeroGrad are collective over the parameters' placements. One
// goroutine at a time per optimizer.

// Algorithm picks the update rule of an Optimizer.
type Algorithm int32

const (
	SGD   Algorithm = Algorithm(capi.OPTIMIZER_SGD)   // torch.optim.SGD
	Adam  Algorithm = Algorithm(capi.OPTIMIZER_ADAM)  // torch.optim.Adam (L2 in the gradient)
	AdamW Algorithm = Algorithm(capi.OPTIMIZER_ADAMW) // torch.optim.AdamW (decoupled decay)
)

// OptimizerOptions configure NewOptimizer. Start from DefaultOptimizerOptions (the C
// API's defaults: SGD, lr 0.01, betas 0.9 and 0.999, eps 1e-8, 25 MiB buckets); the zero
// value has lr 0, betas 0 and no bucket size.
type OptimizerOptions struct {
	Algorithm   Algorithm // SGD, Adam or AdamW
	Lr          float64   // >= 0 and finite
	WeightDecay float64   // >= 0 (AdamW decouples it)
	Momentum    float64   // SGD, >= 0
	Dampening   float64   // SGD, >= 0
	Nesterov    bool      // SGD: needs Momentum > 0 and Dampening 0
	Beta1       float64   // Adam/AdamW, in [0, 1)
	Beta2       float64   // Adam/AdamW, in [0, 1)
	Eps         float64   // Adam/AdamW
	Fused       bool      // flat buckets, all-reduce overlapped with backward
	BucketBytes int64     // Fused: the largest bucket, > 0
	Zero1       bool      // Fused: optimizer state split across data-parallel ranks
}

// DefaultOptimizerOptions are TESS_OPTIMIZER_OPTIONS_INIT's values.
func DefaultOptimizerOptions() OptimizerOptions {
	return OptimizerOptions{Algorithm: SGD, Lr: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
		BucketBytes: 25 << 20}
}

// OptimizerStats are what an optimizer has done.
type OptimizerStats struct {
	Steps                int64   // Step calls
	NumParams            int64   // parameters
	NumBuckets           int64   // Fused: flat buckets; 0 otherwise
	AllreducesInBackward int64   // Fused: gradient all-reduces started during backward
	AllreduceSeconds     float64 // Fused: their seconds in flight, summed
	AllreduceWaitSeconds float64 // Fused: of those, the seconds Step waited
	StateBytes           int64   // optimizer state this rank holds in the buckets
}

// Optimizer updates parameters. Close it (defer opt.Close()).
type Optimizer struct {
	h      capi.Optimizer
	params []*Tensor
}

// NewOptimizer makes an optimizer over params. InvalidArgument naming the option and
// value (a negative or non-finite lr, a beta outside [0, 1), ...) or the parameter's
// index (nil, not a leaf requiring a gradient, not floating, listed twice). Collective.
func NewOptimizer(params []*Tensor, opts OptimizerOptions) (*Optimizer, error) {
	for i, p := range params {
		if p == nil {
			return nil, invalid("NewOptimizer: params[%d] is nil", i)
		}
	}
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Optimizer_create(out, handles(params), int(opts.Algorithm), opts.Lr,
		opts.WeightDecay, opts.Momentum, opts.Dampening, int(flag(opts.Nesterov)), opts.Beta1,
		opts.Beta2, opts.Eps, int(flag(opts.Fused)), opts.BucketBytes, int(flag(opts.Zero1)))
	runtime.KeepAlive(params)
	if err != nil {
		return nil, err
	}
	o := &Optimizer{h: capi.SwigcptrOptimizer(out[0]), params: append([]*Tensor(nil), params...)}
	runtime.SetFinalizer(o, (*Optimizer).Close)
	return o, nil
}

func (o *Optimizer) c() capi.Optimizer {
	if o == nil || o.h == nil {
		return capi.SwigcptrOptimizer(0)
	}
	return o.h
}

// Step updates every parameter that has a gradient, in place (parameters without one
// are skipped, as in PyTorch). Collective.
func (o *Optimizer) Step() error {
	err := capi.Optimizer_step(o.c())
	runtime.KeepAlive(o)
	return err
}

// CaptureStep, inside Capture's record and after a captured Backward, records one step
// (the update ops, and CaptureAssign of the new parameters and state) instead of taking
// it, so every run of the compiled plan trains. Per-tensor mode only (Unimplemented when
// fused); FailedPrecondition without a capture. Plan runs do not count in Stats' Steps.
func (o *Optimizer) CaptureStep() error {
	err := capi.Optimizer_capture_step(o.c())
	runtime.KeepAlive(o)
	return err
}

// ZeroGrad drops every parameter's gradient. Collective.
func (o *Optimizer) ZeroGrad() error {
	err := capi.Optimizer_zero_grad(o.c())
	runtime.KeepAlive(o)
	return err
}

// SetLr changes the learning rate for the next steps; InvalidArgument for a negative or
// non-finite lr.
func (o *Optimizer) SetLr(lr float64) error {
	err := capi.Optimizer_set_lr(o.c(), lr)
	runtime.KeepAlive(o)
	return err
}

// Stats are the optimizer's counters.
func (o *Optimizer) Stats() (OptimizerStats, error) {
	steps, params, buckets, inBackward := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	seconds, wait, state := []float64{0}, []float64{0}, []int64{0}
	err := capi.Optimizer_get_stats(steps, params, buckets, inBackward, seconds, wait, state, o.c())
	runtime.KeepAlive(o)
	return OptimizerStats{steps[0], params[0], buckets[0], inBackward[0], seconds[0], wait[0],
		state[0]}, err
}

// Close releases the optimizer's state (the parameters stay valid). Idempotent.
func (o *Optimizer) Close() {
	if o == nil {
		return
	}
	if h := take(&o.h); h != nil {
		runtime.SetFinalizer(o, nil)
		capi.DeleteOptimizer(h)
		destroyed("Optimizer")
	}
}
