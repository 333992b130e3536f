package tessera

import (
	"errors"
	"runtime"
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
	t.Cleanup(func() {
		for _, h := range []interface{ Close() }{p, s, b, call, prog, plan} {
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
	if len(makers) != 12 {
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
