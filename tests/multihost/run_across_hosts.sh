#!/bin/bash
# Runs MPI test programs across emulated hosts: run_across_hosts.sh HOSTS RANKS_PER_HOST
# PROGRAM... Each program runs under tools/multihost.sh (HOSTS network-namespace hosts,
# RANKS_PER_HOST ranks each, TCP between hosts, shared memory within); the test fails
# when any of them does. Needs root (network namespaces): elsewhere it says so and
# passes without running, like the GPU tests without a GPU.
set -uo pipefail
hosts=$1 per_host=$2
shift 2
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: not root; network-namespace hosts need root"
  exit 0
fi
multihost=$(dirname "$0")/../../tools/multihost.sh
[ -x "$multihost" ] || multihost="$TEST_SRCDIR/$TEST_WORKSPACE/tools/multihost.sh"
# gtest deletes this file at exit; with several ranks all but one fail to and say so.
unset TEST_PREMATURE_EXIT_FILE
failed=0
for program in "$@"; do
  start=$(date +%s)
  "$multihost" --hosts "$hosts" --ranks-per-host "$per_host" --timeout 100 -- "$program" \
    > "${TEST_TMPDIR:-/tmp}/run.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "PASS $(basename "$program") on ${hosts} hosts x ${per_host} ($(($(date +%s) - start)) s)"
  else
    echo "FAIL $(basename "$program") on ${hosts} hosts x ${per_host}: exit $rc; its output:"
    cat "${TEST_TMPDIR:-/tmp}/run.log"
    failed=1
  fi
done
exit "$failed"
