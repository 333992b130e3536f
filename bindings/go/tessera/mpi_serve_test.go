package tessera

// Serving on every rank of an mpirun world (see mpi_main_test.go): rank 0 drives,
// serving requests from several goroutines on two plans (batched and not) of the
// example model (serve_test.go), each answer checked against the plain-loop
// reference; the others follow. Then the health check, the statistics, Stop, and
// what each side must refuse (Run, Stop and CheckHealth on a follower, Follow on the
// driver or twice).

import (
	"fmt"
	"sync"
	"testing"
)

func TestMPIServe(t *testing.T) {
	rank, size := worldOf(t)
	const seed, capacity = 11, 16
	w1, w2 := serveWeights(seed)
	plan := servePlan(t, seed, capacity)
	s := must(NewServer(ServerOptions{FollowerTimeoutSeconds: 20, FollowerPollMaxUs: 200}))
	defer s.Close()
	batched := must(s.AddPlan(plan, ServePlanOptions{Batching: true, MaxBatchRows: 8,
		MaxQueueDelayUs: 2000}))
	single := must(s.AddPlan(plan, ServePlanOptions{MaxBatchRows: 4}))
	if batched != 0 || single != 1 || must(s.NumPlans()) != 2 {
		t.Fatalf("plan ids %d, %d of %d", batched, single, must(s.NumPlans()))
	}
	// Every rank knows the plans.
	for id, want := range []ServePlanInfo{
		{1, 1, capacity, 8, 2000, 4096, true},
		{1, 1, capacity, 4, 0, 4096, false},
	} {
		if got := must(s.PlanInfo(id)); got != want {
			t.Errorf("rank %d: PlanInfo(%d) = %+v, want %+v", rank, id, got, want)
		}
	}
	if must(s.InputWidth(single, 0)) != serveIn || must(s.OutputWidth(single, 0)) != serveOut {
		t.Errorf("rank %d: widths %d, %d", rank, must(s.InputWidth(single, 0)),
			must(s.OutputWidth(single, 0)))
	}
	if driver := must(s.IsDriver()); driver != (rank == 0) {
		t.Fatalf("rank %d: IsDriver() = %v", rank, driver)
	}
	// A follower can fill a request but not run it.
	r := must(s.NewRequest(single))
	defer r.Close()
	if err := r.SetInputFloat32(0, serveRows(2, 0)); err != nil {
		t.Fatal(err)
	}

	if rank != 0 {
		wantErr(t, "Run on a follower", s.Run(r), FailedPrecondition, "")
		wantErr(t, "Stop on a follower", s.Stop(), FailedPrecondition, "")
		wantErr(t, "CheckHealth on a follower", s.CheckHealth(1), FailedPrecondition, "")
		if err := s.Follow(); err != nil {
			t.Fatalf("rank %d: Follow: %v", rank, err)
		}
		wantErr(t, "Follow twice", s.Follow(), FailedPrecondition, "")
		st := must(s.Stats())
		if !st.Stopped || !st.Available {
			t.Errorf("rank %d: Stats after Follow = %+v", rank, st)
		}
		return
	}

	wantErr(t, "Follow on the driver", s.Follow(), FailedPrecondition, "")
	wantErr(t, "SetInputFloat32 of 5 rows (max 4)", r.SetInputFloat32(0, serveRows(5, 0)), InvalidArgument,
		"5")
	const goroutines, perGoroutine = 6, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	mostInBatch, rows := int64(0), int64(0)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			id := []int{batched, single}[g%2]
			req := must(s.NewRequest(id))
			defer req.Close()
			for i := 0; i < perGoroutine; i++ {
				n := 1 + (g+i)%4
				x := serveRows(n, g*100+i)
				if err := req.SetInputFloat32(0, x); err != nil {
					t.Error(err)
					return
				}
				if err := s.Run(req); err != nil {
					t.Errorf("goroutine %d request %d: %v", g, i, err)
					return
				}
				y, err := req.OutputFloat32(0)
				if err != nil {
					t.Error(err)
					return
				}
				checkServed(t, fmt.Sprintf("plan %d, goroutine %d, request %d (%d rows)", id, g, i, n),
					w1, w2, x, y)
				info := must(req.Info())
				if info.BatchRows < int64(n) || info.BatchRequests < 1 || info.RunSeconds <= 0 ||
					(id == single && (info.BatchRequests != 1 || info.BatchRows != int64(n))) {
					t.Errorf("plan %d: Info %+v for %d rows", id, info, n)
				}
				mu.Lock()
				rows += int64(n)
				if info.BatchRequests > mostInBatch {
					mostInBatch = info.BatchRequests
				}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	t.Logf("%d ranks: the largest batch held %d requests", size, mostInBatch)
	if err := s.CheckHealth(10); err != nil {
		t.Errorf("CheckHealth: %v", err)
	}
	st := must(s.Stats())
	if st.Requests != goroutines*perGoroutine || st.FailedRequests != 0 || st.Rows != rows ||
		st.Runs > st.Requests || st.Runs < 1 || st.QueuedRequests != 0 || st.HealthChecks != 1 ||
		!st.Available || st.Stopped {
		t.Errorf("Stats = %+v after %d requests of %d rows", st, goroutines*perGoroutine, rows)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	wantErr(t, "Run after Stop", s.Run(r), Cancelled, "")
	if st := must(s.Stats()); !st.Stopped {
		t.Errorf("Stats after Stop = %+v", st)
	}
}
