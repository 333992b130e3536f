package tessera

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// destroyCounter counts native destroys per kind of handle through destroyHook.
type destroyCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func countDestroys(t *testing.T) *destroyCounter {
	c := &destroyCounter{counts: map[string]int{}}
	hook := func(kind string) {
		c.mu.Lock()
		c.counts[kind]++
		c.mu.Unlock()
	}
	destroyHook.Store(&hook)
	t.Cleanup(func() { destroyHook.Store(nil) })
	return c
}

func (c *destroyCounter) get(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[kind]
}

func (c *destroyCounter) reset(kind string) {
	c.mu.Lock()
	c.counts[kind] = 0
	c.mu.Unlock()
}

// collect runs the garbage collector and lets finalizers run, until done() or 10 s.
func collect(done func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// settle runs a few more collections and lets finalizers run.
func settle() {
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

// handleMakers makes one fresh handle of each kind; the helpers they share are
// closed when t ends.
func handleMakers(t *testing.T) map[string]func() interface{ Close() } {
	p := must(ParsePlacement("cpu:[0]"))
	s := must(ParseNdSbp("S(0)"))
	b := must(ParseNdSbp("B"))
	call := must(NewOpCall("relu"))
	if err := call.AddInput([]int64{4}, "f32", p, s); err != nil {
		t.Fatal(err)
	}
	prog := must(NewProgram())
	x := must(prog.AddInput("x", []int64{4}, "f32", p, s))
	if err := prog.MarkOutput(must(prog.AddOp("relu", x))[0]); err != nil {
		t.Fatal(err)
	}
	plan := must(Compile(prog, 1))
	served := servePlan(t, 0, 2)
	server := must(NewServer(ServerOptions{}))
	must(server.AddPlan(served, ServePlanOptions{}))
	t.Cleanup(func() {
		for _, h := range []interface{ Close() }{p, s, b, call, prog, plan, server} {
			h.Close()
		}
	})
	return map[string]func() interface{ Close() }{
		"Placement":   func() interface{ Close() } { return must(ParsePlacement("cpu:[0]")) },
		"NdSbp":       func() interface{ Close() } { return must(ParseNdSbp("B")) },
		"Layout":      func() interface{ Close() } { return must(NewLayout(p, s, []int64{4}, 0)) },
		"OpCall":      func() interface{ Close() } { return must(NewOpCall("relu")) },
		"InferResult": func() interface{ Close() } { return must(call.Infer()) },
		"Explanation": func() interface{ Close() } { return must(call.Explain()) },
		"Tensor":      func() interface{ Close() } { return must(Full([]int64{4}, "f32", 1, p, s)) },
		"BoxingPlan": func() interface{ Close() } {
			return must(PlanBoxing([]int64{4}, "f32", p, s, p, b))
		},
		"BucketedAllReducer": func() interface{ Close() } { return must(NewBucketedAllReducer(0)) },
		"Program":            func() interface{ Close() } { return must(NewProgram()) },
		"Plan":               func() interface{ Close() } { return must(Compile(prog, 1)) },
		"PlanInstance":       func() interface{ Close() } { return must(plan.Instantiate()) },
		"Server":             func() interface{ Close() } { return must(NewServer(ServerOptions{})) },
		"ServeRequest":       func() interface{ Close() } { return must(server.NewRequest(0)) },
	}
}

// dropUnclosed makes n handles with make and keeps none.
//
//go:noinline
func dropUnclosed(n int, make func() interface{ Close() }) {
	for i := 0; i < n; i++ {
		make()
	}
}

// closeTwiceAndDrop makes n handles, closes each twice and keeps none.
//
//go:noinline
func closeTwiceAndDrop(n int, make func() interface{ Close() }) {
	for i := 0; i < n; i++ {
		h := make()
		h.Close()
		h.Close()
	}
}

// Every handle type is freed exactly once: by its finalizer when dropped unclosed,
// by Close otherwise (a second Close and the garbage collector then free nothing).
func TestHandlesFreedOnce(t *testing.T) {
	const n = 20
	c := countDestroys(t)
	makers := handleMakers(t)
	if len(makers) != 14 {
		t.Fatalf("%d handle kinds", len(makers))
	}
	for kind, make := range makers {
		c.reset(kind)
		dropUnclosed(n, make)
		if !collect(func() bool { return c.get(kind) >= n }) {
			t.Errorf("%s: %d of %d unclosed handles freed by finalizers", kind, c.get(kind), n)
			continue
		}
		settle()
		if got := c.get(kind); got != n {
			t.Errorf("%s: %d destroys for %d unclosed handles", kind, got, n)
		}

		c.reset(kind)
		closeTwiceAndDrop(n, make)
		if got := c.get(kind); got != n {
			t.Errorf("%s: %d destroys after closing %d handles twice", kind, got, n)
		}
		settle()
		if got := c.get(kind); got != n {
			t.Errorf("%s: %d destroys after Close and GC of %d handles", kind, got, n)
		}
	}
}

// Close on a nil handle is a no-op, and a closed handle is refused, not used.
func TestClosedHandles(t *testing.T) {
	var nilPlacement *Placement
	nilPlacement.Close()
	p := must(ParsePlacement("cpu:[0,1]"))
	p.Close()
	p.Close()
	if _, err := p.NumAxes(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("NumAxes on a closed placement: %v, want InvalidArgument", err)
	}
	if p.String() != "" {
		t.Errorf("String of a closed placement: %q", p.String())
	}
	// Closes racing on one handle destroy it once.
	c := countDestroys(t)
	for round := 0; round < 20; round++ {
		q := must(ParsePlacement("cpu:[0]"))
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q.Close()
			}()
		}
		wg.Wait()
	}
	if got := c.get("Placement"); got != 20 {
		t.Errorf("%d destroys of 20 placements closed from 4 goroutines at once", got)
	}
}

// rssBytes is this process's resident set size (VmRSS in /proc/self/status).
func rssBytes(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kib, err := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib * 1024
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// Handles dropped without Close are freed by their finalizers as the garbage
// collector finds them, so native memory stays bounded: every dropped handle is
// destroyed (counted through destroyHook), chunk by chunk, and native memory (RSS less
// the Go runtime's own, nativeBytes) after the last chunk is within 4 MiB of what it
// was after the first (measured: within 0.4 MB). Without the finalizers the native
// objects (a placement is over 100 bytes in C++, a tensor several hundred) would add
// 20 MB and more. Counts: a native create costs 3-10 us in the test's fastbuild
// library, and a chunk's finalizers run on one goroutine: a million placements (26 s
// with the machine loaded by other builds, so the test target is medium) and 50,000 of
// each costlier kind.
func TestUnclosedHandlesKeepMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	// One OS thread makes every handle, so glibc serves them all from one arena: the
	// scheduler would otherwise move this goroutine between threads, each with an arena
	// of its own, and every arena newly used would add its own working set to RSS.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := must(ParsePlacement("cpu:[0]"))
	defer p.Close()
	s := must(ParseNdSbp("S(0)"))
	defer s.Close()
	cases := []struct {
		kind  string
		count int
		make  func() interface{ Close() }
	}{
		{"Placement", 1000000, func() interface{ Close() } { return must(ParsePlacement("cpu:[0]")) }},
		{"NdSbp", 50000, func() interface{ Close() } { return must(ParseNdSbp("S(0)")) }},
		{"Tensor", 50000, func() interface{ Close() } { return must(Full([]int64{4}, "f32", 1, p, s)) }},
		{"OpCall", 50000, func() interface{ Close() } { return must(NewOpCall("relu")) }},
	}
	const chunks = 10
	c := countDestroys(t)
	for _, tc := range cases {
		c.reset(tc.kind)
		var before int64
		for i := 0; i < chunks; i++ {
			dropUnclosed(tc.count/chunks, tc.make)
			want := (i + 1) * (tc.count / chunks)
			if !collect(func() bool { return c.get(tc.kind) >= want }) {
				t.Fatalf("%s: finalizers freed %d of %d unclosed handles", tc.kind, c.get(tc.kind), want)
			}
			if i == 0 {
				before = nativeBytes(t)
			}
		}
		after := nativeBytes(t)
		if got := c.get(tc.kind); got != tc.count {
			t.Errorf("%s: %d destroys for %d unclosed handles", tc.kind, got, tc.count)
		}
		if after-before > 4<<20 {
			t.Errorf("%s: native memory (RSS less Go's own) grew from %d to %d bytes over %d "+
				"unclosed handles", tc.kind, before, after, tc.count*(chunks-1)/chunks)
		}
	}
}

// nativeBytes is RSS less the memory the Go runtime holds from the OS (its heap, stacks
// and metadata, less what it returned): roughly what C and C++ code holds. Go keeps
// freed heap pages mapped for a while, so RSS alone grows with the garbage of a chunk.
func nativeBytes(t *testing.T) int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return rssBytes(t) - int64(m.Sys-m.HeapReleased)
}

// A tensor closed (twice) is refused with a clear error, not used.
func TestClosedTensor(t *testing.T) {
	p := must(ParsePlacement("cpu:[0]"))
	defer p.Close()
	s := must(ParseNdSbp("S(0)"))
	defer s.Close()
	x := must(Full([]int64{4}, "f32", 1, p, s))
	x.Close()
	x.Close()
	if _, err := x.NumElements(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("NumElements on a closed tensor: %v, want InvalidArgument", err)
	}
}
