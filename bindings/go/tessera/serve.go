package tessera

// Serving (tessera/serve.h): one rank, the driver, takes requests from any number of
// goroutines; every other rank follows, running in lockstep what the driver issues.
//
//	every rank:  build and Compile the plan, NewServer, AddPlan
//	driver:      goroutines: NewRequest, SetInput, server.Run(request), Output
//	             at the end: Stop
//	followers:   Follow (returns once the driver stops)
//	every rank:  Close the requests, then the server; Finalize
//
// Inputs are copied into the request by SetInput and outputs out of it by Output:
// the C side keeps no Go memory.

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// ServerOptions are NewServer's settings; the zero value is the default.
type ServerOptions struct {
	// DriverRank is the world rank that takes requests (0 by default); every other
	// rank follows.
	DriverRank int32
	// FollowerTimeoutSeconds bounds how long the driver waits for followers to take
	// a command or answer a health check before it declares the server unavailable:
	// > 0, at most 1e6; 0 means the collective timeout when one is set, else 30.
	FollowerTimeoutSeconds float64
	// FollowerPollMaxUs is the longest pause between a waiting follower's polls, in
	// microseconds: 1 to 100000; 0 means 500.
	FollowerPollMaxUs int64
}

// ServePlanOptions are AddPlan's settings; the zero value is the default.
type ServePlanOptions struct {
	// Batching lets requests of the plan share runs (concatenated along axis 0).
	Batching bool
	// MaxBatchRows is the most rows one request, or one batch, may hold: 1 to the
	// plan's capacity (its inputs' dim 0); 0 means the capacity.
	MaxBatchRows int64
	// MaxQueueDelayUs is how long, with batching, the oldest waiting request may
	// wait for others to fill its batch, in microseconds (0 to 10000000).
	MaxQueueDelayUs int64
	// MaxQueuedRequests is the most requests of the plan that may wait (0 means
	// 4096, at most 1000000); a request beyond it fails with ResourceExhausted.
	MaxQueuedRequests int64
}

// ServePlanInfo is what a served plan takes and gives, its options resolved.
type ServePlanInfo struct {
	NumInputs         int64 // data inputs
	NumOutputs        int64 // outputs
	CapacityRows      int64 // the plan's dim 0
	MaxBatchRows      int64 // the option, resolved
	MaxQueueDelayUs   int64 // the option
	MaxQueuedRequests int64 // the option, resolved
	Batching          bool  // the option
}

// ServerStats are a server's counters.
type ServerStats struct {
	Requests       int64 // Run calls that were queued
	FailedRequests int64 // those answered with an error (and calls refused)
	Runs           int64 // plan runs (batches)
	Rows           int64 // request rows served
	QueuedRequests int64 // waiting now
	HealthChecks   int64 // answered by every follower
	Available      bool  // false once the server has failed
	Stopped        bool  // true once stopped (driver) or released (follower)
	// Heap allocations of the last batch on the thread that ran it; -1: not counted
	// (libtessera.so does not count; tests linking Tessera statically do).
	HeapAllocationsLastBatch int64
}

// ServeRequestInfo is how a request's last run went.
type ServeRequestInfo struct {
	BatchRows     int64   // rows of the batch that served it
	BatchRequests int64   // requests in that batch
	QueueSeconds  float64 // from Run to the batch's start
	RunSeconds    float64 // the batch: boxing in, the plan, gathering out
}

// Server serves compiled plans across the world: the driver's Run queues requests
// for a dispatcher that issues every rank's work in one order. Run, CheckHealth,
// Stats and the plan queries are safe from any number of goroutines at once;
// NewServer, AddPlan, Follow, Stop and Close belong to one goroutine. Close it after
// every other call on it has returned (defer s.Close()).
type Server struct {
	h      capi.Server
	closed atomic.Bool
	// mu guards open and the native destroy: the server is destroyed once it is
	// closed and its last request is.
	mu   sync.Mutex
	open int
}

func (s *Server) c() capi.Server {
	if s == nil || s.closed.Load() || s.h == nil {
		return capi.SwigcptrServer(0)
	}
	return s.h
}

// NewServer makes a server over every rank of the world, starting the runtime if it
// is not running. Collective: every rank calls it, in the same order relative to its
// other NewServer calls.
func NewServer(options ServerOptions) (*Server, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Server_create(out, int(options.DriverRank), options.FollowerTimeoutSeconds,
		options.FollowerPollMaxUs)
	if err != nil {
		return nil, err
	}
	s := &Server{h: capi.SwigcptrServer(out[0])}
	runtime.SetFinalizer(s, (*Server).Close)
	return s, nil
}

// Close stops the server on the driver (queued requests are answered, the followers
// released) and destroys it once its requests are closed too. Idempotent; calls
// on a closed server fail with InvalidArgument.
func (s *Server) Close() {
	if s == nil || s.closed.Swap(true) {
		return
	}
	runtime.SetFinalizer(s, nil)
	if isDriver := []int32{0}; capi.Server_is_driver(isDriver, s.h) == nil && isDriver[0] != 0 {
		_ = capi.Server_stop(s.h) // idempotent; its error is the server's state, reported by Run
	}
	s.release(0)
}

// release forgets `requests` closed requests and destroys the server once it is
// closed and none is left.
func (s *Server) release(requests int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open -= requests
	if s.open == 0 && s.closed.Load() && s.h != nil {
		capi.DeleteServer(s.h)
		s.h = nil
		destroyed("Server")
	}
}

// planID converts a plan id for the C API, which takes an int32.
func planID(function string, id int) (int, error) {
	if id < math.MinInt32 || id > math.MaxInt32 {
		return 0, &Error{Code: OutOfRange, Status: StatusString(OutOfRange),
			Message: fmt.Sprintf("%s: plan id %d is out of range", function, id)}
	}
	return id, nil
}

// serveIndex names a negative input or output index, which size_t would turn into a
// huge one.
func serveIndex(function, what string, index int) error {
	if index < 0 {
		return &Error{Code: OutOfRange, Status: StatusString(OutOfRange),
			Message: fmt.Sprintf("%s: %s index %d is negative", function, what, index)}
	}
	return nil
}

// IsDriver reports whether this rank drives (takes requests). Local.
func (s *Server) IsDriver() (bool, error) {
	out := []int32{0}
	err := capi.Server_is_driver(out, s.c())
	runtime.KeepAlive(s)
	return out[0] != 0, err
}

// AddPlan makes plan servable and returns its plan id (0, 1, ... in the order added).
// Every rank adds the plans it compiled from the same program, in the same order; the
// plan's data inputs and outputs must all be batched along axis 0 with one size, the
// capacity. The server keeps what it needs of the plan. Local. FailedPrecondition
// once the server follows, serves or has stopped.
func (s *Server) AddPlan(plan *Plan, options ServePlanOptions) (int, error) {
	batching := 0
	if options.Batching {
		batching = 1
	}
	out := []int32{0}
	err := capi.Server_add_plan(out, s.c(), plan.c(), batching, options.MaxBatchRows,
		options.MaxQueueDelayUs, options.MaxQueuedRequests)
	runtime.KeepAlive(s)
	runtime.KeepAlive(plan)
	return int(out[0]), err
}

// NumPlans is the number of plans added.
func (s *Server) NumPlans() (int, error) {
	out := []int32{0}
	err := capi.Server_num_plans(out, s.c())
	runtime.KeepAlive(s)
	return int(out[0]), err
}

// PlanInfo is what plan id takes and gives, and its options resolved. OutOfRange for
// an unknown id.
func (s *Server) PlanInfo(id int) (ServePlanInfo, error) {
	var info ServePlanInfo
	id, err := planID("Server.PlanInfo", id)
	if err != nil {
		return info, err
	}
	inputs, outputs, capacity, maxRows := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	delay, queued, batching := []int64{0}, []int64{0}, []int32{0}
	err = capi.Server_get_plan_info(inputs, outputs, capacity, maxRows, delay, queued, batching,
		s.c(), id)
	runtime.KeepAlive(s)
	if err != nil {
		return info, err
	}
	return ServePlanInfo{NumInputs: inputs[0], NumOutputs: outputs[0], CapacityRows: capacity[0],
		MaxBatchRows: maxRows[0], MaxQueueDelayUs: delay[0], MaxQueuedRequests: queued[0],
		Batching: batching[0] != 0}, nil
}

// planQuery runs one of the per-input or per-output queries of plan id.
func planQuery[T int64 | int32](s *Server, function, what string, id, index int,
	query func([]T, capi.Server, int, int64) error) (T, error) {
	id, err := planID(function, id)
	if err == nil {
		err = serveIndex(function, what, index)
	}
	if err != nil {
		return 0, err
	}
	out := []T{0}
	err = query(out, s.c(), id, int64(index))
	runtime.KeepAlive(s)
	return out[0], err
}

// InputWidth is the elements per row (the product of dims 1..) of input index of
// plan id.
func (s *Server) InputWidth(id, index int) (int64, error) {
	return planQuery(s, "Server.InputWidth", "input", id, index, capi.Server_plan_input_width)
}

// OutputWidth is the elements per row of output index of plan id.
func (s *Server) OutputWidth(id, index int) (int64, error) {
	return planQuery(s, "Server.OutputWidth", "output", id, index, capi.Server_plan_output_width)
}

// InputDType is the dtype name ("f32", ...) of input index of plan id.
func (s *Server) InputDType(id, index int) (string, error) {
	d, err := planQuery(s, "Server.InputDType", "input", id, index, capi.Server_plan_input_dtype)
	if err != nil {
		return "", err
	}
	return DTypeName(d), nil
}

// OutputDType is the dtype name of output index of plan id.
func (s *Server) OutputDType(id, index int) (string, error) {
	d, err := planQuery(s, "Server.OutputDType", "output", id, index, capi.Server_plan_output_dtype)
	if err != nil {
		return "", err
	}
	return DTypeName(d), nil
}

// Follow runs, on a follower, what the driver issues until the driver stops the
// server; then it returns nil. Blocks (its goroutine holds an OS thread meanwhile).
// FailedPrecondition on the driver or when called twice.
func (s *Server) Follow() error {
	err := capi.Server_follow(s.c())
	runtime.KeepAlive(s)
	return err
}

// Stop, on the driver, stops taking requests (Run fails with Cancelled from now on),
// answers those already queued and releases the followers. Idempotent.
// FailedPrecondition on a follower.
func (s *Server) Stop() error {
	err := capi.Server_stop(s.c())
	runtime.KeepAlive(s)
	return err
}

// CheckHealth, on the driver, asks every follower to answer within timeoutSeconds
// (> 0, at most 1e6). nil when all answered; Unavailable once the server has failed,
// DeadlineExceeded when the time passed first, Cancelled once stopped,
// FailedPrecondition on a follower.
func (s *Server) CheckHealth(timeoutSeconds float64) error {
	err := capi.Server_check_health(s.c(), timeoutSeconds)
	runtime.KeepAlive(s)
	return err
}

// Stats reads the server's counters.
func (s *Server) Stats() (ServerStats, error) {
	requests, failed, runs, rows := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	queued, checks, available, stopped := []int64{0}, []int64{0}, []int32{0}, []int32{0}
	heap := []int64{0}
	err := capi.Server_get_stats(requests, failed, runs, rows, queued, checks, available, stopped,
		heap, s.c())
	runtime.KeepAlive(s)
	if err != nil {
		return ServerStats{}, err
	}
	return ServerStats{Requests: requests[0], FailedRequests: failed[0], Runs: runs[0],
		Rows: rows[0], QueuedRequests: queued[0], HealthChecks: checks[0],
		Available: available[0] != 0, Stopped: stopped[0] != 0,
		HeapAllocationsLastBatch: heap[0]}, nil
}

// ServeRequest holds the rows of one call of one plan and, after Server.Run, its
// answer. Reusable: set new inputs and run again. One goroutine at a time uses it;
// Close it (defer r.Close()).
type ServeRequest struct {
	h      capi.ServeRequest
	server *Server // kept alive, and destroyed only after this request
	plan   int     // its plan id
}

func (r *ServeRequest) c() capi.ServeRequest {
	if r == nil || r.h == nil {
		return capi.SwigcptrServeRequest(0)
	}
	return r.h
}

// NewRequest makes a request for plan id (on any rank; only the driver can Run it).
// OutOfRange for an unknown id. Local.
func (s *Server) NewRequest(id int) (*ServeRequest, error) {
	id, err := planID("Server.NewRequest", id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock() // a request counts before the server may be destroyed under it
	defer s.mu.Unlock()
	out := []uintptr{0}
	if err := capi.Serve_request_create(out, s.c(), id); err != nil {
		return nil, err
	}
	s.open++
	r := &ServeRequest{h: capi.SwigcptrServeRequest(out[0]), server: s, plan: id}
	runtime.SetFinalizer(r, (*ServeRequest).Close)
	return r, nil
}

// Close destroys the request (and its server, when that is closed and this was its
// last request). Idempotent.
func (r *ServeRequest) Close() {
	if r == nil {
		return
	}
	if h := take(&r.h); h != nil {
		runtime.SetFinalizer(r, nil)
		capi.DeleteServeRequest(h)
		destroyed("ServeRequest")
		r.server.release(1)
	}
}

// SetInput copies input index's rows: row-major elements of the input's dtype, a
// whole number of rows, 1 to the plan's MaxBatchRows of them. Every input of a
// request holds the same number of rows. InvalidArgument naming the index and the
// sizes otherwise; OutOfRange for a bad index.
func (r *ServeRequest) SetInput(index int, rows []byte) error {
	if err := serveIndex("ServeRequest.SetInput", "input", index); err != nil {
		return err
	}
	err := capi.Serve_request_set_input(r.c(), int64(index), rows)
	runtime.KeepAlive(r)
	return err
}

// checkF32 fails unless input or output index of the request's plan is f32.
func (r *ServeRequest) checkF32(function, what string, index int) error {
	query := r.server.InputDType
	if what == "output" {
		query = r.server.OutputDType
	}
	d, err := query(r.plan, index)
	if err != nil {
		return err
	}
	if d != "f32" {
		return invalid("%s: %s %d of plan %d is %s, not f32", function, what, index, r.plan, d)
	}
	return nil
}

// SetInputFloat32 is SetInput for an f32 input (InvalidArgument for another dtype).
func (r *ServeRequest) SetInputFloat32(index int, rows []float32) error {
	if err := r.checkF32("ServeRequest.SetInputFloat32", "input", index); err != nil {
		return err
	}
	return r.SetInput(index, bytesOf(rows))
}

// Rows is the number of rows of input 0 as last set (0 before).
func (r *ServeRequest) Rows() (int64, error) {
	out := []int64{0}
	err := capi.Serve_request_rows(out, r.c())
	runtime.KeepAlive(r)
	return out[0], err
}

// Run queues request and blocks until it is answered: its outputs then hold one row
// per input row. Safe from any number of goroutines, each with its own request.
// InvalidArgument for an input never set or a request of another server;
// ResourceExhausted when the plan's queue is full; Cancelled after Stop; Unavailable
// once the server has failed; FailedPrecondition on a follower.
func (s *Server) Run(request *ServeRequest) error {
	err := capi.Server_run(s.c(), request.c())
	runtime.KeepAlive(s)
	runtime.KeepAlive(request)
	return err
}

// OutputBytes is the byte size of output index of the last successful run (rows x
// width x element size). FailedPrecondition before one.
func (r *ServeRequest) OutputBytes(index int) (int64, error) {
	if err := serveIndex("ServeRequest.OutputBytes", "output", index); err != nil {
		return 0, err
	}
	out := []int64{0}
	err := capi.Serve_request_output_bytes(out, r.c(), int64(index))
	runtime.KeepAlive(r)
	return out[0], err
}

// OutputInto copies output index (row-major) into out, which must hold at least
// OutputBytes(index) bytes (InvalidArgument naming both otherwise), and returns the
// bytes written.
func (r *ServeRequest) OutputInto(index int, out []byte) (int, error) {
	n, err := r.OutputBytes(index)
	if err != nil {
		return 0, err
	}
	err = capi.Serve_request_output(out, r.c(), int64(index))
	runtime.KeepAlive(r)
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// Output is a copy of output index of the last successful run, as bytes.
func (r *ServeRequest) Output(index int) ([]byte, error) {
	n, err := r.OutputBytes(index)
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if _, err := r.OutputInto(index, out); err != nil {
		return nil, err
	}
	return out, nil
}

// OutputFloat32 is a copy of output index, an f32 output, as float32s
// (InvalidArgument for another dtype).
func (r *ServeRequest) OutputFloat32(index int) ([]float32, error) {
	if err := r.checkF32("ServeRequest.OutputFloat32", "output", index); err != nil {
		return nil, err
	}
	n, err := r.OutputBytes(index)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n/4)
	if _, err := r.OutputInto(index, bytesOf(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// Info is how the last run went. FailedPrecondition before a successful run.
func (r *ServeRequest) Info() (ServeRequestInfo, error) {
	rows, requests, queue, run := []int64{0}, []int64{0}, []float64{0}, []float64{0}
	err := capi.Serve_request_get_info(rows, requests, queue, run, r.c())
	runtime.KeepAlive(r)
	if err != nil {
		return ServeRequestInfo{}, err
	}
	return ServeRequestInfo{BatchRows: rows[0], BatchRequests: requests[0], QueueSeconds: queue[0],
		RunSeconds: run[0]}, nil
}
