package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testModel is a second implementation of serve_spec.md's model, written again from
// the spec for the fake services: f32 arithmetic throughout (as a service computes),
// weights as flat slices drawn by a closure.
type testModel struct{ w1, w2 []float32 }

func newTestModel(seed uint64) testModel {
	s := seed
	draw := func() float32 {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		z ^= z >> 31
		return float32(z>>40)/16777216 - 0.5
	}
	m := testModel{w1: make([]float32, 16*64), w2: make([]float32, 64*8)}
	for i := range m.w1 {
		m.w1[i] = draw()
	}
	for i := range m.w2 {
		m.w2[i] = draw()
	}
	return m
}

func (m testModel) forward(row []float32) []float32 {
	h := make([]float32, 64)
	for j := range h {
		for k := 0; k < 16; k++ {
			h[j] += row[k] * m.w1[k*64+j]
		}
		if h[j] < 0 {
			h[j] = 0
		}
	}
	y := make([]float32, 8)
	for j := range y {
		for k := 0; k < 64; k++ {
			y[j] += h[k] * m.w2[k*8+j]
		}
	}
	return y
}

// fakeService answers /v1/predict with the model; fault(n) picks what the n-th
// request (from 0, in arrival order) gets instead of a right answer.
type fakeService struct {
	model testModel
	fault func(n int64) string // "", "500", "perturb", "short", "hangup"
	// What it did.
	received, status500, perturbed, short, hungUp atomic.Int64
	withMetrics                                   atomic.Bool
	mu                                            sync.Mutex
	arrivals                                      []time.Time
	served, rowsServed                            int64 // under mu, for /metrics
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" && f.withMetrics.Load() {
		// Each request is its own batch: batch_rows observes its rows, batch_requests 1.
		f.mu.Lock()
		n, rows := f.served, f.rowsServed
		f.mu.Unlock()
		fmt.Fprintf(w, "# HELP tessera_serve_requests_total predict requests\n# TYPE tessera_serve_requests_total counter\n"+
			"tessera_serve_requests_total %d\ntessera_serve_runs_total %d\n"+
			"tessera_serve_batch_rows_bucket{le=\"1\"} 0\ntessera_serve_batch_rows_sum %d\ntessera_serve_batch_rows_count %d\n"+
			"tessera_serve_batch_requests_sum %d\ntessera_serve_batch_requests_count %d 1700000000\n"+
			"tessera_serve_plan_run_seconds_sum %g\ntessera_serve_plan_run_seconds_count %d\n",
			n, n, rows, n, n, n, 0.002*float64(n), n)
		return
	}
	if r.URL.Path != "/v1/predict" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	n := f.received.Add(1) - 1
	f.mu.Lock()
	f.arrivals = append(f.arrivals, time.Now())
	f.mu.Unlock()
	var req struct {
		Inputs [][]float32 `json:"inputs"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error": "bad json"}`, http.StatusBadRequest)
		return
	}
	fault := ""
	if f.fault != nil {
		fault = f.fault(n)
	}
	switch fault {
	case "500":
		f.status500.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error": "injected"}`)
		return
	case "hangup":
		f.hungUp.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	out := make([][]float32, len(req.Inputs))
	for r, row := range req.Inputs {
		y := f.model.forward(row)
		if fault == "perturb" && r == len(req.Inputs)-1 {
			y[3] += 1e-3 * (1 + float32(math.Abs(float64(y[3]))))
		}
		if fault == "short" && r == 0 {
			y = y[:7]
		}
		out[r] = y
	}
	switch fault {
	case "perturb":
		f.perturbed.Add(1)
	case "short":
		f.short.Add(1)
	}
	f.mu.Lock()
	f.served++
	f.rowsServed += int64(len(req.Inputs))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(rowsObject("outputs", out))
}

func startFake(t *testing.T, seed uint64, fault func(int64) string) (*fakeService, string) {
	t.Helper()
	f := &fakeService{model: newTestModel(seed), fault: fault}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func TestSplitMix64KnownValues(t *testing.T) {
	// The first outputs of splitmix64 from state 0 (Vigna's reference implementation).
	g := splitMix64{}
	for i, want := range []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F} {
		if got := g.next(); got != want {
			t.Fatalf("draw %d: %#x, want %#x", i, got, want)
		}
	}
}

func TestReferenceMatchesSecondImplementation(t *testing.T) {
	for _, seed := range []uint64{0, 3, 1<<64 - 1} {
		ref := newModel(seed)
		other := newTestModel(seed)
		x := inputs(seed, 5, 7, 9)
		want := ref.predict(x)
		for r, row := range x {
			got := other.forward(row)
			for j := range got {
				if !agrees(float64(got[j]), want[r][j]) {
					t.Fatalf("seed %d row %d output %d: f32 model %v, reference %v", seed, r, j, got[j], want[r][j])
				}
			}
		}
	}
	// Different seeds give different weights.
	if newModel(0).w1 == newModel(1).w1 {
		t.Fatal("seeds 0 and 1 gave the same W1")
	}
}

func TestAgreesTolerance(t *testing.T) {
	for _, c := range []struct {
		got, want float64
		ok        bool
	}{
		{1, 1, true}, {1.00005, 1, true}, {1.0003, 1, false}, {0, 5e-5, true}, {0, 2e-4, false},
		{-100.005, -100, true}, {-100.02, -100, false}, {math.NaN(), 0, false},
	} {
		if got := agrees(c.got, c.want); got != c.ok {
			t.Errorf("agrees(%v, %v) = %v, want %v", c.got, c.want, got, c.ok)
		}
	}
}

func TestInputsAreDeterministicAndDistinct(t *testing.T) {
	a := inputs(0, 1, 2, 3)
	if fmt.Sprint(a) != fmt.Sprint(inputs(0, 1, 2, 3)) {
		t.Fatal("the same client and request gave different inputs")
	}
	seen := map[string]bool{fmt.Sprint(a): true}
	for _, other := range [][][]float32{inputs(1, 1, 2, 3), inputs(0, 2, 2, 3), inputs(0, 1, 3, 3), inputs(0, -1, 2, 3)} {
		if seen[fmt.Sprint(other)] {
			t.Fatalf("inputs repeat across seed/client/request: %v", other)
		}
		seen[fmt.Sprint(other)] = true
	}
	if len(a) != 3 || len(a[0]) != inWidth {
		t.Fatalf("shape %dx%d, want 3x%d", len(a), len(a[0]), inWidth)
	}
	for _, row := range a {
		for _, v := range row {
			if v < -1 || v >= 1 {
				t.Fatalf("input %v outside [-1, 1)", v)
			}
		}
	}
}

func TestRequestBodyRoundTripsF32(t *testing.T) {
	x := inputs(9, 0, 0, 4)
	var parsed struct {
		Inputs [][]float32 `json:"inputs"`
	}
	if err := json.Unmarshal(requestBody(x), &parsed); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(parsed.Inputs) != fmt.Sprint(x) {
		t.Fatalf("body parses to %v, sent %v", parsed.Inputs, x)
	}
}

func TestPercentile(t *testing.T) {
	var v []float64
	for i := 1; i <= 100; i++ {
		v = append(v, float64(i))
	}
	for p, want := range map[float64]float64{50: 50, 95: 95, 99: 99, 100: 100, 0.1: 1} {
		if got := percentile(v, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v, want 0", got)
	}
	if got := percentile([]float64{7}, 99); got != 7 {
		t.Errorf("p99 of one = %v, want 7", got)
	}
}

func TestRunAgainstRightService(t *testing.T) {
	f, url := startFake(t, 3, nil)
	cfg := config{url: url, clients: 4, duration: 300 * time.Millisecond, warmup: 100 * time.Millisecond,
		rows: 3, seed: 3, timeout: 5 * time.Second}
	res := run(cfg)
	if res.requests == 0 || res.errors != 0 || res.wrong != 0 {
		t.Fatalf("requests %d errors %d wrong %d (%v), want some requests and no errors", res.requests, res.errors, res.wrong, res.firstErrors)
	}
	if len(res.latency) != res.requests {
		t.Fatalf("%d latencies for %d requests", len(res.latency), res.requests)
	}
	// The warmup's requests reached the service but were not counted.
	if got := f.received.Load(); got <= int64(res.requests) {
		t.Fatalf("service received %d requests, counted %d: the warmup's are missing", got, res.requests)
	}
	if res.elapsed < 0.3 || res.elapsed > 3 {
		t.Fatalf("elapsed %v s for a 0.3 s window", res.elapsed)
	}
	// The clients and the fake service share this process: it worked during the window.
	if res.cpuSeconds <= 0 || res.cpuSeconds > 2*float64(runtime.NumCPU())*res.elapsed {
		t.Fatalf("loadgen CPU %v s over %v s", res.cpuSeconds, res.elapsed)
	}
}

func TestRunCountsErrorsAndWrongAnswers(t *testing.T) {
	fault := func(n int64) string {
		return []string{"", "500", "perturb", "", "hangup", "short", ""}[n%7]
	}
	f, url := startFake(t, 0, fault)
	cfg := config{url: url, clients: 3, duration: 300 * time.Millisecond, rows: 2, timeout: 5 * time.Second}
	res := run(cfg)
	if int64(res.requests) != f.received.Load() {
		t.Fatalf("counted %d requests, service received %d", res.requests, f.received.Load())
	}
	if want := f.status500.Load() + f.hungUp.Load(); int64(res.errors) != want || want == 0 {
		t.Fatalf("errors %d, service failed %d (500s %d, hang-ups %d)", res.errors, want, f.status500.Load(), f.hungUp.Load())
	}
	if want := f.perturbed.Load() + f.short.Load(); int64(res.wrong) != want || f.perturbed.Load() == 0 || f.short.Load() == 0 {
		t.Fatalf("wrong %d, service answered wrong %d (perturbed %d, short %d)", res.wrong, want, f.perturbed.Load(), f.short.Load())
	}
	if len(res.latency) != res.requests-res.errors {
		t.Fatalf("%d latencies for %d answered requests", len(res.latency), res.requests-res.errors)
	}
	if len(res.firstErrors) != keptMessages {
		t.Fatalf("kept %d messages, want %d", len(res.firstErrors), keptMessages)
	}
}

func TestWrongSeedIsWrong(t *testing.T) {
	_, url := startFake(t, 1, nil)
	res := run(config{url: url, clients: 1, duration: 100 * time.Millisecond, rows: 1, seed: 2, timeout: 5 * time.Second})
	if res.requests == 0 || res.wrong != res.requests {
		t.Fatalf("against a service of another seed: %d of %d wrong, want all", res.wrong, res.requests)
	}
}

func TestIdleProbe(t *testing.T) {
	f, url := startFake(t, 0, nil)
	res := idleProbe(config{url: url, clients: 1, rows: 1, timeout: 5 * time.Second}, 200*time.Millisecond)
	if res.errors != 0 || res.wrong != 0 {
		t.Fatalf("errors %d wrong %d: %v", res.errors, res.wrong, res.firstErrors)
	}
	if f.received.Load() != 3 {
		t.Fatalf("service received %d requests, want 3", f.received.Load())
	}
	if gap := f.arrivals[1].Sub(f.arrivals[0]); gap < 200*time.Millisecond {
		t.Fatalf("the idle wait was %v, want >= 200ms", gap)
	}
	if res.firstMs <= 0 || res.warmMs <= 0 || res.secondMs <= 0 {
		t.Fatalf("latencies %v %v %v, want positive", res.warmMs, res.firstMs, res.secondMs)
	}
	if res.server != nil || res.metricsErr != nil {
		t.Fatalf("without -metrics: server %v, error %v", res.server, res.metricsErr)
	}

	// With /metrics: the figures of the first request after the wait alone.
	f.withMetrics.Store(true)
	res = idleProbe(config{url: url, clients: 1, rows: 3, timeout: 5 * time.Second, metrics: true}, 10*time.Millisecond)
	if got := fmt.Sprint(res.server); res.metricsErr != nil || got != "[{server_requests 1} {server_runs 1} {server_mean_batch_rows 3} {server_mean_batch_requests 1} {server_mean_run_ms 2}]" {
		t.Fatalf("server figures %s, error %v", got, res.metricsErr)
	}
}

func TestMainPrintsOneLineWithLabels(t *testing.T) {
	_, url := startFake(t, 5, nil)
	var out, errOut bytes.Buffer
	status := mainWithArgs([]string{"-url", url, "-clients", "2", "-duration", "0.2", "-warmup", "0",
		"-seed", "5", "-rows", "4", "-label", "ranks=4", "-label", "batching=on"}, &out, &errOut)
	if status != 0 {
		t.Fatalf("status %d, stderr %s", status, errOut.String())
	}
	var line map[string]interface{}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("output %q is not one JSON line: %v", out.String(), err)
	}
	for _, k := range []string{"clients", "seconds", "rows_per_request", "requests", "errors", "wrong",
		"throughput_rps", "p50_ms", "p95_ms", "p99_ms", "max_ms", "loadgen_cpu_percent"} {
		if _, ok := line[k].(float64); !ok {
			t.Errorf("field %q = %v, want a number", k, line[k])
		}
	}
	if line["ranks"] != 4.0 || line["batching"] != "on" || line["rows_per_request"] != 4.0 || line["clients"] != 2.0 {
		t.Errorf("labels/fields wrong: %v", line)
	}
	if !(line["p50_ms"].(float64) <= line["p99_ms"].(float64) && line["p99_ms"].(float64) <= line["max_ms"].(float64)) {
		t.Errorf("percentiles out of order: %v", line)
	}

	out.Reset()
	status = mainWithArgs([]string{"-url", url, "-idle-probe", "0.05", "-seed", "5", "-label", "rank_count=1"}, &out, &errOut)
	if status != 0 || !strings.Contains(out.String(), `"mode": "idle_probe"`) || !strings.Contains(out.String(), `"first_after_idle_ms"`) {
		t.Fatalf("idle probe: status %d, line %s, stderr %s", status, out.String(), errOut.String())
	}
}

func TestMainFailsOnWrongAnswers(t *testing.T) {
	_, url := startFake(t, 0, func(n int64) string { return "500" })
	var out, errOut bytes.Buffer
	if status := mainWithArgs([]string{"-url", url, "-duration", "0.1", "-warmup", "0"}, &out, &errOut); status != 1 {
		t.Fatalf("status %d against a failing service, want 1", status)
	}
	if !strings.Contains(errOut.String(), "status 500") || !strings.Contains(out.String(), `"errors"`) {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

func TestBadFlags(t *testing.T) {
	url := "http://127.0.0.1:1"
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-url is required"},
		{[]string{"-url", "127.0.0.1:80"}, `-url "127.0.0.1:80"`},
		{[]string{"-url", "ftp://h/"}, `-url "ftp://h/"`},
		{[]string{"-url", url, "-clients", "0"}, "-clients 0"},
		{[]string{"-url", url, "-clients", "5000"}, "-clients 5000"},
		{[]string{"-url", url, "-rows", "0"}, "-rows 0"},
		{[]string{"-url", url, "-rows", "65"}, "-rows 65"},
		{[]string{"-url", url, "-duration", "0"}, "-duration 0s"},
		{[]string{"-url", url, "-duration", "soon"}, `"soon"`},
		{[]string{"-url", url, "-duration", "inf"}, `"inf"`},
		{[]string{"-url", url, "-warmup", "-1"}, "-warmup -1s"},
		{[]string{"-url", url, "-timeout", "0"}, "-timeout 0s"},
		{[]string{"-url", url, "-idle-probe", "-2"}, "-idle-probe -2s"},
		{[]string{"-url", url, "-seed", "-1"}, `"-1"`},
		{[]string{"-url", url, "-label", "novalue"}, `"novalue"`},
		{[]string{"-url", url, "-label", "=v"}, `"=v"`},
		{[]string{"-url", url, "-label", "a=1", "-label", "a=2"}, `key "a" given twice`},
		{[]string{"-url", url, "-label", "requests=3"}, `-label requests=3`},
		{[]string{"-url", url, "-label", "server_runs=3"}, `-label server_runs=3`},
		{[]string{"-url", url, "-idle-probe", "1", "-label", "first_after_idle_ms=3"}, `-label first_after_idle_ms=3`},
		{[]string{"-url", url, "-idle-probe", "1", "-label", "server_mean_queue_ms=3"}, `-label server_mean_queue_ms=3`},
		{[]string{"-url", url, "extra"}, `"extra"`},
	} {
		var out, errOut bytes.Buffer
		status := mainWithArgs(c.args, &out, &errOut)
		if status != 2 || !strings.Contains(errOut.String(), c.want) || out.Len() != 0 {
			t.Errorf("%q: status %d, stderr %q, stdout %q; want 2 and a message with %q", c.args, status, errOut.String(), out.String(), c.want)
		}
	}
	// Good flags, no run.
	o, err := parseFlags([]string{"-url", url, "-duration", "1.5", "-warmup", "250ms", "-idle-probe", "0"}, &bytes.Buffer{})
	if err != nil || o.cfg.duration != 1500*time.Millisecond || o.cfg.warmup != 250*time.Millisecond || !o.probe || o.idleProbe != 0 {
		t.Fatalf("parseFlags: %+v, %v", o, err)
	}
}

func TestParseMetrics(t *testing.T) {
	got, err := parseMetrics("# HELP a x\n# TYPE a counter\na 3\n\nb_bucket{le=\"+Inf\"} 9\nc 1.5e-3 1700000000\nd +Inf\n")
	if err != nil || len(got) != 3 || got["a"] != 3 || got["c"] != 1.5e-3 || !math.IsInf(got["d"], 1) {
		t.Fatalf("parseMetrics: %v, %v", got, err)
	}
	for _, bad := range []string{"a\n", "a b\n", "a 1 2 3\n"} {
		if _, err := parseMetrics(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(strings.TrimSpace(bad))) {
			t.Errorf("parseMetrics(%q): %v, want an error quoting the line", bad, err)
		}
	}
}

func TestServerFields(t *testing.T) {
	before := map[string]float64{"tessera_serve_requests_total": 10, "tessera_serve_batch_rows_sum": 20,
		"tessera_serve_batch_rows_count": 10, "tessera_serve_queue_seconds_sum": 1, "tessera_serve_queue_seconds_count": 5}
	after := map[string]float64{"tessera_serve_requests_total": 14, "tessera_serve_batch_rows_sum": 50,
		"tessera_serve_batch_rows_count": 15, "tessera_serve_queue_seconds_sum": 1, "tessera_serve_queue_seconds_count": 5,
		"tessera_serve_runs_total": 3}
	got := fmt.Sprint(serverFields(before, after))
	// runs_total is missing before; the queue histogram saw nothing new.
	if want := "[{server_requests 4} {server_mean_batch_rows 6}]"; got != want {
		t.Fatalf("serverFields = %s, want %s", got, want)
	}
}

func TestRunScrapesMetrics(t *testing.T) {
	f, url := startFake(t, 0, nil)
	f.withMetrics.Store(true)
	res := run(config{url: url, clients: 2, duration: 200 * time.Millisecond, warmup: 50 * time.Millisecond,
		rows: 5, timeout: 5 * time.Second, metrics: true})
	if res.metricsErr != nil || res.errors+res.wrong != 0 {
		t.Fatalf("metrics error %v, errors %d, wrong %d", res.metricsErr, res.errors, res.wrong)
	}
	got := map[string]float64{}
	for _, fl := range res.server {
		got[fl.key] = fl.value.(float64)
	}
	// The first scrape ends a little after the window starts, and requests of the
	// warmup may still be in flight then: the service's count is close, not equal.
	if d := got["server_requests"] - float64(res.requests); d < -0.2*float64(res.requests)-2 || d > 2 || got["server_runs"] != got["server_requests"] {
		t.Errorf("server_requests %v server_runs %v for %d requests", got["server_requests"], got["server_runs"], res.requests)
	}
	if got["server_mean_batch_rows"] != 5 || got["server_mean_batch_requests"] != 1 || got["server_mean_run_ms"] != 2 {
		t.Errorf("server figures %v, want mean batch rows 5, requests 1, run 2 ms", got)
	}
	if _, ok := got["server_mean_queue_ms"]; ok {
		t.Errorf("server_mean_queue_ms %v from a service without that histogram", got["server_mean_queue_ms"])
	}

	// A service without /metrics: the run stands, without server figures, and says why.
	f.withMetrics.Store(false)
	var out, errOut bytes.Buffer
	status := mainWithArgs([]string{"-url", url, "-duration", "0.05", "-warmup", "0"}, &out, &errOut)
	if status != 0 || strings.Contains(out.String(), "server_") || !strings.Contains(errOut.String(), "GET /metrics: status 404") {
		t.Fatalf("without /metrics: status %d, stdout %s, stderr %s", status, out.String(), errOut.String())
	}
	out.Reset()
	if status := mainWithArgs([]string{"-url", url, "-duration", "0.05", "-warmup", "0", "-metrics=false"}, &out, &errOut); status != 0 {
		t.Fatalf("-metrics=false: status %d", status)
	}
}
