#!/bin/bash
# mpirun_test.sh's interface over emulated hosts, for the bindings' own test drivers
# (bindings/go/go_test.sh and bindings/java/java_test.sh start their ranks through a
# launcher):
#   multihost_launcher.sh NP PROGRAM [ARGS...]
# starts NP ranks of PROGRAM under tools/multihost.sh: 2 hosts of NP / 2 ranks for an
# even NP, NP hosts of one rank for an odd one; TEST_TMPDIR (a directory every host
# shares) goes to every rank. Needs root (network namespaces): elsewhere it says so and
# exits 0 without running, like the other across-hosts tests.
set -euo pipefail
np=$1
shift
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: not root; network-namespace hosts need root"
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
multihost=$here/../../tools/multihost.sh
[ -x "$multihost" ] || multihost="$TEST_SRCDIR/$TEST_WORKSPACE/tools/multihost.sh"
if [ $((np % 2)) -eq 0 ]; then hosts=2; else hosts=$np; fi
unset TEST_PREMATURE_EXIT_FILE
export TEST_TMPDIR=${TEST_TMPDIR:-/tmp}
exec "$multihost" --hosts "$hosts" --ranks-per-host $((np / hosts)) --timeout 100 \
  --env TEST_TMPDIR -- "$@"
