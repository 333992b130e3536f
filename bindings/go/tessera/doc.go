// Package tessera is the Go binding of Tessera, a global-tensor runtime: a program
// treats a cluster of CPUs (or GPUs) as one device. A tensor has a logical shape and
// value; a Placement says which ranks hold it and an NdSbp (split / broadcast /
// partial per placement axis) how the logical value maps onto each rank's piece.
//
// Import it as
//
//	import "github.com/tessera-runtime/tessera/bindings/go/tessera"
//
// It wraps the C API (libtessera.so, tessera.h) through cgo; the raw SWIG layer is
// internal/capi, which only this module may import. Building a program needs cgo
// pointed at the header and the library (CGO_CFLAGS=-I<dir of tessera/tessera.h>,
// CGO_LDFLAGS=-L<dir of libtessera.so>).
//
// # Errors
//
// Fallible functions return (T, error) or error. Every error is an *Error with the C
// API's status code (Code, Status) and message; the message is captured inside the
// failing C call, so it is the right one whichever OS thread the goroutine runs on.
// Test for a code with a sentinel, errors.Is(err, tessera.ErrInvalidArgument), and
// read the detail with errors.As(err, &e).
//
// # Handles
//
// Placement, NdSbp, Layout, OpCall, InferResult, Explanation, Tensor, BoxingPlan,
// BucketedAllReducer, Program, Plan and PlanInstance own native memory: Close them
// (defer t.Close()). Close is idempotent. A finalizer frees a handle that becomes
// unreachable unclosed, as a safety net; a closed handle is never freed again. A
// closed handle passed to a function gives an InvalidArgument error.
//
// # Runtime and MPI
//
// Importing the package starts nothing. The runtime (and MPI, when launched under
// mpirun; otherwise the process is a world of one rank) starts on the first call
// that needs it, or on an explicit Init. Every rank runs the same sequence of
// collective calls (SPMD). Call Finalize before exiting: mpirun fails a job whose
// ranks skip MPI_Finalize. MPI wants Init and Finalize on one OS thread, so lock the
// main goroutine in an init function and call both from main:
//
//	func init() { runtime.LockOSThread() }
//
//	func main() {
//		if err := tessera.Init(); err != nil {
//			log.Fatal(err)
//		}
//		defer tessera.Finalize()
//		...
//	}
//
// Build the program once with go build and start it with mpirun -np N ./app; never
// mpirun go run, which would build once per rank.
package tessera
