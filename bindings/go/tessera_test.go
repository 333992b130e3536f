package tessera

import (
	"errors"
	"fmt"
	"reflect"
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
	wantErr(t, "LocalDim(2)", err, OutOfRange, "tess_layout_local_dim: dim 2 is outside a layout of 2 dims")
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
	_, err = ParseNdSbp("S(-1)")
	wantErr(t, "S(-1)", err, InvalidArgument, "got S(-1)")
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
