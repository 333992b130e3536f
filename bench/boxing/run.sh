#!/bin/bash
# Builds the boxing benchmark optimised and runs it on 2 and 4 local ranks, printing
# its JSON lines. On a 2-core machine 4 ranks are oversubscribed: ranks share cores,
# so those figures measure scheduling as much as communication.
# Usage: bench/boxing/run.sh [NP ...]   (default: 2 4)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/boxing:boxing_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/boxing/boxing_bench"

export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
for np in "${@:-2 4}"; do
  for n in $np; do
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$bin"
  done
done
