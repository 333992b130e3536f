package tessera

// Runtime, versions and the world. The local handles are in placement.go, SBP
// signature inference in infer.go.

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Device types.
const (
	DeviceCPU  = int32(capi.DEVICE_CPU)
	DeviceCUDA = int32(capi.DEVICE_CUDA)
)

// SBP kinds.
const (
	SbpSplit      = int32(capi.SBP_SPLIT)
	SbpBroadcast  = int32(capi.SBP_BROADCAST)
	SbpPartialSum = int32(capi.SBP_PARTIAL_SUM)
	SbpPartialMax = int32(capi.SBP_PARTIAL_MAX)
	SbpPartialMin = int32(capi.SBP_PARTIAL_MIN)
)

// Versions of the header the binding was built from.
const (
	VersionMajor = capi.VERSION_MAJOR
	VersionMinor = capi.VERSION_MINOR
	VersionPatch = capi.VERSION_PATCH
)

// VersionNumber is MAJOR * 10000 + MINOR * 100 + PATCH of the header.
var VersionNumber = capi.VERSION_NUMBER

// started says whether Init succeeded (and Finalize has not run since): the fast path
// of every call that needs the runtime. mu serialises Init and Finalize.
var (
	started atomic.Bool
	mu      sync.Mutex
)

// Init starts the runtime if it is not running: it checks that the loaded
// libtessera.so is the version the binding was built for, then calls tess_runtime_init,
// which initialises MPI (unless the program already did; without mpirun the process
// is a world of one rank). Idempotent and safe from several goroutines. It is
// InitWithOptions(DefaultInitOptions()) once the runtime runs.
//
// Importing the package starts nothing: every function that needs the runtime
// (WorldRank, WorldSize, tensor creation, Box, AllReduce, Capture, Compile, ...)
// calls Init on first use. MPI expects Finalize on the OS thread that initialised
// it, so a program that calls Finalize should call Init first from main with the
// main goroutine locked to its thread (runtime.LockOSThread in an init function).
func Init() error {
	if started.Load() {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if started.Load() {
		return nil
	}
	return start(func() error { return capi.Runtime_init() })
}

// CUDADeviceAuto is InitOptions.CUDADevice's default: each rank drives device
// local rank % visible devices.
const CUDADeviceAuto int32 = -1

// InitOptions are the settings InitWithOptions starts the runtime with. Start from
// DefaultInitOptions and change the fields wanted: the zero value asks for CUDA
// device 0 and collectives that wait forever.
type InitOptions struct {
	// CollectiveTimeout bounds every collective, in seconds, as SetCollectiveTimeout
	// does, set before MPI starts: 0 waits forever. Negative (the default, -1) keeps
	// the process default (the last SetCollectiveTimeout, else the environment's
	// TESSERA_COLLECTIVE_TIMEOUT_S, else 0). NaN or infinite: InvalidArgument.
	CollectiveTimeout float64
	// CUDADevice is the CUDA device this process drives for cuda placements (each
	// rank passes its own): CUDADeviceAuto (-1, the default), or a device >= 0,
	// checked against the visible ones (OutOfRange past them, Unavailable without a
	// GPU, Unimplemented in a library built without CUDA). Below -1:
	// InvalidArgument. Chosen once per process: asking for another device later is
	// FailedPrecondition.
	CUDADevice int32
	// CheckMode turns divergence detection on (1) or off (0), or leaves it to the
	// environment's TESSERA_CHECK (-1, the default; unset: off). On, the ranks of every
	// op, boxing, collective and plan run agree the call first, and ranks that issued
	// different calls all get FailedPrecondition naming the ranks and what differed
	// (docs/reliability.md). Every rank must choose alike. Other values: InvalidArgument.
	CheckMode int32
}

// DefaultInitOptions are the options Init starts the runtime with: the process
// default collective timeout, CUDADeviceAuto and check mode as TESSERA_CHECK says.
func DefaultInitOptions() InitOptions {
	return InitOptions{CollectiveTimeout: -1, CUDADevice: CUDADeviceAuto, CheckMode: -1}
}

// InitWithOptions is Init with options (tess_runtime_init_with_options). Invalid
// options fail with InvalidArgument naming the field and value, and start nothing.
// When the runtime already runs it still checks the options and applies
// CollectiveTimeout. Safe from several goroutines; call it before the first use of
// the runtime (any call that starts it uses DefaultInitOptions), from main with the
// main goroutine locked to its OS thread, as for Init.
func InitWithOptions(options InitOptions) error {
	mu.Lock()
	defer mu.Unlock()
	return start(func() error {
		return capi.Runtime_init_with_options(options.CollectiveTimeout, int(options.CUDADevice),
			int(options.CheckMode))
	})
}

// start checks the library's version, then runs init and records success. mu held.
func start(init func() error) error {
	if v := capi.Version_number(); v != capi.VERSION_NUMBER {
		return &Error{Code: FailedPrecondition, Status: StatusString(FailedPrecondition),
			Message: fmt.Sprintf("tessera: binding built for %d but the library is %s (%d)",
				capi.VERSION_NUMBER, capi.Version(), v)}
	}
	if err := init(); err != nil {
		return err
	}
	started.Store(true)
	return nil
}

// Finalize shuts the runtime down (MPI_Finalize if Init initialised MPI); a no-op
// when it is not running. MPI cannot restart: Init, and so every call that needs the
// runtime, fails with FailedPrecondition afterwards. Call it from the OS thread
// that ran Init, after every other Tessera call.
func Finalize() error {
	mu.Lock()
	defer mu.Unlock()
	started.Store(false)
	return capi.Runtime_finalize()
}

// Version is the loaded library's version, e.g. "0.1.0".
func Version() string { return capi.Version() }

// LibraryVersionNumber is the loaded library's VersionNumber.
func LibraryVersionNumber() int { return capi.Version_number() }

// WorldRank is this process's rank in the world.
func WorldRank() (int32, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	out := []int32{0}
	err := capi.Runtime_world_rank(out)
	return out[0], err
}

// WorldSize is the number of ranks in the world.
func WorldSize() (int32, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	out := []int32{0}
	err := capi.Runtime_world_size(out)
	return out[0], err
}

// Topology is where the ranks sit, as the runtime found it when it started: ranks that
// share memory (MPI_COMM_TYPE_SHARED; on a cluster, the processes of one machine) form
// a host, unless TESSERA_RANKS_PER_HOST made pretend hosts (PretendRanksPerHost, else
// 0). Hosts are numbered by their lowest world rank; local ranks follow world-rank
// order. CudaDevice is the CUDA device this rank drives, -1 for none.
type Topology struct {
	WorldSize           int32 // ranks in the world
	WorldRank           int32 // this rank
	HostCount           int32 // hosts the world spans
	HostIndex           int32 // this rank's host
	LocalRank           int32 // this rank's index among its host's ranks
	LocalSize           int32 // ranks on this rank's host
	MinRanksPerHost     int32 // ranks on the host with the fewest
	MaxRanksPerHost     int32 // ranks on the host with the most
	PretendRanksPerHost int32 // TESSERA_RANKS_PER_HOST when it made the hosts, else 0
	CudaDevice          int32 // the CUDA device this rank drives, -1 for none
}

// GetTopology is this rank's view of the world's hosts. Local: the runtime found it at
// start-up.
func GetTopology() (Topology, error) {
	if err := Init(); err != nil {
		return Topology{}, err
	}
	f := make([][]int32, 10)
	for i := range f {
		f[i] = []int32{0}
	}
	if err := capi.Runtime_topology(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]); err != nil {
		return Topology{}, err
	}
	return Topology{f[0][0], f[1][0], f[2][0], f[3][0], f[4][0], f[5][0], f[6][0], f[7][0], f[8][0], f[9][0]}, nil
}

// RankHost is the host of world rank worldRank and its index there; OutOfRange for a
// rank outside the world. Local.
func RankHost(worldRank int32) (host, localRank int32, err error) {
	if err := Init(); err != nil {
		return 0, 0, err
	}
	h, l := []int32{0}, []int32{0}
	if err := capi.Runtime_rank_host(h, l, int(worldRank)); err != nil {
		return 0, 0, err
	}
	return h[0], l[0], nil
}

// TopologyString is the topology as text, the same on every rank: a line for the
// world, then one per host with its name and ranks (and each rank's GPU, when ranks
// drive one).
func TopologyString() (string, error) {
	if err := Init(); err != nil {
		return "", err
	}
	return capi.Runtime_topology_string(), nil
}

// CudaInfo says whether cuda placements can hold tensors in this process: whether
// the library was built with CUDA (--config=cuda) and how many CUDA devices the
// process sees (0 without a CUDA build or a GPU). Without a CUDA build tensor calls on
// cuda placements fail with Unimplemented, with one but no device with Unavailable.
// Local.
func CudaInfo() (builtWithCUDA bool, deviceCount int32, err error) {
	built, count := []int32{0}, []int32{0}
	if err := capi.Runtime_cuda_info(built, count); err != nil {
		return false, 0, err
	}
	return built[0] != 0, count[0], nil
}
