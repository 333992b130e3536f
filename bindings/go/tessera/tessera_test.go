package tessera

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// wantErr checks that err is a *Error with code and a message containing text.
func wantErr(t *testing.T, what string, err error, code int32, text string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: got error %v, want *tessera.Error with code %d", what, err, code)
		return
	}
	if e.Code != code || e.Status != StatusString(code) {
		t.Errorf("%s: got code %d (%s), want %d", what, e.Code, e.Status, code)
	}
	if !strings.Contains(e.Message, text) {
		t.Errorf("%s: message %q lacks %q", what, e.Message, text)
	}
	if e.Error() != e.Status+": "+e.Message {
		t.Errorf("%s: Error() = %q", what, e.Error())
	}
	if !errors.Is(err, &Error{Code: code}) {
		t.Errorf("%s: errors.Is by code failed", what)
	}
	if !errors.Is(err, sentinels[code]) {
		t.Errorf("%s: errors.Is(err, %v) failed", what, sentinels[code])
	}
}

// sentinels is each status code's Err* sentinel.
var sentinels = map[int32]error{
	Cancelled: ErrCancelled, Unknown: ErrUnknown, InvalidArgument: ErrInvalidArgument,
	DeadlineExceeded: ErrDeadlineExceeded, NotFound: ErrNotFound, AlreadyExists: ErrAlreadyExists,
	PermissionDenied: ErrPermissionDenied, ResourceExhausted: ErrResourceExhausted,
	FailedPrecondition: ErrFailedPrecondition, Aborted: ErrAborted, OutOfRange: ErrOutOfRange,
	Unimplemented: ErrUnimplemented, Internal: ErrInternal, Unavailable: ErrUnavailable,
	DataLoss: ErrDataLoss,
}

func TestErrorSentinels(t *testing.T) {
	for code := Cancelled; code <= DataLoss; code++ {
		s, ok := sentinels[code]
		if !ok {
			t.Fatalf("no sentinel for code %d", code)
		}
		if s.Error() != StatusString(code) {
			t.Errorf("sentinel %d: Error() = %q, want %q", code, s.Error(), StatusString(code))
		}
		e := error(&Error{Code: code, Status: StatusString(code), Message: "m"})
		for other, o := range sentinels {
			if got := errors.Is(e, o); got != (other == code) {
				t.Errorf("errors.Is(%v, %v) = %v", e, o, got)
			}
		}
	}
	// A real failure from the C API, also wrapped.
	p := must(ParsePlacement("cpu:[0,1]"))
	defer p.Close()
	_, err := p.IndexOf(7)
	wantErr(t, "IndexOf(7)", err, NotFound, "7")
	wrapped := fmt.Errorf("looking up rank 7: %w", err)
	if !errors.Is(wrapped, ErrNotFound) || errors.Is(wrapped, ErrInvalidArgument) {
		t.Errorf("errors.Is on %v: wrong sentinel match", wrapped)
	}
	var e *Error
	if !errors.As(wrapped, &e) || e.Code != NotFound || e.Status != "NOT_FOUND" || e.Message == "" {
		t.Errorf("errors.As(%v) = %+v", wrapped, e)
	}
	if errors.Is(nil, ErrNotFound) || errors.Is(errors.New("NOT_FOUND"), ErrNotFound) {
		t.Error("a nil or foreign error matches ErrNotFound")
	}
}

// must returns v, panicking (failing the test) on an unexpected error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func TestVersionAndStatus(t *testing.T) {
	if got, want := Version(), fmt.Sprintf("%d.%d.%d", VersionMajor, VersionMinor, VersionPatch); got != want {
		t.Errorf("Version() = %q, want %q", got, want)
	}
	if LibraryVersionNumber() != VersionNumber {
		t.Errorf("LibraryVersionNumber() = %d, want %d", LibraryVersionNumber(), VersionNumber)
	}
	for code, name := range map[int32]string{OK: "OK", InvalidArgument: "INVALID_ARGUMENT",
		NotFound: "NOT_FOUND", DataLoss: "DATA_LOSS", -1: "UNKNOWN_CODE", 99: "UNKNOWN_CODE"} {
		if got := StatusString(code); got != name {
			t.Errorf("StatusString(%d) = %q, want %q", code, got, name)
		}
	}
	if InvalidArgument != 3 || NotFound != 5 || OutOfRange != 11 {
		t.Errorf("status constants: %d %d %d", InvalidArgument, NotFound, OutOfRange)
	}
}

func TestRuntime(t *testing.T) {
	if err := Init(); err != nil {
		t.Fatalf("Init: %v", err)
	}
	if rank := must(WorldRank()); rank != 0 {
		t.Errorf("WorldRank() = %d", rank)
	}
	if size := must(WorldSize()); size != 1 {
		t.Errorf("WorldSize() = %d", size)
	}
}

func TestIssueExample(t *testing.T) {
	p := must(ParsePlacement("cpu:[[0,1],[2,3]]"))
	defer p.Close()
	s := must(ParseNdSbp("(S(0), S(1))"))
	defer s.Close()
	l := must(NewLayout(p, s, []int64{6, 5}, 3))
	defer l.Close()
	if got := l.String(); got != "[3,6)x[3,5)" {
		t.Errorf("layout = %q", got)
	}
	if got := must(l.LocalShape()); !reflect.DeepEqual(got, []int64{3, 2}) {
		t.Errorf("LocalShape() = %v", got)
	}
	for dim, want := range [][2]int64{{3, 6}, {3, 5}} {
		b, e, err := l.Range(int64(dim))
		if err != nil || b != want[0] || e != want[1] {
			t.Errorf("Range(%d) = %d, %d, %v; want %v", dim, b, e, err, want)
		}
	}
	if n := must(l.Ndim()); n != 2 {
		t.Errorf("Ndim() = %d", n)
	}
	if d := must(l.LocalDim(1)); d != 2 {
		t.Errorf("LocalDim(1) = %d", d)
	}
	if n := must(l.NumElements()); n != 6 {
		t.Errorf("NumElements() = %d", n)
	}
	_, err := l.LocalDim(2)
	wantErr(t, "LocalDim(2)", err, OutOfRange, "Layout.LocalDim: dim 2 is outside the shape [3,2], which has 2 dims")
	_, _, err = l.Range(5)
	wantErr(t, "Range(5)", err, OutOfRange, "dim 5")

	_, err = NewLayout(p, s, []int64{6, 5}, 9)
	wantErr(t, "rank 9", err, NotFound, "rank 9 is not in placement cpu:[[0,1],[2,3]]")
	_, err = NewLayout(p, s, []int64{6, -5}, 0)
	wantErr(t, "negative dim", err, InvalidArgument, "shape dim 1 is -5; dims must be >= 0")
	_, err = NewLayout(p, s, []int64{6}, 0)
	wantErr(t, "1-d shape", err, InvalidArgument, "splits tensor axis 1 but the tensor of shape [6] has 1 axes")
	_, err = NewLayout(p, s, nil, 0)
	wantErr(t, "nil shape", err, InvalidArgument, "shape")
	one := must(ParseNdSbp("S(0)"))
	defer one.Close()
	_, err = NewLayout(p, one, []int64{6, 5}, 0)
	wantErr(t, "axes mismatch", err, InvalidArgument, "has 1 axes but placement")
}

func TestPlacementQueries(t *testing.T) {
	p := must(ParsePlacement("cpu:[[0,1,2],[3,4,5]]"))
	defer p.Close()
	if got := p.String(); got != "cpu:[[0,1,2],[3,4,5]]" {
		t.Errorf("String() = %q", got)
	}
	if d := must(p.DeviceType()); d != DeviceCPU {
		t.Errorf("DeviceType() = %d", d)
	}
	if n := must(p.NumAxes()); n != 2 {
		t.Errorf("NumAxes() = %d", n)
	}
	if d := must(p.HierarchyDim(1)); d != 3 {
		t.Errorf("HierarchyDim(1) = %d", d)
	}
	if h := must(p.Hierarchy()); !reflect.DeepEqual(h, []int64{2, 3}) {
		t.Errorf("Hierarchy() = %v", h)
	}
	if n := must(p.ParallelNum()); n != 6 {
		t.Errorf("ParallelNum() = %d", n)
	}
	if r := must(p.RankAt(4)); r != 4 {
		t.Errorf("RankAt(4) = %d", r)
	}
	if i := must(p.IndexOf(5)); i != 5 {
		t.Errorf("IndexOf(5) = %d", i)
	}
	if !must(p.Contains(3)) || must(p.Contains(9)) {
		t.Errorf("Contains")
	}
	group := must(p.AxisGroup(0, 4))
	defer group.Close()
	if got := group.String(); got != "cpu:[1,4]" {
		t.Errorf("AxisGroup(0, 4) = %q", got)
	}
	same := must(NewPlacement(DeviceCPU, []int32{0, 1, 2, 3, 4, 5}, []int64{2, 3}))
	defer same.Close()
	if !must(p.Equal(same)) || must(p.Equal(group)) {
		t.Errorf("Equal")
	}
	if must(p.Hash()) != must(same.Hash()) {
		t.Errorf("Hash differs for equal placements")
	}

	_, err := p.HierarchyDim(2)
	wantErr(t, "HierarchyDim(2)", err, OutOfRange,
		"tess_placement_hierarchy_dim: axis 2 is outside cpu:[[0,1,2],[3,4,5]], which has 2 axes")
	_, err = p.RankAt(6)
	wantErr(t, "RankAt(6)", err, OutOfRange, "6")
	_, err = p.IndexOf(9)
	wantErr(t, "IndexOf(9)", err, NotFound, "rank 9 is not in placement cpu:[[0,1,2],[3,4,5]]")
	_, err = p.AxisGroup(3, 0)
	wantErr(t, "AxisGroup(3, 0)", err, OutOfRange, "3")
	_, err = p.AxisGroup(0, 7)
	wantErr(t, "AxisGroup(0, 7)", err, NotFound, "7")
}

func TestPlacementBadInput(t *testing.T) {
	_, err := ParsePlacement("cpu:[0,0]")
	wantErr(t, "duplicate rank", err, InvalidArgument, "lists rank 0 twice")
	_, err = ParsePlacement("cpu:[[0,1],[2,3]")
	wantErr(t, "unclosed", err, InvalidArgument, "expected ']'")
	_, err = ParsePlacement("cpu:[]")
	wantErr(t, "empty", err, InvalidArgument, "empty rank list")
	_, err = NewPlacement(DeviceCPU, []int32{0, 1, 2}, []int64{2, 2})
	wantErr(t, "bad create", err, InvalidArgument, "placement hierarchy [2,2] does not hold 3 ranks")
	_, err = NewPlacement(5, []int32{0, 1, 2}, []int64{3})
	wantErr(t, "bad device", err, InvalidArgument, "placement device type 5 is not cpu (0) or cuda (1)")
	_, err = NewPlacement(DeviceCPU, nil, []int64{3})
	wantErr(t, "nil ranks", err, InvalidArgument, "empty rank list")

	closed := must(ParsePlacement("cpu:[0,1]"))
	closed.Close()
	closed.Close() // idempotent
	_, err = closed.NumAxes()
	wantErr(t, "use after Close", err, InvalidArgument, "NULL")
	if closed.String() != "" {
		t.Errorf("closed String() = %q", closed.String())
	}
}

func TestNdSbp(t *testing.T) {
	s := must(ParseNdSbp("(S(1), P(max))"))
	defer s.Close()
	if got := s.String(); got != "(S(1), P(max))" {
		t.Errorf("String() = %q", got)
	}
	if n := must(s.NumAxes()); n != 2 {
		t.Errorf("NumAxes() = %d", n)
	}
	if got := must(s.Get(0)); got != (Sbp{SbpSplit, 1}) {
		t.Errorf("Get(0) = %v", got)
	}
	if got := must(s.Get(1)); got != (Sbp{SbpPartialMax, -1}) {
		t.Errorf("Get(1) = %v", got)
	}
	_, err := s.Get(2)
	wantErr(t, "Get(2)", err, OutOfRange, "tess_nd_sbp_get: axis 2 is outside (S(1), P(max)), which has 2 axes")
	made := must(NewNdSbp([]Sbp{{SbpSplit, 1}, {SbpPartialMax, 99}}))
	defer made.Close()
	if !must(s.Equal(made)) {
		t.Errorf("Equal")
	}

	_, err = ParseNdSbp("P(avg)")
	wantErr(t, "P(avg)", err, InvalidArgument, `"sum", "max" or "min"`)
	_, err = ParseNdSbp("S(-9)")
	wantErr(t, "S(-9)", err, InvalidArgument, "got S(-9)")
	_, err = ParseNdSbp("(S(0), B")
	wantErr(t, "unclosed", err, InvalidArgument, "")
	_, err = NewNdSbp([]Sbp{{SbpSplit, -2}})
	wantErr(t, "bad split axis", err, InvalidArgument, "tess_nd_sbp_create: axis 0: split axis -2 is outside [0, 7]")
	_, err = NewNdSbp([]Sbp{{SbpSplit, 0}, {17, 0}})
	wantErr(t, "bad kind", err, InvalidArgument, "axis 1: sbp kind 17")
	_, err = NewNdSbp(nil)
	wantErr(t, "no axes", err, InvalidArgument, "tess_nd_sbp_create: num_axes is 0; expected 1 to 8")
}

// Messages are thread-local in C; goroutines hop threads. Each failing call must
// still report its own message.
func TestErrorsFromManyGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if g%2 == 0 {
					_, err := ParsePlacement(fmt.Sprintf("cpu:[%d,%d]", g, g))
					wantErr(t, "goroutine placement", err, InvalidArgument, fmt.Sprintf("lists rank %d twice", g))
				} else {
					p := must(ParsePlacement("cpu:[0,1]"))
					_, err := p.IndexOf(int32(g + 10))
					wantErr(t, "goroutine index", err, NotFound, fmt.Sprintf("rank %d is not in placement cpu:[0,1]", g+10))
					p.Close()
				}
			}
		}(g)
	}
	wg.Wait()
}

// newCall builds a call of op with inputs {shape, dtype, placement, nd-sbp}.
func newCall(t *testing.T, op string, inputs ...[4]any) *OpCall {
	t.Helper()
	c := must(NewOpCall(op))
	for _, in := range inputs {
		p := must(ParsePlacement(in[2].(string)))
		s := must(ParseNdSbp(in[3].(string)))
		if err := c.AddInput(in[0].([]int64), in[1].(string), p, s); err != nil {
			t.Fatalf("AddInput(%v): %v", in, err)
		}
		p.Close()
		s.Close()
	}
	return c
}

func TestInferSeedExample(t *testing.T) {
	c := newCall(t, "add", [4]any{[]int64{4, 6}, "f32", "cpu:[0,1]", "S(0)"},
		[4]any{[]int64{4, 6}, "f32", "cpu:[0,1]", "S(1)"})
	defer c.Close()
	if got := c.Signature(); got != "add(x, y) -> (out)" {
		t.Errorf("Signature() = %q", got)
	}
	if n := must(c.NumInputs()); n != 2 {
		t.Errorf("NumInputs() = %d", n)
	}
	r := must(c.Infer())
	defer r.Close()
	outs := must(r.Outputs())
	if len(outs) != 1 || outs[0].NdSbp.String() != "S(0)" || outs[0].DType != "f32" ||
		!reflect.DeepEqual(outs[0].Shape, []int64{4, 6}) || outs[0].Placement.String() != "cpu:[0,1]" {
		t.Errorf("Outputs() = %+v", outs)
	}
	if y := must(r.InputNdSbp(1)); y.String() != "S(0)" {
		t.Errorf("InputNdSbp(1) = %s", y)
	}
	if b0, b1 := must(r.NeedsBoxing(0)), must(r.NeedsBoxing(1)); b0 || !b1 {
		t.Errorf("NeedsBoxing = %v, %v", b0, b1)
	}
	if cost := must(r.InputCost(1)); cost != 48 {
		t.Errorf("InputCost(1) = %v", cost)
	}
	if total := must(r.TotalCost()); total != 48 {
		t.Errorf("TotalCost() = %v", total)
	}
	if i := must(r.SignatureIndex()); i != 0 {
		t.Errorf("SignatureIndex() = %d", i)
	}
	if n := must(r.NumCandidates()); n < 2 {
		t.Errorf("NumCandidates() = %d", n)
	}
	e := must(c.Explain())
	defer e.Close()
	if !strings.Contains(e.Text(), "  chosen: #0 x:S(0), y:S(0) -> out:S(0)\n") ||
		!strings.Contains(e.Text(), "    y: S(1) -> S(0) (cost 48)\n") {
		t.Errorf("Text() = %s", e.Text())
	}
	if e.Failure() != "" {
		t.Errorf("Failure() = %q", e.Failure())
	}
	var rec struct {
		Chosen int `json:"chosen"`
		Boxing []struct {
			Name, From, To string
		} `json:"boxing"`
	}
	if err := json.Unmarshal([]byte(e.JSON()), &rec); err != nil {
		t.Fatalf("JSON() does not parse: %v", err)
	}
	if rec.Chosen != 0 || len(rec.Boxing) != 1 || rec.Boxing[0].Name != "y" || rec.Boxing[0].To != "S(0)" {
		t.Errorf("JSON record = %+v", rec)
	}
}

func TestInferMatmulAndTwoD(t *testing.T) {
	c := newCall(t, "matmul", [4]any{[]int64{64, 32}, "f32", "cpu:[0,1,2,3]", "S(0)"},
		[4]any{[]int64{16, 32}, "f32", "cpu:[0,1,2,3]", "B"})
	defer c.Close()
	if err := c.SetAttrBool("transpose_b", true); err != nil {
		t.Fatal(err)
	}
	r := must(c.Infer())
	out := must(r.Output(0))
	if out.NdSbp.String() != "S(0)" || !reflect.DeepEqual(out.Shape, []int64{64, 16}) {
		t.Errorf("matmul output = %+v", out)
	}
	if must(r.NeedsBoxing(0)) || must(r.NeedsBoxing(1)) {
		t.Errorf("matmul S(0) x B should need no boxing")
	}

	c2 := newCall(t, "matmul", [4]any{[]int64{8, 6}, "f64", "cpu:[[0,1],[2,3]]", "(S(0), B)"},
		[4]any{[]int64{6, 4}, "f64", "cpu:[[0,1],[2,3]]", "(B, S(1))"})
	defer c2.Close()
	if got := must(must(c2.Infer()).Output(0)).NdSbp.String(); got != "(S(0), S(1))" {
		t.Errorf("2-d output = %s", got)
	}
	if err := c2.ConstrainOutput(0, must(ParseNdSbp("(S(0), B)"))); err != nil {
		t.Fatal(err)
	}
	r2 := must(c2.Infer())
	if got := must(r2.InputNdSbp(1)).String(); got != "(B, B)" {
		t.Errorf("2-d constrained b = %s", got)
	}

	for _, set := range []func() error{
		func() error { return must(NewOpCall("cast")).SetAttrDType("dtype", "i64") },
		func() error { return must(NewOpCall("transpose")).SetAttrInts("perm", []int64{1, 0}) },
		func() error { return must(NewOpCall("scalar_mul")).SetAttrFloat("value", 2.5) },
		func() error { return must(NewOpCall("gather")).SetAttrInt("axis", 1) },
	} {
		if err := set(); err != nil {
			t.Errorf("attr: %v", err)
		}
	}
}

func TestInferCacheStats(t *testing.T) {
	// The cache is per OS thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ClearInferCache()
	c := newCall(t, "relu", [4]any{[]int64{8}, "f32", "cpu:[0,1]", "S(0)"})
	defer c.Close()
	must(c.Infer()).Close()
	must(c.Infer()).Close()
	s := must(InferCacheStats())
	if s.Hits != 1 || s.Misses != 1 || s.Size != 1 || s.Capacity < 1 {
		t.Errorf("InferCacheStats() = %+v", s)
	}
	if err := SetInferCacheCapacity(1); err != nil {
		t.Fatal(err)
	}
	if s := must(InferCacheStats()); s.Capacity != 1 {
		t.Errorf("capacity = %d", s.Capacity)
	}
	wantErr(t, "capacity 0", SetInferCacheCapacity(0), InvalidArgument,
		"tess_infer_cache_set_capacity: capacity is 0; expected >= 1")
	if err := SetInferCacheCapacity(4096); err != nil {
		t.Fatal(err)
	}
	ClearInferCache()
	if s := must(InferCacheStats()); s.Misses != 0 {
		t.Errorf("after clear: %+v", s)
	}
	names := OpNames()
	if len(names) < 10 || !sort.StringsAreSorted(names) {
		t.Errorf("OpNames() = %v", names)
	}
	if d := must(ParseDType("bf16")); d != DTypeBF16 || DTypeName(DTypeI32) != "i32" {
		t.Errorf("dtypes: %d %q", d, DTypeName(DTypeI32))
	}
	if d := must(ParseDType("bool")); d != DTypeBool || DTypeName(DTypeBool) != "bool" {
		t.Errorf("bool dtype: %d %q", d, DTypeName(DTypeBool))
	}
}

func TestInferBadInput(t *testing.T) {
	_, err := NewOpCall("matmull")
	wantErr(t, "unknown op", err, NotFound, "no op named \"matmull\"; did you mean: ")
	_, err = ParseDType("float")
	wantErr(t, "bad dtype", err, InvalidArgument, "unknown dtype \"float\"")
	c := must(NewOpCall("matmul"))
	defer c.Close()
	wantErr(t, "wrong attr type", c.SetAttrInt("transpose_b", 1), InvalidArgument,
		"tess_op_call_set_attr_int: matmul: attribute \"transpose_b\" must be bool but got int 1")
	wantErr(t, "unknown attr", c.SetAttrFloat("alpha", 0.5), InvalidArgument,
		"matmul: unknown attribute \"alpha\"; known attributes: transpose_a, transpose_b")
	p := must(ParsePlacement("cpu:[0,1]"))
	b := must(ParseNdSbp("B"))
	s2 := must(ParseNdSbp("S(2)"))
	wantErr(t, "negative dim", c.AddInput([]int64{4, -2}, "f32", p, b), InvalidArgument,
		"matmul: input \"a\": shape dim 1 is -2; dims must be >= 0")
	wantErr(t, "bad nd-sbp", c.AddInput([]int64{4, 2}, "f32", p, s2), InvalidArgument,
		"matmul: input \"a\": ")
	wantErr(t, "bad dtype name", c.AddInput([]int64{4, 2}, "f8", p, b), InvalidArgument,
		"unknown dtype \"f8\"")
	wantErr(t, "nil placement", c.AddInput([]int64{4, 2}, "f32", nil, b), InvalidArgument,
		"tess_op_call_add_input: argument \"placement\" is NULL")
	if err := c.AddInput([]int64{4, 2}, "f32", p, b); err != nil {
		t.Fatal(err)
	}
	p3 := must(ParsePlacement("cpu:[0,1,2]"))
	wantErr(t, "placement mismatch", c.AddInput([]int64{2, 3}, "f32", p3, b), InvalidArgument,
		"matmul: input \"b\" is on placement cpu:[0,1,2] but input \"a\" is on cpu:[0,1]")
	_, err = c.Infer()
	wantErr(t, "missing input", err, InvalidArgument, "matmul: takes 2 inputs but got 1")
	_, err = c.Explain()
	wantErr(t, "explain missing input", err, InvalidArgument, "matmul: takes 2 inputs but got 1")
	wantErr(t, "bad output slot", c.ConstrainOutput(1, b), InvalidArgument,
		"constraint names output slot 1 but the op has 1 output")

	relu := newCall(t, "relu", [4]any{[]int64{1}, "f32", "cpu:[0,1]", "B"})
	defer relu.Close()
	if err := relu.ConstrainOutput(0, must(ParseNdSbp("S(0)"))); err != nil {
		t.Fatal(err)
	}
	_, err = relu.Infer()
	wantErr(t, "no fitting signature", err, InvalidArgument,
		"relu: no SBP signature fits the inputs x: B [1] on cpu:[0,1] with constraints out = S(0); "+
			"candidates:\n  #0 x:S(0) -> out:S(0): input \"x\": S(0) splits axis 0")
	e := must(relu.Explain())
	if !strings.HasPrefix(e.Failure(), "relu: no SBP signature fits") {
		t.Errorf("Failure() = %q", e.Failure())
	}

	r := must(newCall(t, "relu", [4]any{[]int64{4, 2}, "f32", "cpu:[0,1]", "S(0)"}).Infer())
	_, err = r.Output(1)
	wantErr(t, "output 1", err, OutOfRange,
		"tess_infer_result_output_shape: output 1 is outside a result with 1 output")
	_, err = r.InputNdSbp(3)
	wantErr(t, "input 3", err, OutOfRange, "input 3 is outside a result with 1 input")
	r.Close()
	_, err = r.TotalCost()
	wantErr(t, "closed result", err, InvalidArgument, "tess_infer_result_total_cost: argument \"result\" is NULL")
}
