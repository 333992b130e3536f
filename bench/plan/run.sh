#!/bin/bash
# Builds the plan benchmarks optimised and runs plan_bench on 2 ranks (or the given
# counts) and pipeline_bench on PIPELINE_NP ranks (default 1: its two threads need a core
# each), printing their JSON lines. Usage: bench/plan/run.sh [NP ...]   (default: 2)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/plan:plan_bench //bench/plan:pipeline_bench >&2
bindir="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/plan"

export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
for n in "${@:-2}"; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -x OPENBLAS_NUM_THREADS -np "$n" \
    "$bindir/plan_bench"
done
mpirun --allow-run-as-root --oversubscribe --bind-to none -x OPENBLAS_NUM_THREADS \
  -np "${PIPELINE_NP:-1}" "$bindir/pipeline_bench"
