package tessera

import (
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Reverse-mode autograd (tessera/autograd.h). A floating tensor that requires a
// gradient (SetRequiresGrad) is a leaf, a parameter; every op run while grad mode is on
// with such an input is recorded, and Backward adds into each reached leaf's Grad, so
// call ZeroGrad between steps. Gradients are global tensors with the SBP backward
// chose (a broadcast weight under batch-split data gets a partial-sum gradient).
// Backward is collective: every rank calls it alike. Grad mode is per OS thread: lock
// the goroutine to its thread (runtime.LockOSThread) around NoGrad and the ops it
// runs, as for ExplainLast.

// SetRequiresGrad makes t a leaf that requires a gradient, or not. InvalidArgument for
// an integer tensor or a recorded op's output (Detach it first). Not collective.
func (t *Tensor) SetRequiresGrad(requiresGrad bool) error {
	err := capi.Tensor_set_requires_grad(t.c(), flag(requiresGrad))
	runtime.KeepAlive(t)
	return err
}

// RequiresGrad reports whether gradients flow into t (a parameter, or a recorded op's
// output).
func (t *Tensor) RequiresGrad() (bool, error) {
	out := []int32{0}
	err := capi.Tensor_requires_grad(out, t.c())
	runtime.KeepAlive(t)
	return out[0] != 0, err
}

// IsLeaf reports whether t is not the output of a recorded op.
func (t *Tensor) IsLeaf() (bool, error) {
	out := []int32{0}
	err := capi.Tensor_is_leaf(out, t.c())
	runtime.KeepAlive(t)
	return out[0] != 0, err
}

// Grad is the accumulated gradient of the leaf t (same shape, dtype and placement; the
// SBP backward produced), or nil (and no error) before any backward reached it or after
// ZeroGrad.
func (t *Tensor) Grad() (*Tensor, error) {
	out := []uintptr{0}
	err := capi.Tensor_grad(out, t.c())
	runtime.KeepAlive(t)
	if err != nil || out[0] == 0 {
		return nil, err
	}
	return newTensor(out[0]), nil
}

// ZeroGrad drops t's accumulated gradient: the next backward starts from zero.
func (t *Tensor) ZeroGrad() error {
	err := capi.Tensor_zero_grad(t.c())
	runtime.KeepAlive(t)
	return err
}

// Detach is a new tensor of the same data that requires no gradient and records
// nothing.
func (t *Tensor) Detach() (*Tensor, error) {
	out := []uintptr{0}
	err := capi.Tensor_detach(out, t.c())
	runtime.KeepAlive(t)
	return made(out, err)
}

// BackwardOption configures (*Tensor).Backward.
type BackwardOption func(*backwardOptions)

type backwardOptions struct {
	grad        *Tensor
	retainGraph bool
}

// WithGrad gives the root's gradient (its shape and dtype); without it the root must
// have one element and its gradient is one.
func WithGrad(grad *Tensor) BackwardOption {
	return func(o *backwardOptions) { o.grad = grad }
}

// RetainGraph keeps the graph for another backward; without it a second one fails
// with FailedPrecondition.
func RetainGraph() BackwardOption {
	return func(o *backwardOptions) { o.retainGraph = true }
}

// Backward backpropagates from t (see the package function Backward). Collective.
func (t *Tensor) Backward(opts ...BackwardOption) error {
	var o backwardOptions
	for _, opt := range opts {
		opt(&o)
	}
	var grads []*Tensor
	if o.grad != nil {
		grads = []*Tensor{o.grad}
	}
	return Backward([]*Tensor{t}, grads, o.retainGraph)
}

// Backward backpropagates from roots, adding into the gradient of every leaf reached.
// grads is nil (ones for every root, which must then have one element) or has one
// entry per root (a nil entry: ones). retainGraph keeps the graph for another backward.
// InvalidArgument for no roots, a root that requires no gradient, or a gradient whose
// shape or dtype differs from its root's; FailedPrecondition for a graph already
// backpropagated without retainGraph. Collective over the recorded ops' placements.
func Backward(roots, grads []*Tensor, retainGraph bool) error {
	if grads != nil && len(grads) != len(roots) {
		return invalid("Backward: grads has %d entries for %d roots", len(grads), len(roots))
	}
	err := capi.Autograd_backward(handles(roots), handles(grads), flag(retainGraph))
	runtime.KeepAlive(roots)
	runtime.KeepAlive(grads)
	return err
}

// SetGradEnabled turns grad mode on or off for the calling OS thread and returns the
// mode before.
func SetGradEnabled(enabled bool) (bool, error) {
	previous := []int32{0}
	err := capi.Autograd_set_grad_enabled(flag(enabled), previous)
	return previous[0] != 0, err
}

// IsGradEnabled reports the calling OS thread's grad mode (on by default).
func IsGradEnabled() (bool, error) {
	out := []int32{0}
	err := capi.Autograd_is_grad_enabled(out)
	return out[0] != 0, err
}

// NoGrad runs fn with grad mode off on this goroutine's OS thread (locked to it for
// the call), so nothing fn runs is recorded, then restores the mode before, also when
// fn fails or panics. Returns fn's error.
func NoGrad(fn func() error) error {
	return withGradMode(false, fn)
}

// EnableGrad runs fn with grad mode on (inside NoGrad, say), as NoGrad does.
func EnableGrad(fn func() error) error {
	return withGradMode(true, fn)
}

func withGradMode(enabled bool, fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	previous, err := SetGradEnabled(enabled)
	if err != nil {
		return err
	}
	// Setting the mode only writes a thread-local flag: it has no error to report.
	defer func() { _, _ = SetGradEnabled(previous) }()
	return fn()
}
