#!/bin/bash
# Builds the core/comm benchmark optimised and runs it on 2 and 4 local ranks,
# printing its JSON lines (see comm_bench.cc). On a 2-core machine 4 ranks are
# oversubscribed: ranks share cores, so those figures measure scheduling as much as
# communication, and "2 pretend hosts" share one memory system, so the hierarchical
# all-reduce is not expected to win here.
# Usage: bench/comm/run.sh [NP ...]   (default: 2 4)
#        COMM_BENCH_ONLY=nonblocking bench/comm/run.sh 2   (one section)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/comm:comm_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/comm/comm_bench"

export OMPI_MCA_btl=self,vader
# Waiting ranks poll the way Open MPI picks by itself: spinning while there are no
# more ranks than cores (np 2 here), yielding the core when oversubscribed (np 3-4:
# Open MPI turns mpi_yield_when_idle on then, as MPI_T shows). Forcing yield at np 2 adds a sched_yield
# to every wait, which slows a run of many small collectives (the baselines) far
# more than one big one, so it would flatter every "fewer, bigger calls" ratio.
# Both sides of every comparison run in one process, so they share the setting.
# On a machine busy with other work, spinning ranks at np 2 lose their timeslices
# to it and the figures scatter: run on an otherwise idle machine.
unset OMPI_MCA_mpi_yield_when_idle
export TMPDIR=/tmp
for np in "${@:-2 4}"; do
  for n in $np; do
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$bin" ${COMM_BENCH_ONLY:+"$COMM_BENCH_ONLY"}
  done
done
