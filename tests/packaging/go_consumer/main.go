// Command consumer uses the Go module the way a program outside the Tessera tree does
// (tests/packaging/go_consumer_test.sh builds it against an installed Tessera and runs
// it under mpirun): c = a @ b with a (7x3, a[i][j] = i + j) split by rows over the
// world and b (3x2, b[j][k] = 2j + k + 1) broadcast. Every rank prints its share of
// rows, read through LocalShape; rank 0 prints c, its sum and the sum of rank + 1 over
// the world. The test derives the expected lines itself.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/tessera-runtime/tessera/bindings/go/tessera"
)

// MPI_Init (the first Tessera call) and MPI_Finalize on one OS thread.
func init() { runtime.LockOSThread() }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
}

func run() error {
	options := tessera.DefaultInitOptions()
	options.CollectiveTimeout = 60
	if err := tessera.InitWithOptions(options); err != nil {
		return err
	}
	if timeout, err := tessera.CollectiveTimeout(); err != nil || timeout != 60 {
		return fmt.Errorf("CollectiveTimeout() = %v, %v after InitWithOptions(60)", timeout, err)
	}
	rank, err := tessera.WorldRank()
	if err != nil {
		return err
	}
	size, err := tessera.WorldSize()
	if err != nil {
		return err
	}
	world, err := tessera.ParsePlacement(fmt.Sprintf("cpu:0-%d", size-1))
	if err != nil {
		return err
	}
	defer world.Close()
	rows, err := tessera.ParseNdSbp("S(0)")
	if err != nil {
		return err
	}
	defer rows.Close()
	whole, err := tessera.ParseNdSbp("B")
	if err != nil {
		return err
	}
	defer whole.Close()

	aValues := make([]float64, 0, 21)
	for i := 0; i < 7; i++ {
		for j := 0; j < 3; j++ {
			aValues = append(aValues, float64(i+j))
		}
	}
	bValues := make([]float64, 0, 6)
	for j := 0; j < 3; j++ {
		for k := 0; k < 2; k++ {
			bValues = append(bValues, float64(2*j+k+1))
		}
	}
	a, err := tessera.FromHost(aValues, []int64{7, 3}, world, rows)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := tessera.FromHost(bValues, []int64{3, 2}, world, whole)
	if err != nil {
		return err
	}
	defer b.Close()
	c, err := tessera.Matmul(a, b, false, false)
	if err != nil {
		return err
	}
	defer c.Close()
	local, err := c.LocalShape()
	if err != nil {
		return err
	}
	shape, err := c.Shape()
	if err != nil {
		return err
	}
	fmt.Printf("rank %d of %d: c %v, local %v\n", rank, size, shape, local)

	values, err := tessera.ToHost[float64](c)
	if err != nil {
		return err
	}
	sum := []float64{float64(rank + 1)}
	if err := tessera.AllReduce(sum, tessera.ReduceOpSum, nil, tessera.AllReduceAuto); err != nil {
		return err
	}
	if rank == 0 {
		total := 0.0
		fmt.Print("c =")
		for _, v := range values {
			fmt.Printf(" %g", v)
			total += v
		}
		fmt.Printf("\nsum(c) = %g\nsum(rank + 1) = %g\n", total, sum[0])
	}
	return tessera.Finalize()
}
