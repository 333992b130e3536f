package tessera

// The tensor API on every rank of an mpirun world (see mpi_main_test.go): creation
// from the logical value and from each rank's own piece, ToGlobal between layouts,
// ToHost, ops on split inputs, and bad input, checked against loop oracles.

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestMPIWorld(t *testing.T) {
	rank, size := worldOf(t)
	if rank < 0 || rank >= size {
		t.Fatalf("rank %d of %d", rank, size)
	}
	// Each rank marks its own slot: all ones iff every rank has a distinct rank.
	seen := make([]int32, size)
	seen[rank] = 1
	if err := AllReduce(seen, ReduceOpSum, nil, AllReduceFlat); err != nil {
		t.Fatal(err)
	}
	for r, n := range seen {
		if n != 1 {
			t.Errorf("%d ranks say they are rank %d", n, r)
		}
	}
}

func TestMPIOpsOnEveryLayout(t *testing.T) {
	_, size := worldOf(t)
	x, y, w := quarters[float32](15, 0), quarters[float32](15, 5), quarters[float32](12, 9)
	// reduce_sum(relu((x + y) * x) @ w, 0) by loops.
	h := make([]float32, 15)
	for i := range h {
		if v := (x[i] + y[i]) * x[i]; v > 0 {
			h[i] = v
		}
	}
	prod := matmulRef(h, w, 5, 3, 4)
	want := make([]float32, 4)
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			want[j] += prod[i*4+j]
		}
	}
	diff := make([]float32, 15)
	for i := range diff {
		diff[i] = x[i] - y[i]
	}
	worldP, worldB := onWorld(size, broadcast).open(t)
	for _, s := range everyLayout(size) {
		p, sbp := s.open(t)
		_, bcast := s.broadcastOn().open(t)
		wSbp := bcast
		if len(s.hier) == 1 {
			_, wSbp = onWorld(size, split(1)).open(t)
		}
		tx := must(FromHost(x, []int64{5, 3}, p, sbp))
		ty := must(FromHost(y, []int64{5, 3}, p, bcast))
		tw := must(FromHost(w, []int64{3, 4}, p, wSbp))
		out := must(ReduceSum(must(Matmul(must(Relu(must(Mul(must(Add(tx, ty)), tx)))), tw, false, false)),
			[]int64{0}, false))
		if got := must(ToHost[float32](out)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", tx, got, want)
		}
		moved := must(out.ToGlobal(worldP, worldB))
		if got := must(CopyLocal[float32](moved)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s to B: local %v, want %v", tx, got, want)
		}
		if got := must(ToHost[float32](must(Sub(tx, ty)))); !reflect.DeepEqual(got, diff) {
			t.Errorf("%s: x - y = %v, want %v", tx, got, diff)
		}
	}
}

func TestMPIMatmulOnSplitInputs(t *testing.T) {
	_, size := worldOf(t)
	a, b := quarters[float32](35, 2), quarters[float32](20, 7) // [7,5] @ [5,4]
	want := matmulRef(a, b, 7, 5, 4)
	for _, sa := range []Sbp{split(0), split(1), broadcast, partialSum} {
		for _, sb := range []Sbp{split(0), split(1), broadcast} {
			pa, na := onWorld(size, sa).open(t)
			_, nb := onWorld(size, sb).open(t)
			ta := must(FromHost(a, []int64{7, 5}, pa, na))
			tb := must(FromHost(b, []int64{5, 4}, pa, nb))
			out, err := Matmul(ta, tb, false, false)
			if err != nil {
				t.Errorf("%s @ %s: %v", ta, tb, err)
				continue
			}
			if s := must(out.Shape()); !reflect.DeepEqual(s, []int64{7, 4}) {
				t.Errorf("%s @ %s: shape %v", ta, tb, s)
			}
			if got := must(ToHost[float32](out)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s @ %s = %v, want %v", ta, tb, got, want)
			}
		}
	}
}

func TestMPIToGlobalBetweenLayouts(t *testing.T) {
	rank, size := worldOf(t)
	shape := []int64{7, 5}
	a := quarters[float32](35, 3)
	layouts := everyLayout(size)
	last := spec{ranks: []int32{size - 1}, hier: []int64{1}, sbps: []Sbp{broadcast}}
	backwards := onWorld(size, split(1))
	for i := range backwards.ranks {
		backwards.ranks[i] = size - 1 - int32(i)
	}
	layouts = append(layouts, last, backwards)
	for _, src := range layouts {
		ps, ns := src.open(t)
		x := must(FromHost(a, shape, ps, ns))
		for _, dst := range layouts {
			pd, nd := dst.open(t)
			y, err := x.ToGlobal(pd, nd)
			if err != nil {
				t.Errorf("%s -> %s: %v", x, dst, err)
				continue
			}
			if got := must(ToHost[float32](y)); !reflect.DeepEqual(got, a) {
				t.Errorf("%s -> %s: logical %v", x, y, got)
			}
			if want, _ := piece(a, shape, dst, rank); !dst.isPartial() && want != nil {
				if got := must(CopyLocal[float32](y)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s -> %s: rank %d's piece %v, want %v", x, y, rank, got, want)
				}
			}
		}
	}
	// The other dtypes take the same paths.
	s0, b := onWorld(size, split(0)), onWorld(size, broadcast)
	p, n0 := s0.open(t)
	_, nb := b.open(t)
	i64 := quarters[int64](35, 1)
	if got := must(ToHost[int64](must(must(FromHost(i64, shape, p, n0)).ToGlobal(p, nb)))); !reflect.DeepEqual(got, i64) {
		t.Errorf("i64 S(0) -> B: %v", got)
	}
	f64 := quarters[float64](35, 4)
	want, _ := piece(f64, shape, s0, rank)
	if got := must(CopyLocal[float64](must(must(FromHost(f64, shape, p, nb)).ToGlobal(p, n0)))); !reflect.DeepEqual(got, want) {
		t.Errorf("f64 B -> S(0): rank %d's piece %v, want %v", rank, got, want)
	}
}

func TestMPILocalPiecesAndFromLocal(t *testing.T) {
	rank, size := worldOf(t)
	shape := []int64{7, 5}
	a := quarters[float32](35, 1)
	for _, s := range everyLayout(size) {
		p, n := s.open(t)
		mine, localShape := piece(a, shape, s, rank)
		if !s.isPartial() {
			x := must(FromHost(a, shape, p, n))
			if got := must(x.LocalShape()); !reflect.DeepEqual(got, localShape) {
				t.Errorf("%s: local shape %v, want %v", x, got, localShape)
			}
			if got := must(CopyLocal[float32](x)); !reflect.DeepEqual(got, mine) {
				t.Errorf("%s: local %v, want %v", x, got, mine)
			}
		}
		// This rank's own piece (partial pieces differ by rank) gives the value back.
		y, err := FromLocal(mine, localShape, p, n, nil)
		if err != nil {
			t.Errorf("FromLocal on %s: %v", s, err)
			continue
		}
		if got := must(y.Shape()); !reflect.DeepEqual(got, shape) {
			t.Errorf("%s: inferred shape %v", y, got)
		}
		if got := must(ToHost[float32](y)); !reflect.DeepEqual(got, a) {
			t.Errorf("%s from pieces: %v, want %v", y, got, a)
		}
	}
}

func TestMPIFromLocalUneven(t *testing.T) {
	rank, size := worldOf(t)
	const rows = 7 // 4+3 on 2 ranks, 3+2+2 on 3, 2+2+2+1 on 4
	a := quarters[float32](rows*2, 4)
	n, extra := int32(rows)/size, int32(rows)%size
	first, count := rank*n+rank, n+1
	if rank >= extra {
		first, count = rank*n+extra, n
	}
	p, s0 := onWorld(size, split(0)).open(t)
	mine := a[2*first : 2*(first+count)]
	for _, logical := range [][]int64{nil, {rows, 2}} {
		x := must(FromLocal(mine, []int64{int64(count), 2}, p, s0, logical))
		if got := must(x.Shape()); !reflect.DeepEqual(got, []int64{rows, 2}) {
			t.Errorf("logical %v: shape %v", logical, got)
		}
		if got := must(ToHost[float32](x)); !reflect.DeepEqual(got, a) {
			t.Errorf("logical %v: %v, want %v", logical, got, a)
		}
	}
	// P: the logical value is the sum of every rank's rank+1.
	_, ps := onWorld(size, partialSum).open(t)
	part := []int64{int64(rank) + 1, int64(rank) + 1, int64(rank) + 1}
	sum := must(FromLocal(part, []int64{3}, p, ps, []int64{3}))
	wantSum := int64(size) * int64(size+1) / 2
	if got := must(ToHost[int64](sum)); !reflect.DeepEqual(got, []int64{wantSum, wantSum, wantSum}) {
		t.Errorf("P sum: %v, want %d each", got, wantSum)
	}
	// B: each rank passes its own copy; rank 0's wins.
	_, b := onWorld(size, broadcast).open(t)
	copyB := must(FromLocal([]float64{float64(rank), -float64(rank)}, []int64{2}, p, b, nil))
	if got := must(ToHost[float64](copyB)); !reflect.DeepEqual(got, []float64{0, 0}) {
		t.Errorf("B from differing copies: %v, want rank 0's [0 0]", got)
	}
}

func TestMPISubPlacement(t *testing.T) {
	rank, size := worldOf(t)
	a := quarters[float32](6, 2)
	neg := make([]float32, 6)
	for i, v := range a {
		neg[i] = -v
	}
	last := spec{ranks: []int32{size - 1}, hier: []int64{1}, sbps: []Sbp{broadcast}}
	pl, b := last.open(t)
	x := must(Neg(must(FromHost(a, []int64{2, 3}, pl, b))))
	if has := must(x.HasLocal()); has != (rank == size-1) {
		t.Errorf("HasLocal() = %v on rank %d", has, rank)
	}
	if got := must(ToHost[float32](x)); !reflect.DeepEqual(got, neg) {
		t.Errorf("-x = %v, want %v", got, neg)
	}
	if rank != size-1 {
		_, err := CopyLocal[float32](x)
		wantErr(t, "CopyLocal outside", err, FailedPrecondition,
			fmt.Sprintf("rank %d holds no local piece", rank))
	}
	if size > 1 {
		pw, bw := onWorld(size, broadcast).open(t)
		_, err := Add(must(FromHost(a, []int64{2, 3}, pw, bw)), x)
		wantErr(t, "Add across placements", err, InvalidArgument, pl.String())
	}
}

func TestMPIExplainShowsBoxing(t *testing.T) {
	_, size := worldOf(t)
	if size == 1 {
		t.Skip("a world of one rank boxes nothing")
	}
	runtime.LockOSThread() // ExplainLast reads this OS thread's record
	defer runtime.UnlockOSThread()
	p, s0 := onWorld(size, split(0)).open(t)
	_, s1 := onWorld(size, split(1)).open(t)
	x, y := quarters[float32](24, 0), quarters[float32](24, 1)
	sum := make([]float32, 24)
	for i := range sum {
		sum[i] = x[i] + y[i]
	}
	out := must(Add(must(FromHost(x, []int64{4, 6}, p, s0)), must(FromHost(y, []int64{4, 6}, p, s1))))
	if got := must(ToHost[float32](out)); !reflect.DeepEqual(got, sum) {
		t.Errorf("S(0) + S(1) = %v, want %v", got, sum)
	}
	e := must(ExplainLast())
	defer e.Close()
	if text := e.Text(); !strings.Contains(text, "add") || !strings.Contains(text, "S(1) -> S(0)") {
		t.Errorf("explain does not show the boxing:\n%s", text)
	}
}

// TestMPICheckMode: with InitOptions.CheckMode 1, the last rank's Mul against the others'
// Add fails on every rank with FailedPrecondition naming it; afterwards a call all ranks
// make alike works.
func TestMPICheckMode(t *testing.T) {
	rank, size := worldOf(t)
	on := DefaultInitOptions()
	on.CheckMode = 1
	if err := InitWithOptions(on); err != nil {
		t.Fatal(err)
	}
	defer func() {
		off := DefaultInitOptions()
		off.CheckMode = 0
		if err := InitWithOptions(off); err != nil {
			t.Error(err)
		}
	}()
	p, s0 := onWorld(size, split(0)).open(t)
	x := must(FromHost(quarters[float32](6, 0), []int64{6}, p, s0))
	defer x.Close()
	var err error
	if rank == size-1 {
		_, err = Mul(x, x)
	} else {
		_, err = Add(x, x)
	}
	if size > 1 {
		wantErr(t, "divergent op", err, FailedPrecondition,
			fmt.Sprintf("did not issue the same call: op: rank %d differs from rank", size-1))
	} else if err != nil {
		t.Fatal(err)
	}
	y := must(Add(x, x))
	defer y.Close()
	got := must(ToHost[float32](y))
	for i, v := range quarters[float32](6, 0) {
		if got[i] != 2*v {
			t.Fatalf("after the divergence, x + x = %v", got)
		}
	}
}

func TestMPITensorBadInput(t *testing.T) {
	rank, size := worldOf(t)
	p, s0 := onWorld(size, split(0)).open(t)
	world := p.String()
	// Too little data, a too-short local piece: caught before any communication.
	_, err := FromHost(quarters[float32](13, 0), []int64{7, 2}, p, s0)
	wantErr(t, "short host data", err, InvalidArgument, "FromHost: data has 13 elements but shape [7 2] needs 14")
	_, err = FromLocal(quarters[float32](3, 0), []int64{2, 2}, p, s0, nil)
	wantErr(t, "short local", err, InvalidArgument, "FromLocal: local has 3 elements but local shape [2 2] needs 4")
	// A local shape that is no rank's part of the given logical shape: every rank returns
	// the error of the lowest failing rank, 0.
	_, err = FromLocal(quarters[float32](10, 0), []int64{5, 2}, p, s0, []int64{7, 2})
	begin, end, _ := onWorld(size, split(0)).bounds([]int64{7, 2}, 0)
	wantErr(t, "local vs logical", err, InvalidArgument, fmt.Sprintf(
		"from_local: rank 0's local shape [5,2] is not its part [%d,2] of logical shape [7,2] under S(0) on %s",
		end[0]-begin[0], world))
	// A placement naming a rank the world lacks.
	outside := must(NewPlacement(DeviceCPU, ranksUpTo(size+1), []int64{int64(size) + 1}))
	defer outside.Close()
	_, err = FromLocal(quarters[float32](2, 0), []int64{1, 2}, outside, s0, nil)
	wantErr(t, "rank outside the world", err, OutOfRange, fmt.Sprintf(
		"from_local: placement %s names rank %d but the world has %d ranks", outside, size, size))
	// Shapes that do not fit, on split inputs.
	_, b := onWorld(size, broadcast).open(t)
	x := must(FromHost(quarters[float32](14, 0), []int64{7, 2}, p, s0))
	_, err = Matmul(x, must(FromHost(quarters[float32](12, 0), []int64{3, 4}, p, b)), false, false)
	wantErr(t, "matmul shapes", err, InvalidArgument, "tess_matmul: matmul")
	_, err = Add(x, must(FromHost(quarters[float32](3, 0), []int64{3}, p, b)))
	wantErr(t, "add shapes", err, InvalidArgument, "tess_add: add")
	_, err = ToHost[int32](x)
	wantErr(t, "ToHost dtype", err, InvalidArgument, "ToHost: the tensor is f32, not i32")
	if size == 1 {
		return // one rank's locals always make a balanced split
	}
	// Locals that are not the balanced split of the logical shape they add up to:
	// rank 0 holds 1 row, the others 2.
	rows := int64(1 + 2*(size-1))
	local := int64(2)
	if rank == 0 {
		local = 1
	}
	want0Begin, want0End := balanced(0, rows, int64(size), 0)
	_, err = FromLocal(quarters[float32](int(2*local), 0), []int64{local, 2}, p, s0, nil)
	wantErr(t, "unbalanced locals", err, InvalidArgument, fmt.Sprintf(
		"from_local: rank 0's local shape [1,2] is not its part [%d,2] of the balanced split of logical shape [%d,2] under S(0) on %s",
		want0End-want0Begin, rows, world))
	// Locals of different ranks (rank 0 1-d, the others 2-d).
	ls := []int64{1, 2}
	if rank == 0 {
		ls = []int64{2}
	}
	_, err = FromLocal(quarters[float32](2, 0), ls, p, s0, nil)
	wantErr(t, "locals of different ranks", err, InvalidArgument,
		"from_local: rank 1's local shape [1,2] has a different rank than rank 0's [2]")
}
