package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// config is one load run (the flags of main).
type config struct {
	url      string        // the service's base URL, e.g. http://127.0.0.1:8080
	clients  int           // concurrent clients, each one request at a time
	duration time.Duration // measured time
	warmup   time.Duration // time before it, not counted
	rows     int           // rows per request
	seed     uint64        // the service's weight seed (and the inputs' seed)
	timeout  time.Duration // per-request timeout
	metrics  bool          // scrape /metrics around the window
}

// result is what a run counts. Latencies are of the requests answered 200 (right or
// wrong); errors and wrong answers are counted separately.
type result struct {
	requests int     // requests started in the measured window
	errors   int     // of them: transport errors and non-200 answers
	wrong    int     // of them: 200 answers that are not the model's outputs
	elapsed  float64 // seconds from the window's start until the last of them ended
	latency  []float64
	// firstErrors keeps the first few error and wrong-answer messages, to print.
	firstErrors []string
	// server are the service's figures over the window (serverFields), when scraped.
	server []field
	// metricsErr says why they are missing.
	metricsErr error
	// cpuSeconds is loadgen's own user + system CPU time over the window.
	cpuSeconds float64
}

const keptMessages = 5

// checker posts one request and checks its answer against the reference.
type checker struct {
	base   string
	client *http.Client
	model  *model
}

// outcome of one request.
type outcome int

const (
	answeredRight outcome = iota
	answeredWrong
	failed
)

func newChecker(cfg config) *checker {
	transport := &http.Transport{
		MaxIdleConns:        cfg.clients + 1,
		MaxIdleConnsPerHost: cfg.clients + 1,
		IdleConnTimeout:     10 * time.Minute,
	}
	return &checker{
		base:   strings.TrimRight(cfg.url, "/"),
		client: &http.Client{Transport: transport, Timeout: cfg.timeout},
		model:  newModel(cfg.seed),
	}
}

// requestBody is the JSON of {"inputs": x}, each value printed so it parses back to
// the same f32.
func requestBody(x [][]float32) []byte {
	return rowsObject("inputs", x)
}

// rowsObject is {"key":[[v, ...], ...]} with each f32 printed so it parses back to itself.
func rowsObject(key string, x [][]float32) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{%q:[`, key)
	for r, row := range x {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for k, v := range row {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		b.WriteByte(']')
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// check compares an answer's body with the reference of x; "" when right.
func (c *checker) check(x [][]float32, body []byte) string {
	var answer struct {
		Outputs [][]float64 `json:"outputs"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Sprintf("answer is not {\"outputs\": [[numbers]]}: %v", err)
	}
	if len(answer.Outputs) != len(x) {
		return fmt.Sprintf("answer has %d output rows for %d input rows", len(answer.Outputs), len(x))
	}
	want := c.model.predict(x)
	for r, row := range answer.Outputs {
		if len(row) != outWidth {
			return fmt.Sprintf("output row %d has %d values, want %d", r, len(row), outWidth)
		}
		for j, v := range row {
			if !agrees(v, want[r][j]) {
				return fmt.Sprintf("output [%d][%d] = %v, reference %v", r, j, v, want[r][j])
			}
		}
	}
	return ""
}

// do posts x and checks the answer: the outcome, the latency in seconds (from before
// the request is written until the whole answer is read) and a message unless right.
func (c *checker) do(ctx context.Context, x [][]float32) (outcome, float64, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/predict",
		bytes.NewReader(requestBody(x)))
	if err != nil {
		return failed, 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		return failed, time.Since(start).Seconds(), err.Error()
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	seconds := time.Since(start).Seconds()
	if err != nil {
		return failed, seconds, fmt.Sprintf("reading the answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return failed, seconds, fmt.Sprintf("status %d: %.200s", resp.StatusCode, body)
	}
	if msg := c.check(x, body); msg != "" {
		return answeredWrong, seconds, msg
	}
	return answeredRight, seconds, ""
}

// run drives cfg.clients clients for warmup + duration. Each client sends its
// requests one after another; request i of client c holds inputs(seed, c, i, rows).
// Requests started during the warmup are not counted; those started in the window
// are counted whenever they end.
func run(cfg config) result {
	c := newChecker(cfg)
	defer c.client.CloseIdleConnections()
	start := time.Now()
	windowStart := start.Add(cfg.warmup)
	end := windowStart.Add(cfg.duration)
	var (
		mu  sync.Mutex
		res result
		wg  sync.WaitGroup
		// lastEnd is when the last counted request ended.
		lastEnd = windowStart
		// The scrape at the window's start, by its own goroutine.
		scraped       = make(chan struct{})
		metricsBefore map[string]float64
	)
	var cpuBefore float64
	cpuTaken := make(chan struct{})
	go func() {
		defer close(cpuTaken)
		time.Sleep(time.Until(windowStart))
		cpuBefore = processCPUSeconds()
	}()
	if cfg.metrics {
		go func() {
			defer close(scraped)
			time.Sleep(time.Until(windowStart))
			metricsBefore, res.metricsErr = c.scrape(context.Background())
		}()
	} else {
		close(scraped)
	}
	for client := 0; client < cfg.clients; client++ {
		wg.Add(1)
		go func(client int) {
			defer wg.Done()
			var local result
			localEnd := windowStart
			for i := 0; ; i++ {
				sent := time.Now()
				if !sent.Before(end) {
					break
				}
				x := inputs(cfg.seed, client, i, cfg.rows)
				got, seconds, msg := c.do(context.Background(), x)
				if sent.Before(windowStart) {
					continue
				}
				local.requests++
				switch got {
				case failed:
					local.errors++
				case answeredWrong:
					local.wrong++
				}
				if got != failed {
					local.latency = append(local.latency, seconds)
				}
				if msg != "" && len(local.firstErrors) < keptMessages {
					local.firstErrors = append(local.firstErrors,
						fmt.Sprintf("client %d request %d: %s", client, i, msg))
				}
				localEnd = time.Now()
			}
			mu.Lock()
			defer mu.Unlock()
			res.requests += local.requests
			res.errors += local.errors
			res.wrong += local.wrong
			res.latency = append(res.latency, local.latency...)
			for _, m := range local.firstErrors {
				if len(res.firstErrors) < keptMessages {
					res.firstErrors = append(res.firstErrors, m)
				}
			}
			if localEnd.After(lastEnd) {
				lastEnd = localEnd
			}
		}(client)
	}
	wg.Wait()
	res.elapsed = lastEnd.Sub(windowStart).Seconds()
	<-cpuTaken
	res.cpuSeconds = processCPUSeconds() - cpuBefore
	<-scraped
	if cfg.metrics && res.metricsErr == nil {
		var after map[string]float64
		if after, res.metricsErr = c.scrape(context.Background()); res.metricsErr == nil {
			res.server = serverFields(metricsBefore, after)
		}
	}
	return res
}

// processCPUSeconds is this process's user + system CPU time so far.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted values; 0
// when there are none.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

// summary is the JSON line of a run, with labels merged in at the top level.
func summary(cfg config, res result, labels []label) ([]byte, error) {
	sorted := append([]float64(nil), res.latency...)
	sort.Float64s(sorted)
	ms := func(s float64) float64 { return math.Round(s*1e6) / 1e3 }
	throughput, cpuPercent := 0.0, 0.0
	if res.elapsed > 0 {
		throughput = float64(res.requests) / res.elapsed
		cpuPercent = 100 * res.cpuSeconds / res.elapsed
	}
	fields := []field{
		{"clients", cfg.clients},
		{"seconds", cfg.duration.Seconds()},
		{"warmup_seconds", cfg.warmup.Seconds()},
		{"elapsed_seconds", math.Round(res.elapsed*1e3) / 1e3},
		{"rows_per_request", cfg.rows},
		{"seed", cfg.seed},
		{"requests", res.requests},
		{"errors", res.errors},
		{"wrong", res.wrong},
		{"throughput_rps", math.Round(throughput*10) / 10},
		{"p50_ms", ms(percentile(sorted, 50))},
		{"p95_ms", ms(percentile(sorted, 95))},
		{"p99_ms", ms(percentile(sorted, 99))},
		{"max_ms", ms(percentile(sorted, 100))},
		{"loadgen_cpu_percent", math.Round(cpuPercent*10) / 10},
	}
	return jsonLine(append(fields, res.server...), labels)
}

// idleResult is one idle probe: a warm request, an idle wait, the first request
// after it and one more right after that.
type idleResult struct {
	idle        time.Duration
	warmMs      float64 // the request before the wait
	firstMs     float64 // the first request after the wait
	secondMs    float64 // the next one, right after
	errors      int     // of the three
	wrong       int     // of the three
	firstErrors []string
	// server are the service's figures of the first request after the wait alone
	// (serverFields between scrapes before the wait and after that request).
	server     []field
	metricsErr error
}

// idleProbe sends a request (so the connection and the service are warm), waits
// `idle` with nothing in flight, then sends two more, timing each; with cfg.metrics
// the service's /metrics is read before the wait and after the first request after it. The requests use
// client number -1's inputs (not those of a load run's clients).
func idleProbe(cfg config, idle time.Duration) idleResult {
	c := newChecker(cfg)
	defer c.client.CloseIdleConnections()
	res := idleResult{idle: idle}
	times := make([]float64, 3)
	var before map[string]float64
	for i := range times {
		if i == 1 {
			// The service's counters before the wait: after the first request after
			// it, their change is that request's own queue and run time.
			if cfg.metrics {
				before, res.metricsErr = c.scrape(context.Background())
			}
			time.Sleep(idle)
		}
		got, seconds, msg := c.do(context.Background(), inputs(cfg.seed, -1, i, cfg.rows))
		if i == 1 && before != nil {
			var after map[string]float64
			if after, res.metricsErr = c.scrape(context.Background()); res.metricsErr == nil {
				res.server = serverFields(before, after)
			}
		}
		times[i] = math.Round(seconds*1e6) / 1e3
		switch got {
		case failed:
			res.errors++
		case answeredWrong:
			res.wrong++
		}
		if msg != "" {
			res.firstErrors = append(res.firstErrors, fmt.Sprintf("probe request %d: %s", i, msg))
		}
	}
	res.warmMs, res.firstMs, res.secondMs = times[0], times[1], times[2]
	return res
}

func idleSummary(cfg config, res idleResult, labels []label) ([]byte, error) {
	return jsonLine(append([]field{
		{"mode", "idle_probe"},
		{"idle_seconds", res.idle.Seconds()},
		{"rows_per_request", cfg.rows},
		{"seed", cfg.seed},
		{"requests", 3},
		{"errors", res.errors},
		{"wrong", res.wrong},
		{"warm_ms", res.warmMs},
		{"first_after_idle_ms", res.firstMs},
		{"second_after_idle_ms", res.secondMs},
	}, res.server...), labels)
}
