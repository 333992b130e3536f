#!/bin/bash
# Builds the check-mode benchmark optimised and runs it on 1, 2 and 3 ranks, printing
# its JSON lines (append them to bench/results/ to keep them).
# Usage: bench/check/run.sh [NP ...]   (default: 1 2 3)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/check:check_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/check/check_bench"

export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
for n in ${@:-1 2 3}; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$bin"
done
