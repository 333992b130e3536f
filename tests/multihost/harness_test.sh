#!/bin/bash
# tools/multihost.sh itself: bad options are refused with a message that names them,
# --delay really delays (the fastest of 40 round trips between two hosts is at least
# twice the delay, and without it below that), and a run leaves no namespace, link or
# slot behind, whether its program passed or failed.
#   harness_test.sh MULTIHOST_SH ROUND_TRIP_PY
set -uo pipefail
multihost=$1 round_trip=$2
if [ "$(id -u)" != 0 ]; then echo "SKIPPED: tools/multihost.sh needs root"; exit 0; fi
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_refused() {  # expect_refused WORD_IN_MESSAGE ARGS...
  local word=$1; shift
  out=$("$multihost" "$@" 2>&1); rc=$?
  [ "$rc" = 2 ] && grep -q -- "$word" <<<"$out" || fail "multihost.sh $* -> rc $rc, '$out' (expected 2 naming $word)"
}
expect_refused "--hosts" --hosts 0 -- true
expect_refused "--ranks-per-host" --ranks-per-host x -- true
expect_refused "--rate '7'" --rate 7 -- true
expect_refused "--delay '5'" --delay 5 -- true
expect_refused "--delay '2s'" --delay 2s -- true
expect_refused "--timeout" --timeout 0 -- true
expect_refused "unknown option '--bogus'" --bogus -- true
expect_refused "no program" --hosts 2

leftovers() { { ip netns list; ip -o link show; } 2>/dev/null | grep -oE "tm[hvb][0-9]+(n[0-9]+)?" | sort -u; }
before=$(leftovers)

min_round_trip() {  # min_round_trip [--delay D]: milliseconds
  "$multihost" --hosts 2 --timeout 60 "$@" -- python3 "$round_trip" | awk '/^round_trip_ms/ { print $3 }'
}
plain=$(min_round_trip)
delayed=$(min_round_trip --delay 1ms)
echo "fastest round trip between hosts: ${plain:-?} ms plain, ${delayed:-?} ms with --delay 1ms"
awk -v d="$delayed" 'BEGIN { exit !(d != "" && d + 0 >= 2.0) }' || fail "--delay 1ms: fastest round trip '${delayed}' ms, expected >= 2"
awk -v p="$plain" 'BEGIN { exit !(p != "" && p + 0 < 2.0) }' || fail "no delay: fastest round trip '${plain}' ms, expected < 2"

"$multihost" --hosts 2 --delay 1ms --timeout 60 -- sh -c 'exit 3'; rc=$?
[ "$rc" = 3 ] || fail "a failing program's status: $rc (expected 3)"
"$multihost" --hosts 2 --timeout 2 -- sleep 30; rc=$?
[ "$rc" = 124 ] || fail "a program past --timeout: $rc (expected 124)"

after=$(leftovers)
[ "$before" = "$after" ] || fail "objects left behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
[ "$failures" = 0 ] && echo PASSED
exit "$((failures > 0))"
