#!/usr/bin/env bash
# Runs opgen into $TEST_TMPDIR and compares what it writes with the checked-in files
# (passed after the binary, in the order opgen writes them below).
set -euo pipefail
opgen="$1"
shift
out="${TEST_TMPDIR:-$(mktemp -d)}/opgen"
mkdir -p "$out/capi/include/tessera" "$out/capi/src" "$out/bindings/python/src/tessera" \
  "$out/bindings/java/src/org/tessera" "$out/bindings/go/tessera"
"$opgen" "$out"
stale=0
for checked_in in "$@"; do
  # The path under the work tree: runfiles keep the workspace-relative path.
  rel="${checked_in#./}"
  if ! diff -u "$checked_in" "$out/$rel"; then
    echo "STALE: $rel differs from what tools/opgen generates (diff above: checked in -> generated)"
    stale=1
  fi
done
if [ "$stale" -ne 0 ]; then
  echo "The generated op surfaces are out of date: run tools/opgen.sh to regenerate"
  exit 1
fi
echo "all $# generated files are current"
