package tessera

// InitWithOptions, AllocatorStats and the shapes read through the C API's borrowed
// getters (one call per shape).

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// wantCode checks that err matches sentinel under errors.Is (also wrapped) and that
// its message names what is wrong.
func wantCode(t *testing.T, what string, err, sentinel error, text string) {
	t.Helper()
	if !errors.Is(err, sentinel) || !errors.Is(fmt.Errorf("wrapped: %w", err), sentinel) {
		t.Errorf("%s: got %v, want %v", what, err, sentinel)
		return
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("%s: %q lacks %q", what, err.Error(), text)
	}
}

// TestInitWithOptionsRefusals runs with the runtime started (TestMain): bad options
// are refused all the same, naming the field.
func TestInitWithOptionsRefusals(t *testing.T) {
	bad := DefaultInitOptions()
	bad.CUDADevice = -2
	wantCode(t, "CUDADevice -2", InitWithOptions(bad), ErrInvalidArgument,
		"options->cuda_device is -2; expected -1")
	for _, mode := range []int32{2, -2} {
		bad = DefaultInitOptions()
		bad.CheckMode = mode
		wantCode(t, fmt.Sprint("CheckMode ", mode), InitWithOptions(bad), ErrInvalidArgument,
			fmt.Sprintf("options->check_mode is %d; expected 1 (on), 0 (off) or -1", mode))
	}
	for _, timeout := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		bad = DefaultInitOptions()
		bad.CollectiveTimeout = timeout
		wantCode(t, fmt.Sprint("CollectiveTimeout ", timeout), InitWithOptions(bad), ErrInvalidArgument,
			"options->collective_timeout_seconds is ")
	}
	built, devices, err := CudaInfo()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !built:
		// The zero value asks for device 0: refused in a library built without CUDA.
		wantCode(t, "CUDADevice 0 without CUDA", InitWithOptions(InitOptions{}), ErrUnimplemented,
			"options->cuda_device is 0, but this library was built without CUDA")
	case devices == 0:
		wantCode(t, "CUDADevice 0 without a GPU", InitWithOptions(InitOptions{}), ErrUnavailable,
			"options->cuda_device is 0")
	default:
		past := DefaultInitOptions()
		past.CUDADevice = devices
		wantCode(t, "CUDADevice past the last", InitWithOptions(past), ErrOutOfRange,
			fmt.Sprintf("options->cuda_device is %d", devices))
	}
	if got := DefaultInitOptions(); got != (InitOptions{CollectiveTimeout: -1, CUDADevice: -1, CheckMode: -1}) {
		t.Errorf("DefaultInitOptions() = %+v", got)
	}
}

// TestInitWithOptionsRunning: on a running runtime the options still apply their
// timeout; a negative one keeps it.
func TestInitWithOptionsRunning(t *testing.T) {
	old := must(CollectiveTimeout())
	defer func() {
		if err := SetCollectiveTimeout(old); err != nil {
			t.Error(err)
		}
	}()
	o := DefaultInitOptions()
	o.CollectiveTimeout = 42.5
	if err := InitWithOptions(o); err != nil {
		t.Fatal(err)
	}
	if got := must(CollectiveTimeout()); got != 42.5 {
		t.Errorf("CollectiveTimeout() = %v after InitWithOptions(42.5)", got)
	}
	if err := InitWithOptions(DefaultInitOptions()); err != nil {
		t.Fatal(err)
	}
	if got := must(CollectiveTimeout()); got != 42.5 {
		t.Errorf("CollectiveTimeout() = %v after the defaults, want 42.5 kept", got)
	}
	if err := Init(); err != nil {
		t.Error(err)
	}
}

// initOptionsChild, as lifecycleChild's value, runs initOptionsLifecycle.
const initOptionsChild = "init-options"

// initOptionsLifecycle runs in a child process: AllocatorStats and refused options
// start nothing; InitWithOptions starts the runtime with its timeout; Init is then a
// no-op; Finalize. Returns the exit status.
func initOptionsLifecycle() int {
	fail := childFailure("init options")
	notRunning := func(after string) error {
		if running, err := runtimeRunning(); err != nil || running || started.Load() {
			return fmt.Errorf("running after %s: %v, %v", after, running, err)
		}
		return nil
	}
	if _, err := AllocatorStats(AllocatorHost); err != nil {
		return fail("AllocatorStats before Init: %v", err)
	}
	if err := notRunning("AllocatorStats"); err != nil {
		return fail("%v", err)
	}
	bad := DefaultInitOptions()
	bad.CUDADevice = -2
	if err := InitWithOptions(bad); !errors.Is(err, ErrInvalidArgument) {
		return fail("CUDADevice -2: %v, want InvalidArgument", err)
	}
	if err := notRunning("refused options"); err != nil {
		return fail("%v", err)
	}
	o := DefaultInitOptions()
	o.CollectiveTimeout = 9
	if err := InitWithOptions(o); err != nil {
		return fail("InitWithOptions: %v", err)
	}
	if running, err := runtimeRunning(); err != nil || !running || !started.Load() {
		return fail("not running after InitWithOptions: %v, %v", running, err)
	}
	if got, err := CollectiveTimeout(); err != nil || got != 9 {
		return fail("CollectiveTimeout() = %v, %v; want 9", got, err)
	}
	if err := Init(); err != nil {
		return fail("Init after InitWithOptions: %v", err)
	}
	if err := Finalize(); err != nil {
		return fail("Finalize: %v", err)
	}
	if err := InitWithOptions(DefaultInitOptions()); !errors.Is(err, ErrFailedPrecondition) {
		return fail("InitWithOptions after Finalize: %v, want FailedPrecondition", err)
	}
	return 0
}

// TestInitWithOptionsLifecycle runs initOptionsLifecycle in a child process.
func TestInitWithOptionsLifecycle(t *testing.T) { runChild(t, initOptionsChild) }

func TestAllocatorStats(t *testing.T) {
	// The thread allocator is the OS thread's: stay on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f := newFixture(t)
	before := must(AllocatorStats(AllocatorHostThread))
	x := must(Full([]int64{64}, "f32", 1, f.p, f.b))
	after := must(AllocatorStats(AllocatorHostThread))
	if after.NumAllocs <= before.NumAllocs {
		t.Errorf("NumAllocs %d -> %d after making a tensor", before.NumAllocs, after.NumAllocs)
	}
	if after.BytesInUse < before.BytesInUse+64*4 {
		t.Errorf("BytesInUse %d -> %d after making 256 bytes", before.BytesInUse, after.BytesInUse)
	}
	if after.PeakBytesInUse < after.BytesInUse || after.BytesReserved < after.BytesInUse {
		t.Errorf("peak %d, reserved %d below in use %d", after.PeakBytesInUse, after.BytesReserved,
			after.BytesInUse)
	}
	if after.NumAllocs != after.NumCacheHits+after.NumSystemAllocs {
		t.Errorf("%d allocations but %d cache hits + %d system allocations", after.NumAllocs,
			after.NumCacheHits, after.NumSystemAllocs)
	}
	x.Close()
	closed := must(AllocatorStats(AllocatorHostThread))
	if closed.NumFrees <= after.NumFrees || closed.BytesInUse > after.BytesInUse-64*4 {
		t.Errorf("after Close: frees %d -> %d, in use %d -> %d", after.NumFrees, closed.NumFrees,
			after.BytesInUse, closed.BytesInUse)
	}
	host := must(AllocatorStats(AllocatorHost))
	if host.BytesReserved < host.BytesInUse || host.PeakBytesInUse < host.BytesInUse {
		t.Errorf("host allocator: %+v", host)
	}
	for _, which := range []int32{7, -1} {
		_, err := AllocatorStats(which)
		wantCode(t, fmt.Sprint("allocator ", which), err, ErrInvalidArgument,
			fmt.Sprintf("allocator %d is not a known allocator (TESS_ALLOCATOR_HOST 0, "+
				"TESS_ALLOCATOR_HOST_THREAD 1)", which))
	}
}

// TestShapes: each shape is a fresh Go slice, also for 0-d tensors, whatever the
// caller does with an earlier one.
func TestShapes(t *testing.T) {
	f := newFixture(t)
	x := must(Ones([]int64{4, 6}, "f32", f.p, f.s1))
	defer x.Close()
	s := must(x.Shape())
	if !reflect.DeepEqual(s, []int64{4, 6}) {
		t.Fatalf("Shape() = %v", s)
	}
	s[0] = 99
	if again := must(x.Shape()); !reflect.DeepEqual(again, []int64{4, 6}) {
		t.Errorf("Shape() = %v after the caller changed an earlier one", again)
	}
	if ls := must(x.LocalShape()); !reflect.DeepEqual(ls, []int64{4, 6}) {
		t.Errorf("LocalShape() = %v", ls)
	}
	if n, d := must(x.Ndim()), must(x.Dim(1)); n != 2 || d != 6 {
		t.Errorf("Ndim() = %d, Dim(1) = %d", n, d)
	}

	scalar := must(Full([]int64{}, "f64", 3, f.p, f.b))
	defer scalar.Close()
	if s := must(scalar.Shape()); s == nil || len(s) != 0 {
		t.Errorf("0-d Shape() = %#v, want an empty slice", s)
	}
	if s := must(scalar.LocalShape()); s == nil || len(s) != 0 {
		t.Errorf("0-d LocalShape() = %#v, want an empty slice", s)
	}
	_, err := scalar.Dim(0)
	wantErr(t, "0-d Dim(0)", err, OutOfRange, "Tensor.Dim: dim 0 is outside the shape [], which has 0 dims")

	// The raw layer: one call gives the dims; a nil destination only checks.
	var raw []int64
	if err := capi.Tensor_shape(&raw, x.c()); err != nil || !reflect.DeepEqual(raw, []int64{4, 6}) {
		t.Errorf("capi.Tensor_shape = %v, %v", raw, err)
	}
	if err := capi.Tensor_shape(nil, x.c()); err != nil {
		t.Errorf("capi.Tensor_shape(nil) = %v", err)
	}
	runtime.KeepAlive(x)
	raw = []int64{7, 7, 7}
	err = capi.Tensor_shape(&raw, capi.SwigcptrTensor(0))
	wantCode(t, "raw NULL tensor", err, ErrInvalidArgument, "tess_tensor_shape: argument \"tensor\" is NULL")
	if len(raw) != 0 {
		t.Errorf("capi.Tensor_shape failed but left %v", raw)
	}
}

// TestNoPerDimensionGetters: the package reads every shape through one borrowed-getter
// call; the C API's per-dimension getters are to be removed.
func TestNoPerDimensionGetters(t *testing.T) {
	gone := []string{"Tensor_ndim", "Tensor_dim", "Tensor_local_ndim", "Tensor_local_dim",
		"Layout_ndim", "Layout_local_dim", "Infer_result_output_ndim", "Infer_result_output_dim",
		"Plan_instance_output_local_ndim", "Plan_instance_output_local_dim"}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files here: %v", err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range gone {
			if regexp.MustCompile(`\bcapi\.` + name + `\(`).Match(text) {
				t.Errorf("%s calls capi.%s; read the shape with the borrowed getter", file, name)
			}
		}
	}
}
