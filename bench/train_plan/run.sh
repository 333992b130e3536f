#!/bin/bash
# Builds the eager-vs-plan training benchmark optimised and runs it on 1 and 3 local ranks,
# printing its JSON lines (see train_plan_bench.cc). Usage: bench/train_plan/run.sh [NP ...]
# Extra arguments go through TRAIN_PLAN_BENCH_ARGS="iterations hidden rounds".
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/train_plan:train_plan_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/train_plan/train_plan_bench"
export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=/tmp
for n in "${@:-1 3}"; do
  # shellcheck disable=SC2086
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$bin" ${TRAIN_PLAN_BENCH_ARGS:-}
done
