#!/bin/bash
# Builds the boxing benchmarks optimised and runs them on 2, 3 and 4 local ranks,
# printing their JSON lines on stdout and each case's plan on stderr: boxing_bench (every
# conversion against the raw MPI call that moves the same bytes), then
# partial_to_broadcast_bench (P -> B, P -> S(0) -> B, MPI_Allreduce and
# MPI_Reduce_scatter_block + MPI_Allgather side by side; not filtered by -f). On a
# 2-core machine 3 and 4 ranks are oversubscribed: ranks share cores, so those figures
# measure scheduling as much as communication.
# Usage: bench/boxing/run.sh [-f FILTER] [-s SCALE] [NP ...]   (default NP: 2 3 4)
#   -f FILTER  only the cases whose name contains FILTER, e.g. -f '2d:(S(0),B)'
#   -s SCALE   SCALE times the samples per case (a closer look at a few cases)
set -euo pipefail
cd "$(dirname "$0")/../.."

filter=""
scale=1
while getopts "f:s:" opt; do
  case "$opt" in
    f) filter="$OPTARG" ;;
    s) scale="$OPTARG" ;;
    *) echo "usage: $0 [-f FILTER] [-s SCALE] [NP ...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

bazel build -c opt //bench/boxing:boxing_bench //bench/boxing:partial_to_broadcast_bench >&2
dir="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/boxing"

export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
for n in ${@:-2 3 4}; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$dir/boxing_bench" "$filter" "$scale"
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$dir/partial_to_broadcast_bench" "$scale"
done
