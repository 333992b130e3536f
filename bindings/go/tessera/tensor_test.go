package tessera

import (
	"math"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// The tensor API in a world of one rank: creation, data, every op against a loop
// oracle, Apply, ExplainLast and bad inputs.

var (
	xVals = []float32{-1.5, 2, 0.5, 3, -4, 1} // [2,3]
	yVals = []float32{2, -0.5, 4}             // [3], broadcast along dim 0
)

type fixture struct {
	p, grid       *Placement
	s0, s1, b, bb *NdSbp
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{
		p:    must(ParsePlacement("cpu:[0]")),
		grid: must(ParsePlacement("cpu:[[0]]")),
		s0:   must(ParseNdSbp("S(0)")),
		s1:   must(ParseNdSbp("S(1)")),
		b:    must(ParseNdSbp("B")),
		bb:   must(ParseNdSbp("(B, S(1))")),
	}
	t.Cleanup(func() {
		for _, c := range []interface{ Close() }{f.p, f.grid, f.s0, f.s1, f.b, f.bb} {
			c.Close()
		}
	})
	return f
}

func near(got, want []float32, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol*(1+math.Abs(float64(want[i]))) {
			return false
		}
	}
	return true
}

func TestTensorRoundTripsEveryType(t *testing.T) {
	f := newFixture(t)
	x := must(FromHost(xVals, []int64{2, 3}, f.p, f.s0))
	defer x.Close()
	if got := must(ToHost[float32](x)); !reflect.DeepEqual(got, xVals) {
		t.Errorf("f32: %v", got)
	}
	bb := must(ParseNdSbp("(B, B)"))
	defer bb.Close()
	d := must(FromHost([]float64{0.25, -8}, []int64{2}, f.grid, bb))
	defer d.Close()
	if got := must(ToHost[float64](d)); !reflect.DeepEqual(got, []float64{0.25, -8}) {
		t.Errorf("f64: %v", got)
	}
	i := must(FromHost([]int32{7, -7, 9}, []int64{3}, f.p, f.b))
	defer i.Close()
	if got := must(ToHost[int32](i)); !reflect.DeepEqual(got, []int32{7, -7, 9}) {
		t.Errorf("i32: %v", got)
	}
	l := must(FromHost([]int64{1 << 40}, []int64{1}, f.p, f.b))
	defer l.Close()
	if got := must(ToHost[int64](l)); !reflect.DeepEqual(got, []int64{1 << 40}) {
		t.Errorf("i64: %v", got)
	}
	scalar := must(FromHost([]float32{2.5}, nil, f.p, f.b))
	defer scalar.Close()
	if s := scalar.String(); s != "[] f32 cpu:[0] B" {
		t.Errorf("scalar: %q", s)
	}
}

func TestTensorMetadata(t *testing.T) {
	f := newFixture(t)
	x := must(FromHost(make([]float32, 30), []int64{5, 6}, f.grid, f.bb))
	defer x.Close()
	if s := x.String(); s != "[5,6] f32 cpu:[[0]] (B, S(1))" {
		t.Errorf("String() = %q", s)
	}
	if n := must(x.Ndim()); n != 2 {
		t.Errorf("Ndim() = %d", n)
	}
	if s := must(x.Shape()); !reflect.DeepEqual(s, []int64{5, 6}) {
		t.Errorf("Shape() = %v", s)
	}
	if n := must(x.NumElements()); n != 30 {
		t.Errorf("NumElements() = %d", n)
	}
	if d := must(x.DType()); d != "f32" {
		t.Errorf("DType() = %q", d)
	}
	p := must(x.Placement())
	defer p.Close()
	if p.String() != "cpu:[[0]]" {
		t.Errorf("Placement() = %s", p)
	}
	s := must(x.NdSbp())
	defer s.Close()
	if s.String() != "(B, S(1))" {
		t.Errorf("NdSbp() = %s", s)
	}
	if !must(x.HasLocal()) {
		t.Error("HasLocal() = false")
	}
	if err := x.Synchronize(); err != nil {
		t.Errorf("Synchronize() on cpu = %v", err)
	}
	var none *Tensor
	wantErr(t, "nil Synchronize", none.Synchronize(), InvalidArgument,
		`tess_tensor_synchronize: argument "tensor" is NULL`)
	if ls := must(x.LocalShape()); !reflect.DeepEqual(ls, []int64{5, 6}) {
		t.Errorf("LocalShape() = %v", ls)
	}
	if n := must(x.LocalNumElements()); n != 30 {
		t.Errorf("LocalNumElements() = %d", n)
	}
	_, err := x.Dim(2)
	wantErr(t, "Dim(2)", err, OutOfRange, "Tensor.Dim: dim 2 is outside the shape [5,6], which has 2 dims")
	_, err = x.Dim(-1)
	wantErr(t, "Dim(-1)", err, OutOfRange, "Tensor.Dim: dim -1 is outside the shape [5,6]")
	_, err = ToHost[float64](x)
	wantErr(t, "ToHost[float64]", err, InvalidArgument, "ToHost: the tensor is f32, not f64")
	_, err = CopyLocal[int32](x)
	wantErr(t, "CopyLocal[int32]", err, InvalidArgument, "CopyLocal: the tensor is f32, not i32")

	other := must(ParsePlacement("cpu:[1]"))
	defer other.Close()
	outside := must(Ones([]int64{2}, "f32", other, f.b))
	defer outside.Close()
	if must(outside.HasLocal()) {
		t.Error("outside HasLocal() = true")
	}
	_, err = CopyLocal[float32](outside)
	wantErr(t, "outside CopyLocal", err, FailedPrecondition, "rank 0 holds no local piece")
	_, err = outside.LocalShape()
	wantErr(t, "outside LocalShape", err, FailedPrecondition, "tess_tensor_local_shape: ")

	x.Close()
	x.Close()
	_, err = x.Ndim()
	wantErr(t, "closed", err, InvalidArgument, "tess_tensor_shape: argument \"tensor\" is NULL")
	_, err = x.Shape()
	wantErr(t, "closed Shape", err, InvalidArgument, "tess_tensor_shape: argument \"tensor\" is NULL")
	_, err = x.LocalShape()
	wantErr(t, "closed LocalShape", err, InvalidArgument,
		"tess_tensor_local_shape: argument \"tensor\" is NULL")
	if x.String() != "" {
		t.Errorf("closed String() = %q", x.String())
	}
}

func TestTensorCreation(t *testing.T) {
	f := newFixture(t)
	local := must(FromLocal(xVals, []int64{3, 2}, f.p, f.s0, nil))
	defer local.Close()
	if s := must(local.Shape()); !reflect.DeepEqual(s, []int64{3, 2}) {
		t.Errorf("FromLocal shape %v", s)
	}
	if got := must(CopyLocal[float32](local)); !reflect.DeepEqual(got, xVals) {
		t.Errorf("CopyLocal = %v", got)
	}
	full := must(Full([]int64{3}, "i64", -4, f.p, f.s0))
	defer full.Close()
	if got := must(ToHost[int64](full)); !reflect.DeepEqual(got, []int64{-4, -4, -4}) {
		t.Errorf("Full = %v", got)
	}
	z := must(Zeros([]int64{2}, "f64", f.p, f.b))
	defer z.Close()
	o := must(Ones([]int64{2}, "i32", f.p, f.b))
	defer o.Close()
	if must(ToHost[float64](z))[1] != 0 || must(ToHost[int32](o))[1] != 1 {
		t.Error("Zeros/Ones")
	}
	ar := must(Arange(1, 0, -0.25, "f32", f.p, f.s0))
	defer ar.Close()
	if got := must(ToHost[float32](ar)); !reflect.DeepEqual(got, []float32{1, 0.75, 0.5, 0.25}) {
		t.Errorf("Arange = %v", got)
	}
	r1 := must(Rand([]int64{3, 4}, "f32", 42, f.p, f.s0))
	defer r1.Close()
	r2 := must(Rand([]int64{3, 4}, "f32", 42, f.grid, f.bb))
	defer r2.Close()
	u := must(ToHost[float32](r1))
	if !reflect.DeepEqual(u, must(ToHost[float32](r2))) {
		t.Error("Rand depends on the layout")
	}
	for _, v := range u {
		if v < 0 || v >= 1 {
			t.Errorf("Rand value %v", v)
		}
	}
	n := must(Randn([]int64{50}, "f64", math.MaxUint64, f.p, f.b))
	defer n.Close()
	negative := false
	for _, v := range must(ToHost[float64](n)) {
		negative = negative || v < 0
	}
	if !negative {
		t.Error("Randn has no negative value")
	}

	_, err := FromHost(xVals, []int64{4, 2}, f.p, f.s0)
	wantErr(t, "length", err, InvalidArgument, "FromHost: data has 6 elements but shape [4 2] needs 8")
	_, err = FromHost(xVals, []int64{2, 3}, nil, f.s0)
	wantErr(t, "nil placement", err, InvalidArgument, "tess_tensor_from_host: argument \"placement\" is NULL")
	_, err = FromHost(xVals, []int64{2, 3}, f.p, nil)
	wantErr(t, "nil nd-sbp", err, InvalidArgument, "argument \"nd_sbp\" is NULL")
	_, err = FromHost([]float32{}, []int64{2, -3}, f.p, f.s0)
	wantErr(t, "negative dim", err, InvalidArgument, "shape dim 1 is -3; dims must be >= 0")
	s2 := must(ParseNdSbp("S(2)"))
	defer s2.Close()
	_, err = FromHost(xVals, []int64{2, 3}, f.p, s2)
	wantErr(t, "bad nd-sbp", err, InvalidArgument, "S(2)")
	_, err = FromLocal(xVals, []int64{3, 2}, f.p, f.s0, []int64{4, 2})
	wantErr(t, "logical shape", err, InvalidArgument, "local shape [3,2] is not its part [4,2]")
	_, err = FromLocal(xVals, []int64{3, 2}, f.p, f.s0, []int64{6})
	wantErr(t, "logical ndim", err, InvalidArgument, "logical shape [6] has 1 dims")
	_, err = FromLocal(xVals, []int64{7}, f.p, f.s0, nil)
	wantErr(t, "local length", err, InvalidArgument, "FromLocal: local has 6 elements")
	_, err = Full([]int64{2}, "i32", 0.5, f.p, f.b)
	wantErr(t, "Full 0.5", err, InvalidArgument, "value 0.5 is not representable as i32")
	_, err = Full([]int64{2}, "f8", 0, f.p, f.b)
	wantErr(t, "dtype f8", err, InvalidArgument, "unknown dtype \"f8\"")
	// bf16 is an ordinary dtype: 1.5 is 0x3fc0 (float32 0x3fc00000's top half).
	h := must(Full([]int64{2}, "bf16", 1.5, f.p, f.b))
	if bits := must(ToHostBits(h)); !reflect.DeepEqual(bits, []uint16{0x3fc0, 0x3fc0}) {
		t.Errorf("Full bf16 1.5: %x", bits)
	}
	h.Close()
	_, err = Arange(0, 1, 0, "f32", f.p, f.b)
	wantErr(t, "Arange step 0", err, InvalidArgument, "step non-zero")
	_, err = Rand([]int64{2}, "i32", 1, f.p, f.b)
	wantErr(t, "Rand i32", err, InvalidArgument, "dtype i32 is not a floating type")
}

func TestCudaInfo(t *testing.T) {
	built, count, err := CudaInfo()
	if err != nil {
		t.Fatal(err)
	}
	if count < 0 || (!built && count != 0) {
		t.Errorf("CudaInfo() = %v, %d", built, count)
	}
	// BUILD sets it from the build configuration (tools/cuda.bzl's if_cuda).
	if env, ok := os.LookupEnv("TESSERA_TEST_CUDA_BUILD"); ok && built != (env == "1") {
		t.Errorf("CudaInfo() says built with CUDA %v, but TESSERA_TEST_CUDA_BUILD is %q", built, env)
	}
}

// A cuda placement behaves as CudaInfo says: Unimplemented without a CUDA build,
// Unavailable without a device, a round trip through Add with one.
func TestCudaPlacementFollowsCudaInfo(t *testing.T) {
	f := newFixture(t)
	built, count, err := CudaInfo()
	if err != nil {
		t.Fatal(err)
	}
	cuda := must(ParsePlacement("cuda:[0]"))
	defer cuda.Close()
	shape := []int64{2, 3}
	x, err := FromHost(xVals, shape, cuda, f.s0)
	switch {
	case !built:
		wantErr(t, "cuda without a CUDA build", err, Unimplemented,
			"tess_tensor_from_host: eager tensors on cuda:[0]: this Tessera was built without CUDA, "+
				"so only cpu placements hold eager tensors (build with --config=cuda)")
		return
	case count == 0:
		wantErr(t, "cuda without a device", err, Unavailable, "no CUDA device visible")
		return
	case err != nil:
		t.Fatalf("FromHost on cuda:[0] with %d devices: %v", count, err)
	}
	defer x.Close()
	y := make([]float32, len(xVals))
	want := make([]float32, len(xVals))
	for i := range y {
		y[i] = float32(i*5%17-8) * 0.5
		want[i] = xVals[i] + y[i]
	}
	ty := must(FromHost(y, shape, cuda, f.b))
	defer ty.Close()
	sum := must(Add(x, ty))
	defer sum.Close()
	if got := must(ToHost[float32](sum)); !reflect.DeepEqual(got, want) {
		t.Errorf("cuda add: got %v, want %v", got, want)
	}
	if s := sum.String(); !strings.HasPrefix(s, "[2,3] f32 cuda:[0] ") {
		t.Errorf("cuda sum: %s", s)
	}
}

func TestTensorToGlobal(t *testing.T) {
	f := newFixture(t)
	x := must(FromHost(xVals, []int64{2, 3}, f.p, f.s0))
	defer x.Close()
	y := must(x.ToGlobal(f.grid, f.bb))
	defer y.Close()
	if y.String() != "[2,3] f32 cpu:[[0]] (B, S(1))" {
		t.Errorf("ToGlobal = %s", y)
	}
	if got := must(ToHost[float32](y)); !reflect.DeepEqual(got, xVals) {
		t.Errorf("ToGlobal values %v", got)
	}
	s5 := must(ParseNdSbp("S(5)"))
	defer s5.Close()
	_, err := x.ToGlobal(f.p, s5)
	wantErr(t, "ToGlobal S(5)", err, InvalidArgument, "S(5)")
}

func broadcastOracle(op func(a, b float32) float32) []float32 {
	want := make([]float32, 6)
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			want[i*3+j] = op(xVals[i*3+j], yVals[j])
		}
	}
	return want
}

func TestOps(t *testing.T) {
	f := newFixture(t)
	x := must(FromHost(xVals, []int64{2, 3}, f.p, f.s0))
	defer x.Close()
	y := must(FromHost(yVals, []int64{3}, f.p, f.b))
	defer y.Close()
	max32 := func(a, b float32) float32 { return float32(math.Max(float64(a), float64(b))) }
	min32 := func(a, b float32) float32 { return float32(math.Min(float64(a), float64(b))) }
	binaries := []struct {
		name string
		fn   func(x, y *Tensor) (*Tensor, error)
		ref  func(a, b float32) float32
	}{
		{"add", Add, func(a, b float32) float32 { return a + b }},
		{"sub", Sub, func(a, b float32) float32 { return a - b }},
		{"mul", Mul, func(a, b float32) float32 { return a * b }},
		{"div", Div, func(a, b float32) float32 { return a / b }},
		{"maximum", Maximum, max32},
		{"minimum", Minimum, min32},
	}
	for _, c := range binaries {
		out := must(c.fn(x, y))
		if got := must(ToHost[float32](out)); !near(got, broadcastOracle(c.ref), 1e-6) {
			t.Errorf("%s = %v", c.name, got)
		}
		out.Close()
		_, err := c.fn(x, nil)
		wantErr(t, c.name+" nil", err, InvalidArgument, "tess_"+c.name+": argument \"y\" is NULL")
	}
	unaries := []struct {
		name string
		fn   func(x *Tensor) (*Tensor, error)
		ref  func(a float64) float64
		tol  float64
	}{
		{"relu", Relu, func(a float64) float64 { return math.Max(a, 0) }, 0},
		{"gelu", Gelu, func(a float64) float64 { return 0.5 * a * (1 + math.Erf(a/math.Sqrt2)) }, 1e-3},
		{"sigmoid", Sigmoid, func(a float64) float64 { return 1 / (1 + math.Exp(-a)) }, 1e-5},
		{"tanh", Tanh, math.Tanh, 1e-5},
		{"exp", Exp, math.Exp, 1e-5},
		{"neg", Neg, func(a float64) float64 { return -a }, 0},
	}
	for _, c := range unaries {
		out := must(c.fn(x))
		want := make([]float32, 6)
		for i, v := range xVals {
			want[i] = float32(c.ref(float64(v)))
		}
		if got := must(ToHost[float32](out)); !near(got, want, c.tol) {
			t.Errorf("%s = %v, want %v", c.name, got, want)
		}
		out.Close()
	}
	abs := make([]float32, 6)
	sq := make([]float32, 6)
	for i, v := range xVals {
		abs[i] = float32(math.Abs(float64(v)))
		sq[i] = float32(math.Sqrt(float64(abs[i])))
	}
	a := must(FromHost(abs, []int64{2, 3}, f.p, f.s1))
	defer a.Close()
	if got := must(ToHost[float32](must(Sqrt(a)))); !near(got, sq, 1e-6) {
		t.Errorf("sqrt = %v", got)
	}
	ints := must(Arange(0, 3, 1, "i32", f.p, f.b))
	defer ints.Close()
	_, err := Gelu(ints)
	wantErr(t, "gelu i32", err, InvalidArgument, "tess_gelu: gelu")

	// x @ x^T.
	mm := make([]float32, 4)
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			for k := 0; k < 3; k++ {
				mm[i*2+j] += xVals[i*3+k] * xVals[j*3+k]
			}
		}
	}
	m := must(Matmul(x, x, false, true))
	defer m.Close()
	if got := must(ToHost[float32](m)); !near(got, mm, 1e-6) {
		t.Errorf("matmul = %v", got)
	}
	_, err = Matmul(x, x, false, false)
	wantErr(t, "matmul shapes", err, InvalidArgument, "tess_matmul: matmul")

	// Reductions over axis 1 and everything; softmax along the last axis.
	sum := []float32{0, 0}
	mx := []float32{-1e30, -1e30}
	mn := []float32{1e30, 1e30}
	var total float32
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			v := xVals[i*3+j]
			sum[i] += v
			mx[i] = max32(mx[i], v)
			mn[i] = min32(mn[i], v)
			total += v
		}
	}
	checks := []struct {
		name string
		out  *Tensor
		want []float32
	}{
		{"reduce_sum", must(ReduceSum(x, []int64{1}, false)), sum},
		{"reduce_mean", must(ReduceMean(x, nil, false)), []float32{total / 6}},
		{"reduce_max", must(ReduceMax(x, []int64{-1}, true)), mx},
		{"reduce_min", must(ReduceMin(x, []int64{1}, false)), mn},
	}
	for _, c := range checks {
		if got := must(ToHost[float32](c.out)); !near(got, c.want, 1e-6) {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
		c.out.Close()
	}
	_, err = ReduceSum(x, []int64{5}, false)
	wantErr(t, "reduce axis 5", err, InvalidArgument, "tess_reduce_sum: reduce_sum")
	sm := must(Softmax(x, -1))
	defer sm.Close()
	want := make([]float32, 6)
	for i := 0; i < 2; i++ {
		z := 0.0
		for j := 0; j < 3; j++ {
			z += math.Exp(float64(xVals[i*3+j]))
		}
		for j := 0; j < 3; j++ {
			want[i*3+j] = float32(math.Exp(float64(xVals[i*3+j])) / z)
		}
	}
	if got := must(ToHost[float32](sm)); !near(got, want, 1e-5) {
		t.Errorf("softmax = %v", got)
	}
	_, err = Softmax(x, 4)
	wantErr(t, "softmax axis", err, InvalidArgument, "tess_softmax: softmax")
	z := must(FromHost([]float32{1, 2}, []int64{2}, f.p, f.b))
	defer z.Close()
	_, err = Add(x, z)
	wantErr(t, "add shapes", err, InvalidArgument, "tess_add: add")
}

// TestGeneratedOps: abs and pow (added through the op table) and typed functions the
// generator made for ops with a repeated input, several outputs and a dtype attribute.
func TestGeneratedOps(t *testing.T) {
	f := newFixture(t)
	x := must(FromHost(xVals, []int64{2, 3}, f.p, f.s0))
	defer x.Close()
	a := must(Abs(x))
	defer a.Close()
	want := make([]float32, 6)
	for i, v := range xVals {
		want[i] = float32(math.Abs(float64(v)))
	}
	if got := must(ToHost[float32](a)); !near(got, want, 0) {
		t.Errorf("Abs = %v, want %v", got, want)
	}
	exps := must(FromHost([]float32{2, 3, 0}, []int64{3}, f.p, f.b))
	defer exps.Close()
	p := must(Pow(x, exps))
	defer p.Close()
	for i, v := range xVals {
		want[i] = float32(math.Pow(float64(v), float64([]float32{2, 3, 0}[i%3])))
	}
	if got := must(ToHost[float32](p)); !near(got, want, 1e-6) {
		t.Errorf("Pow = %v, want %v", got, want)
	}
	sum := must(AddN([]*Tensor{x, x, a}))
	defer sum.Close()
	for i, v := range xVals {
		want[i] = 2*v + float32(math.Abs(float64(v)))
	}
	if got := must(ToHost[float32](sum)); !near(got, want, 1e-6) {
		t.Errorf("AddN = %v, want %v", got, want)
	}
	d := must(Cast(x, "f64"))
	defer d.Close()
	if got := must(d.DType()); got != "f64" {
		t.Errorf("Cast dtype = %s", got)
	}
	gamma := must(FromHost([]float32{1, 1, 1}, []int64{3}, f.p, f.b))
	defer gamma.Close()
	beta := must(FromHost([]float32{0, 0, 0}, []int64{3}, f.p, f.b))
	defer beta.Close()
	y, mean, inv, err := LayerNorm(x, gamma, beta, -1, -1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	defer mean.Close()
	defer inv.Close()
	if got := must(ToHost[float32](mean)); !near(got, []float32{1.0 / 3, 0}, 1e-6) {
		t.Errorf("LayerNorm mean = %v", got)
	}
	_, err = Pow(x, nil)
	wantErr(t, "Pow nil", err, InvalidArgument, "tess_pow: argument \"y\" is NULL")
}

func TestApplyAndExplainLast(t *testing.T) {
	runtime.LockOSThread() // ExplainLast reads this OS thread's record
	defer runtime.UnlockOSThread()
	f := newFixture(t)
	x := must(FromHost(xVals, []int64{2, 3}, f.p, f.s0))
	defer x.Close()
	y := must(FromHost(yVals, []int64{3}, f.p, f.b))
	defer y.Close()
	call := must(NewOpCall("scalar_mul"))
	defer call.Close()
	if err := call.SetAttrFloat("value", -2); err != nil {
		t.Fatal(err)
	}
	out := must(Apply(call, x))
	if len(out) != 1 {
		t.Fatalf("Apply gave %d outputs", len(out))
	}
	want := make([]float32, 6)
	for i, v := range xVals {
		want[i] = -2 * v
	}
	if got := must(ToHost[float32](out[0])); !reflect.DeepEqual(got, want) {
		t.Errorf("scalar_mul = %v", got)
	}
	out[0].Close()

	add := must(NewOpCall("add"))
	defer add.Close()
	if err := add.ConstrainOutput(0, f.s1); err != nil {
		t.Fatal(err)
	}
	out = must(Apply(add, x, y))
	s := must(out[0].NdSbp())
	if s.String() != "S(1)" {
		t.Errorf("constrained output %s", s)
	}
	s.Close()
	out[0].Close()
	e := must(ExplainLast())
	defer e.Close()
	if !strings.Contains(e.Text(), "add") || !strings.Contains(e.JSON(), "\"op\": \"add\"") {
		t.Errorf("ExplainLast: %s", e.Text())
	}

	metas := must(NewOpCall("relu"))
	defer metas.Close()
	if err := metas.AddInput([]int64{2, 3}, "f32", f.p, f.s0); err != nil {
		t.Fatal(err)
	}
	_, err := Apply(metas, x)
	wantErr(t, "apply with metas", err, InvalidArgument, "tess_op_call_add_input is for inference")
	missing := must(NewOpCall("scalar_add"))
	defer missing.Close()
	_, err = Apply(missing, x)
	wantErr(t, "missing attr", err, InvalidArgument, "value")
	_, err = Apply(missing, x, nil)
	wantErr(t, "nil input", err, InvalidArgument, "tess_op_call_apply: inputs[1] is NULL")
	_, err = Apply(nil, x)
	wantErr(t, "nil call", err, InvalidArgument, "tess_op_call_apply: argument \"call\" is NULL")

	// A failed op is the last one too: explaining it fails the same way. (A thread
	// that has run no op fails with FailedPrecondition; Go cannot promise a fresh OS
	// thread, so the C, Python and Java tests check that.)
	z := must(FromHost([]float32{1, 2}, []int64{2}, f.p, f.b))
	defer z.Close()
	_, err = Sub(x, z)
	wantErr(t, "sub shapes", err, InvalidArgument, "tess_sub: sub")
	_, err = ExplainLast()
	wantErr(t, "explain failed op", err, InvalidArgument, "tess_explanation_last: sub")
}
