package tessera

// Box, AllReduce and BucketedAllReduce on every rank of an mpirun world (see
// mpi_main_test.go). Each rank cuts its source piece from a logical array it builds
// itself and compares what it gets with the piece, or the reduction over every
// rank's values, computed by loops.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestMPIBoxEveryPair(t *testing.T) {
	rank, size := worldOf(t)
	shape := []int64{7, 5}
	a := quarters[float32](35, 3)
	backwards := func(sbp Sbp) spec {
		s := onWorld(size, sbp)
		for i := range s.ranks {
			s.ranks[i] = size - 1 - int32(i)
		}
		return s
	}
	for _, srcSbp := range []Sbp{split(0), split(1), broadcast, partialSum, partialMax, partialMin} {
		src := onWorld(size, srcSbp)
		ps, ns := src.open(t)
		in, _ := piece(a, shape, src, rank)
		for _, dstSbp := range []Sbp{split(0), split(1), broadcast} {
			for _, dst := range []spec{onWorld(size, dstSbp), backwards(dstSbp)} {
				pd, nd := dst.open(t)
				want, _ := piece(a, shape, dst, rank)
				got, err := Box(in, shape, ps, ns, pd, nd)
				if err != nil {
					t.Errorf("%s %s -> %s %s: %v", ps, ns, pd, nd, err)
				} else if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s -> %s %s: rank %d got %v, want %v", ps, ns, pd, nd, rank, got, want)
				}
			}
		}
	}
	// Integers, and a 2x2 grid with 4 ranks.
	ints := quarters[int64](35, 5)
	layouts := []spec{onWorld(size, split(1)), onWorld(size, partialSum)}
	if size == 4 {
		layouts = append(layouts, spec{ranks: ranksUpTo(4), hier: []int64{2, 2}, sbps: []Sbp{split(0), split(1)}},
			spec{ranks: ranksUpTo(4), hier: []int64{2, 2}, sbps: []Sbp{partialSum, split(0)}})
	}
	for _, src := range layouts {
		for _, dst := range layouts {
			if dst.isPartial() {
				continue // a partial destination's pieces are the library's choice
			}
			ps, ns := src.open(t)
			pd, nd := dst.open(t)
			in, _ := piece(ints, shape, src, rank)
			want, _ := piece(ints, shape, dst, rank)
			if got := must(Box(in, shape, ps, ns, pd, nd)); !reflect.DeepEqual(got, want) {
				t.Errorf("i64 %s -> %s: rank %d got %v, want %v", src, dst, rank, got, want)
			}
		}
	}
}

func TestMPIBoxToASubPlacement(t *testing.T) {
	rank, size := worldOf(t)
	shape := []int64{4, 3}
	a := quarters[int32](12, 1)
	s0, s1 := onWorld(size, split(0)), onWorld(size, split(1))
	last := spec{ranks: []int32{size - 1}, hier: []int64{1}, sbps: []Sbp{broadcast}}
	pw, n0 := s0.open(t)
	_, n1 := s1.open(t)
	pl, b := last.open(t)
	in, _ := piece(a, shape, s0, rank)
	out := must(Box(in, shape, pw, n0, pl, b))
	if rank == size-1 {
		if !reflect.DeepEqual(out, a) {
			t.Errorf("to the last rank: %v, want %v", out, a)
		}
	} else if out != nil {
		t.Errorf("rank %d outside the destination got %v", rank, out)
	}
	// And back: only the last rank has a piece to send.
	want, _ := piece(a, shape, s1, rank)
	if back := must(Box(out, shape, pl, b, pw, n1)); !reflect.DeepEqual(back, want) {
		t.Errorf("back to S(1): rank %d got %v, want %v", rank, back, want)
	}
}

func TestMPIBoxBadInput(t *testing.T) {
	rank, size := worldOf(t)
	shape := []int64{7, 5}
	s0 := onWorld(size, split(0))
	p, n0 := s0.open(t)
	_, b := onWorld(size, broadcast).open(t)
	in, _ := piece(quarters[float32](35, 0), shape, s0, rank)
	// One element short on every rank: every rank fails before communicating.
	_, err := Box(in[:len(in)-1], shape, p, n0, p, b)
	wantErr(t, "short piece", err, InvalidArgument, fmt.Sprintf(
		"tess_boxing_run: in_bytes is %d but rank %d's src piece (S(0) on %s) holds %d f32 elements, %d bytes",
		4*(len(in)-1), rank, p, len(in), 4*len(in)))
	outside := must(NewPlacement(DeviceCPU, ranksUpTo(size+1), []int64{int64(size) + 1}))
	defer outside.Close()
	_, err = Box(in, shape, p, n0, outside, b)
	wantErr(t, "rank outside the world", err, OutOfRange, fmt.Sprintf(
		"names rank %d but the world has %d ranks", size, size))
	s5 := must(ParseNdSbp("S(5)"))
	defer s5.Close()
	_, err = Box(in, shape, p, n0, p, s5)
	wantErr(t, "split axis 5 of a 2-d tensor", err, InvalidArgument, "S(5)")
}

func TestMPIBoxingPlan(t *testing.T) {
	_, size := worldOf(t)
	p, ps := onWorld(size, partialSum).open(t)
	_, s1 := onWorld(size, split(1)).open(t)
	plan := must(PlanBoxing([]int64{7, 5}, "f32", p, ps, p, s1))
	defer plan.Close()
	steps := must(plan.NumSteps())
	if size > 1 && steps == 0 {
		t.Errorf("P -> S(1) on %d ranks takes no step", size)
	}
	text := plan.String()
	for i := int64(0); i < steps; i++ {
		if line := fmt.Sprintf("%d. %s\n", i+1, plan.Step(i)); !strings.Contains(text, line) {
			t.Errorf("plan text lacks %q:\n%s", line, text)
		}
	}
}

// reduceRef is op over every rank's values(r), by loops.
func reduceRef[T Element](op int32, size int32, values func(r int32) []T) []T {
	out := make([]T, len(values(0)))
	copy(out, values(0))
	for r := int32(1); r < size; r++ {
		for i, v := range values(r) {
			switch {
			case op == ReduceOpSum:
				out[i] += v
			case op == ReduceOpMax && v > out[i], op == ReduceOpMin && v < out[i]:
				out[i] = v
			}
		}
	}
	return out
}

func TestMPIAllReduce(t *testing.T) {
	rank, size := worldOf(t)
	for _, algorithm := range []int32{AllReduceFlat, AllReduceAuto, AllReduceHierarchical} {
		for _, op := range []int32{ReduceOpSum, ReduceOpMax, ReduceOpMin} {
			f32 := func(r int32) []float32 { return quarters[float32](1000, int(r)) }
			x := f32(rank)
			if err := AllReduce(x, op, nil, algorithm); err != nil {
				t.Fatal(err)
			}
			if want := reduceRef(op, size, f32); !reflect.DeepEqual(x, want) {
				t.Errorf("f32 op %d algorithm %d: %v", op, algorithm, x)
			}
			f64 := func(r int32) []float64 { return quarters[float64](9, 3*int(r)) }
			i32 := func(r int32) []int32 { return quarters[int32](7, 5*int(r)) }
			i64 := func(r int32) []int64 { return []int64{int64(r) << 40, -int64(r)} }
			d, i, l := f64(rank), i32(rank), i64(rank)
			for _, err := range []error{AllReduce(d, op, nil, algorithm), AllReduce(i, op, nil, algorithm),
				AllReduce(l, op, nil, algorithm)} {
				if err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(d, reduceRef(op, size, f64)) || !reflect.DeepEqual(i, reduceRef(op, size, i32)) ||
				!reflect.DeepEqual(l, reduceRef(op, size, i64)) {
				t.Errorf("op %d algorithm %d: f64 %v i32 %v i64 %v", op, algorithm, d, i, l)
			}
		}
	}
	if size > 1 {
		// Over ranks 1 and 0 only; the others keep their values.
		firstTwo := must(ParsePlacement("cpu:[1,0]"))
		defer firstTwo.Close()
		values := func(r int32) []int32 { return quarters[int32](9, int(r)) }
		x := values(rank)
		if err := AllReduce(x, ReduceOpSum, firstTwo, AllReduceAuto); err != nil {
			t.Fatal(err)
		}
		want := values(rank)
		if rank < 2 {
			want = reduceRef(ReduceOpSum, 2, values)
		}
		if !reflect.DeepEqual(x, want) {
			t.Errorf("over cpu:[1,0]: rank %d got %v, want %v", rank, x, want)
		}
	}
	outside := must(NewPlacement(DeviceCPU, ranksUpTo(size+1), []int64{int64(size) + 1}))
	defer outside.Close()
	wantErr(t, "rank outside the world", AllReduce([]float32{1}, ReduceOpSum, outside, AllReduceFlat),
		OutOfRange, fmt.Sprintf("names rank %d but the world has %d ranks", size, size))
	wantErr(t, "bad op", AllReduce([]float32{1}, 7, nil, AllReduceFlat), InvalidArgument,
		"tess_comm_allreduce: op 7 is not a known reduce op (sum 0, max 1, min 2)")
}

func TestMPIBucketedAllReduce(t *testing.T) {
	rank, size := worldOf(t)
	sizes := make([]int, 100)
	for i := range sizes {
		if i%10 != 0 {
			sizes[i] = (i * 29) % 300
		}
	}
	r := must(NewBucketedAllReducer(1024))
	defer r.Close()
	for _, op := range []int32{ReduceOpSum, ReduceOpMax, ReduceOpMin} {
		arrays := make([][]float32, len(sizes))
		for i, n := range sizes {
			arrays[i] = quarters[float32](n, int(rank)*3+i)
		}
		if err := BucketedAllReduce(r, arrays, op, nil); err != nil {
			t.Fatal(err)
		}
		for i, n := range sizes {
			want := reduceRef(op, size, func(q int32) []float32 { return quarters[float32](n, int(q)*3+i) })
			if !reflect.DeepEqual(arrays[i], want) {
				t.Errorf("op %d array %d: %v, want %v", op, i, arrays[i], want)
			}
		}
	}
	s := must(r.Stats())
	if s.Calls != 3 || s.PlansBuilt != 1 || s.Buckets <= s.InPlaceBuckets {
		t.Errorf("stats: %+v", s)
	}
	// f64 through another reducer, over the world placement given explicitly.
	p, _ := onWorld(size, broadcast).open(t)
	r64 := must(NewBucketedAllReducer(64))
	defer r64.Close()
	values := func(q int32) [][]float64 {
		return [][]float64{quarters[float64](20, int(q)), {}, quarters[float64](3, 7*int(q))}
	}
	d := values(rank)
	if err := BucketedAllReduce(r64, d, ReduceOpSum, p); err != nil {
		t.Fatal(err)
	}
	for i := range d {
		want := reduceRef(ReduceOpSum, size, func(q int32) []float64 { return values(q)[i] })
		if !reflect.DeepEqual(d[i], want) {
			t.Errorf("f64 array %d: %v, want %v", i, d[i], want)
		}
	}
	wantErr(t, "bad op", BucketedAllReduce(r, [][]float32{{1}}, 9, nil), InvalidArgument,
		"tess_bucketed_allreducer_run: op 9 is not a known reduce op (sum 0, max 1, min 2)")
}
