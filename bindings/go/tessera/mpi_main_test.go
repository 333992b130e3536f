package tessera

// What the TestMPI* tests share. go_test.sh --mpi builds the test binary once and
// mpirun starts it on every rank (1, 2, 3 or 4 of them), so every rank runs the same
// tests in the same order and every collective call happens everywhere. Each rank
// builds the logical values itself and computes the expected pieces and results with
// plain loops (the balanced split included), never through the library. Values are
// multiples of 1/4, so float sums are exact in any order.

import (
	flags "flag"
	"fmt"
	"os"
	"strconv"
	"testing"
)

var wantNP = flags.Int("tessera.np", 0, "the world size mpirun started (0: not checked)")

// worldOf is this rank and the world size, checked against what mpirun says
// (OMPI_COMM_WORLD_RANK/SIZE) and what the launcher asked for (-tessera.np).
func worldOf(t *testing.T) (rank, size int32) {
	t.Helper()
	rank, size = must(WorldRank()), must(WorldSize())
	for name, got := range map[string]int32{"OMPI_COMM_WORLD_RANK": rank, "OMPI_COMM_WORLD_SIZE": size} {
		if env, ok := os.LookupEnv(name); ok {
			if want, err := strconv.Atoi(env); err != nil || int32(want) != got {
				t.Fatalf("Tessera says %d but mpirun's %s is %q", got, name, env)
			}
		}
	}
	if *wantNP > 0 && int(size) != *wantNP {
		t.Fatalf("WorldSize() = %d but the launcher started %d ranks", size, *wantNP)
	}
	return rank, size
}

var (
	broadcast  = Sbp{Kind: SbpBroadcast, SplitAxis: -1}
	partialSum = Sbp{Kind: SbpPartialSum, SplitAxis: -1}
	partialMax = Sbp{Kind: SbpPartialMax, SplitAxis: -1}
	partialMin = Sbp{Kind: SbpPartialMin, SplitAxis: -1}
)

func split(axis int32) Sbp { return Sbp{Kind: SbpSplit, SplitAxis: axis} }

// spec is a placed nd-sbp as the test understands it: a placement's ranks in
// row-major order over hier, and one Sbp per hierarchy axis.
type spec struct {
	ranks []int32
	hier  []int64
	sbps  []Sbp
}

// ranksUpTo is 0, 1, ..., n-1.
func ranksUpTo(n int32) []int32 {
	r := make([]int32, n)
	for i := range r {
		r[i] = int32(i)
	}
	return r
}

// onWorld is sbp on cpu:[0..size-1].
func onWorld(size int32, sbp Sbp) spec {
	return spec{ranks: ranksUpTo(size), hier: []int64{int64(size)}, sbps: []Sbp{sbp}}
}

// everyLayout is every 1-d sbp on the world and, with 4 ranks, some on the 2x2 grid.
func everyLayout(size int32) []spec {
	var out []spec
	for _, s := range []Sbp{split(0), split(1), broadcast, partialSum, partialMax, partialMin} {
		out = append(out, onWorld(size, s))
	}
	if size == 4 {
		grid := func(a, b Sbp) spec {
			return spec{ranks: ranksUpTo(4), hier: []int64{2, 2}, sbps: []Sbp{a, b}}
		}
		out = append(out, grid(split(0), split(1)), grid(partialSum, split(0)),
			grid(broadcast, partialMax))
	}
	return out
}

// broadcastOn is B on every axis of s's placement.
func (s spec) broadcastOn() spec {
	b := make([]Sbp, len(s.hier))
	for i := range b {
		b[i] = broadcast
	}
	return spec{ranks: s.ranks, hier: s.hier, sbps: b}
}

// open makes the placement and nd-sbp handles, closed when t ends.
func (s spec) open(t *testing.T) (*Placement, *NdSbp) {
	t.Helper()
	p := must(NewPlacement(DeviceCPU, s.ranks, s.hier))
	n := must(NewNdSbp(s.sbps))
	t.Cleanup(func() {
		p.Close()
		n.Close()
	})
	return p, n
}

func (s spec) String() string { return fmt.Sprintf("%v%v %v", s.ranks, s.hier, s.sbps) }

// index is rank's parallel index; -1 outside the placement.
func (s spec) index(rank int32) int64 {
	for i, r := range s.ranks {
		if r == rank {
			return int64(i)
		}
	}
	return -1
}

// coord is parallel index i's coordinate along hierarchy axis a.
func (s spec) coord(i int64, a int) int64 {
	stride := int64(1)
	for b := len(s.hier) - 1; b > a; b-- {
		stride *= s.hier[b]
	}
	return i / stride % s.hier[a]
}

// balanced is part index of [begin, end) cut into parts: the first (end-begin) %
// parts parts get one extra element.
func balanced(begin, end, parts, index int64) (int64, int64) {
	q, r := (end-begin)/parts, (end-begin)%parts
	b := begin + index*q
	if index < r {
		return b + index, b + index + q + 1
	}
	return b + r, b + r + q
}

// bounds is the index range [begin, end) per dim of rank's piece of a tensor of
// shape: nested splits, hierarchy axis 0 first. ok is false outside the placement.
func (s spec) bounds(shape []int64, rank int32) (begin, end []int64, ok bool) {
	i := s.index(rank)
	if i < 0 {
		return nil, nil, false
	}
	begin, end = make([]int64, len(shape)), append([]int64(nil), shape...)
	for a, sbp := range s.sbps {
		if sbp.Kind == SbpSplit {
			d := sbp.SplitAxis
			begin[d], end[d] = balanced(begin[d], end[d], s.hier[a], s.coord(i, a))
		}
	}
	return begin, end, true
}

// sliceOf is a[begin:end] of the row-major array a of shape.
func sliceOf[T Element](a []T, shape, begin, end []int64) []T {
	n := int64(1)
	for d := range shape {
		n *= end[d] - begin[d]
	}
	out := make([]T, 0, n)
	if n == 0 {
		return out
	}
	idx := append([]int64(nil), begin...)
	for {
		off := int64(0)
		for d := range shape {
			off = off*shape[d] + idx[d]
		}
		out = append(out, a[off])
		d := len(shape) - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < end[d] {
				break
			}
			idx[d] = begin[d]
		}
		if d < 0 {
			return out
		}
	}
}

// piece is rank's local piece of the logical value a of shape under s, and its
// shape; nil, nil outside the placement. Along a partial axis the rank at
// coordinate 0 holds the value and the others hold what does not change the
// reduction: 0 for P, one less for P(max), one more for P(min).
func piece[T Element](a []T, shape []int64, s spec, rank int32) ([]T, []int64) {
	begin, end, ok := s.bounds(shape, rank)
	if !ok {
		return nil, nil
	}
	out := sliceOf(a, shape, begin, end)
	i := s.index(rank)
	for ax, sbp := range s.sbps {
		if s.coord(i, ax) == 0 {
			continue
		}
		for k := range out {
			switch sbp.Kind {
			case SbpPartialSum:
				out[k] = 0
			case SbpPartialMax:
				out[k]--
			case SbpPartialMin:
				out[k]++
			}
		}
	}
	local := make([]int64, len(shape))
	for d := range shape {
		local[d] = end[d] - begin[d]
	}
	return out, local
}

// isPartial reports whether some axis of s is partial.
func (s spec) isPartial() bool {
	for _, sbp := range s.sbps {
		if sbp.Kind != SbpSplit && sbp.Kind != SbpBroadcast {
			return true
		}
	}
	return false
}

// quarters is ((i*7 + salt) % 23 - 11) / 4 for floats (without the / 4 for ints):
// small values whose float sums and products are exact.
func quarters[T Element](n, salt int) []T {
	scale := 1.0
	if d := dtypeOf[T](); d == DTypeF32 || d == DTypeF64 {
		scale = 0.25
	}
	v := make([]T, n)
	for i := range v {
		v[i] = T(float64((i*7+salt)%23-11) * scale)
	}
	return v
}

// matmulRef is a [m,k] @ b [k,n] by loops.
func matmulRef(a, b []float32, m, k, n int) []float32 {
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < k; l++ {
				out[i*n+j] += a[i*k+l] * b[l*n+j]
			}
		}
	}
	return out
}
