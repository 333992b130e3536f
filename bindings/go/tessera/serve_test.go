package tessera

// Serving in a world of one (the driver alone) and what the serving tests share: the
// example model (docs/serving.md: y = relu(x W1) W2, weights from splitmix64, laid out
// on the [dp, mp] grid) and its plain-loop reference, written here independently of
// the library; every serving function's bad inputs.

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

const (
	serveIn     = 16
	serveHidden = 64
	serveOut    = 8
)

// serveWeights are W1 [16, 64] then W2 [64, 8], row-major, from splitmix64(seed):
// each weight is (z >> 40) / 2^24 - 0.5.
func serveWeights(seed uint64) (w1, w2 []float32) {
	state := seed
	next := func() float32 {
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		z ^= z >> 31
		return float32(float64(z>>40)/16777216.0 - 0.5)
	}
	w1 = make([]float32, serveIn*serveHidden)
	w2 = make([]float32, serveHidden*serveOut)
	for i := range w1 {
		w1[i] = next()
	}
	for i := range w2 {
		w2[i] = next()
	}
	return w1, w2
}

// serveReference is the model on rows of x by plain loops, in float64.
func serveReference(w1, w2, x []float32) []float32 {
	rows := len(x) / serveIn
	y := make([]float32, rows*serveOut)
	h := make([]float64, serveHidden)
	for r := 0; r < rows; r++ {
		for j := range h {
			s := 0.0
			for k := 0; k < serveIn; k++ {
				s += float64(x[r*serveIn+k]) * float64(w1[k*serveHidden+j])
			}
			h[j] = math.Max(s, 0)
		}
		for j := 0; j < serveOut; j++ {
			s := 0.0
			for k := range h {
				s += h[k] * float64(w2[k*serveOut+j])
			}
			y[r*serveOut+j] = float32(s)
		}
	}
	return y
}

// serveGrid is the placement text of the world's [dp, mp] grid: dp = 2 for an even
// world of 4 or more ranks, else 1; ranks row-major.
func serveGrid(size int32) string {
	dp := int32(1)
	if size >= 4 && size%2 == 0 {
		dp = 2
	}
	rows := make([]string, dp)
	for i := range rows {
		ranks := make([]string, size/dp)
		for j := range ranks {
			ranks[j] = fmt.Sprint(int32(i)*(size/dp) + int32(j))
		}
		rows[i] = "[" + strings.Join(ranks, ",") + "]"
	}
	return "cpu:[" + strings.Join(rows, ",") + "]"
}

// serveRows is rows x 16 distinct multiples of 1/16 for salt.
func serveRows(rows, salt int) []float32 {
	x := make([]float32, rows*serveIn)
	for i := range x {
		x[i] = float32((i*13+salt*7)%29-14) * 0.0625
	}
	return x
}

// servePlan compiles the model for capacity rows on every rank of the world
// (collective: every rank calls it alike). Closed when t ends.
func servePlan(t *testing.T, seed uint64, capacity int64) *Plan {
	t.Helper()
	size := must(WorldSize())
	grid := must(ParsePlacement(serveGrid(size)))
	xSbp, w1Sbp, w2Sbp := must(ParseNdSbp("(S(0), B)")), must(ParseNdSbp("(B, S(1))")),
		must(ParseNdSbp("(B, S(0))"))
	defer func() {
		for _, h := range []interface{ Close() }{grid, xSbp, w1Sbp, w2Sbp} {
			h.Close()
		}
	}()
	w1, w2 := serveWeights(seed)
	tw1 := must(FromHost(w1, []int64{serveIn, serveHidden}, grid, w1Sbp))
	defer tw1.Close()
	tw2 := must(FromHost(w2, []int64{serveHidden, serveOut}, grid, w2Sbp))
	defer tw2.Close()
	p := must(NewProgram())
	defer p.Close()
	x := must(p.AddInput("x", []int64{capacity, serveIn}, "f32", grid, xSbp))
	v1, v2 := must(p.AddVariable("w1", tw1)), must(p.AddVariable("w2", tw2))
	h := must(p.AddOp("matmul", x, v1))[0]
	h = must(p.AddOp("relu", h))[0]
	h = must(p.AddOp("matmul", h, v2))[0]
	if err := p.MarkOutput(h); err != nil {
		t.Fatal(err)
	}
	plan := must(p.Compile(0))
	t.Cleanup(plan.Close)
	return plan
}

// checkServed compares y with the reference for x, to 1e-4 relative.
func checkServed(t *testing.T, what string, w1, w2, x, y []float32) {
	t.Helper()
	want := serveReference(w1, w2, x)
	if len(y) != len(want) {
		t.Errorf("%s: %d outputs, want %d", what, len(y), len(want))
		return
	}
	for i := range y {
		if math.Abs(float64(y[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
			t.Errorf("%s: y[%d] = %v, want %v", what, i, y[i], want[i])
			return
		}
	}
}

// The reference itself: splitmix64's known first outputs for seed 0, and one hidden
// unit by hand.
func TestServeReference(t *testing.T) {
	// splitmix64(0)'s first two outputs are 0xE220A8397B1DCDAF and 0x6E789E6AA1B965F4.
	w1, w2 := serveWeights(0)
	for i, z := range []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4} {
		if want := float32(float64(z>>40)/16777216.0 - 0.5); w1[i] != want {
			t.Errorf("w1[%d] = %v, want %v", i, w1[i], want)
		}
	}
	if len(w1) != 1024 || len(w2) != 512 {
		t.Fatalf("%d and %d weights", len(w1), len(w2))
	}
	// x = e_0: h = relu(W1 row 0), y_j = sum_k h_k W2[k][j].
	x := make([]float32, serveIn)
	x[0] = 1
	y := serveReference(w1, w2, x)
	s := 0.0
	for k := 0; k < serveHidden; k++ {
		s += math.Max(float64(w1[k]), 0) * float64(w2[k*serveOut+3])
	}
	if y[3] != float32(s) {
		t.Errorf("y[3] = %v, want %v", y[3], s)
	}
	for size, want := range map[int32]string{1: "cpu:[[0]]", 3: "cpu:[[0,1,2]]",
		4: "cpu:[[0,1],[2,3]]", 5: "cpu:[[0,1,2,3,4]]"} {
		if got := serveGrid(size); got != want {
			t.Errorf("serveGrid(%d) = %q, want %q", size, got, want)
		}
	}
}

// The driver alone: answers, the plan queries, stats, and Close's order.
func TestServeWorldOfOne(t *testing.T) {
	if must(WorldSize()) != 1 {
		t.Skip("a world of one only")
	}
	const seed, capacity = 7, 8
	w1, w2 := serveWeights(seed)
	plan := servePlan(t, seed, capacity)
	s := must(NewServer(ServerOptions{}))
	defer s.Close()
	if !must(s.IsDriver()) {
		t.Fatal("rank 0 of a world of one does not drive")
	}
	id := must(s.AddPlan(plan, ServePlanOptions{Batching: true, MaxBatchRows: 4,
		MaxQueueDelayUs: 100}))
	if id != 0 || must(s.NumPlans()) != 1 {
		t.Fatalf("plan id %d, %d plans", id, must(s.NumPlans()))
	}
	info := must(s.PlanInfo(id))
	want := ServePlanInfo{NumInputs: 1, NumOutputs: 1, CapacityRows: capacity, MaxBatchRows: 4,
		MaxQueueDelayUs: 100, MaxQueuedRequests: 4096, Batching: true}
	if info != want {
		t.Errorf("PlanInfo = %+v, want %+v", info, want)
	}
	if must(s.InputWidth(id, 0)) != serveIn || must(s.OutputWidth(id, 0)) != serveOut ||
		must(s.InputDType(id, 0)) != "f32" || must(s.OutputDType(id, 0)) != "f32" {
		t.Errorf("widths %d, %d, dtypes %s, %s", must(s.InputWidth(id, 0)),
			must(s.OutputWidth(id, 0)), must(s.InputDType(id, 0)), must(s.OutputDType(id, 0)))
	}
	r := must(s.NewRequest(id))
	defer r.Close()
	if must(r.Rows()) != 0 {
		t.Errorf("Rows before SetInput = %d", must(r.Rows()))
	}
	for rows := 1; rows <= 4; rows++ {
		x := serveRows(rows, rows)
		if err := r.SetInputFloat32(0, x); err != nil {
			t.Fatal(err)
		}
		if must(r.Rows()) != int64(rows) {
			t.Errorf("Rows = %d, want %d", must(r.Rows()), rows)
		}
		if err := s.Run(r); err != nil {
			t.Fatal(err)
		}
		y := must(r.OutputFloat32(0))
		checkServed(t, fmt.Sprintf("%d rows", rows), w1, w2, x, y)
		// The byte forms agree with the float32 one.
		raw := must(r.Output(0))
		if int64(len(raw)) != must(r.OutputBytes(0)) || len(raw) != rows*serveOut*4 ||
			string(raw) != string(bytesOf(y)) {
			t.Errorf("Output(0): %d bytes, OutputBytes %d", len(raw), must(r.OutputBytes(0)))
		}
		ri := must(r.Info())
		if ri.BatchRows != int64(rows) || ri.BatchRequests != 1 || ri.QueueSeconds < 0 ||
			ri.RunSeconds <= 0 {
			t.Errorf("Info = %+v after a lone request of %d rows", ri, rows)
		}
	}
	// SetInput takes the same rows as bytes.
	x := serveRows(3, 99)
	if err := r.SetInput(0, bytesOf(x)); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(r); err != nil {
		t.Fatal(err)
	}
	checkServed(t, "bytes in", w1, w2, x, must(r.OutputFloat32(0)))
	if err := s.CheckHealth(5); err != nil {
		t.Errorf("CheckHealth: %v", err)
	}
	st := must(s.Stats())
	if st.Requests != 5 || st.FailedRequests != 0 || st.Runs != 5 || st.Rows != 13 ||
		st.QueuedRequests != 0 || !st.Available || st.Stopped {
		t.Errorf("Stats = %+v", st)
	}
	if st.HeapAllocationsLastBatch != -1 { // libtessera.so does not count (serve.h)
		t.Errorf("HeapAllocationsLastBatch = %d, want -1 (not counted)", st.HeapAllocationsLastBatch)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	wantErr(t, "Run after Stop", s.Run(r), Cancelled, "")
	wantErr(t, "CheckHealth after Stop", s.CheckHealth(1), Cancelled, "")
	if st := must(s.Stats()); !st.Stopped {
		t.Errorf("Stats after Stop = %+v", st)
	}
}

// A server closed with requests open is destroyed with the last of them; its calls
// are refused meanwhile. Requests and servers dropped unclosed are freed by their
// finalizers (TestHandlesFreedOnce).
func TestServeCloseOrder(t *testing.T) {
	if must(WorldSize()) != 1 {
		t.Skip("a world of one only")
	}
	c := countDestroys(t)
	plan := servePlan(t, 1, 4)
	s := must(NewServer(ServerOptions{}))
	must(s.AddPlan(plan, ServePlanOptions{}))
	r1, r2 := must(s.NewRequest(0)), must(s.NewRequest(0))
	s.Close()
	s.Close()
	if c.get("Server") != 0 {
		t.Fatal("the server was destroyed under its open requests")
	}
	wantErr(t, "NewRequest on a closed server", func() error { _, err := s.NewRequest(0); return err }(),
		InvalidArgument, "")
	wantErr(t, "Run on a closed server", s.Run(r1), InvalidArgument, "")
	r1.Close()
	r1.Close()
	if c.get("Server") != 0 || c.get("ServeRequest") != 1 {
		t.Fatalf("destroys: %d servers, %d requests", c.get("Server"), c.get("ServeRequest"))
	}
	r2.Close()
	if c.get("Server") != 1 || c.get("ServeRequest") != 2 {
		t.Fatalf("destroys: %d servers, %d requests", c.get("Server"), c.get("ServeRequest"))
	}
	var nilServer *Server
	nilServer.Close()
	var nilRequest *ServeRequest
	nilRequest.Close()
}

// Every serving function's bad inputs, in a world of one.
func TestServeBadInputs(t *testing.T) {
	if must(WorldSize()) != 1 {
		t.Skip("a world of one only")
	}
	for _, c := range []struct {
		options ServerOptions
		text    string
	}{
		{ServerOptions{DriverRank: 1}, "driver_rank"},
		{ServerOptions{DriverRank: -1}, "driver_rank"},
		{ServerOptions{FollowerTimeoutSeconds: -1}, "follower_timeout_seconds"},
		{ServerOptions{FollowerTimeoutSeconds: math.NaN()}, "follower_timeout_seconds"},
		{ServerOptions{FollowerTimeoutSeconds: 2e6}, "follower_timeout_seconds"},
		{ServerOptions{FollowerPollMaxUs: -1}, "follower_poll_max_us"},
		{ServerOptions{FollowerPollMaxUs: 100001}, "follower_poll_max_us"},
	} {
		_, err := NewServer(c.options)
		wantErr(t, fmt.Sprintf("NewServer(%+v)", c.options), err, InvalidArgument, c.text)
	}

	const capacity = 4
	plan := servePlan(t, 3, capacity)
	s := must(NewServer(ServerOptions{FollowerTimeoutSeconds: 5, FollowerPollMaxUs: 100}))
	defer s.Close()
	for _, c := range []struct {
		options ServePlanOptions
		text    string
	}{
		{ServePlanOptions{MaxBatchRows: capacity + 1}, "max_batch_rows"},
		{ServePlanOptions{MaxBatchRows: -1}, "max_batch_rows"},
		{ServePlanOptions{Batching: true, MaxQueueDelayUs: -1}, "max_queue_delay_us"},
		{ServePlanOptions{Batching: true, MaxQueueDelayUs: 10000001}, "max_queue_delay_us"},
		{ServePlanOptions{MaxQueuedRequests: -1}, "max_queued_requests"},
		{ServePlanOptions{MaxQueuedRequests: 1000001}, "max_queued_requests"},
	} {
		_, err := s.AddPlan(plan, c.options)
		wantErr(t, fmt.Sprintf("AddPlan(%+v)", c.options), err, InvalidArgument, c.text)
	}
	_, err := s.AddPlan(nil, ServePlanOptions{})
	wantErr(t, "AddPlan(nil)", err, InvalidArgument, "plan")
	id := must(s.AddPlan(plan, ServePlanOptions{MaxBatchRows: 2}))

	for _, bad := range []int{1, -1, math.MaxInt32 + 1, math.MinInt32 - 1} {
		_, err := s.NewRequest(bad)
		wantErr(t, fmt.Sprintf("NewRequest(%d)", bad), err, OutOfRange, fmt.Sprint(bad))
		_, err = s.PlanInfo(bad)
		wantErr(t, fmt.Sprintf("PlanInfo(%d)", bad), err, OutOfRange, fmt.Sprint(bad))
		_, err = s.InputWidth(bad, 0)
		wantErr(t, fmt.Sprintf("InputWidth(%d, 0)", bad), err, OutOfRange, fmt.Sprint(bad))
	}
	for _, bad := range []int{1, -1} {
		_, err := s.InputWidth(id, bad)
		wantErr(t, fmt.Sprintf("InputWidth(0, %d)", bad), err, OutOfRange, fmt.Sprint(bad))
		_, err = s.OutputWidth(id, bad)
		wantErr(t, fmt.Sprintf("OutputWidth(0, %d)", bad), err, OutOfRange, fmt.Sprint(bad))
		_, err = s.InputDType(id, bad)
		wantErr(t, fmt.Sprintf("InputDType(0, %d)", bad), err, OutOfRange, fmt.Sprint(bad))
		_, err = s.OutputDType(id, bad)
		wantErr(t, fmt.Sprintf("OutputDType(0, %d)", bad), err, OutOfRange, fmt.Sprint(bad))
	}
	wantErr(t, "Follow on the driver", s.Follow(), FailedPrecondition, "")
	wantErr(t, "CheckHealth(0)", s.CheckHealth(0), InvalidArgument, "0")
	wantErr(t, "CheckHealth(NaN)", s.CheckHealth(math.NaN()), InvalidArgument, "nan")

	r := must(s.NewRequest(id))
	defer r.Close()
	wantErr(t, "Run before SetInput", s.Run(r), InvalidArgument, "")
	_, err = r.Output(0)
	wantErr(t, "Output before a run", err, FailedPrecondition, "")
	_, err = r.Info()
	wantErr(t, "Info before a run", err, FailedPrecondition, "")
	// A byte count that is no whole row (16 f32 = 64 bytes), too many rows, none.
	wantErr(t, "SetInput of 65 bytes", r.SetInput(0, make([]byte, 65)), InvalidArgument, "65")
	wantErr(t, "SetInput of 3 rows (max 2)", r.SetInputFloat32(0, serveRows(3, 0)),
		InvalidArgument, "3")
	wantErr(t, "SetInput of 0 bytes", r.SetInput(0, nil), InvalidArgument, "0")
	wantErr(t, "SetInput(1, ...)", r.SetInput(1, bytesOf(serveRows(1, 0))), OutOfRange, "1")
	wantErr(t, "SetInput(-1, ...)", r.SetInput(-1, bytesOf(serveRows(1, 0))), OutOfRange, "-1")
	wantErr(t, "SetInputFloat32(1, ...)", r.SetInputFloat32(1, serveRows(1, 0)), OutOfRange, "1")

	if err := r.SetInputFloat32(0, serveRows(2, 0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(r); err != nil {
		t.Fatal(err)
	}
	_, err = r.Output(1)
	wantErr(t, "Output(1)", err, OutOfRange, "1")
	_, err = r.OutputFloat32(-1)
	wantErr(t, "OutputFloat32(-1)", err, OutOfRange, "-1")
	_, err = r.OutputInto(0, make([]byte, 63))
	wantErr(t, "OutputInto 63 bytes", err, InvalidArgument, "63")
	// Serving has begun: no more plans.
	_, err = s.AddPlan(plan, ServePlanOptions{})
	wantErr(t, "AddPlan after a run", err, FailedPrecondition, "")
	// A request of another server.
	other := must(NewServer(ServerOptions{}))
	defer other.Close()
	must(other.AddPlan(plan, ServePlanOptions{}))
	foreign := must(other.NewRequest(0))
	defer foreign.Close()
	if err := foreign.SetInputFloat32(0, serveRows(1, 0)); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Run of another server's request", s.Run(foreign), InvalidArgument, "")
	wantErr(t, "Run(nil)", s.Run(nil), InvalidArgument, "request")
}
