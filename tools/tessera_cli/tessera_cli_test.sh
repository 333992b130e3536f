#!/usr/bin/env bash
# Runs the `tessera` binary: the issue's explain example as text and as JSON (which
# must parse), and bad usage (exit 2, the message naming the bad argument).
# Usage: tessera_cli_test.sh TESSERA_BINARY
set -uo pipefail
tessera="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# want_line FILE LINE: FILE holds LINE exactly.
want_line() { grep -qxF -- "$2" "$1" || { fail "missing line [$2] in:"; cat "$1"; }; }

"$tessera" explain matmul --placement 'cpu:[0,1,2,3]' \
  --input 'a:f32[64,32]:S(0)' --input 'b:f32[32,16]:B' >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" -eq 0 ] || { fail "issue example exited $code"; cat "$tmp/err"; }
want_line "$tmp/out" "matmul {} on cpu:[0,1,2,3]"
want_line "$tmp/out" "    a: S(0) [64,32] f32 (8192 bytes)"
want_line "$tmp/out" "  chosen: #0 a:S(0), b:B -> out:S(0)"
want_line "$tmp/out" "  boxing: none"
want_line "$tmp/out" "    out: S(0) [64,16] f32"

# b arrives split: the choice stays S(0) and b is gathered to B.
"$tessera" explain matmul --placement 'cpu:[0,1,2,3]' \
  --input 'a:f32[64,32]:S(0)' --input 'b:f32[32,16]:S(0)' >"$tmp/boxed" 2>"$tmp/err"
[ $? -eq 0 ] || { fail "boxed example failed"; cat "$tmp/err"; }
want_line "$tmp/boxed" "  chosen: #0 a:S(0), b:B -> out:S(0)"
want_line "$tmp/boxed" "    b: S(0) -> B (cost 6144)"

"$tessera" explain matmul --placement 'cpu:[0,1,2,3]' \
  --input 'a:f32[64,32]:S(0)' --input 'b:f32[32,16]:B' --json >"$tmp/json" 2>"$tmp/err"
[ $? -eq 0 ] || { fail "--json failed"; cat "$tmp/err"; }
python3 -m json.tool "$tmp/json" >/dev/null || fail "--json output does not parse"
python3 - "$tmp/json" <<'PY' || fail "--json record is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["op"] == "matmul" and r["placement"] == "cpu:[0,1,2,3]", r
assert [i["name"] for i in r["inputs"]] == ["a", "b"], r["inputs"]
c = r["candidates"][r["chosen"]]
assert c["text"] == "a:S(0), b:B -> out:S(0)" and c["cost"] == 0, c
assert r["boxing"] == [] and r["failure"] is None, r
assert r["outputs"][0]["nd_sbp"] == "S(0)" and r["outputs"][0]["shape"] == [64, 16], r["outputs"]
PY

# expect_usage WANT ARGS...: exit 2, stderr names WANT and shows the usage line.
expect_usage() {
  local want="$1"
  shift
  "$tessera" "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  [ "$code" -eq 2 ] || fail "[$*] exited $code, want 2"
  grep -qF -- "$want" "$tmp/err" || { fail "[$*] stderr lacks [$want]:"; cat "$tmp/err"; }
  grep -q "^usage: tessera" "$tmp/err" || fail "[$*] stderr has no usage line"
  [ ! -s "$tmp/out" ] || fail "[$*] wrote to stdout"
}
expect_usage 'unknown command "explian"' explian matmul
expect_usage 'missing a command'
expect_usage 'missing --placement' explain matmul --input 'a:f32[4,4]:B'
expect_usage '--input "a:f32[64,32]:S(2)": matmul: input "a": ' \
  explain matmul --placement 'cpu:[0,1]' --input 'a:f32[64,32]:S(2)' --input 'b:f32[32,16]:B'
expect_usage '--input "a:float[4,4]:B": unknown dtype "float"' \
  explain matmul --placement 'cpu:[0,1]' --input 'a:float[4,4]:B'
expect_usage 'input 1 of matmul(a, b)' \
  explain matmul --placement 'cpu:[0,1]' --input 'a:f32[4,4]:B' --input 'c:f32[4,4]:B'
expect_usage 'no op named "matmull"; did you mean: ' \
  explain matmull --placement 'cpu:[0,1]' --input 'a:f32[4,4]:B'
expect_usage '--attr "transpose_b=2": matmul: attribute "transpose_b": bool value "2"' \
  explain matmul --placement 'cpu:[0,1]' --input 'a:f32[4,4]:B' --input 'b:f32[4,4]:B' \
  --attr transpose_b=2
expect_usage '--placement "cpu:[0,1": ' explain relu --placement 'cpu:[0,1' --input 'f32[4]:B'
expect_usage 'tessera topology: unexpected argument "hosts"' topology hosts

# Without mpirun: a world of one rank on this host (tests/multihost runs it across
# emulated hosts).
env -u TESSERA_RANKS_PER_HOST "$tessera" topology >"$tmp/out" 2>"$tmp/err" ||
  { fail "topology failed"; cat "$tmp/err"; }
want_line "$tmp/out" "1 rank on 1 host (found with MPI_COMM_TYPE_SHARED)"
want_line "$tmp/out" "host 0 \"$(hostname)\": rank 0"
"$tessera" topology --help >"$tmp/out" 2>&1 || fail "topology --help failed"
grep -q "^usage: tessera topology" "$tmp/out" || fail "topology --help has no usage"

"$tessera" explain --help >"$tmp/out" 2>&1 || fail "explain --help failed"
grep -q "^usage: tessera explain OP" "$tmp/out" || fail "explain --help has no usage"
"$tessera" ops >"$tmp/out" 2>&1 || fail "ops failed"
want_line "$tmp/out" "matmul(a, b) -> (out); attrs: transpose_a: bool = false, transpose_b: bool = false"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
