package tessera

// Plan mode on every rank of an mpirun world (see mpi_main_test.go): a small MLP,
// softmax(relu(x w1 + b1) w2 + b2), built explicitly and recorded by Capture,
// compiled, run on several inputs and checked against the same model run eagerly and
// against plain loops that every rank computes itself; each rank's output piece; the
// statistics. w1 is split along its columns, so on 2+ ranks the plan boxes.

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

const (
	mlpBatch = 7
	mlpIn    = 6
	mlpWidth = 8
	mlpOut   = 5
	// Agreement with the eager ops (the same kernels on the same layouts) and with
	// the loops (which keep the hidden layer in float64).
	mlpEagerTol = 1e-6
	mlpLoopTol  = 1e-5
)

var (
	mlpXShape = []int64{mlpBatch, mlpIn}
	mlpYShape = []int64{mlpBatch, mlpOut}
)

// mlpValues is ((i*7 + salt) % 23 - 11) / 16: small enough that the softmax is not
// one-hot.
func mlpValues(n, salt int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*7+salt)%23-11) / 16
	}
	return v
}

type mlp struct {
	w1, b1, w2, b2     []float32
	world              *Placement
	s0, b              *NdSbp
	tw1, tb1, tw2, tb2 *Tensor
	biasAdd            *OpCall
}

func newMLP(t *testing.T, size int32) *mlp {
	m := &mlp{w1: mlpValues(mlpIn*mlpWidth, 1), b1: mlpValues(mlpWidth, 2),
		w2: mlpValues(mlpWidth*mlpOut, 3), b2: mlpValues(mlpOut, 4)}
	var s1 *NdSbp
	m.world, m.s0 = onWorld(size, split(0)).open(t)
	_, m.b = onWorld(size, broadcast).open(t)
	_, s1 = onWorld(size, split(1)).open(t)
	m.tw1 = must(FromHost(m.w1, []int64{mlpIn, mlpWidth}, m.world, s1))
	m.tb1 = must(FromHost(m.b1, []int64{mlpWidth}, m.world, m.b))
	m.tw2 = must(FromHost(m.w2, []int64{mlpWidth, mlpOut}, m.world, m.b))
	m.tb2 = must(FromHost(m.b2, []int64{mlpOut}, m.world, m.b))
	m.biasAdd = must(NewOpCall("bias_add"))
	t.Cleanup(func() {
		for _, c := range []interface{ Close() }{m.tw1, m.tb1, m.tw2, m.tb2, m.biasAdd} {
			c.Close()
		}
	})
	return m
}

// model runs the MLP through the tensor ops: eagerly on a real tensor, recorded on a
// placeholder. The intermediates are closed; the caller owns the result.
func (m *mlp) model(x *Tensor) (*Tensor, error) {
	var made []*Tensor
	defer func() {
		for _, t := range made {
			t.Close()
		}
	}()
	keep := func(t *Tensor, err error) (*Tensor, error) {
		if err == nil {
			made = append(made, t)
		}
		return t, err
	}
	biasAdd := func(h, bias *Tensor) (*Tensor, error) {
		out, err := Apply(m.biasAdd, h, bias)
		if err != nil {
			return nil, err
		}
		return out[0], nil
	}
	h, err := keep(Matmul(x, m.tw1, false, false))
	if err == nil {
		h, err = keep(biasAdd(h, m.tb1))
	}
	if err == nil {
		h, err = keep(Relu(h))
	}
	if err == nil {
		h, err = keep(Matmul(h, m.tw2, false, false))
	}
	if err == nil {
		h, err = keep(biasAdd(h, m.tb2))
	}
	if err != nil {
		return nil, err
	}
	return Softmax(h, -1)
}

// explicit is the same model built value by value.
func (m *mlp) explicit(t *testing.T) *Program {
	p := must(NewProgram())
	t.Cleanup(p.Close)
	x := must(p.AddInput("x", mlpXShape, "f32", m.world, nil))
	w1 := must(p.AddVariable("w1", m.tw1))
	b1 := must(p.AddVariable("b1", m.tb1))
	w2 := must(p.AddVariable("w2", m.tw2))
	b2 := must(p.AddVariable("b2", m.tb2))
	h := must(p.AddOp("matmul", x, w1))[0]
	h = must(p.AddOp("bias_add", h, b1))[0]
	h = must(p.AddOp("relu", h))[0]
	h = must(p.AddOp("matmul", h, w2))[0]
	h = must(p.AddOp("bias_add", h, b2))[0]
	h = must(p.AddOp("softmax", h))[0]
	if err := p.MarkOutput(h); err != nil {
		t.Fatal(err)
	}
	return p
}

// oracle is the model on x by plain loops, in float64.
func (m *mlp) oracle(x []float32) []float32 {
	y := make([]float32, mlpBatch*mlpOut)
	h := make([]float64, mlpWidth)
	logits := make([]float64, mlpOut)
	for i := 0; i < mlpBatch; i++ {
		for j := range h {
			s := float64(m.b1[j])
			for k := 0; k < mlpIn; k++ {
				s += float64(x[i*mlpIn+k]) * float64(m.w1[k*mlpWidth+j])
			}
			h[j] = math.Max(s, 0)
		}
		max := math.Inf(-1)
		for j := range logits {
			s := float64(m.b2[j])
			for k := range h {
				s += h[k] * float64(m.w2[k*mlpOut+j])
			}
			logits[j] = s
			max = math.Max(max, s)
		}
		sum := 0.0
		for _, l := range logits {
			sum += math.Exp(l - max)
		}
		for j, l := range logits {
			y[i*mlpOut+j] = float32(math.Exp(l-max) / sum)
		}
	}
	return y
}

// specOf is the layout of a tensor on p held as s, read back through the API.
func specOf(p *Placement, s *NdSbp) spec {
	var out spec
	out.hier = must(p.Hierarchy())
	for i := int64(0); i < must(p.ParallelNum()); i++ {
		out.ranks = append(out.ranks, must(p.RankAt(i)))
	}
	for a := int64(0); a < must(s.NumAxes()); a++ {
		out.sbps = append(out.sbps, must(s.Get(a)))
	}
	return out
}

// checkRun runs inst on the input for salt, as S(0) and again as B (boxed in), and
// checks the output against eager, the loops and this rank's piece of both.
func checkRun(t *testing.T, m *mlp, what string, inst *PlanInstance, rank int32, salt int) {
	t.Helper()
	what = fmt.Sprintf("%s, input %d", what, salt)
	x := mlpValues(mlpBatch*mlpIn, salt)
	want := m.oracle(x)
	tx := must(FromHost(x, mlpXShape, m.world, m.s0))
	defer tx.Close()
	if err := inst.Run(tx); err != nil {
		t.Fatalf("%s: Run: %v", what, err)
	}
	y := must(inst.Output(0))
	defer y.Close()
	if s := must(y.Shape()); !reflect.DeepEqual(s, mlpYShape) {
		t.Errorf("%s: output shape %v", what, s)
	}
	got := must(ToHost[float32](y))
	eager := must(m.model(tx))
	defer eager.Close()
	if e := must(ToHost[float32](eager)); !near(got, e, mlpEagerTol) {
		t.Errorf("%s: plan %v, eager %v", what, got, e)
	}
	if !near(got, want, mlpLoopTol) {
		t.Errorf("%s: plan %v, loops %v", what, got, want)
	}

	// This rank's piece, without the collective Output: the output tensor's piece, and
	// the loops' piece under the output's layout.
	if d := must(inst.OutputDType(0)); d != "f32" {
		t.Errorf("%s: OutputDType %s", what, d)
	}
	mine := must(OutputLocal[float32](inst, 0))
	if p := must(CopyLocal[float32](y)); !reflect.DeepEqual(mine, p) {
		t.Errorf("%s: OutputLocal %v, output's piece %v", what, mine, p)
	}
	if s, ys := must(inst.OutputLocalShape(0)), must(y.LocalShape()); !reflect.DeepEqual(s, ys) {
		t.Errorf("%s: OutputLocalShape %v, output's %v", what, s, ys)
	}
	yp, ys := must(y.Placement()), must(y.NdSbp())
	defer yp.Close()
	defer ys.Close()
	layout := specOf(yp, ys)
	if layout.isPartial() {
		t.Errorf("%s: the softmax output is partial: %s", what, layout)
	}
	if p, _ := piece(want, mlpYShape, layout, rank); !near(mine, p, mlpLoopTol) {
		t.Errorf("%s: rank %d's piece %v, loops %v (%s)", what, rank, mine, p, layout)
	}
	into := make([]float32, len(mine))
	if err := OutputLocalInto(inst, 0, into); err != nil || !reflect.DeepEqual(into, mine) {
		t.Errorf("%s: OutputLocalInto %v, %v", what, into, err)
	}

	// The same input held as B is boxed into the input's S(0): the same output.
	xb := must(FromHost(x, mlpXShape, m.world, m.b))
	defer xb.Close()
	if err := inst.Run(xb); err != nil {
		t.Fatalf("%s: Run(B input): %v", what, err)
	}
	if again := must(OutputLocal[float32](inst, 0)); !reflect.DeepEqual(again, mine) {
		t.Errorf("%s: B input gave %v, S(0) gave %v", what, again, mine)
	}

	// Each rank's own piece of x (its rows of the S(0) split) straight in: the same
	// output piece as Run(tensor) gave.
	xp, _ := piece(x, mlpXShape, specOf(m.world, m.s0), rank)
	if err := RunLocal(inst, xp); err != nil {
		t.Fatalf("%s: RunLocal: %v", what, err)
	}
	if again := must(OutputLocal[float32](inst, 0)); !reflect.DeepEqual(again, mine) {
		t.Errorf("%s: RunLocal gave %v, Run gave %v", what, again, mine)
	}
	if len(xp) > 0 { // every rank: 7 rows over at most 4 ranks
		wantErr(t, what+": RunLocal short piece", RunLocal(inst, xp[1:]), InvalidArgument,
			fmt.Sprintf(`tess_plan_instance_run_local: input #0 ("x") has %d bytes but this rank's piece has %d`,
				4*(len(xp)-1), 4*len(xp)))
	}
}

// checkMLPPlan compiles program, runs it on inputs 10, 20, 10 (three runs each) and
// checks the outputs and the statistics.
func checkMLPPlan(t *testing.T, m *mlp, what string, program *Program, rank, size int32) {
	t.Helper()
	plan := must(program.Compile(1))
	defer plan.Close()
	text := plan.String()
	if !strings.Contains(text, "kernel matmul") || (size > 1 && !strings.Contains(text, "box")) {
		t.Errorf("%s: plan text on %d ranks:\n%s", what, size, text)
	}
	inst := must(plan.Instantiate())
	defer inst.Close()
	if n := must(inst.NumOutputs()); n != 1 {
		t.Errorf("%s: NumOutputs %d", what, n)
	}
	for _, salt := range []int{10, 20, 10} {
		checkRun(t, m, what, inst, rank, salt)
	}
	s := must(inst.Stats())
	if rank == 0 {
		t.Logf("%s on %d ranks: %+v", what, size, s)
	}
	if s.Registers <= 0 || s.Steps != 6+s.BoxingSteps || (size > 1 && s.BoxingSteps <= 0) ||
		s.Runs != 9 || s.AllocatorCallsLastRun != 0 || s.HeapAllocationsLastRun > 0 ||
		s.CudaGraphs != 0 || s.CudaGraphLaunches != 0 {
		t.Errorf("%s: stats on %d ranks: %+v", what, size, s)
	}
	if len(s.MemCases) != 1 {
		t.Fatalf("%s: memory cases %+v", what, s.MemCases)
	}
	c := s.MemCases[0]
	if c.Name != "cpu" || c.LowerBound <= 0 || c.BlockBytes < c.LowerBound ||
		c.NoReuseBytes < c.BlockBytes {
		t.Errorf("%s: memory case %+v", what, c)
	}
	if str := inst.String(); str != "PlanInstance(1 outputs, 9 runs)" {
		t.Errorf("%s: String() = %q", what, str)
	}
}

func TestMPIPlanExplicitMLP(t *testing.T) {
	rank, size := worldOf(t)
	m := newMLP(t, size)
	p := m.explicit(t)
	if s := must(p.Sizes()); s != (ProgramSizes{Values: 11, Ops: 6, Inputs: 1, Outputs: 1}) {
		t.Errorf("Sizes() = %+v", s)
	}
	if text := p.String(); !strings.Contains(text, "%5 = matmul(%0, %1)") {
		t.Errorf("program text:\n%s", text)
	}
	checkMLPPlan(t, m, "explicit", p, rank, size)
}

func TestMPIPlanCapturedMLP(t *testing.T) {
	rank, size := worldOf(t)
	m := newMLP(t, size)
	var x, y *Tensor
	p, err := Capture(func(c *Capturer) ([]*Tensor, error) {
		var err error
		if x, err = c.Placeholder("x", mlpXShape, "f32", m.world, nil); err != nil {
			return nil, err
		}
		if !strings.Contains(x.String(), "S(0)") {
			t.Errorf("the placeholder is not S(0) by default: %s", x)
		}
		y, err = m.model(x)
		return []*Tensor{y}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x.Close()
	y.Close()
	if must(Capturing()) {
		t.Error("a capture is still active")
	}
	if s := must(p.Sizes()); s != (ProgramSizes{Values: 11, Ops: 6, Inputs: 1, Outputs: 1}) {
		t.Errorf("Sizes() = %+v:\n%s", s, p)
	}
	checkMLPPlan(t, m, "captured", p, rank, size)
}
