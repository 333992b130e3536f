#!/usr/bin/env bash
# The serving core without HTTP (core_bench.cc), same run: batching off and on at 1, 16
# and 64 driver threads, at 1 and 4 ranks, T seconds each. Appends JSON lines (with the
# load average) to bench/results/$(date +%F)-serve-core.jsonl and prints the ratio of
# batched to unbatched throughput per rank count and client count.
# Settings (environment): T (10), RANKS ("1 4"), CLIENTS ("1 16 64"), DELAY_US (2000).
set -euo pipefail
cd "$(dirname "$0")/../.."
T="${T:-10}"
RANKS="${RANKS:-1 4}"
CLIENTS="${CLIENTS:-1 16 64}"
DELAY_US="${DELAY_US:-2000}"
results="${RESULTS:-bench/results/$(date +%F)-serve-core.jsonl}"
bazel build -c opt //bench/serve:core_bench >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/serve/core_bench"
export OMPI_MCA_mpi_yield_when_idle=1
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
for n in $RANKS; do
  for c in $CLIENTS; do
    for b in 0 1; do
      line="$(tools/mpirun.sh -np "$n" "$bin" "$c" "$T" "$b" "$DELAY_US" | grep '^{')"
      load="$(cut -d' ' -f1 /proc/loadavg)"
      line="${line%\}}, \"loadavg_1m\": $load, \"host_cores\": $(nproc)}"
      echo "$line" | tee -a "$results" >>"$tmp"
      echo "$line"
    done
  done
done
python3 - "$tmp" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {(r["ranks"], r["clients"], r["batching"]): r for r in rows}
print("ranks clients  off req/s   on req/s  on/off  req/run(on)  p50 off/on ms   p99 off/on ms")
for (n, c, b), r in sorted(by.items()):
    if b != "on" or (n, c, "off") not in by:
        continue
    off = by[(n, c, "off")]
    print("%5d %7d %10.1f %10.1f %7.2f %12.1f %7.3f/%-7.3f %7.3f/%-7.3f" % (
        n, c, off["throughput_rps"], r["throughput_rps"], r["throughput_rps"] / off["throughput_rps"],
        r["requests_per_run"], off["p50_ms"], r["p50_ms"], off["p99_ms"], r["p99_ms"]))
bad = [r for r in rows if r["errors"] or r["wrong"]]
print("errors or wrong answers in %d run(s)" % len(bad))
sys.exit(1 if bad else 0)
PY
