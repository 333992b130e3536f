// Command service is Tessera's example model service in Go (docs/serving.md, "The
// example services"; how to build and run it: docs/go.md, "Serving").
//
//	tools/mpirun.sh -np N service --port P [--host H] [--seed S] [--batching on|off]
//	    [--max-batch-rows R] [--max-queue-delay-us U] [--timeout S]
//
// Every rank builds and compiles the model y = relu(x W1) W2 for 64 rows and adds it
// to a server (SPMD). Rank 0, the driver, then serves HTTP (POST /v1/predict, GET
// /v1/model, /healthz, /metrics); every other rank follows until the driver stops.
// SIGTERM or SIGINT on the driver: stop accepting connections, answer what is in
// flight, stop the server (which releases the followers), exit 0. Followers ignore
// both signals.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tessera-runtime/tessera/bindings/go/tessera"
)

// MPI wants MPI_Finalize on the thread that ran MPI_Init: main stays on its thread.
func init() { runtime.LockOSThread() }

// The model's sizes: x [rows, inWidth], W1 [inWidth, hiddenWidth], W2 [hiddenWidth,
// outWidth]; the plan takes up to capacityRows rows.
const (
	inWidth      = 16
	hiddenWidth  = 64
	outWidth     = 8
	capacityRows = 64
	// Layouts of x, W1 and W2 over the [dp, mp] grid.
	xLayout  = "(S(0), B)"
	w1Layout = "(B, S(1))"
	w2Layout = "(B, S(0))"
)

const usage = `usage: service --port P [--host H] [--seed S] [--batching on|off]
    [--max-batch-rows R (1..64)] [--max-queue-delay-us U] [--timeout SECONDS]
`

// config is the command line.
type config struct {
	port            int
	host            string
	seed            uint64
	batching        bool
	maxBatchRows    int64
	maxQueueDelayUs int64
	timeout         float64
}

// parseFlags reads args (without the program name); a bad flag is an error naming it.
func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	port := fs.Int("port", 0, "TCP port (0: the OS picks one); required")
	fs.StringVar(&c.host, "host", "127.0.0.1", "address to listen on")
	fs.Uint64Var(&c.seed, "seed", 0, "weight seed")
	batching := fs.String("batching", "on", "dynamic batching: on or off")
	fs.Int64Var(&c.maxBatchRows, "max-batch-rows", 64, "rows per request and per batch (1..64)")
	fs.Int64Var(&c.maxQueueDelayUs, "max-queue-delay-us", 2000, "batching delay (0..10000000)")
	fs.Float64Var(&c.timeout, "timeout", 10, "collective and follower timeout in seconds")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	portSet := false
	fs.Visit(func(f *flag.Flag) { portSet = portSet || f.Name == "port" })
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case !portSet:
		return c, errors.New("--port is required")
	case *port < 0 || *port > 65535:
		return c, fmt.Errorf("--port %d is not in 0..65535", *port)
	case *batching != "on" && *batching != "off":
		return c, fmt.Errorf("--batching %q is neither on nor off", *batching)
	case c.maxBatchRows < 1 || c.maxBatchRows > capacityRows:
		return c, fmt.Errorf("--max-batch-rows %d is not in 1..%d", c.maxBatchRows, capacityRows)
	case c.maxQueueDelayUs < 0 || c.maxQueueDelayUs > 10000000:
		return c, fmt.Errorf("--max-queue-delay-us %d is not in 0..10000000", c.maxQueueDelayUs)
	case !(c.timeout > 0 && c.timeout <= 1e6):
		return c, fmt.Errorf("--timeout %v is not in (0, 1e6]", c.timeout)
	}
	c.port, c.batching = *port, *batching == "on"
	return c, nil
}

// weights are W1 then W2, row-major, from splitmix64 with state = seed: each weight is
// (z >> 40) / 2^24 - 0.5, exact in f32.
func weights(seed uint64) (w1, w2 []float32) {
	state := seed
	next := func() float32 {
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		z ^= z >> 31
		return float32(z>>40)/16777216 - 0.5
	}
	w1, w2 = make([]float32, inWidth*hiddenWidth), make([]float32, hiddenWidth*outWidth)
	for i := range w1 {
		w1[i] = next()
	}
	for i := range w2 {
		w2[i] = next()
	}
	return w1, w2
}

// gridPlacement is the world's [dp, mp] grid: dp = 2 for an even world of 4 or more
// ranks, else 1; ranks 0..size-1 row-major, e.g. "cpu:[[0,1],[2,3]]".
func gridPlacement(size int32) string {
	dp := int32(1)
	if size >= 4 && size%2 == 0 {
		dp = 2
	}
	rows := make([]string, dp)
	for i := range rows {
		ranks := make([]string, size/dp)
		for j := range ranks {
			ranks[j] = strconv.Itoa(int(int32(i)*(size/dp) + int32(j)))
		}
		rows[i] = "[" + strings.Join(ranks, ",") + "]"
	}
	return "cpu:[" + strings.Join(rows, ",") + "]"
}

// closer is any handle.
type closer interface{ Close() }

// compileModel builds and compiles the model on every rank; placementText is the
// grid's placement as Tessera prints it.
func compileModel(seed uint64, size int32) (plan *tessera.Plan, placementText string, err error) {
	var handles []closer
	defer func() {
		for _, h := range handles {
			h.Close()
		}
	}()
	keep := func(h closer) { handles = append(handles, h) }
	grid, err := tessera.ParsePlacement(gridPlacement(size))
	if err != nil {
		return nil, "", err
	}
	keep(grid)
	sbps := map[string]*tessera.NdSbp{}
	for _, text := range []string{xLayout, w1Layout, w2Layout} {
		if sbps[text], err = tessera.ParseNdSbp(text); err != nil {
			return nil, "", err
		}
		keep(sbps[text])
	}
	w1, w2 := weights(seed)
	tw1, err := tessera.FromHost(w1, []int64{inWidth, hiddenWidth}, grid, sbps[w1Layout])
	if err != nil {
		return nil, "", err
	}
	keep(tw1)
	tw2, err := tessera.FromHost(w2, []int64{hiddenWidth, outWidth}, grid, sbps[w2Layout])
	if err != nil {
		return nil, "", err
	}
	keep(tw2)
	p, err := tessera.NewProgram()
	if err != nil {
		return nil, "", err
	}
	keep(p)
	x, err := p.AddInput("x", []int64{capacityRows, inWidth}, "f32", grid, sbps[xLayout])
	if err != nil {
		return nil, "", err
	}
	v1, err := p.AddVariable("w1", tw1)
	if err != nil {
		return nil, "", err
	}
	v2, err := p.AddVariable("w2", tw2)
	if err != nil {
		return nil, "", err
	}
	h := x
	for _, step := range []struct {
		op  string
		ids []int64
	}{{"matmul", []int64{0, v1}}, {"relu", []int64{0}}, {"matmul", []int64{0, v2}}} {
		step.ids[0] = h
		out, err := p.AddOp(step.op, step.ids...)
		if err != nil {
			return nil, "", err
		}
		h = out[0]
	}
	if err := p.MarkOutput(h); err != nil {
		return nil, "", err
	}
	plan, err = p.Compile(0)
	if err != nil {
		return nil, "", err
	}
	return plan, grid.String(), nil
}

func main() { os.Exit(run(os.Args[1:])) }

// run is the program; it returns the exit status.
func run(args []string) int {
	cfg, err := parseFlags(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "service: %v\n%s", err, usage)
		return 2
	}
	// Caught from the start on every rank: the driver acts on them, followers drop
	// them (the driver releases them).
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)

	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "service: %s: %v\n", what, err)
		return 1
	}
	options := tessera.DefaultInitOptions()
	options.CollectiveTimeout = cfg.timeout
	if err := tessera.InitWithOptions(options); err != nil {
		return fail("init", err)
	}
	defer tessera.Finalize()
	size, err := tessera.WorldSize()
	if err != nil {
		return fail("world size", err)
	}
	plan, placement, err := compileModel(cfg.seed, size)
	if err != nil {
		return fail("model", err)
	}
	defer plan.Close()
	server, err := tessera.NewServer(tessera.ServerOptions{})
	if err != nil {
		return fail("server", err)
	}
	defer server.Close()
	planID, err := server.AddPlan(plan, tessera.ServePlanOptions{Batching: cfg.batching,
		MaxBatchRows: cfg.maxBatchRows, MaxQueueDelayUs: cfg.maxQueueDelayUs})
	if err != nil {
		return fail("add plan", err)
	}
	driver, err := server.IsDriver()
	if err != nil {
		return fail("server", err)
	}
	if !driver {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		if err := server.Follow(); err != nil {
			return fail("follow", err)
		}
		return 0
	}

	s, err := newService(server, planID, cfg, size, placement)
	if err != nil {
		server.Stop()
		return fail("service", err)
	}
	defer s.close()
	listener, err := net.Listen("tcp", net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)))
	if err != nil {
		server.Stop() // releases the followers
		return fail("listen", err)
	}
	httpServer := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(listener) }()
	fmt.Printf("tessera-service listening port=%d pid=%d ranks=%d\n",
		listener.Addr().(*net.TCPAddr).Port, os.Getpid(), size)
	os.Stdout.Sync()

	status := 0
	select {
	case <-signals:
	case err := <-served:
		status = fail("http", err)
	}
	// Stop accepting, let in-flight handlers finish (their requests are answered),
	// then stop the server, which releases the followers.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "service: shutdown: %v\n", err)
	}
	if err := server.Stop(); err != nil {
		status = fail("stop", err)
	}
	s.inflight.Wait() // handlers past Shutdown's deadline are answered (Cancelled) by Stop
	return status
}
