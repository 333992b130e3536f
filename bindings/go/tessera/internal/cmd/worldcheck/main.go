// Command worldcheck is a program using package tessera the way an application does,
// run by mpirun on N ranks (go_test.sh --program N). It checks that importing the
// package started nothing, that the first call started the runtime, that every rank
// sees the world mpirun made, that a collective and a tensor op agree with values
// computed here, and that Finalize lets the job exit with status 0.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"

	"github.com/tessera-runtime/tessera/bindings/go/tessera"
	"github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"
)

// MPI wants MPI_Init (here: the first Tessera call in main) and MPI_Finalize on one
// OS thread: keep main's goroutine on the startup thread.
func init() { runtime.LockOSThread() }

func main() {
	np := flag.Int("np", 0, "the world size mpirun started (0: not checked)")
	flag.Parse()
	if err := run(int32(*np)); err != nil {
		fmt.Fprintln(os.Stderr, "worldcheck:", err)
		os.Exit(1)
	}
}

func run(np int32) error {
	// tess_runtime_world_size fails with FAILED_PRECONDITION until tess_runtime_init has run.
	if err := capi.Runtime_world_size([]int32{0}); !errors.Is(err, tessera.ErrFailedPrecondition) {
		return fmt.Errorf("before the first call, tess_runtime_world_size gave %v: importing started the runtime", err)
	}
	rank, err := tessera.WorldRank() // the first use starts the runtime
	if err != nil {
		return err
	}
	size, err := tessera.WorldSize()
	if err != nil {
		return err
	}
	for name, got := range map[string]int32{"OMPI_COMM_WORLD_RANK": rank, "OMPI_COMM_WORLD_SIZE": size} {
		if env, ok := os.LookupEnv(name); ok {
			if want, err := strconv.Atoi(env); err != nil || int32(want) != got {
				return fmt.Errorf("Tessera says %d but mpirun's %s is %q", got, name, env)
			}
		}
	}
	if np > 0 && size != np {
		return fmt.Errorf("WorldSize() = %d but mpirun started %d ranks", size, np)
	}

	// A collective: the sum of rank + 1 over the world.
	buf := []float64{float64(rank + 1)}
	if err := tessera.AllReduce(buf, tessera.ReduceOpSum, nil, tessera.AllReduceAuto); err != nil {
		return err
	}
	if want := float64(size) * float64(size+1) / 2; buf[0] != want {
		return fmt.Errorf("AllReduce sum = %v, want %v", buf[0], want)
	}

	// A tensor op: 0..6 split unevenly over the world, +1, summed.
	p, err := tessera.ParsePlacement(fmt.Sprintf("cpu:0-%d", size-1))
	if err != nil {
		return err
	}
	defer p.Close()
	s, err := tessera.ParseNdSbp("S(0)")
	if err != nil {
		return err
	}
	defer s.Close()
	x, err := tessera.FromHost([]float32{0, 1, 2, 3, 4, 5, 6}, []int64{7}, p, s)
	if err != nil {
		return err
	}
	defer x.Close()
	one, err := tessera.Full([]int64{7}, "f32", 1, p, s)
	if err != nil {
		return err
	}
	defer one.Close()
	y, err := tessera.Add(x, one)
	if err != nil {
		return err
	}
	defer y.Close()
	total, err := tessera.ReduceSum(y, nil, false)
	if err != nil {
		return err
	}
	defer total.Close()
	v, err := tessera.ToHost[float32](total)
	if err != nil {
		return err
	}
	if len(v) != 1 || v[0] != 28 {
		return fmt.Errorf("sum of 1..7 through tensors = %v, want [28]", v)
	}
	// Handles must go before Finalize: close them now rather than at return.
	for _, h := range []interface{ Close() }{total, y, one, x, s, p} {
		h.Close()
	}
	fmt.Printf("worldcheck: rank %d of %d ok\n", rank, size)
	return tessera.Finalize()
}
