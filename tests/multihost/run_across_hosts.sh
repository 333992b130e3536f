#!/bin/bash
# Runs MPI test programs across emulated hosts:
#   run_across_hosts.sh HOSTS RANKS_PER_HOST [--python TESSERA_INIT_PY] PROGRAM...
# Each program runs under tools/multihost.sh (HOSTS network-namespace hosts,
# RANKS_PER_HOST ranks each, TCP between hosts, shared memory within); the test fails
# when any of them does. With --python the programs are Python scripts run by python3
# with the package (TESSERA_INIT_PY's grandparent folder) and the script's folder (its
# helper modules) on PYTHONPATH, given to every rank with TEST_TMPDIR (a directory all
# hosts share: they share this machine's file system). Needs root (network namespaces):
# elsewhere it says so and passes without running, like the GPU tests without a GPU.
set -uo pipefail
hosts=$1 per_host=$2
shift 2
python_pkg=""
if [ "${1:-}" = "--python" ]; then
  python_pkg=$(cd "$(dirname "$2")/.." && pwd)
  shift 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: not root; network-namespace hosts need root"
  exit 0
fi
multihost=$(dirname "$0")/../../tools/multihost.sh
[ -x "$multihost" ] || multihost="$TEST_SRCDIR/$TEST_WORKSPACE/tools/multihost.sh"
# gtest deletes this file at exit; with several ranks all but one fail to and say so.
unset TEST_PREMATURE_EXIT_FILE
failed=0
export TEST_TMPDIR=${TEST_TMPDIR:-/tmp}
for program in "$@"; do
  start=$(date +%s)
  run=("$program")
  env_flags=(--env TEST_TMPDIR)
  if [ -n "$python_pkg" ]; then
    export PYTHONPATH="$python_pkg:$(cd "$(dirname "$program")" && pwd)"
    run=(/usr/bin/python3 "$program")
    env_flags+=(--env PYTHONPATH)
  fi
  "$multihost" --hosts "$hosts" --ranks-per-host "$per_host" --timeout 100 "${env_flags[@]}" \
    -- "${run[@]}" > "$TEST_TMPDIR/run.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "PASS $(basename "$program") on ${hosts} hosts x ${per_host} ($(($(date +%s) - start)) s)"
  else
    echo "FAIL $(basename "$program") on ${hosts} hosts x ${per_host}: exit $rc; its output:"
    cat "$TEST_TMPDIR/run.log"
    failed=1
  fi
done
exit "$failed"
