package tessera

// Boxing and collectives on Go slices: Box moves this rank's piece of a logical
// tensor between layouts, AllReduce and BucketedAllReduce reduce slices in place over
// a placement's ranks (or the world). Each is collective (SPMD): every rank concerned
// makes the same calls in the same order, one goroutine at a time per placement.

import (
	"runtime"
	"unsafe"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Reduce ops.
const (
	ReduceOpSum = int32(capi.REDUCE_SUM)
	ReduceOpMax = int32(capi.REDUCE_MAX)
	ReduceOpMin = int32(capi.REDUCE_MIN)
)

// AllReduce algorithms: one flat all-reduce; host by host for large payloads when
// hosts have several ranks; always host by host.
const (
	AllReduceFlat         = int32(capi.ALLREDUCE_FLAT)
	AllReduceAuto         = int32(capi.ALLREDUCE_AUTO)
	AllReduceHierarchical = int32(capi.ALLREDUCE_HIERARCHICAL)
)

// Box moves this rank's piece of the logical tensor of shape held as src on
// srcPlacement (local; nil where srcPlacement lacks this rank) to its piece held as
// dst on dstPlacement, which it returns (nil where dstPlacement lacks this rank).
// Collective over both placements' ranks.
func Box[T Element](local []T, shape []int64, srcPlacement *Placement, src *NdSbp,
	dstPlacement *Placement, dst *NdSbp) ([]T, error) {
	rank, err := WorldRank()
	if err != nil {
		return nil, err
	}
	var out []T
	// An error here (a closed placement) comes back from the C call below too.
	if holds, _ := dstPlacement.Contains(rank); holds {
		l, err := NewLayout(dstPlacement, dst, shape, rank)
		if err != nil {
			return nil, err
		}
		n, err := l.NumElements()
		l.Close()
		if err != nil {
			return nil, err
		}
		out = make([]T, n)
	}
	err = capi.Boxing_run(bytesOf(out), bytesOf(local), shape, int(dtypeOf[T]()), srcPlacement.c(), src.c(),
		dstPlacement.c(), dst.c())
	runtime.KeepAlive(srcPlacement)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dstPlacement)
	runtime.KeepAlive(dst)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BoxingPlan is the plan Box runs for a (shape, dtype, source, destination): its
// steps with their modelled costs. Immutable. Close it (defer p.Close()).
type BoxingPlan struct{ h capi.BoxingPlan }

func (p *BoxingPlan) c() capi.BoxingPlan {
	if p == nil || p.h == nil {
		return capi.SwigcptrBoxingPlan(0)
	}
	return p.h
}

// Close releases the plan. Idempotent.
func (p *BoxingPlan) Close() {
	if p == nil {
		return
	}
	if h := take(&p.h); h != nil {
		runtime.SetFinalizer(p, nil)
		capi.DeleteBoxingPlan(h)
		destroyed("BoxingPlan")
	}
}

// PlanBoxing is the plan of boxing a tensor of shape and dtype ("f32", ...) from
// (srcPlacement, src) to (dstPlacement, dst). Local; needs no world.
func PlanBoxing(shape []int64, dtype string, srcPlacement *Placement, src *NdSbp,
	dstPlacement *Placement, dst *NdSbp) (*BoxingPlan, error) {
	d, err := ParseDType(dtype)
	if err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err = capi.Boxing_plan_create(out, shape, int(d), srcPlacement.c(), src.c(), dstPlacement.c(),
		dst.c())
	runtime.KeepAlive(srcPlacement)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dstPlacement)
	runtime.KeepAlive(dst)
	if err != nil {
		return nil, err
	}
	p := &BoxingPlan{h: capi.SwigcptrBoxingPlan(out[0])}
	runtime.SetFinalizer(p, (*BoxingPlan).Close)
	return p, nil
}

// String is the text explain shows: the conversion, a numbered line per step, the
// total ("" once closed).
func (p *BoxingPlan) String() string {
	s := capi.Boxing_plan_string(p.c())
	runtime.KeepAlive(p)
	return s
}

// NumSteps is the number of steps (0 when nothing moves).
func (p *BoxingPlan) NumSteps() (int64, error) {
	out := []int64{0}
	err := capi.Boxing_plan_num_steps(out, p.c())
	runtime.KeepAlive(p)
	return out[0], err
}

// Step is step index's line without its number ("" past the last).
func (p *BoxingPlan) Step(index int64) string {
	s := capi.Boxing_plan_step_string(p.c(), index)
	runtime.KeepAlive(p)
	return s
}

// Cost is the modelled time of all steps, in seconds.
func (p *BoxingPlan) Cost() (float64, error) {
	out := []float64{0}
	err := capi.Boxing_plan_cost(out, p.c())
	runtime.KeepAlive(p)
	return out[0], err
}

// AllReduce sets buffer to op (ReduceOpSum, ReduceOpMax, ReduceOpMin) over the ranks of
// placement (nil: the world) of buffer, in place, with algorithm (AllReduceFlat,
// AllReduceAuto, AllReduceHierarchical). Ranks outside the placement return at once.
func AllReduce[T Element](buffer []T, op int32, placement *Placement, algorithm int32) error {
	if err := Init(); err != nil {
		return err
	}
	err := capi.Comm_allreduce(bytesOf(buffer), int64(len(buffer)), int(dtypeOf[T]()), int(op),
		placement.c(), int(algorithm))
	runtime.KeepAlive(placement)
	return err
}

// BucketedAllReducer all-reduces many slices of one type with few collectives (one
// per bucket) and keeps its plans, so repeated calls with the same lengths allocate
// nothing in C. One goroutine at a time. Close it (defer r.Close()).
type BucketedAllReducer struct{ h capi.BucketedAllReducer }

// NewBucketedAllReducer packs slices into buckets of at most bucketBytes (0: 25 MiB;
// negative: an InvalidArgument error).
func NewBucketedAllReducer(bucketBytes int64) (*BucketedAllReducer, error) {
	out := []uintptr{0}
	if err := capi.Bucketed_allreducer_create(out, bucketBytes); err != nil {
		return nil, err
	}
	r := &BucketedAllReducer{h: capi.SwigcptrBucketedAllReducer(out[0])}
	runtime.SetFinalizer(r, (*BucketedAllReducer).Close)
	return r, nil
}

func (r *BucketedAllReducer) c() capi.BucketedAllReducer {
	if r == nil || r.h == nil {
		return capi.SwigcptrBucketedAllReducer(0)
	}
	return r.h
}

// Close releases the reducer. Idempotent.
func (r *BucketedAllReducer) Close() {
	if r == nil {
		return
	}
	if h := take(&r.h); h != nil {
		runtime.SetFinalizer(r, nil)
		capi.DeleteBucketedAllReducer(h)
		destroyed("BucketedAllReducer")
	}
}

// BucketStats are a reducer's calls and plans built, and its last call's buckets
// and how many of those went without a copy.
type BucketStats struct {
	Calls          int64 // BucketedAllReduce calls so far
	PlansBuilt     int64 // bucket plans built (one per new list of lengths)
	Buckets        int64 // the last call's buckets
	InPlaceBuckets int64 // of those, the ones reduced without a copy
}

// Stats are the reducer's counters.
func (r *BucketedAllReducer) Stats() (BucketStats, error) {
	calls, plans, buckets, inPlace := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	err := capi.Bucketed_allreducer_get_stats(calls, plans, buckets, inPlace, r.c())
	runtime.KeepAlive(r)
	return BucketStats{calls[0], plans[0], buckets[0], inPlace[0]}, err
}

// BucketedAllReduce sets each buffers[i] to op over the ranks of placement (nil: the
// world) of buffers[i], in place, through r. Collective over the placement.
func BucketedAllReduce[T Element](r *BucketedAllReducer, buffers [][]T, op int32,
	placement *Placement) error {
	if err := Init(); err != nil {
		return err
	}
	addresses := make([]uintptr, len(buffers))
	counts := make([]int64, len(buffers))
	for i, b := range buffers {
		if len(b) > 0 {
			addresses[i] = uintptr(unsafe.Pointer(&b[0]))
		}
		counts[i] = int64(len(b))
	}
	err := capi.Bucketed_allreducer_run(r.c(), addresses, counts, int(dtypeOf[T]()), int(op),
		placement.c())
	runtime.KeepAlive(buffers)
	runtime.KeepAlive(r)
	runtime.KeepAlive(placement)
	return err
}

// SetCollectiveTimeout bounds every collective from now on to seconds (0: no limit),
// existing communicators included. Local; call it with the same value on every rank.
func SetCollectiveTimeout(seconds float64) error { return capi.Comm_set_collective_timeout(seconds) }

// CollectiveTimeout is the process default collective timeout in seconds (0: none).
func CollectiveTimeout() (float64, error) {
	out := []float64{0}
	err := capi.Comm_collective_timeout(out)
	return out[0], err
}
