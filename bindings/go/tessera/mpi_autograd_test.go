package tessera

// Autograd on every rank of an mpirun world (see mpi_main_test.go): a linear model's
// gradient against values worked out by loops, its SBP, accumulation, ZeroGrad, NoGrad,
// Detach, RetainGraph and bad inputs. Every rank makes the same calls in the same order.

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

var (
	agX = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} // [4,3]
	agW = []float64{0.5, -1, 2, 0.25, -3, 1}               // [3,2]
)

// agExpected is d sum(x @ w) / d w[k][j] = sum_i x[i][k], whatever j, times `times`.
func agExpected(times float64) []float64 {
	g := make([]float64, 6)
	for k := 0; k < 3; k++ {
		col := 0.0
		for i := 0; i < 4; i++ {
			col += agX[i*3+k]
		}
		g[k*2], g[k*2+1] = times*col, times*col
	}
	return g
}

// agLinear is loss = sum(x @ w): x rows split over the ranks (uneven at 3), w a
// broadcast parameter.
type agLinear struct {
	p    *Placement
	x, w *Tensor
}

func newAgLinear(t *testing.T) *agLinear {
	_, size := worldOf(t)
	p, s0 := onWorld(size, split(0)).open(t)
	_, b := onWorld(size, broadcast).open(t)
	m := &agLinear{p: p, x: must(FromHost(agX, []int64{4, 3}, p, s0)),
		w: must(FromHost(agW, []int64{3, 2}, p, b))}
	if err := m.w.SetRequiresGrad(true); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *agLinear) forward() *Tensor {
	return must(ReduceSum(must(Matmul(m.x, m.w, false, false)), nil, false))
}

func (m *agLinear) wantGrad(t *testing.T, times float64) {
	t.Helper()
	g := must(m.w.Grad())
	if g == nil {
		t.Fatal("w has no gradient")
	}
	defer g.Close()
	if got := must(ToHost[float64](g)); !reflect.DeepEqual(got, agExpected(times)) {
		t.Errorf("d loss / d w = %v, want %v", got, agExpected(times))
	}
}

// wantErrorHas checks errors.Is(err, sentinel) and that the message holds text.
func wantErrorHas(t *testing.T, err, sentinel error, text string) {
	t.Helper()
	var e *Error
	if !errors.Is(err, sentinel) || !errors.As(err, &e) || !strings.Contains(e.Message, text) {
		t.Errorf("got %v, want %v holding %q", err, sentinel, text)
	}
}

func TestMPIAutogradLinearModel(t *testing.T) {
	_, size := worldOf(t)
	m := newAgLinear(t)
	if !must(m.w.RequiresGrad()) || !must(m.w.IsLeaf()) {
		t.Error("w is not a parameter")
	}
	if g := must(m.w.Grad()); g != nil {
		t.Errorf("w has gradient %v before any backward", g)
	}
	loss := m.forward()
	if !must(loss.RequiresGrad()) || must(loss.IsLeaf()) {
		t.Error("loss is not recorded")
	}
	if must(m.x.RequiresGrad()) {
		t.Error("x requires a gradient")
	}
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	m.wantGrad(t, 1)
	if size > 1 { // matmul(x^T, dy) with x S(0): each rank's rows, a partial sum
		if s := must(must(m.w.Grad()).NdSbp()).String(); s != "P" {
			t.Errorf("gradient nd-sbp %s, want P", s)
		}
	}
	if g := must(m.x.Grad()); g != nil {
		t.Errorf("x has gradient %v", g)
	}
}

func TestMPIAutogradAccumulatesUntilZeroed(t *testing.T) {
	m := newAgLinear(t)
	if err := m.forward().Backward(); err != nil {
		t.Fatal(err)
	}
	if err := Backward([]*Tensor{m.forward()}, nil, false); err != nil {
		t.Fatal(err)
	}
	m.wantGrad(t, 2)
	if err := m.w.ZeroGrad(); err != nil {
		t.Fatal(err)
	}
	if g := must(m.w.Grad()); g != nil {
		t.Errorf("gradient %v after ZeroGrad", g)
	}
	if err := Backward([]*Tensor{m.forward()}, []*Tensor{nil}, false); err != nil {
		t.Fatal(err)
	}
	m.wantGrad(t, 1)
}

func TestMPIAutogradNoGradAndDetach(t *testing.T) {
	m := newAgLinear(t)
	var loss *Tensor
	err := NoGrad(func() error {
		if must(IsGradEnabled()) {
			t.Error("grad mode on inside NoGrad")
		}
		loss = m.forward()
		return EnableGrad(func() error {
			if !must(m.forward().RequiresGrad()) {
				t.Error("EnableGrad inside NoGrad records nothing")
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !must(IsGradEnabled()) {
		t.Error("NoGrad did not restore grad mode")
	}
	if must(loss.RequiresGrad()) {
		t.Error("an op under NoGrad was recorded")
	}
	boom := errors.New("boom")
	if err := NoGrad(func() error { return boom }); err != boom {
		t.Errorf("NoGrad returned %v, want fn's error", err)
	}
	if !must(IsGradEnabled()) {
		t.Error("NoGrad did not restore grad mode after an error")
	}
	if prev := must(SetGradEnabled(false)); !prev {
		t.Error("SetGradEnabled: previous mode off")
	}
	if prev := must(SetGradEnabled(true)); prev {
		t.Error("SetGradEnabled: previous mode on")
	}
	d := must(m.w.Detach())
	if must(d.RequiresGrad()) || !must(d.IsLeaf()) {
		t.Error("a detached tensor requires a gradient")
	}
	if got := must(ToHost[float64](d)); !reflect.DeepEqual(got, agW) {
		t.Errorf("detached data %v, want %v", got, agW)
	}
	if must(must(Matmul(m.x, d, false, false)).RequiresGrad()) {
		t.Error("an op on a detached tensor was recorded")
	}
}

func TestMPIAutogradRetainGraph(t *testing.T) {
	m := newAgLinear(t)
	loss := m.forward()
	if err := loss.Backward(RetainGraph()); err != nil {
		t.Fatal(err)
	}
	if err := Backward([]*Tensor{loss}, nil, false); err != nil {
		t.Fatal(err)
	}
	m.wantGrad(t, 2)
	wantErrorHas(t, loss.Backward(), ErrFailedPrecondition, "retain_graph")
}

func TestMPIAutogradBadInput(t *testing.T) {
	_, size := worldOf(t)
	m := newAgLinear(t)
	_, b := onWorld(size, broadcast).open(t)
	i := must(FromHost([]int32{1, 2, 3}, []int64{3}, m.p, b))
	wantErrorHas(t, i.SetRequiresGrad(true), ErrInvalidArgument, "i32")
	y := must(Matmul(m.x, m.w, false, false)) // [4,2]: its gradient must be given
	wantErrorHas(t, y.Backward(), ErrInvalidArgument, "only for a one-element root")
	wantErrorHas(t, y.SetRequiresGrad(false), ErrInvalidArgument, "detach")
	wantErrorHas(t, Backward([]*Tensor{y}, []*Tensor{nil, nil}, false), ErrInvalidArgument,
		"grads has 2 entries for 1 roots")
	wantErrorHas(t, Backward(nil, nil, false), ErrInvalidArgument, "root")
	wrong := must(FromHost([]float64{1, 2, 3, 4}, []int64{2, 2}, m.p, b))
	wantErrorHas(t, y.Backward(WithGrad(wrong)), ErrInvalidArgument,
		"is [2,2] f64 but the root is [4,2] f64")
	var closed *Tensor
	wantErrorHas(t, closed.SetRequiresGrad(true), ErrInvalidArgument, "NULL")
}
