#!/bin/bash
# Tessera against PyTorch, side by side in one run: builds train_bench -c opt, then for
# each benchmark (dp, tp on NP ranks; adamw on one rank) runs the Tessera and the
# PyTorch program alternately, ROUNDS times each (ABAB...): both are started once and
# take turns (files in a temporary SYNC folder), each round being ITERATIONS timed
# steps after WARMUP steps, with a fresh model and optimizer. Every round's JSON line goes to
# $OUT.rounds, and summarize.py writes to $OUT one line per benchmark and side with the
# median over rounds, plus the ratio Tessera / PyTorch.
# Usage: bench/train/run.sh [OUT]   (default bench/results/<today>-train.jsonl)
# Environment: VENV (a virtualenv with torch and numpy; default /work/bench-venv),
# NP (4), ROUNDS (3), ITERATIONS (10), WARMUP (3), BENCHES ("dp tp adamw"), RUN (a name
# for the summary lines), OPENBLAS_CORETYPE (passed on: OpenBLAS's kernel family, which
# it may misdetect; the Tessera lines say which it used, see README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${VENV:-/work/bench-venv}"
np="${NP:-4}" rounds="${ROUNDS:-3}" iterations="${ITERATIONS:-10}" warmup="${WARMUP:-3}"
out="${1:-bench/results/$(date -u +%F)-train.jsonl}"
bazel build -c opt //bench/train:train_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/train/train_bench"
# One core per rank on both sides: no BLAS or OpenMP threads.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=/tmp
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
: >"$out.rounds"
sync="$(mktemp -d)"
trap 'rm -rf "$sync"' EXIT
# Waits for SYNC/done.<side>.<round> (written by the side's rank 0 after its round).
await() {
  while [ ! -e "$sync/done.$1.$2" ]; do
    if ! kill -0 "$3" 2>/dev/null; then
      echo "run.sh: the $1 side of $bench exited before round $2 ended" >&2
      exit 1
    fi
    sleep 0.05
  done
}
port=29600
for bench in ${BENCHES:-dp tp adamw}; do
  n="$np"
  [ "$bench" = adamw ] && n=1
  rm -f "$sync"/*  # the previous benchmark's turns
  port=$((port + 1))
  # Both sides start once and wait for their turns (see WaitTurn in common.h).
  "${mpi[@]}" -np "$n" "$bin" "$bench" "$iterations" "$warmup" "$rounds" "$sync" \
    >>"$out.rounds" &
  tessera=$!
  "${mpi[@]}" -np "$n" "$venv/bin/python" bench/train/torch_bench.py "$bench" "$iterations" \
    "$warmup" "$port" "$rounds" "$sync" >>"$out.rounds" &
  pytorch=$!
  await tessera ready "$tessera"
  await pytorch ready "$pytorch"
  for ((r = 0; r < rounds; r++)); do
    touch "$sync/go.tessera.$r"
    await tessera "$r" "$tessera"
    touch "$sync/go.pytorch.$r"
    await pytorch "$r" "$pytorch"
    tail -2 "$out.rounds" >&2
  done
  wait "$tessera" "$pytorch"
done
python3 bench/train/summarize.py "$out.rounds" "${RUN:-}" >"$out"
cat "$out"
