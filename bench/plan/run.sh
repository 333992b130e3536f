#!/bin/bash
# Builds the plan benchmark optimised and runs it on 2 ranks (or the given counts),
# printing its JSON lines. Usage: bench/plan/run.sh [NP ...]   (default: 2)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/plan:plan_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/plan/plan_bench"

export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
for n in "${@:-2}"; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -x OPENBLAS_NUM_THREADS -np "$n" "$bin"
done
