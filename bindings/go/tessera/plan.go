package tessera

// Plan mode: a Program (built value by value, or recorded by Capture) compiled into a
// Plan, whose PlanInstance allocates its register memory once and reuses it on every
// run. Building and compiling are local; Run, Output and Outputs are collective, like
// the ops they stand for: every rank builds, compiles and runs the same program.

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// Program is a graph of op calls on values numbered 0, 1, ... in the order they are
// added: data inputs, variables and op outputs. One goroutine at a time may change
// it; Close it (defer p.Close()).
type Program struct{ h capi.Program }

func newProgram(handle uintptr) *Program {
	p := &Program{h: capi.SwigcptrProgram(handle)}
	runtime.SetFinalizer(p, (*Program).Close)
	return p
}

func (p *Program) c() capi.Program {
	if p == nil || p.h == nil {
		return capi.SwigcptrProgram(0)
	}
	return p.h
}

// Close destroys the program. Idempotent; plans compiled from it keep their copy.
func (p *Program) Close() {
	if p == nil {
		return
	}
	if h := take(&p.h); h != nil {
		runtime.SetFinalizer(p, nil)
		capi.DeleteProgram(h)
		destroyed("Program")
	}
}

// NewProgram is an empty program.
func NewProgram() (*Program, error) {
	out := []uintptr{0}
	if err := capi.Program_create(out); err != nil {
		return nil, err
	}
	return newProgram(out[0]), nil
}

// AddInput adds a data input (fed at every run) of shape, dtype (e.g. "f32") and
// placement, held as ndSbp (nil: S(0) on every placement axis, B for a 0-d input),
// and returns its value id.
func (p *Program) AddInput(name string, shape []int64, dtype string, placement *Placement,
	ndSbp *NdSbp) (int64, error) {
	d, err := ParseDType(dtype)
	if err != nil {
		return 0, err
	}
	out := []int64{0}
	err = capi.Program_add_input(out, p.c(), name, shape, int(d), placement.c(), ndSbp.c())
	runtime.KeepAlive(p)
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return out[0], err
}

// AddVariable adds a variable: the program keeps value and every run reads it.
// Returns its value id.
func (p *Program) AddVariable(name string, value *Tensor) (int64, error) {
	out := []int64{0}
	err := capi.Program_add_variable(out, p.c(), name, value.c())
	runtime.KeepAlive(p)
	runtime.KeepAlive(value)
	return out[0], err
}

// AddOp appends op applied to the values ids and returns its outputs' ids.
func (p *Program) AddOp(op string, ids ...int64) ([]int64, error) {
	call, err := NewOpCall(op)
	if err != nil {
		return nil, err
	}
	defer call.Close()
	return p.AddOpCall(call, ids...)
}

// AddOpCall appends call (its attributes and constraints; no AddInput) applied to
// the values ids. The op is inferred at once, so a bad call fails here. Returns its
// outputs' ids.
func (p *Program) AddOpCall(call *OpCall, ids ...int64) ([]int64, error) {
	first, count := []int64{0}, []int64{0}
	err := capi.Program_add_op(first, count, p.c(), call.c(), ids)
	runtime.KeepAlive(p)
	runtime.KeepAlive(call)
	if err != nil {
		return nil, err
	}
	outputs := make([]int64, count[0])
	for i := range outputs {
		outputs[i] = first[0] + int64(i)
	}
	return outputs, nil
}

// MarkOutput makes value id the program's next output.
func (p *Program) MarkOutput(id int64) error {
	err := capi.Program_mark_output(p.c(), id)
	runtime.KeepAlive(p)
	return err
}

// ProgramSizes are a program's counts of values, ops, data inputs and outputs.
type ProgramSizes struct {
	Values  int64 // values: data inputs, variables and op outputs
	Ops     int64 // op calls
	Inputs  int64 // data inputs
	Outputs int64 // marked outputs
}

// Sizes counts the program's values, ops, data inputs and outputs.
func (p *Program) Sizes() (ProgramSizes, error) {
	values, ops, inputs, outputs := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	err := capi.Program_sizes(values, ops, inputs, outputs, p.c())
	runtime.KeepAlive(p)
	return ProgramSizes{values[0], ops[0], inputs[0], outputs[0]}, err
}

// String is the graph, one line per value and op ("%3 = matmul(%0, %1) {} -> ..."),
// then the outputs ("" once closed).
func (p *Program) String() string {
	s := capi.Program_string(p.c())
	runtime.KeepAlive(p)
	return s
}

// Compile is Compile(p, inputRegisterNum).
func (p *Program) Compile(inputRegisterNum int32) (*Plan, error) {
	return Compile(p, inputRegisterNum)
}

// --- Capture -------------------------------------------------------------------------

// Capturer makes the placeholders of the capture it was handed to.
type Capturer struct{ active bool }

// Capture records a program: record runs with a capture active on its goroutine's OS
// thread (locked to it meanwhile), so that every op there with a placeholder input
// is recorded and returns a placeholder (metadata, no data); a real tensor such an
// op uses becomes a variable; ops on real tensors alone run as usual. The program's
// outputs are the placeholders record returns. When record returns an error or
// panics, the capture is aborted and the error or panic passes on. One capture per
// thread: Capture inside record fails with FailedPrecondition. Local: every rank
// captures the same calls.
func Capture(record func(c *Capturer) ([]*Tensor, error)) (*Program, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	// The capture lives on the OS thread; keep this goroutine there, and others off.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := capi.Capture_begin(); err != nil {
		return nil, err
	}
	c := &Capturer{active: true}
	ended := false
	defer func() {
		c.active = false
		if !ended {
			capi.Capture_abort()
		}
	}()
	outputs, err := record(c)
	if err != nil {
		return nil, err
	}
	handles := make([]uintptr, len(outputs))
	for i, t := range outputs {
		handles[i] = t.c().Swigcptr()
	}
	out := []uintptr{0}
	ended = true // the C API ends the capture whether or not this succeeds
	err = capi.Capture_end(out, handles)
	runtime.KeepAlive(outputs)
	if err != nil {
		return nil, err
	}
	return newProgram(out[0]), nil
}

// Capturing reports whether a capture is active on the calling OS thread (inside
// Capture's record, true).
func Capturing() (bool, error) {
	out := []int32{0}
	err := capi.Capture_active(out)
	return out[0] != 0, err
}

// Placeholder adds a data input of the program being captured (AddInput's
// arguments) and returns it as a placeholder tensor. Call it from record's
// goroutine: FailedPrecondition elsewhere, and once the capture has ended.
func (c *Capturer) Placeholder(name string, shape []int64, dtype string, placement *Placement,
	ndSbp *NdSbp) (*Tensor, error) {
	// The C API acts on the calling thread's capture: a Capturer kept past its
	// capture must not reach a later one. With no capture active the C API reports
	// the misuse itself.
	if c == nil || !c.active {
		if on, err := Capturing(); err == nil && on {
			return nil, &Error{Code: FailedPrecondition, Status: StatusString(FailedPrecondition),
				Message: "Capturer.Placeholder: this capture has ended, and another capture is " +
					"active on this thread"}
		}
	}
	d, err := ParseDType(dtype)
	if err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err = capi.Capture_placeholder(out, name, shape, int(d), placement.c(), ndSbp.c())
	runtime.KeepAlive(placement)
	runtime.KeepAlive(ndSbp)
	return made(out, err)
}

// --- Plan ----------------------------------------------------------------------------

// Plan is a compiled program: this rank's steps (kernels and explicit boxing) and its
// register memory, packed with reuse. Immutable; any number of instances may be made
// from it.
type Plan struct{ h capi.Plan }

func (p *Plan) c() capi.Plan {
	if p == nil || p.h == nil {
		return capi.SwigcptrPlan(0)
	}
	return p.h
}

// Close destroys the plan. Idempotent; its instances keep what they need.
func (p *Plan) Close() {
	if p == nil {
		return
	}
	if h := take(&p.h); h != nil {
		runtime.SetFinalizer(p, nil)
		capi.DeletePlan(h)
		destroyed("Plan")
	}
}

// Compile compiles program for this rank. inputRegisterNum: copies of each data
// input's register (0 means 1; tess_plan_compile gives the range). Local.
func Compile(program *Program, inputRegisterNum int32) (*Plan, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Plan_compile(out, program.c(), int(inputRegisterNum))
	runtime.KeepAlive(program)
	if err != nil {
		return nil, err
	}
	p := &Plan{h: capi.SwigcptrPlan(out[0])}
	runtime.SetFinalizer(p, (*Plan).Close)
	return p, nil
}

// String is the program, the steps ("3: box %1 S(1) -> B into r4") and the memory
// table ("" once closed).
func (p *Plan) String() string {
	s := capi.Plan_string(p.c())
	runtime.KeepAlive(p)
	return s
}

// Instantiate makes a runnable instance: its register memory is allocated once, here.
func (p *Plan) Instantiate() (*PlanInstance, error) {
	out := []uintptr{0}
	err := capi.Plan_instantiate(out, p.c())
	runtime.KeepAlive(p)
	if err != nil {
		return nil, err
	}
	i := &PlanInstance{h: capi.SwigcptrPlanInstance(out[0])}
	runtime.SetFinalizer(i, (*PlanInstance).Close)
	return i, nil
}

// PlanInstance runs a plan in its own register memory. One goroutine at a time.
type PlanInstance struct{ h capi.PlanInstance }

func (i *PlanInstance) c() capi.PlanInstance {
	if i == nil || i.h == nil {
		return capi.SwigcptrPlanInstance(0)
	}
	return i.h
}

// Close destroys the instance and its register memory. Idempotent.
func (i *PlanInstance) Close() {
	if i == nil {
		return
	}
	if h := take(&i.h); h != nil {
		runtime.SetFinalizer(i, nil)
		capi.DeletePlanInstance(h)
		destroyed("PlanInstance")
	}
}

// Run runs the plan on inputs (the program's data inputs, in order; a different
// nd-sbp is boxed in). The outputs stay in the instance until the next run.
// Collective.
func (i *PlanInstance) Run(inputs ...*Tensor) error {
	handles := make([]uintptr, len(inputs))
	for k, t := range inputs {
		handles[k] = t.c().Swigcptr()
	}
	err := capi.Plan_instance_run(i.c(), handles)
	runtime.KeepAlive(i)
	runtime.KeepAlive(inputs)
	return err
}

// runLocal runs the plan on views, this rank's pieces as bytes (nil: none).
func (i *PlanInstance) runLocal(views [][]byte) error {
	pairs := make([][2]uintptr, len(views))
	for k, v := range views {
		if len(v) > 0 {
			pairs[k] = [2]uintptr{uintptr(unsafe.Pointer(&v[0])), uintptr(len(v))}
		}
	}
	err := capi.Plan_instance_run_local(i.c(), pairs)
	// Also makes the pieces escape to the heap, which does not move under C.
	runtime.KeepAlive(views)
	runtime.KeepAlive(i)
	return err
}

// RunLocal runs the plan on this rank's pieces of its inputs, all of element type T:
// locals[k] holds input k's piece in its declared nd-sbp (row-major), exactly the
// piece's length (nil on a rank the input's placement lacks). Nothing is boxed or
// copied into tensors. Collective, like Run.
func RunLocal[T Element](i *PlanInstance, locals ...[]T) error {
	views := make([][]byte, len(locals))
	for k, l := range locals {
		views[k] = bytesOf(l)
	}
	return i.runLocal(views)
}

// RunLocalMixed is RunLocal for inputs of several element types: each of locals is a
// []float32, []float64, []int32 or []int64 (the input's type) or nil.
func (i *PlanInstance) RunLocalMixed(locals ...any) error {
	views := make([][]byte, len(locals))
	for k, l := range locals {
		switch v := l.(type) {
		case nil:
		case []float32:
			views[k] = bytesOf(v)
		case []float64:
			views[k] = bytesOf(v)
		case []int32:
			views[k] = bytesOf(v)
		case []int64:
			views[k] = bytesOf(v)
		default:
			return invalid("PlanInstance.RunLocalMixed: locals[%d] is a %T, not a []float32, "+
				"[]float64, []int32 or []int64", k, l)
		}
	}
	return i.runLocal(views)
}

// Push copies one input set into the next free slot of a plan compiled with
// inputRegisterNum >= 2, waiting up to timeout seconds (negative: forever; 0: only
// try) while every slot is full. One goroutine may push while another calls
// RunPushed. An input in another nd-sbp is boxed (collective), which first waits
// until every earlier set has run. DeadlineExceeded when the wait times out,
// Cancelled after ClosePipeline.
func (i *PlanInstance) Push(timeout float64, inputs ...*Tensor) error {
	handles := make([]uintptr, len(inputs))
	for k, t := range inputs {
		handles[k] = t.c().Swigcptr()
	}
	err := capi.Plan_instance_push(i.c(), handles, timeout)
	runtime.KeepAlive(i)
	runtime.KeepAlive(inputs)
	return err
}

// RunPushed runs the plan on the oldest pushed set, waiting up to timeout seconds
// (negative: forever) for one; the outputs then read as after Run. DeadlineExceeded
// when nothing was pushed in time. Collective.
func (i *PlanInstance) RunPushed(timeout float64) error {
	err := capi.Plan_instance_run_pushed(i.c(), timeout)
	runtime.KeepAlive(i)
	return err
}

// ClosePipeline wakes every waiting Push and RunPushed with Cancelled and makes
// later ones fail the same way; the instance stays readable. Any goroutine.
func (i *PlanInstance) ClosePipeline() error {
	err := capi.Plan_instance_close(i.c())
	runtime.KeepAlive(i)
	return err
}

// NumOutputs is the number of the program's outputs.
func (i *PlanInstance) NumOutputs() (int64, error) {
	out := []int64{0}
	err := capi.Plan_instance_num_outputs(out, i.c())
	runtime.KeepAlive(i)
	return out[0], err
}

// checkIndex names a negative index, which size_t would turn into a huge one.
func checkIndex(function string, index int64) error {
	if index < 0 {
		return &Error{Code: OutOfRange, Status: StatusString(OutOfRange),
			Message: fmt.Sprintf("PlanInstance.%s: output index %d is negative", function, index)}
	}
	return nil
}

// Output is output index of the last run as a new tensor (a copy). Collective.
func (i *PlanInstance) Output(index int64) (*Tensor, error) {
	if err := checkIndex("Output", index); err != nil {
		return nil, err
	}
	out := []uintptr{0}
	err := capi.Plan_instance_output(out, i.c(), index)
	runtime.KeepAlive(i)
	return made(out, err)
}

// Outputs is every output of the last run as new tensors. Collective.
func (i *PlanInstance) Outputs() ([]*Tensor, error) {
	n, err := i.NumOutputs()
	if err != nil {
		return nil, err
	}
	outputs := make([]*Tensor, n)
	for k := range outputs {
		if outputs[k], err = i.Output(int64(k)); err != nil {
			for _, t := range outputs[:k] {
				t.Close()
			}
			return nil, err
		}
	}
	return outputs, nil
}

func (i *PlanInstance) dtype(function string, index int64) (int32, error) {
	if err := checkIndex(function, index); err != nil {
		return 0, err
	}
	out := []int32{0}
	err := capi.Plan_instance_output_dtype(out, i.c(), index)
	runtime.KeepAlive(i)
	return out[0], err
}

// OutputDType is output index's dtype name, e.g. "f32".
func (i *PlanInstance) OutputDType(index int64) (string, error) {
	d, err := i.dtype("OutputDType", index)
	return DTypeName(d), err
}

// OutputLocalShape is the shape of this rank's piece of output index;
// FailedPrecondition on a rank the output's placement lacks.
func (i *PlanInstance) OutputLocalShape(index int64) ([]int64, error) {
	if err := checkIndex("OutputLocalShape", index); err != nil {
		return nil, err
	}
	var shape []int64
	err := capi.Plan_instance_output_local_shape(&shape, i.c(), index)
	runtime.KeepAlive(i)
	if err != nil {
		return nil, err
	}
	return shape, nil
}

// OutputLocalNumElements is the element count of this rank's piece of output index
// (0 on a rank the output's placement lacks).
func (i *PlanInstance) OutputLocalNumElements(index int64) (int64, error) {
	if err := checkIndex("OutputLocalNumElements", index); err != nil {
		return 0, err
	}
	out := []int64{0}
	err := capi.Plan_instance_output_local_num_elements(out, i.c(), index)
	runtime.KeepAlive(i)
	return out[0], err
}

// OutputLocalInto copies this rank's piece of output index (row-major) into out,
// allocating nothing; T must be the output's element type and out at least the
// piece's length. Local.
func OutputLocalInto[T Element](i *PlanInstance, index int64, out []T) error {
	have, err := i.dtype("OutputLocalInto", index)
	if err != nil {
		return err
	}
	if want := dtypeOf[T](); have != want {
		return invalid("OutputLocalInto: output #%d is %s, not %s", index, DTypeName(have),
			DTypeName(want))
	}
	err = capi.Plan_instance_output_local(bytesOf(out), i.c(), index)
	runtime.KeepAlive(i)
	return err
}

// OutputLocal is a copy of this rank's piece of output index as a []T. Local.
func OutputLocal[T Element](i *PlanInstance, index int64) ([]T, error) {
	n, err := i.OutputLocalNumElements(index)
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	if err := OutputLocalInto(i, index, out); err != nil {
		return nil, err
	}
	return out, nil
}

// MemCaseStats is one memory case's register memory.
type MemCaseStats struct {
	Name         string // "cpu", "cuda:0"
	BlockBytes   int64  // the packed block
	LowerBound   int64  // the most bytes live at one step: no packing does better
	NoReuseBytes int64  // the bytes without reuse
}

// PlanStats are an instance's counters.
type PlanStats struct {
	Registers              int64          // registers in the instance's memory
	Steps                  int64          // this rank's steps: kernels and boxing
	BoxingSteps            int64          // of those, explicit boxing steps
	Runs                   int64          // runs so far
	AllocatorCallsLastRun  int64          // host caching allocator calls: 0 once warm
	HeapAllocationsLastRun int64          // on the calling thread; -1: not counted
	CudaGraphs             int64          // CUDA graphs captured: per input slot and stretch of kernels between boxing steps (cuda placements)
	CudaGraphLaunches      int64          // launches of those graphs
	MemCases               []MemCaseStats // register memory per memory case
}

// Stats reads the instance's counters.
func (i *PlanInstance) Stats() (PlanStats, error) {
	defer runtime.KeepAlive(i)
	var s PlanStats
	registers, steps, boxing, runs := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	calls, heap, graphs, launches := []int64{0}, []int64{0}, []int64{0}, []int64{0}
	if err := capi.Plan_instance_get_stats(registers, steps, boxing, runs, calls, heap, graphs,
		launches, i.c()); err != nil {
		return s, err
	}
	s.Registers, s.Steps, s.BoxingSteps, s.Runs = registers[0], steps[0], boxing[0], runs[0]
	s.AllocatorCallsLastRun, s.HeapAllocationsLastRun = calls[0], heap[0]
	s.CudaGraphs, s.CudaGraphLaunches = graphs[0], launches[0]
	n := []int64{0}
	if err := capi.Plan_instance_num_mem_cases(n, i.c()); err != nil {
		return s, err
	}
	s.MemCases = make([]MemCaseStats, n[0])
	for k := range s.MemCases {
		block, lower, noReuse := []int64{0}, []int64{0}, []int64{0}
		if err := capi.Plan_instance_mem_case_bytes(block, lower, noReuse, i.c(), int64(k)); err != nil {
			return s, err
		}
		s.MemCases[k] = MemCaseStats{capi.Plan_instance_mem_case_name(i.c(), int64(k)), block[0], lower[0],
			noReuse[0]}
	}
	return s, nil
}

// String is e.g. "PlanInstance(1 outputs, 3 runs)"; "PlanInstance(closed)" once closed.
func (i *PlanInstance) String() string {
	if i == nil || i.h == nil {
		return "PlanInstance(closed)"
	}
	s, _ := i.Stats()
	n := []int64{0}
	capi.Plan_instance_num_outputs(n, i.c())
	runtime.KeepAlive(i)
	return fmt.Sprintf("PlanInstance(%d outputs, %d runs)", n[0], s.Runs)
}
