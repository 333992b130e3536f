#!/bin/bash
# Builds the optimizer benchmark optimised and runs it on 2 and 3 local ranks, printing
# its JSON lines (see optim_bench.cc). Usage: bench/optim/run.sh [NP ...] (default: 2 3)
# Extra arguments go through OPTIM_BENCH_ARGS="iterations hidden bucket_bytes rounds".
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/optim:optim_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/optim/optim_bench"
export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=/tmp
for np in "${@:-2 3}"; do
  for n in $np; do
    # shellcheck disable=SC2086
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$bin" ${OPTIM_BENCH_ARGS:-}
  done
done
