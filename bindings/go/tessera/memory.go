package tessera

// Host caching allocators' counters.

import "github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"

// Host caching allocators, AllocatorStats's argument.
const (
	// AllocatorHost is the process-wide host caching allocator (plan registers,
	// staging).
	AllocatorHost = int32(capi.ALLOCATOR_HOST)
	// AllocatorHostThread is the calling OS thread's own host caching allocator
	// (eager tensors made on it). A goroutine may move between OS threads: lock it
	// to one (runtime.LockOSThread) to read the allocator its tensors used.
	AllocatorHostThread = int32(capi.ALLOCATOR_HOST_THREAD)
)

// AllocatorCounters are a caching allocator's counters; byte counts are block sizes
// (requests after rounding).
type AllocatorCounters struct {
	BytesInUse      uint64 // handed out and not yet freed
	PeakBytesInUse  uint64 // most BytesInUse so far
	BytesReserved   uint64 // held from the system: in use plus cached
	NumAllocs       uint64 // successful allocations
	NumFrees        uint64 // frees of non-nil pointers
	NumCacheHits    uint64 // allocations served without a system allocation
	NumSystemAllocs uint64 // allocations taken from the system
	NumSystemFrees  uint64 // allocations returned to the system
	NumSegments     uint64 // system allocations held now
}

// AllocatorStats reads the counters of allocator which (AllocatorHost or
// AllocatorHostThread); InvalidArgument, naming it, for another value. Needs no
// runtime (it starts none). Local.
func AllocatorStats(which int32) (AllocatorCounters, error) {
	v := make([][]uint64, 9)
	for i := range v {
		v[i] = []uint64{0}
	}
	err := capi.Allocator_get_stats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], int(which))
	if err != nil {
		return AllocatorCounters{}, err
	}
	return AllocatorCounters{
		BytesInUse: v[0][0], PeakBytesInUse: v[1][0], BytesReserved: v[2][0],
		NumAllocs: v[3][0], NumFrees: v[4][0], NumCacheHits: v[5][0],
		NumSystemAllocs: v[6][0], NumSystemFrees: v[7][0], NumSegments: v[8][0],
	}, nil
}
