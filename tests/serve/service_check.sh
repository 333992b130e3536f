#!/usr/bin/env bash
# Bazel's entry to service_check.py (an sh_test runs a shell script); arguments pass through.
# Under `bazel test` the files are found in the runfiles tree (this script runs under the
# name of the example's test, in the example's package); by hand, beside this script.
set -euo pipefail
if [ -n "${TEST_SRCDIR:-}" ]; then
  root="$TEST_SRCDIR/${TEST_WORKSPACE:-tessera}"
else
  root="$(cd "$(dirname "$0")/../.." && pwd)"
fi
exec python3 "$root/tests/serve/service_check.py" --mpirun "$root/tools/mpirun.sh" "$@"
