package main

// The service's Prometheus metrics (text format 0.0.4): counters of predict requests
// and errors, histograms of latency and of the batches that served them, and gauges
// from the server's statistics.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tessera-runtime/tessera/bindings/go/tessera"
)

var (
	// secondsBuckets are the upper bounds of the latency, run and queue histograms.
	secondsBuckets = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5}
	// countBuckets are those of the batch rows and batch requests histograms.
	countBuckets = []float64{1, 2, 4, 8, 16, 32, 64}
)

// histogram counts observations per bucket (not cumulative: text adds them up).
type histogram struct {
	name, help string
	bounds     []float64
	mu         sync.Mutex
	counts     []uint64 // one per bound, then +Inf
	sum        float64
	count      uint64
}

func newHistogram(name, help string, bounds []float64) *histogram {
	return &histogram{name: name, help: help, bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.count++
	h.mu.Unlock()
}

func (h *histogram) write(b *strings.Builder) {
	h.mu.Lock()
	counts, sum, count := append([]uint64(nil), h.counts...), h.sum, h.count
	h.mu.Unlock()
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s histogram\n", h.name, h.help, h.name)
	cumulative := uint64(0)
	for i, c := range counts {
		cumulative += c
		le := "+Inf"
		if i < len(h.bounds) {
			le = strconv.FormatFloat(h.bounds[i], 'g', -1, 64)
		}
		fmt.Fprintf(b, "%s_bucket{le=\"%s\"} %d\n", h.name, le, cumulative)
	}
	fmt.Fprintf(b, "%s_sum %s\n%s_count %d\n", h.name, strconv.FormatFloat(sum, 'g', -1, 64),
		h.name, count)
}

// metrics are the service's own counters and histograms.
type metrics struct {
	requests, errors atomic.Int64
	latency          *histogram
	batchRows        *histogram
	batchRequests    *histogram
	runSeconds       *histogram
	queueSeconds     *histogram
}

func newMetrics() *metrics {
	return &metrics{
		latency: newHistogram("tessera_serve_request_seconds",
			"Predict latency in seconds (the whole handler).", secondsBuckets),
		batchRows: newHistogram("tessera_serve_batch_rows",
			"Rows of the batch that served each successful predict request.", countBuckets),
		batchRequests: newHistogram("tessera_serve_batch_requests",
			"Requests in the batch that served each successful predict request.", countBuckets),
		runSeconds: newHistogram("tessera_serve_plan_run_seconds",
			"Seconds the batch of each successful predict request ran (boxing in, plan, gather).",
			secondsBuckets),
		queueSeconds: newHistogram("tessera_serve_queue_seconds",
			"Seconds each successful predict request waited for its batch to start.", secondsBuckets),
	}
}

// observeRun records how a successful request's run went.
func (m *metrics) observeRun(info tessera.ServeRequestInfo) {
	m.batchRows.observe(float64(info.BatchRows))
	m.batchRequests.observe(float64(info.BatchRequests))
	m.runSeconds.observe(info.RunSeconds)
	m.queueSeconds.observe(info.QueueSeconds)
}

// text is every metric in the text format, the server's statistics included.
func (m *metrics) text(stats tessera.ServerStats) string {
	var b strings.Builder
	scalar := func(name, kind, help string, value int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", name, help, name, kind, name, value)
	}
	scalar("tessera_serve_requests_total", "counter",
		"Predict requests received (bad ones too).", m.requests.Load())
	scalar("tessera_serve_errors_total", "counter",
		"Predict requests answered with a status other than 200.", m.errors.Load())
	for _, h := range []*histogram{m.latency, m.batchRows, m.batchRequests, m.runSeconds,
		m.queueSeconds} {
		h.write(&b)
	}
	available := int64(0)
	if stats.Available {
		available = 1
	}
	scalar("tessera_serve_runs_total", "counter", "Plan runs (batches) of the server.", stats.Runs)
	scalar("tessera_serve_queued_requests", "gauge", "Requests waiting in the server's queue.",
		stats.QueuedRequests)
	scalar("tessera_serve_available", "gauge",
		"1 while the server is available, 0 once it has failed.", available)
	return b.String()
}
