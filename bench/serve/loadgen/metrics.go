package main

// The service's own view of a load run, from its GET /metrics (docs/serving.md,
// "HTTP API"): scraped when the measured window starts and after its last request,
// the differences say how the requests were batched and how long the plan runs took.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// parseMetrics reads the unlabelled samples of Prometheus text format: "name value"
// lines (an optional timestamp after the value is ignored). Comments, blank lines and
// labelled samples (name{...}) are skipped; any other line is an error naming it.
func parseMetrics(text string) (map[string]float64, error) {
	samples := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Fields(line)
		if strings.ContainsRune(parts[0], '{') {
			continue
		}
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("metrics line %d %q is not \"name value\"", n, line)
		}
		v, err := strconv.ParseFloat(parts[1], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d %q: value %q is not a number", n, line, parts[1])
		}
		samples[parts[0]] = v
	}
	return samples, sc.Err()
}

// scrape GETs base/metrics.
func (c *checker) scrape(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: status %d", resp.StatusCode)
	}
	return parseMetrics(string(body))
}

// serverFieldNames are the fields serverFields may give, in order.
var serverFieldNames = []string{
	"server_requests", "server_runs", "server_mean_batch_rows", "server_mean_batch_requests",
	"server_mean_request_ms", "server_mean_queue_ms", "server_mean_run_ms",
}

// everyServerField has every serverFields key (value 0): the dry run of a line that
// checks the labels before a run.
func everyServerField() []field {
	var out []field
	for _, name := range serverFieldNames {
		out = append(out, field{name, 0})
	}
	return out
}

// serverFields are the differences between two scrapes: counters' increase and
// histograms' mean (increase of _sum over increase of _count). A field whose samples
// are missing from either scrape, or a mean over no observations, is left out.
func serverFields(before, after map[string]float64) []field {
	var out []field
	counter := func(key, name string) {
		b, ok1 := before[name]
		a, ok2 := after[name]
		if ok1 && ok2 {
			out = append(out, field{key, a - b})
		}
	}
	mean := func(key, name string, scale float64) {
		sb, ok1 := before[name+"_sum"]
		sa, ok2 := after[name+"_sum"]
		cb, ok3 := before[name+"_count"]
		ca, ok4 := after[name+"_count"]
		if ok1 && ok2 && ok3 && ok4 && ca > cb {
			out = append(out, field{key, math.Round((sa-sb)/(ca-cb)*scale*1e3) / 1e3})
		}
	}
	counter("server_requests", "tessera_serve_requests_total")
	counter("server_runs", "tessera_serve_runs_total")
	mean("server_mean_batch_rows", "tessera_serve_batch_rows", 1)
	mean("server_mean_batch_requests", "tessera_serve_batch_requests", 1)
	mean("server_mean_request_ms", "tessera_serve_request_seconds", 1e3)
	mean("server_mean_queue_ms", "tessera_serve_queue_seconds", 1e3)
	mean("server_mean_run_ms", "tessera_serve_plan_run_seconds", 1e3)
	return out
}
