#!/bin/bash
# Builds the eager benchmark optimised and runs it on 1 rank (dispatch, matmul 1024^3,
# 64 MB add) and 2 ranks (dispatch), printing its JSON lines. OpenBLAS gets the same
# thread count for the Apply matmul and the direct cblas_sgemm baseline (one process,
# one library): OPENBLAS_NUM_THREADS, default 1 so that the 2-rank run does not
# oversubscribe this 2-core machine and both figures stay comparable.
# Usage: bench/eager/run.sh [NP ...]   (default: 1 2)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/eager:eager_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/eager/eager_bench"

export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
for np in "${@:-1 2}"; do
  for n in $np; do
    mpirun --allow-run-as-root --oversubscribe --bind-to none -x OPENBLAS_NUM_THREADS -np "$n" "$bin"
  done
done
