package tessera

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Boxing and collectives in a world of one rank: every piece is the whole tensor and
// every reduction the identity, so the oracle is the input itself; plans are checked
// on placements of several ranks, which need no world.

func quarterValues(n, salt int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*7+salt)%23-11) * 0.25
	}
	return v
}

func wantError(t *testing.T, err error, code int32, message string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want %s error %q, got %v", StatusString(code), message, err)
	}
	if e.Code != code || e.Message != message {
		t.Errorf("got %s %q, want %s %q", e.Status, e.Message, StatusString(code), message)
	}
}

func TestBoxOneRank(t *testing.T) {
	f := newFixture(t)
	x := quarterValues(35, 0)
	shape := []int64{5, 7}
	for _, src := range []*NdSbp{f.s0, f.s1, f.b} {
		for _, dst := range []*NdSbp{f.s0, f.s1, f.b} {
			if got := must(Box(x, shape, f.p, src, f.p, dst)); !reflect.DeepEqual(got, x) {
				t.Errorf("%v -> %v: %v", src, dst, got)
			}
		}
	}
	ints := []int64{1 << 40, -2, 3}
	if got := must(Box(ints, []int64{1, 3}, f.p, f.b, f.grid, f.bb)); !reflect.DeepEqual(got, ints) {
		t.Errorf("i64 across placements: %v", got)
	}
	two := must(ParsePlacement("cpu:[0,1]"))
	defer two.Close()
	_, err := Box(quarterValues(21, 0), shape, two, f.s0, f.p, f.b)
	wantError(t, err, OutOfRange, "tess_boxing_run: Box: src placement cpu:[0,1] names rank 1 but the world has 1 ranks")
	_, err = Box(x[:30], shape, f.p, f.s0, f.p, f.b)
	wantError(t, err, InvalidArgument,
		"tess_boxing_run: in_bytes is 120 but rank 0's src piece (S(0) on cpu:[0]) holds 35 f32 elements, 140 bytes")
}

func TestBoxingPlan(t *testing.T) {
	f := newFixture(t)
	two := must(ParsePlacement("cpu:[0,1]"))
	defer two.Close()
	plan := must(PlanBoxing([]int64{6, 4}, "f32", two, f.s0, two, f.b))
	defer plan.Close()
	if n := must(plan.NumSteps()); n != 1 {
		t.Fatalf("steps: %d", n)
	}
	step := plan.Step(0)
	if !strings.HasPrefix(step, "axis 0: S(0) -> B  all-gather") {
		t.Errorf("step: %q", step)
	}
	text := plan.String()
	if !strings.HasPrefix(text, "boxing f32[6,4]: cpu:[0,1] S(0) -> cpu:[0,1] B\n") ||
		!strings.Contains(text, "\n1. "+step+"\n") || !strings.Contains(text, "total: 1 step") {
		t.Errorf("text: %q", text)
	}
	if plan.Step(1) != "" {
		t.Errorf("step past the end: %q", plan.Step(1))
	}
	if c := must(plan.Cost()); c <= 0 {
		t.Errorf("cost: %g", c)
	}
	plan.Close()
	if plan.String() != "" {
		t.Errorf("closed plan text")
	}
	// bf16 plans like any other dtype.
	bf16Plan, err := PlanBoxing([]int64{6, 4}, "bf16", two, f.s0, two, f.b)
	if err != nil {
		t.Fatalf("bf16 plan: %v", err)
	}
	bf16Plan.Close()
}

func TestAllReduceOneRank(t *testing.T) {
	f := newFixture(t)
	for _, algorithm := range []int32{AllReduceFlat, AllReduceAuto, AllReduceHierarchical} {
		for _, op := range []int32{ReduceOpSum, ReduceOpMax, ReduceOpMin} {
			x := quarterValues(9, int(op))
			if err := AllReduce(x, op, nil, algorithm); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(x, quarterValues(9, int(op))) {
				t.Errorf("op %d algorithm %d: %v", op, algorithm, x)
			}
			i := []int32{4, -4}
			if err := AllReduce(i, op, f.p, algorithm); err != nil || !reflect.DeepEqual(i, []int32{4, -4}) {
				t.Errorf("i32: %v %v", i, err)
			}
		}
	}
	wantError(t, AllReduce([]float64{1}, 4, nil, AllReduceFlat), InvalidArgument,
		"tess_comm_allreduce: op 4 is not a known reduce op (sum 0, max 1, min 2)")
	wantError(t, AllReduce([]float64{1}, ReduceOpSum, nil, -1), InvalidArgument,
		"tess_comm_allreduce: algorithm -1 is not flat 0, auto 1 or hierarchical 2")
}

func TestBucketedAllReduceOneRank(t *testing.T) {
	f := newFixture(t)
	r := must(NewBucketedAllReducer(512))
	defer r.Close()
	buffers := make([][]float32, 100)
	for i := range buffers {
		buffers[i] = quarterValues((i*37)%150, i)
	}
	for _, op := range []int32{ReduceOpSum, ReduceOpMax} {
		if err := BucketedAllReduce(r, buffers, op, f.p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range buffers {
		if !reflect.DeepEqual(buffers[i], quarterValues((i*37)%150, i)) {
			t.Fatalf("buffer %d changed", i)
		}
	}
	s := must(r.Stats())
	if s.Calls != 2 || s.PlansBuilt != 1 || s.Buckets <= s.InPlaceBuckets || s.InPlaceBuckets == 0 {
		t.Errorf("stats: %+v", s)
	}
	wantError(t, BucketedAllReduce(r, [][]float32{{1}}, 9, nil), InvalidArgument,
		"tess_bucketed_allreducer_run: op 9 is not a known reduce op (sum 0, max 1, min 2)")
	_, err := NewBucketedAllReducer(-1)
	wantError(t, err, InvalidArgument,
		"tess_bucketed_allreducer_create: options->bucket_bytes is -1; expected >= 0 (0 = the default, 25 MiB)")
	r.Close()
	wantError(t, BucketedAllReduce(r, [][]float32{{1}}, ReduceOpSum, nil), InvalidArgument,
		"tess_bucketed_allreducer_run: argument \"reducer\" is NULL")
}

func TestCollectiveTimeout(t *testing.T) {
	if err := SetCollectiveTimeout(1.25); err != nil {
		t.Fatal(err)
	}
	defer SetCollectiveTimeout(0)
	if s := must(CollectiveTimeout()); s != 1.25 {
		t.Errorf("timeout: %g", s)
	}
	wantError(t, SetCollectiveTimeout(-3), InvalidArgument,
		"tess_comm_set_collective_timeout: seconds is -3; it must be a finite number >= 0 (0 = no limit)")
	x := []float64{2}
	if err := AllReduce(x, ReduceOpSum, nil, AllReduceFlat); err != nil || x[0] != 2 {
		t.Errorf("allreduce under a timeout: %v %v", x, err)
	}
}
