package tessera

// Training in plan mode (docs/training.md, "Plan mode"): the assign that makes a
// captured step write its results back. Optimizer.CaptureStep records one with it per
// parameter and state tensor.

import (
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// CaptureAssign makes every run of the program being captured end, after all its
// steps, by copying value (a placeholder of this capture) into target (a real tensor of
// the same shape, dtype and layout, which becomes a variable). Call it inside Capture's
// record: FailedPrecondition without a capture; InvalidArgument for a nil, a
// placeholder target, a real value, a mismatch or a target assigned twice.
func CaptureAssign(target, value *Tensor) error {
	err := capi.Capture_assign(target.c(), value.c())
	runtime.KeepAlive(target)
	runtime.KeepAlive(value)
	return err
}
