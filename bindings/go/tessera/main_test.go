package tessera

// The test binary's start and end, shared by the world-of-one run and the mpirun
// runs (go_test.sh --mpi).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Keep TestMain on the startup thread, so that MPI_Init (in TestMain) and
// MPI_Finalize run on one OS thread, as MPI wants.
func init() { runtime.LockOSThread() }

// runtimeRunning asks the C API itself, bypassing Init: tess_runtime_world_size fails with
// FAILED_PRECONDITION until tess_runtime_init has run.
func runtimeRunning() (bool, error) {
	err := capi.Runtime_world_size([]int32{0})
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrFailedPrecondition) {
		return false, nil
	}
	return false, err
}

// TestMain checks that importing the package started nothing, starts the runtime
// on first use (WorldSize, here on the startup thread), runs the tests and
// finalises: mpirun fails a job whose ranks exit without MPI_Finalize.
func TestMain(m *testing.M) {
	switch os.Getenv(lifecycleChild) {
	case "":
	case initOptionsChild:
		os.Exit(initOptionsLifecycle())
	default:
		os.Exit(lifecycle())
	}
	if running, err := runtimeRunning(); err != nil || running || started.Load() {
		fmt.Fprintf(os.Stderr, "importing the package started the runtime (running %v, %v)\n",
			running, err)
		os.Exit(1)
	}
	if _, err := WorldSize(); err != nil {
		fmt.Fprintln(os.Stderr, "WorldSize (first use):", err)
		os.Exit(1)
	}
	if running, err := runtimeRunning(); err != nil || !running {
		fmt.Fprintf(os.Stderr, "first use did not start the runtime (running %v, %v)\n",
			running, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "Finalize:", err)
		code = 1
	}
	os.Exit(code)
}

// lifecycleChild, set in the environment, makes the test binary run lifecycle
// instead of the tests.
const lifecycleChild = "TESSERA_GO_TEST_LIFECYCLE"

// lifecycle runs in a child process (the runtime cannot restart after Finalize):
// nothing runs before the first use, here a tensor creation (local calls such as
// ParsePlacement start nothing); Init is then idempotent, also from goroutines at
// once; Finalize twice is fine; after it the runtime calls fail with
// FailedPrecondition. Returns the exit status.
func lifecycle() int {
	fail := childFailure("lifecycle")
	if running, err := runtimeRunning(); err != nil || running {
		return fail("running before Init: %v, %v", running, err)
	}
	// Local calls need no runtime and start none.
	p, err := ParsePlacement("cpu:[0]")
	if err != nil {
		return fail("ParsePlacement: %v", err)
	}
	defer p.Close()
	s, err := ParseNdSbp("B")
	if err != nil {
		return fail("ParseNdSbp: %v", err)
	}
	defer s.Close()
	if running, err := runtimeRunning(); err != nil || running {
		return fail("running after ParsePlacement: %v, %v", running, err)
	}
	// Creating a tensor is a first use: it starts the runtime.
	x, err := Full([]int64{3}, "f32", 2, p, s)
	if err != nil {
		return fail("Full before Init: %v", err)
	}
	if v, err := ToHost[float32](x); err != nil || len(v) != 3 || v[0] != 2 {
		return fail("ToHost: %v, %v", v, err)
	}
	x.Close()
	if err := Init(); err != nil {
		return fail("Init: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if errs[i] = Init(); errs[i] == nil {
				_, errs[i] = WorldRank()
			}
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fail("goroutine %d: %v", i, err)
		}
	}
	if running, err := runtimeRunning(); err != nil || !running {
		return fail("not running after Init: %v, %v", running, err)
	}
	if err := Finalize(); err != nil {
		return fail("Finalize: %v", err)
	}
	if err := Finalize(); err != nil {
		return fail("second Finalize: %v", err)
	}
	if _, err := WorldRank(); !errors.Is(err, ErrFailedPrecondition) {
		return fail("WorldRank after Finalize: %v, want FailedPrecondition", err)
	}
	if err := Init(); !errors.Is(err, ErrFailedPrecondition) {
		return fail("Init after Finalize: %v, want FailedPrecondition", err)
	}
	return 0
}

// childFailure is a child's failure report: it prints the message under name and
// returns the exit status 1.
func childFailure(name string) func(format string, args ...any) int {
	return func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, name+": "+format+"\n", args...)
		return 1
	}
}

// runChild runs this test binary again with lifecycleChild set to mode, which runs
// that child instead of the tests; it must exit 0.
func runChild(t *testing.T, mode string) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lifecycleChild+"="+mode)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child %s: %v\n%s", mode, err, out)
	}
}

// TestLifecycle runs lifecycle in a child process of this test binary.
func TestLifecycle(t *testing.T) { runChild(t, "1") }
