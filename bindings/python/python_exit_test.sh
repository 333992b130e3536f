#!/bin/bash
# Runs a Python program that never calls finalize() under mpirun and checks that
# the job ends cleanly:
#   python_exit_test.sh N MPIRUN_TEST_SH TESSERA_INIT_PY [SCRIPT]
# Without SCRIPT it runs the issue's acceptance one-liner. Fails unless mpirun exits
# 0 and its output has no "exited improperly" banner (what Open MPI prints when a
# rank exits without MPI_Finalize).
set -euo pipefail
np="$1"
launcher="$2"
pkg="$(cd "$(dirname "$3")/.." && pwd)"
export PYTHONPATH="$pkg${PYTHONPATH:+:$PYTHONPATH}"
out="${TEST_TMPDIR:-/tmp}/python_exit_test.$$.out"
ranks="$(seq -s, 0 $((np - 1)))"
if [ $# -ge 4 ]; then
  cmd=(/usr/bin/python3 "$4")
else
  cmd=(/usr/bin/python3 -c "import tessera as ts; print(ts.ones(4, placement=ts.placement(\"cpu\", ranks=[$ranks]), sbp=ts.sbp.split(0)).numpy())")
fi
set +e
"$launcher" "$np" "${cmd[@]}" >"$out" 2>&1
rc=$?
set -e
cat "$out"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: mpirun exited with status $rc"
  exit 1
fi
if grep -qiE "improperly|did not call .?finalize" "$out"; then
  echo "FAIL: Open MPI reported a rank that exited without finalizing"
  exit 1
fi
if [ $# -lt 4 ]; then
  lines="$(grep -c '^\[1\. 1\. 1\. 1\.\]$' "$out" || true)"
  if [ "$lines" -ne "$np" ]; then
    echo "FAIL: expected $np lines '[1. 1. 1. 1.]', got $lines"
    exit 1
  fi
fi
echo "PASS: $np ranks, exit status 0, no banner"
