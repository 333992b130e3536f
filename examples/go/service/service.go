package main

// The driver's HTTP handlers: POST /v1/predict, GET /v1/model, /healthz, /metrics.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tessera-runtime/tessera/bindings/go/tessera"
)

// maxBodyBytes bounds a predict body: 1 MiB.
const maxBodyBytes = 1 << 20

// service is the driver's state: the server, a pool of requests and the metrics.
type service struct {
	server    *tessera.Server
	planID    int
	info      tessera.ServePlanInfo
	ranks     int32
	seed      uint64
	placement string
	// free holds idle requests for reuse; a handler takes one or makes one.
	free chan *tessera.ServeRequest
	// inflight counts predict handlers running, so that none still holds a request
	// when the pool is closed.
	inflight sync.WaitGroup
	metrics  *metrics
}

func newService(server *tessera.Server, planID int, cfg config, ranks int32,
	placement string) (*service, error) {
	info, err := server.PlanInfo(planID)
	if err != nil {
		return nil, err
	}
	return &service{server: server, planID: planID, info: info, ranks: ranks, seed: cfg.seed,
		placement: placement, free: make(chan *tessera.ServeRequest, 256), metrics: newMetrics()}, nil
}

// close closes the pooled requests (every handler has returned).
func (s *service) close() {
	for {
		select {
		case r := <-s.free:
			r.Close()
		default:
			return
		}
	}
}

func (s *service) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/predict", s.predict)
	mux.HandleFunc("/v1/model", s.only(http.MethodGet, s.model))
	mux.HandleFunc("/healthz", s.only(http.MethodGet, s.healthz))
	mux.HandleFunc("/metrics", s.only(http.MethodGet, s.metricsText))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "no such path: " + r.URL.Path})
	})
	return mux
}

// only answers 405 to methods other than method.
func (s *service) only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeJSON(w, http.StatusMethodNotAllowed,
				map[string]any{"error": fmt.Sprintf("method %s not allowed; use %s", r.Method, method)})
			return
		}
		h(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	data, err := json.Marshal(body)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error": "encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// httpError is an answer other than 200.
type httpError struct {
	status  int
	message string
}

func badRequest(format string, args ...any) *httpError {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// parseInputs reads {"inputs": [[16 numbers], ...]} into row-major f32 rows.
func parseInputs(body []byte) ([]float32, int, *httpError) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, 0, badRequest("body is not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, badRequest("body is not JSON: data after the value")
	}
	object, ok := doc.(map[string]any)
	if !ok {
		return nil, 0, badRequest("body is not a JSON object")
	}
	inputs, ok := object["inputs"]
	if !ok {
		return nil, 0, badRequest(`body has no "inputs"`)
	}
	rows, ok := inputs.([]any)
	if !ok || len(rows) == 0 {
		return nil, 0, badRequest(`"inputs" is not a non-empty list of rows`)
	}
	x := make([]float32, 0, len(rows)*inWidth)
	for i, row := range rows {
		values, ok := row.([]any)
		if !ok {
			return nil, 0, badRequest("row %d is not a list of %d numbers", i, inWidth)
		}
		if len(values) != inWidth {
			return nil, 0, badRequest("row %d has %d values, want %d", i, len(values), inWidth)
		}
		for j, v := range values {
			n, ok := v.(json.Number)
			if !ok {
				return nil, 0, badRequest("row %d, value %d is not a number", i, j)
			}
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) ||
				math.IsInf(float64(float32(f)), 0) {
				return nil, 0, badRequest("row %d, value %d (%s) is not a finite f32", i, j, n)
			}
			x = append(x, float32(f))
		}
	}
	return x, len(rows), nil
}

// request is a pooled request, or a new one.
func (s *service) request() (*tessera.ServeRequest, error) {
	select {
	case r := <-s.free:
		return r, nil
	default:
		return s.server.NewRequest(s.planID)
	}
}

func (s *service) release(r *tessera.ServeRequest) {
	select {
	case s.free <- r:
	default:
		r.Close()
	}
}

// tesseraStatus is the HTTP status of a failed Tessera call: 503 while the server is
// unavailable or stopping, 500 otherwise.
func tesseraStatus(err error) int {
	for _, unavailable := range []error{tessera.ErrUnavailable, tessera.ErrCancelled,
		tessera.ErrDeadlineExceeded} {
		if errors.Is(err, unavailable) {
			return http.StatusServiceUnavailable
		}
	}
	return http.StatusInternalServerError
}

func (s *service) predict(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	start := time.Now()
	s.metrics.requests.Add(1)
	status := http.StatusOK
	defer func() {
		if status != http.StatusOK {
			s.metrics.errors.Add(1)
		}
		s.metrics.latency.observe(time.Since(start).Seconds())
	}()
	outputs, info, herr := s.answer(w, r)
	if herr != nil {
		status = herr.status
		if status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", http.MethodPost)
		}
		writeJSON(w, status, map[string]any{"error": herr.message})
		return
	}
	s.metrics.observeRun(info)
	var out strings.Builder
	out.WriteString(`{"outputs": [`)
	for i := 0; i < len(outputs)/outWidth; i++ {
		if i > 0 {
			out.WriteString(", ")
		}
		out.WriteByte('[')
		for j, v := range outputs[i*outWidth : (i+1)*outWidth] {
			if j > 0 {
				out.WriteString(", ")
			}
			out.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		out.WriteByte(']')
	}
	out.WriteString("]}\n")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, out.String())
}

// answer runs one predict request: its output rows and the run's info, or the error
// to answer with.
func (s *service) answer(w http.ResponseWriter, r *http.Request) ([]float32, tessera.ServeRequestInfo, *httpError) {
	var info tessera.ServeRequestInfo
	if r.Method != http.MethodPost {
		return nil, info, &httpError{http.StatusMethodNotAllowed,
			fmt.Sprintf("method %s not allowed; use POST", r.Method)}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, info, badRequest("body is over %d bytes (1 MiB)", maxBodyBytes)
		}
		return nil, info, badRequest("reading the body: %v", err)
	}
	x, _, herr := parseInputs(body)
	if herr != nil {
		return nil, info, herr
	}
	req, err := s.request()
	if err != nil {
		return nil, info, &httpError{tesseraStatus(err), err.Error()}
	}
	defer s.release(req)
	// Tessera checks the row count against max-batch-rows (locally: nothing is run).
	if err := req.SetInputFloat32(0, x); err != nil {
		if errors.Is(err, tessera.ErrInvalidArgument) {
			return nil, info, badRequest("%v", err)
		}
		return nil, info, &httpError{tesseraStatus(err), err.Error()}
	}
	if err := s.server.Run(req); err != nil {
		return nil, info, &httpError{tesseraStatus(err), err.Error()}
	}
	y, err := req.OutputFloat32(0)
	if err == nil {
		info, err = req.Info()
	}
	if err != nil {
		return nil, info, &httpError{tesseraStatus(err), err.Error()}
	}
	return y, info, nil
}

func (s *service) model(w http.ResponseWriter, r *http.Request) {
	info, err := s.server.PlanInfo(s.planID)
	if err != nil {
		writeJSON(w, tesseraStatus(err), map[string]any{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"model": "mlp", "input_width": inWidth, "hidden_width": hiddenWidth,
		"output_width": outWidth, "dtype": "f32", "ranks": s.ranks, "placement": s.placement,
		"layout": map[string]string{"x": xLayout, "w1": w1Layout, "w2": w2Layout},
		"seed":   s.seed, "capacity_rows": info.CapacityRows,
		"batching": map[string]any{"enabled": info.Batching, "max_batch_rows": info.MaxBatchRows,
			"max_queue_delay_us": info.MaxQueueDelayUs},
	})
}

func (s *service) healthz(w http.ResponseWriter, r *http.Request) {
	if err := s.server.CheckHealth(2.0); err != nil {
		writeJSON(w, http.StatusServiceUnavailable,
			map[string]any{"status": "unavailable", "error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "ranks": s.ranks})
}

func (s *service) metricsText(w http.ResponseWriter, r *http.Request) {
	stats, err := s.server.Stats()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, s.metrics.text(stats))
}
