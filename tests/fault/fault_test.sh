#!/bin/bash
# Runs the fault test (fault_test.cc) on 3 ranks: fault_test.sh MODE PROGRAM, with
# MODE stall or kill. Exits 0 only when every survivor (and, in stall mode, the
# stalled rank once continued) wrote PASS.
#
# mpirun options. By default Open MPI 4.1 (orte_abort_on_non_zero_status) kills the
# whole job as soon as one process dies, so the survivors of a SIGKILL never get to
# report anything. --enable-recovery keeps them running, lets MPI_Finalize complete
# without the dead rank, and makes mpirun exit 0 when they are done. (With
# `--mca orte_abort_on_non_zero_status 0` instead, the survivors also live, but
# mpirun itself then hangs after they exit.) The other settings are those of
# tests/comm/mpirun_test.sh.
set -uo pipefail

mode="$1"
program="$2"
np="${FAULT_TEST_RANKS:-3}"

export OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR=/tmp
export HOME="${HOME:-/tmp}"
unset TEST_PREMATURE_EXIT_FILE
# Killed and stopped ranks leak by design: no leak checking, so the fast unwinder
# (tests/comm/mpirun_test.sh says why).
if [[ -n "${ASAN_OPTIONS:-}" ]]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"
  export LSAN_OPTIONS="${LSAN_OPTIONS:+${LSAN_OPTIONS}:}fast_unwind_on_malloc=1"
fi

dir="$(mktemp -d /tmp/tessera_fault.XXXXXX)"
cleanup() {
  # Whatever happened, no stopped or orphaned rank outlives the test.
  if [[ -f "$dir/faulty_pid" ]]; then
    pid="$(cat "$dir/faulty_pid")"
    kill -CONT "$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

# Bounded: the checks take a few seconds; 40 s is far past any healthy run.
timeout --signal=KILL "${FAULT_TEST_TIMEOUT_S:-40}" \
  mpirun --allow-run-as-root --oversubscribe --bind-to none --enable-recovery \
  -np "$np" "$program" "$mode" "$dir"
rc=$?
echo "mpirun exit status: $rc (not used: after a fault it does not reflect the survivors' checks)"

last=$((np - 2))
# In stall mode the stopped rank, once continued, reports too.
[[ "$mode" == stall ]] && last=$((np - 1))
# From the runfiles: other packages run this script too (tests/serve).
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/fault/survivors.sh"
check_survivors "$dir" "$last"
