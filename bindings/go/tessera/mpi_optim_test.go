package tessera

// Optimizers on every rank of an mpirun world (see mpi_main_test.go): a few SGD and
// AdamW steps on a data-parallel linear model (weight and bias broadcast, rows split,
// unevenly at 3) against plain-loop references written from PyTorch's documented update
// rules; Fused equal to per-tensor; SetLr, Stats and bad inputs. Every rank makes the
// same calls in the same order.

import (
	"math"
	"reflect"
	"testing"
)

const optRows, optIn, optOut, optSteps = 5, 3, 2, 3

var (
	optW0 = []float64{0.5, -1, 2, 0.25, -3, 1}
	optB0 = []float64{0.1, -0.2}
)

func optX() []float64 {
	x := make([]float64, optRows*optIn)
	for i := range x {
		x[i] = -1 + 0.3*float64(i)/1.7
	}
	return x
}

// optGrads: loss = sum((x w + b)^2) / 2, so dw = x^T y and db = column sums of y.
func optGrads(p [][]float64) [][]float64 {
	x := optX()
	g := [][]float64{make([]float64, optIn*optOut), make([]float64, optOut)}
	for i := 0; i < optRows; i++ {
		for j := 0; j < optOut; j++ {
			y := p[1][j]
			for k := 0; k < optIn; k++ {
				y += x[i*optIn+k] * p[0][k*optOut+j]
			}
			for k := 0; k < optIn; k++ {
				g[0][k*optOut+j] += x[i*optIn+k] * y
			}
			g[1][j] += y
		}
	}
	return g
}

func optStart() [][]float64 {
	return [][]float64{append([]float64(nil), optW0...), append([]float64(nil), optB0...)}
}

// sgdReference is torch.optim.SGD's algorithm with one lr per step.
func sgdReference(lrs []float64, momentum, dampening, weightDecay float64) [][]float64 {
	p := optStart()
	buf := [][]float64{make([]float64, len(optW0)), make([]float64, len(optB0))}
	for step, lr := range lrs {
		g := optGrads(p)
		for t := range p {
			for e := range p[t] {
				d := g[t][e] + weightDecay*p[t][e]
				if momentum != 0 {
					if step == 0 {
						buf[t][e] = d
					} else {
						buf[t][e] = momentum*buf[t][e] + (1-dampening)*d
					}
					d = buf[t][e]
				}
				p[t][e] -= lr * d
			}
		}
	}
	return p
}

// adamWReference is torch.optim.AdamW's algorithm (decoupled weight decay).
func adamWReference(lr, b1, b2, eps, weightDecay float64) [][]float64 {
	p := optStart()
	m := [][]float64{make([]float64, len(optW0)), make([]float64, len(optB0))}
	v := [][]float64{make([]float64, len(optW0)), make([]float64, len(optB0))}
	for step := 1; step <= optSteps; step++ {
		g := optGrads(p)
		for t := range p {
			for e := range p[t] {
				p[t][e] *= 1 - lr*weightDecay
				m[t][e] = b1*m[t][e] + (1-b1)*g[t][e]
				v[t][e] = b2*v[t][e] + (1-b2)*g[t][e]*g[t][e]
				mHat := m[t][e] / (1 - math.Pow(b1, float64(step)))
				vHat := v[t][e] / (1 - math.Pow(b2, float64(step)))
				p[t][e] -= lr * mHat / (math.Sqrt(vHat) + eps)
			}
		}
	}
	return p
}

type optModel struct {
	x, w, b *Tensor
}

func newOptModel(t *testing.T) *optModel {
	_, size := worldOf(t)
	p, s0 := onWorld(size, split(0)).open(t)
	_, bc := onWorld(size, broadcast).open(t)
	m := &optModel{x: must(FromHost(optX(), []int64{optRows, optIn}, p, s0)),
		w: must(FromHost(optW0, []int64{optIn, optOut}, p, bc)),
		b: must(FromHost(optB0, []int64{optOut}, p, bc))}
	for _, param := range []*Tensor{m.w, m.b} {
		if err := param.SetRequiresGrad(true); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func (m *optModel) params() []*Tensor { return []*Tensor{m.w, m.b} }

// train runs one forward, backward, Step and ZeroGrad per lr (SetLr before each).
func (m *optModel) train(t *testing.T, opt *Optimizer, lrs []float64) [][]float64 {
	t.Helper()
	for _, lr := range lrs {
		if err := opt.SetLr(lr); err != nil {
			t.Fatal(err)
		}
		y := must(BiasAdd(must(Matmul(m.x, m.w, false, false)), m.b, 1))
		loss := must(ScalarMul(must(ReduceSum(must(Mul(y, y)), nil, false)), 0.5))
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		if err := opt.ZeroGrad(); err != nil {
			t.Fatal(err)
		}
	}
	return [][]float64{must(ToHost[float64](m.w)), must(ToHost[float64](m.b))}
}

func wantNear(t *testing.T, got, want [][]float64) {
	t.Helper()
	for i := range want {
		for e := range want[i] {
			if math.Abs(got[i][e]-want[i][e]) > 1e-12*(1+math.Abs(want[i][e])) {
				t.Errorf("param %d element %d: got %v, want %v", i, e, got[i][e], want[i][e])
			}
		}
	}
}

func TestMPIOptimizerSgdMomentum(t *testing.T) {
	lrs := []float64{0.01, 0.0, 0.03} // SetLr takes effect on the next step
	for _, fused := range []bool{false, true} {
		m := newOptModel(t)
		o := DefaultOptimizerOptions()
		o.Lr, o.Momentum, o.Dampening, o.WeightDecay, o.Fused = 0.5, 0.9, 0.1, 0.05, fused
		opt := must(NewOptimizer(m.params(), o))
		wantNear(t, m.train(t, opt, lrs), sgdReference(lrs, 0.9, 0.1, 0.05))
		opt.Close()
	}
}

func TestMPIOptimizerAdamWFusedEqualsPerTensor(t *testing.T) {
	var results [][][]float64
	for _, fused := range []bool{false, true} {
		m := newOptModel(t)
		o := DefaultOptimizerOptions()
		o.Algorithm, o.WeightDecay, o.Fused = AdamW, 0.1, fused
		opt := must(NewOptimizer(m.params(), o))
		defer opt.Close()
		results = append(results, m.train(t, opt, []float64{0.1, 0.1, 0.1}))
		wantNear(t, results[len(results)-1], adamWReference(0.1, 0.9, 0.999, 1e-8, 0.1))
		s := must(opt.Stats())
		wantBuckets := int64(0)
		if fused {
			wantBuckets = 1
		}
		if s.Steps != optSteps || s.NumParams != 2 || s.NumBuckets != wantBuckets {
			t.Errorf("stats %+v: want %d steps, 2 params, %d buckets", s, optSteps, wantBuckets)
		}
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("fused %v differs from per-tensor %v", results[1], results[0])
	}
}

func TestMPIOptimizerBadInputs(t *testing.T) {
	m := newOptModel(t)
	o := DefaultOptimizerOptions()
	o.Lr = -0.1
	_, err := NewOptimizer(m.params(), o)
	wantErrorHas(t, err, ErrInvalidArgument, "lr is -0.1")
	o = DefaultOptimizerOptions()
	o.Algorithm, o.Beta1 = AdamW, 1
	_, err = NewOptimizer(m.params(), o)
	wantErrorHas(t, err, ErrInvalidArgument, "beta1 is 1")
	_, err = NewOptimizer([]*Tensor{m.w, m.x}, DefaultOptimizerOptions())
	wantErrorHas(t, err, ErrInvalidArgument, "parameter 1")
	_, err = NewOptimizer([]*Tensor{m.w, nil}, DefaultOptimizerOptions())
	wantErrorHas(t, err, ErrInvalidArgument, "params[1] is nil")
	opt := must(NewOptimizer(m.params(), DefaultOptimizerOptions()))
	wantErrorHas(t, opt.SetLr(math.Inf(1)), ErrInvalidArgument, "lr is inf")
	opt.Close()
	opt.Close() // idempotent
	wantErrorHas(t, opt.Step(), ErrInvalidArgument, "optimizer")
}
