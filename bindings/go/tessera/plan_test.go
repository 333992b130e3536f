package tessera

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// Plan mode in a world of one rank: Program, Capture, Plan and PlanInstance on a small
// program with two outputs, then every wrapper's bad inputs, which must come back as
// *Error with the C API's code and message. (The MLP runs in mpi_plan_test.go, on
// 1-4 ranks.)

var (
	planShape = []int64{2, 3}
	planX     = []float64{-1.5, 2, 0.5, 3, -4, 1}
	planI     = []int64{7, -7, 9, 1 << 40, -3, 0}
)

func TestPlanTwoOutputs(t *testing.T) {
	f := newFixture(t)
	prog := must(NewProgram())
	defer prog.Close()
	x := must(prog.AddInput("x", planShape, "f64", f.p, nil))
	i := must(prog.AddInput("i", planShape, "i64", f.p, f.b))
	if x != 0 || i != 1 {
		t.Errorf("input ids %d, %d", x, i)
	}
	relu := must(prog.AddOp("relu", x))
	add := must(NewOpCall("add"))
	defer add.Close()
	sum := must(prog.AddOpCall(add, i, i))
	if !reflect.DeepEqual(relu, []int64{2}) || !reflect.DeepEqual(sum, []int64{3}) {
		t.Errorf("op output ids %v, %v", relu, sum)
	}
	for _, id := range []int64{relu[0], sum[0]} {
		if err := prog.MarkOutput(id); err != nil {
			t.Fatal(err)
		}
	}
	if s := must(prog.Sizes()); s != (ProgramSizes{Values: 4, Ops: 2, Inputs: 2, Outputs: 2}) {
		t.Errorf("Sizes() = %+v", s)
	}
	text := prog.String()
	for _, line := range []string{`%0 = input "x" [2,3] f64 cpu:[0] S(0)`, "%3 = add(%1, %1)",
		"outputs: %2, %3"} {
		if !strings.Contains(text, line) {
			t.Errorf("program text lacks %q:\n%s", line, text)
		}
	}

	plan := must(Compile(prog, 0))
	if !strings.Contains(plan.String(), "kernel relu") {
		t.Errorf("plan text:\n%s", plan)
	}
	inst := must(plan.Instantiate())
	defer inst.Close()
	plan.Close() // the instance keeps what it needs
	prog.Close()
	if n := must(inst.NumOutputs()); n != 2 {
		t.Errorf("NumOutputs() = %d", n)
	}
	if s := inst.String(); s != "PlanInstance(2 outputs, 0 runs)" {
		t.Errorf("String() = %q", s)
	}
	if d0, d1 := must(inst.OutputDType(0)), must(inst.OutputDType(1)); d0 != "f64" || d1 != "i64" {
		t.Errorf("OutputDType: %s, %s", d0, d1)
	}
	if s := must(inst.OutputLocalShape(1)); !reflect.DeepEqual(s, planShape) {
		t.Errorf("OutputLocalShape(1) = %v before a run", s)
	}

	reluWant, sumWant := make([]float64, 6), make([]int64, 6)
	for k := range planX {
		if planX[k] > 0 {
			reluWant[k] = planX[k]
		}
		sumWant[k] = planI[k] + planI[k]
	}
	tx := must(FromHost(planX, planShape, f.p, f.s0))
	defer tx.Close()
	ti := must(FromHost(planI, planShape, f.p, f.b))
	defer ti.Close()
	for run := 0; run < 2; run++ {
		if err := inst.Run(tx, ti); err != nil {
			t.Fatal(err)
		}
		outs := must(inst.Outputs())
		if len(outs) != 2 {
			t.Fatalf("Outputs() gave %d", len(outs))
		}
		if got := must(ToHost[float64](outs[0])); !reflect.DeepEqual(got, reluWant) {
			t.Errorf("relu output %v, want %v", got, reluWant)
		}
		if got := must(ToHost[int64](outs[1])); !reflect.DeepEqual(got, sumWant) {
			t.Errorf("add output %v, want %v", got, sumWant)
		}
		outs[0].Close()
		outs[1].Close()
		if got := must(OutputLocal[float64](inst, 0)); !reflect.DeepEqual(got, reluWant) {
			t.Errorf("OutputLocal[float64] = %v", got)
		}
		into := make([]int64, 6)
		if err := OutputLocalInto(inst, 1, into); err != nil || !reflect.DeepEqual(into, sumWant) {
			t.Errorf("OutputLocalInto[int64] = %v, %v", into, err)
		}
	}
	if s := inst.String(); s != "PlanInstance(2 outputs, 2 runs)" {
		t.Errorf("String() = %q", s)
	}
	s := must(inst.Stats())
	if s.Runs != 2 || s.Steps != 2 || s.BoxingSteps != 0 || s.AllocatorCallsLastRun != 0 ||
		len(s.MemCases) != 1 || s.MemCases[0].Name != "cpu" || s.MemCases[0].LowerBound <= 0 ||
		s.MemCases[0].BlockBytes < s.MemCases[0].LowerBound {
		t.Errorf("Stats() = %+v", s)
	}
	_, err := OutputLocal[float32](inst, 0)
	wantErr(t, "wrong dtype out", err, InvalidArgument, "OutputLocalInto: output #0 is f64, not f32")

	// The same program on this rank's pieces (one rank: the whole inputs).
	xNeg, iNeg := make([]float64, len(planX)), make([]int64, len(planI))
	reluNeg, sumNeg := make([]float64, len(planX)), make([]int64, len(planI))
	for k := range planX {
		xNeg[k], iNeg[k] = -planX[k], -planI[k]
		if xNeg[k] > 0 {
			reluNeg[k] = xNeg[k]
		}
		sumNeg[k] = iNeg[k] + iNeg[k]
	}
	if err := inst.RunLocalMixed(xNeg, iNeg); err != nil {
		t.Fatal(err)
	}
	if got := must(OutputLocal[float64](inst, 0)); !reflect.DeepEqual(got, reluNeg) {
		t.Errorf("RunLocalMixed relu output %v, want %v", got, reluNeg)
	}
	if got := must(OutputLocal[int64](inst, 1)); !reflect.DeepEqual(got, sumNeg) {
		t.Errorf("RunLocalMixed add output %v, want %v", got, sumNeg)
	}
	if r := must(inst.Stats()).Runs; r != 3 {
		t.Errorf("runs after RunLocalMixed: %d", r)
	}
	wantErr(t, "RunLocalMixed of a string", inst.RunLocalMixed(xNeg, "i"), InvalidArgument,
		"PlanInstance.RunLocalMixed: locals[1] is a string, not a []float32, []float64, []int32 or []int64")
	wantErr(t, "RunLocal of one input for two", RunLocal(inst, xNeg), InvalidArgument,
		"tess_plan_instance_run_local: the program takes 2 inputs but got 1")
}

func TestProgramBadInput(t *testing.T) {
	f := newFixture(t)
	real := must(FromHost(make([]float32, 6), planShape, f.p, f.s0))
	defer real.Close()
	prog := must(NewProgram())
	defer prog.Close()
	_, err := prog.AddInput("x", planShape, "f8", f.p, nil)
	wantErr(t, "bad dtype", err, InvalidArgument, `unknown dtype "f8"`)
	_, err = prog.AddInput("x", []int64{-1, 2}, "f32", f.p, nil)
	wantErr(t, "negative dim", err, InvalidArgument, "tess_program_add_input")
	_, err = prog.AddInput("x", planShape, "f32", nil, nil)
	wantErr(t, "nil placement", err, InvalidArgument,
		`tess_program_add_input: argument "placement" is NULL`)
	s7 := must(ParseNdSbp("S(7)"))
	defer s7.Close()
	_, err = prog.AddInput("x", planShape, "f32", f.p, s7)
	wantErr(t, "nd-sbp that does not fit", err, InvalidArgument, "S(7)")
	x := must(prog.AddInput("x", planShape, "f32", f.p, f.s0))
	_, err = prog.AddInput("x", planShape, "f32", f.p, f.s0)
	wantErr(t, "repeated name", err, InvalidArgument, `"x"`)
	_, err = prog.AddVariable("w", nil)
	wantErr(t, "nil variable", err, InvalidArgument,
		`tess_program_add_variable: argument "value" is NULL`)
	_, err = prog.AddVariable("", real)
	wantErr(t, "empty variable name", err, InvalidArgument, "tess_program_add_variable")
	_, err = prog.AddOp("relu", 42)
	wantErr(t, "unknown value id", err, InvalidArgument, "42")
	_, err = prog.AddOp("relu", x, x)
	wantErr(t, "too many inputs", err, InvalidArgument, "tess_program_add_op")
	_, err = prog.AddOp("no_such_op", x)
	wantErr(t, "unknown op", err, NotFound, "no_such_op")
	_, err = prog.AddOp("matmul", x, x)
	wantErr(t, "inference error at the call", err, InvalidArgument, "matmul")
	metas := newCall(t, "relu", [4]any{planShape, "f32", "cpu:[0]", "S(0)"})
	defer metas.Close()
	_, err = prog.AddOpCall(metas, x)
	wantErr(t, "call with input metas", err, InvalidArgument, "input metas")
	_, err = prog.AddOpCall(nil, x)
	wantErr(t, "nil call", err, InvalidArgument, `tess_program_add_op: argument "call" is NULL`)

	_, err = prog.Compile(1)
	wantErr(t, "program without outputs", err, InvalidArgument, "tess_plan_compile")
	y := must(prog.AddOp("relu", x))[0]
	wantErr(t, "unknown output id", prog.MarkOutput(99), InvalidArgument, "99")
	if err := prog.MarkOutput(y); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "output marked twice", prog.MarkOutput(y), InvalidArgument, "tess_program_mark_output")
	_, err = prog.Compile(-1)
	wantErr(t, "negative register num", err, InvalidArgument, "input_register_num")
	_, err = prog.Compile(9)
	wantErr(t, "register num 9", err, InvalidArgument, "input_register_num")
	_, err = Compile(nil, 1)
	wantErr(t, "nil program", err, InvalidArgument, `tess_plan_compile: argument "program" is NULL`)
	prog.Close()
	prog.Close() // idempotent
	if s := prog.String(); s != "" {
		t.Errorf("closed program's text %q", s)
	}
	_, err = prog.Sizes()
	wantErr(t, "closed program", err, InvalidArgument, `argument "program" is NULL`)
}

func TestPlanInstanceBadInput(t *testing.T) {
	f := newFixture(t)
	prog := must(NewProgram())
	defer prog.Close()
	x := must(prog.AddInput("x", planShape, "f32", f.p, f.s0))
	if err := prog.MarkOutput(must(prog.AddOp("relu", x))[0]); err != nil {
		t.Fatal(err)
	}
	plan := must(prog.Compile(1))
	defer plan.Close()
	inst := must(plan.Instantiate())
	defer inst.Close()
	_, err := inst.Output(0)
	wantErr(t, "output before a run", err, FailedPrecondition, "tess_plan_instance_output")
	_, err = OutputLocal[float32](inst, 0)
	wantErr(t, "OutputLocal before a run", err, FailedPrecondition, "tess_plan_instance_output_local")
	_, err = inst.Output(1)
	wantErr(t, "output index 1", err, OutOfRange, "output index 1 but the program has 1 outputs")
	_, err = inst.Output(-1)
	wantErr(t, "negative index", err, OutOfRange, "PlanInstance.Output: output index -1 is negative")
	wantErr(t, "no inputs", inst.Run(), InvalidArgument, "1 inputs")
	wantErr(t, "nil input", inst.Run(nil), InvalidArgument, "NULL")
	wrong := must(FromHost(make([]float32, 12), []int64{3, 4}, f.p, f.s0))
	defer wrong.Close()
	wantErr(t, "wrong shape", inst.Run(wrong), InvalidArgument, "[3,4]")
	good := must(FromHost(make([]float32, 6), planShape, f.p, f.s0))
	defer good.Close()
	wantErr(t, "two inputs", inst.Run(good, good), InvalidArgument, "2")
	f64 := must(FromHost(planX, planShape, f.p, f.s0))
	defer f64.Close()
	wantErr(t, "wrong dtype", inst.Run(f64), InvalidArgument, "f64")
	// RunLocal: the C API checks the count and each piece's byte size.
	wantErr(t, "RunLocal two pieces", RunLocal(inst, make([]float32, 6), make([]float32, 6)),
		InvalidArgument, "tess_plan_instance_run_local: the program takes 1 inputs but got 2")
	wantErr(t, "RunLocal no pieces", RunLocal[float32](inst), InvalidArgument,
		"the program takes 1 inputs but got 0")
	wantErr(t, "RunLocal short piece", RunLocal(inst, make([]float32, 5)), InvalidArgument,
		`tess_plan_instance_run_local: input #0 ("x") has 20 bytes but this rank's piece has 24`)
	wantErr(t, "RunLocal long piece", RunLocal(inst, make([]float32, 7)), InvalidArgument,
		`input #0 ("x") has 28 bytes but this rank's piece has 24`)
	wantErr(t, "RunLocal nil piece", RunLocal[float32](inst, nil), InvalidArgument,
		`input #0 ("x") has 0 bytes but this rank's piece has 24`)
	wantErr(t, "RunLocalMixed nil piece", inst.RunLocalMixed(nil), InvalidArgument,
		`input #0 ("x") has 0 bytes but this rank's piece has 24`)
	wantErr(t, "RunLocalMixed of a [][]float32", inst.RunLocalMixed([][]float32{{1}}),
		InvalidArgument, "locals[0] is a [][]float32, not a []float32")
	if r := must(inst.Stats()).Runs; r != 0 {
		t.Errorf("runs after bad inputs: %d", r)
	}
	piece := []float32{-1, 2, -3, 4, 0.5, -0.5}
	if err := RunLocal(inst, piece); err != nil {
		t.Fatal(err)
	}
	relu := make([]float32, len(piece))
	for k, v := range piece {
		relu[k] = float32(math.Max(float64(v), 0))
	}
	if got := must(OutputLocal[float32](inst, 0)); !reflect.DeepEqual(got, relu) {
		t.Errorf("RunLocal after bad inputs: %v, want %v", got, relu)
	}
	if err := inst.Run(good); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "short out", OutputLocalInto(inst, 0, make([]float32, 5)), InvalidArgument,
		"out_bytes is 20 but output #0's piece has 24 bytes")
	wantErr(t, "OutputLocalInto index 3", OutputLocalInto(inst, 3, make([]float32, 6)),
		OutOfRange, "output index 3")
	wantErr(t, "wrong dtype out", OutputLocalInto(inst, 0, make([]float64, 6)), InvalidArgument,
		"OutputLocalInto: output #0 is f32, not f64")
	_, err = inst.OutputDType(3)
	wantErr(t, "OutputDType index 3", err, OutOfRange, "output index 3")
	_, err = inst.OutputLocalShape(3)
	wantErr(t, "OutputLocalShape index 3", err, OutOfRange, "output index 3")
	_, err = inst.OutputLocalNumElements(3)
	wantErr(t, "OutputLocalNumElements index 3", err, OutOfRange, "output index 3")
	again := must(plan.Instantiate())
	if n := must(again.NumOutputs()); n != 1 {
		t.Errorf("a second instance of one plan has %d outputs", n)
	}
	again.Close()
	plan.Close()
	if s := plan.String(); s != "" {
		t.Errorf("closed plan's text %q", s)
	}
	_, err = plan.Instantiate()
	wantErr(t, "closed plan", err, InvalidArgument, `argument "plan" is NULL`)
	inst.Close()
	if s := inst.String(); s != "PlanInstance(closed)" {
		t.Errorf("closed instance's text %q", s)
	}
	_, err = inst.Stats()
	wantErr(t, "closed instance", err, InvalidArgument, `argument "instance" is NULL`)
}

func TestCaptureMisuse(t *testing.T) {
	f := newFixture(t)
	real := must(FromHost(make([]float32, 6), planShape, f.p, f.s0))
	defer real.Close()
	if must(Capturing()) {
		t.Fatal("a capture is active at first")
	}
	var stale *Capturer
	var x, y *Tensor
	_, err := Capture(func(c *Capturer) ([]*Tensor, error) {
		stale = c
		if !must(Capturing()) {
			t.Error("Capturing() is false inside Capture")
		}
		_, err := Capture(func(*Capturer) ([]*Tensor, error) { return nil, nil })
		wantErr(t, "capture twice", err, FailedPrecondition, "a capture is already active on this thread")
		x = must(c.Placeholder("x", planShape, "f32", f.p, f.s0))
		_, err = c.Placeholder("x", planShape, "f32", f.p, f.s0)
		wantErr(t, "repeated placeholder name", err, InvalidArgument, `"x"`)
		_, err = ToHost[float32](x)
		wantErr(t, "ToHost of a placeholder", err, FailedPrecondition, "placeholder")
		_, err = CopyLocal[float32](x)
		wantErr(t, "CopyLocal of a placeholder", err, FailedPrecondition, "placeholder")
		other := must(NewProgram())
		defer other.Close()
		_, err = other.AddVariable("v", x)
		wantErr(t, "placeholder as a variable", err, FailedPrecondition,
			"is a placeholder; a variable needs a value")
		_, err = Matmul(x, x, false, false)
		wantErr(t, "bad op while capturing", err, InvalidArgument, "matmul")
		// Another goroutine runs on another OS thread, which has no capture.
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // a thread of its own, never this capture's
			defer runtime.UnlockOSThread()
			_, err := c.Placeholder("z", planShape, "f32", f.p, nil)
			done <- err
		}()
		wantErr(t, "placeholder from another thread", <-done, FailedPrecondition,
			"no capture is active on this thread")
		y = must(Neg(x))
		return []*Tensor{real}, nil
	})
	wantErr(t, "end with a real tensor", err, InvalidArgument,
		"is a real tensor, not a result of the capture")
	defer x.Close()
	defer y.Close()
	if must(Capturing()) {
		t.Error("the capture is still active after a failed end")
	}
	_, err = Neg(y)
	wantErr(t, "a placeholder after its capture", err, FailedPrecondition, "placeholder")
	// Without a capture the C API reports the misuse.
	runtime.LockOSThread()
	_, err = stale.Placeholder("x", planShape, "f32", f.p, nil)
	runtime.UnlockOSThread()
	wantErr(t, "placeholder without a capture", err, FailedPrecondition,
		"no capture is active on this thread")
	// A stale Capturer must not reach a live capture.
	_, err = Capture(func(c *Capturer) ([]*Tensor, error) {
		_, err := stale.Placeholder("x", planShape, "f32", f.p, nil)
		return nil, err
	})
	wantErr(t, "stale capturer", err, FailedPrecondition,
		"Capturer.Placeholder: this capture has ended, and another capture is active")

	for what, outputs := range map[string]func(c *Capturer) []*Tensor{
		"no outputs":   func(*Capturer) []*Tensor { return nil },
		"a nil output": func(*Capturer) []*Tensor { return []*Tensor{nil} },
		"an output listed twice": func(c *Capturer) []*Tensor {
			r := must(Relu(must(c.Placeholder("x", planShape, "f32", f.p, nil))))
			return []*Tensor{r, r}
		},
	} {
		_, err := Capture(func(c *Capturer) ([]*Tensor, error) { return outputs(c), nil })
		wantErr(t, what, err, InvalidArgument, "tess_capture_end")
	}
	if must(Capturing()) {
		t.Error("a capture is still active")
	}
}

func TestCaptureAbortsOnErrorAndPanic(t *testing.T) {
	f := newFixture(t)
	boom := errors.New("boom")
	_, err := Capture(func(c *Capturer) ([]*Tensor, error) {
		x := must(c.Placeholder("x", planShape, "f32", f.p, nil))
		return []*Tensor{x}, boom
	})
	if err != boom {
		t.Errorf("Capture returned %v, want the record's error", err)
	}
	func() {
		defer func() {
			if r := recover(); fmt.Sprint(r) != "panic in record" {
				t.Errorf("recovered %v", r)
			}
		}()
		_, _ = Capture(func(c *Capturer) ([]*Tensor, error) {
			must(c.Placeholder("x", planShape, "f32", f.p, nil))
			panic("panic in record")
		})
	}()
	// Both captures were aborted: a new one starts, and its program has its own input.
	prog := must(Capture(func(c *Capturer) ([]*Tensor, error) {
		x := must(c.Placeholder("x", planShape, "f32", f.p, nil))
		return []*Tensor{must(Relu(x))}, nil
	}))
	defer prog.Close()
	if s := must(prog.Sizes()); s != (ProgramSizes{Values: 2, Ops: 1, Inputs: 1, Outputs: 1}) {
		t.Errorf("Sizes() = %+v:\n%s", s, prog)
	}
}

// Two slots: a goroutine pushes five sets while this one runs them in order.
func TestPlanPipeline(t *testing.T) {
	f := newFixture(t)
	prog := must(NewProgram())
	defer prog.Close()
	x := must(prog.AddInput("x", planShape, "f64", f.p, f.s0))
	if err := prog.MarkOutput(must(prog.AddOp("neg", x))[0]); err != nil {
		t.Fatal(err)
	}
	plan := must(prog.Compile(2))
	defer plan.Close()
	inst := must(plan.Instantiate())
	defer inst.Close()
	inputs := make([]*Tensor, 5)
	for k := range inputs {
		v := make([]float64, len(planX))
		for e := range v {
			v[e] = planX[e] + float64(k)
		}
		inputs[k] = must(FromHost(v, planShape, f.p, f.s0))
		defer inputs[k].Close()
	}
	pushed := make(chan error, 1)
	go func() {
		for _, in := range inputs {
			if err := inst.Push(-1, in); err != nil {
				pushed <- err
				return
			}
		}
		pushed <- nil
	}()
	for k := range inputs {
		if err := inst.RunPushed(30); err != nil {
			t.Fatalf("RunPushed %d: %v", k, err)
		}
		got := must(OutputLocal[float64](inst, 0))
		for e, g := range got {
			if want := -(planX[e] + float64(k)); g != want {
				t.Fatalf("set %d element %d: got %v, want %v", k, e, g, want)
			}
		}
	}
	if err := <-pushed; err != nil {
		t.Fatalf("pusher: %v", err)
	}
	// With no set waiting, a plain run works on the pipelined instance too.
	if err := RunLocal(inst, planX); err != nil {
		t.Fatal(err)
	}
	for e, g := range must(OutputLocal[float64](inst, 0)) {
		if g != -planX[e] {
			t.Errorf("RunLocal element %d: got %v, want %v", e, g, -planX[e])
		}
	}
	wantErr(t, "nothing pushed", inst.RunPushed(0), DeadlineExceeded, "nothing was pushed")
	if err := inst.ClosePipeline(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "push after ClosePipeline", inst.Push(0, inputs[0]), Cancelled, "tess_plan_instance_push")
}
