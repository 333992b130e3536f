#!/bin/bash
# reshard_test.sh MPIRUN_TEST PROGRAM: saves a checkpoint at 4 ranks, then loads it at 3
# and at 1 (reshard_mpi_test.cc), each run a separate mpirun on the same directory.
set -euo pipefail
mpirun_test="$1"
program="$2"
export CHECKPOINT_DIR="${TEST_TMPDIR:-/tmp}/reshard"
rm -rf "$CHECKPOINT_DIR"
for np in 4 3 1; do
  echo "== $np ranks"
  "$mpirun_test" "$np" "$program"
done
