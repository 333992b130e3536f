package tessera

// Plan-mode training (CaptureAssign, Optimizer.CaptureStep) on every rank of an mpirun
// world (see mpi_main_test.go): one SGD step of a data-parallel linear model (w
// broadcast, the data a placeholder split over the ranks, unevenly at 3) captured,
// compiled and run twice against a plain-loop reference; then the bad inputs. Uses
// mpi_optim_test.go's data (optX, optW0).

import (
	"math"
	"testing"
)

const trainLr = 0.01

// trainSgdStep is one step of loss = sum((x w)^2) / 2: dw = x^T (x w), w -= lr dw. It
// returns the loss before the step.
func trainSgdStep(w []float64) float64 {
	x := optX()
	g := make([]float64, len(w))
	loss := 0.0
	for i := 0; i < optRows; i++ {
		for j := 0; j < optOut; j++ {
			y := 0.0
			for k := 0; k < optIn; k++ {
				y += x[i*optIn+k] * w[k*optOut+j]
			}
			loss += y * y / 2
			for k := 0; k < optIn; k++ {
				g[k*optOut+j] += x[i*optIn+k] * y
			}
		}
	}
	for e := range w {
		w[e] -= trainLr * g[e]
	}
	return loss
}

func TestMPIPlanTrainSgdStep(t *testing.T) {
	_, size := worldOf(t)
	p, s0 := onWorld(size, split(0)).open(t)
	_, bc := onWorld(size, broadcast).open(t)
	w := must(FromHost(optW0, []int64{optIn, optOut}, p, bc))
	if err := w.SetRequiresGrad(true); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptimizerOptions()
	o.Lr = trainLr // momentum 0: the recorded step is exactly the first one too
	opt := must(NewOptimizer([]*Tensor{w}, o))
	defer opt.Close()
	program := must(Capture(func(c *Capturer) ([]*Tensor, error) {
		x, err := c.Placeholder("x", []int64{optRows, optIn}, "f64", p, s0)
		if err != nil {
			return nil, err
		}
		y := must(Matmul(x, w, false, false))
		loss := must(ScalarMul(must(ReduceSum(must(Mul(y, y)), nil, false)), 0.5))
		if err := loss.Backward(); err != nil {
			return nil, err
		}
		return []*Tensor{loss}, opt.CaptureStep()
	}))
	defer program.Close()
	plan := must(Compile(program, 1))
	defer plan.Close()
	inst := must(plan.Instantiate())
	defer inst.Close()
	x := must(FromHost(optX(), []int64{optRows, optIn}, p, s0))
	want := append([]float64(nil), optW0...)
	for run := 1; run <= 2; run++ {
		if err := inst.Run(x); err != nil {
			t.Fatal(err)
		}
		wantLoss := trainSgdStep(want)
		if got := must(ToHost[float64](must(inst.Output(0)))); math.Abs(got[0]-wantLoss) >
			1e-12*math.Abs(wantLoss) {
			t.Errorf("run %d: loss %v, want %v", run, got[0], wantLoss)
		}
		got := must(ToHost[float64](w))
		for e := range want {
			if math.Abs(got[e]-want[e]) > 1e-12*(1+math.Abs(want[e])) {
				t.Errorf("run %d: w[%d] = %v, want %v", run, e, got[e], want[e])
			}
		}
	}
	if s := must(opt.Stats()); s.Steps != 0 {
		t.Errorf("stats %+v: plan runs counted as steps", s)
	}
}

func TestMPIPlanTrainBadInputs(t *testing.T) {
	_, size := worldOf(t)
	p, bc := onWorld(size, broadcast).open(t)
	counter := must(FromHost([]float64{0, 0, 0}, []int64{3}, p, bc))
	wantErrorHas(t, CaptureAssign(counter, counter), ErrFailedPrecondition, "no capture")
	if err := counter.SetRequiresGrad(true); err != nil {
		t.Fatal(err)
	}
	opt := must(NewOptimizer([]*Tensor{counter}, DefaultOptimizerOptions()))
	defer opt.Close()
	wantErrorHas(t, opt.CaptureStep(), ErrFailedPrecondition, "capture")
	_, err := Capture(func(c *Capturer) ([]*Tensor, error) {
		x := must(c.Placeholder("x", []int64{3}, "f64", p, bc))
		sum := must(Add(counter, x))
		wantErrorHas(t, CaptureAssign(x, sum), ErrInvalidArgument, "placeholder")
		wantErrorHas(t, CaptureAssign(counter, nil), ErrInvalidArgument, "value")
		return []*Tensor{sum}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
