#!/bin/bash
# The example service's bad command lines: each must exit with status 2 and a message
# on stderr naming the flag, before any Tessera call (so no mpirun is needed), and print
# nothing on stdout.
# Usage: flags_test.sh PROGRAM
set -euo pipefail
program="$1"
failures=0
check() {
  local want="$1"
  shift
  local out err rc=0
  out="$(mktemp)"
  err="$(mktemp)"
  "$program" "$@" >"$out" 2>"$err" || rc=$?
  if [[ "$rc" != 2 ]] || ! grep -q -- "$want" "$err" || [[ -s "$out" ]]; then
    echo "FAIL: service $*: exit $rc, stderr $(head -c 300 "$err"), stdout $(head -c 300 "$out"); want exit 2 and '$want' on stderr" >&2
    failures=$((failures + 1))
  else
    echo "ok: service $* -> exit 2: $(head -1 "$err")"
  fi
  rm -f "$out" "$err"
}
check "--port is required"
check "--port is required" --seed 1
check "port -1" --port=-1
check "port 65536" --port 65536
check "port" --port eighty
check "flag provided but not defined: -bogus" --port 0 --bogus
check 'batching "maybe"' --port 0 --batching maybe
check "max-batch-rows 0" --port 0 --max-batch-rows 0
check "max-batch-rows 65" --port 0 --max-batch-rows 65
check "max-queue-delay-us -1" --port 0 --max-queue-delay-us -1
check "max-queue-delay-us 10000001" --port 0 --max-queue-delay-us 10000001
check "timeout 0" --port 0 --timeout 0
check "timeout NaN" --port 0 --timeout NaN
check "timeout 1e+07" --port 0 --timeout 1e7
check "seed" --port 0 --seed -1
check 'unexpected argument "extra"' --port 0 extra
[[ "$failures" == 0 ]] || exit 1
