package tessera

// What every handle type shares: freeing its native object exactly once.
//
// A handle (*Placement, *Tensor, ...) holds its C handle in a field h. Close takes h
// (setting it to nil under closeMu, so that of two racing Closes only one gets it),
// clears the finalizer and destroys the native object. The finalizer set when the
// handle is made is Close itself, so a handle that becomes unreachable unclosed is
// freed once by the garbage collector; one already closed has no finalizer left,
// and a second Close finds h nil.

import (
	"sync"
	"sync/atomic"
)

// closeMu serialises taking handles out of their wrappers.
var closeMu sync.Mutex

// take clears *slot and returns what it held (nil when closed already).
func take[H any](slot *H) H {
	closeMu.Lock()
	defer closeMu.Unlock()
	h := *slot
	var zero H
	*slot = zero
	return h
}

// destroyHook, set by tests, is called with the type's name after every native
// destroy (from Close or a finalizer).
var destroyHook atomic.Pointer[func(kind string)]

// destroyed reports one native destroy of a kind of handle to destroyHook.
func destroyed(kind string) {
	if hook := destroyHook.Load(); hook != nil {
		(*hook)(kind)
	}
}
