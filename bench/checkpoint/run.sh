#!/bin/bash
# Builds the checkpoint benchmark optimised and runs it on 1 and 3 ranks, printing its
# JSON lines (append them to bench/results/ to keep them).
# Usage: bench/checkpoint/run.sh [NP ...]   (default: 1 3)
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //bench/checkpoint:checkpoint_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/checkpoint/checkpoint_bench"

export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
dir=$(mktemp -d /tmp/checkpoint_bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
for n in ${@:-1 3}; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$bin" "$dir"
done
