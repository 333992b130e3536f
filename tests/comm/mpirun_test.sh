#!/bin/bash
# Runs an MPI test program on N local ranks: mpirun_test.sh N PROGRAM [ARGS...].
# Settings that make Open MPI 4.1 reliable in Bazel's test sandbox on a 2-core
# machine; each is needed for the reason given.
set -euo pipefail

np="$1"
shift

# Shared memory between local ranks, no network probing (the sandbox may lack
# interfaces; tcp/openib scans only slow start-up and print warnings).
export OMPI_MCA_btl=self,vader
# More ranks than cores: let waiting ranks yield the CPU instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
# Open MPI puts its session directory (with Unix sockets, <= 108-byte paths) under
# TMPDIR; Bazel's per-test TMPDIR is too deep for that.
export TMPDIR=/tmp
# Bazel's test environment has no HOME; Open MPI reads $HOME/.openmpi.
export HOME="${HOME:-/tmp}"

# gtest deletes this file at exit; with N ranks, N-1 of them fail to and say so.
unset TEST_PREMATURE_EXIT_FILE

# Under --config=asan: Open MPI's dlopen'ed components leak at MPI_Finalize and are
# unloaded before LeakSanitizer reports, so their frames cannot be suppressed by
# name; leak checking stays on for the single-process tests. Without leak checking
# the slow unwinder that MPI programs default to for the suppressions' sake
# (tools/lsan_mpi_unwinder.cc) buys nothing and makes every allocation 15-40x dearer
# (box_1d_test: 101 s instead of 3 s at 1 rank): use the frame-pointer unwinder.
# ASan's error reports still unwind fully (fast_unwind_on_fatal stays off).
if [[ -n "${ASAN_OPTIONS:-}" ]]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"
  export LSAN_OPTIONS="${LSAN_OPTIONS:+${LSAN_OPTIONS}:}fast_unwind_on_malloc=1"
fi

# A wrong collective would hang, not fail: bound the run (inside the 60 s of a
# small test) so it fails with a message instead.
exec timeout --signal=KILL "${MPI_TEST_TIMEOUT_S:-50}" \
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$@"
