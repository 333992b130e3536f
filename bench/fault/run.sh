#!/bin/bash
# Fault figures: runs the fault test (tests/fault) RUNS times per mode at 3 ranks and
# prints one JSON line per figure with its median, min and max over the runs:
# time from the fault to the survivors' DEADLINE_EXCEEDED (stall, kill), the
# communicator-creation timeout with a missing rank, the finalize time after the
# fault, and (stall) the stalled rank's own late creation. Timeout: 1 s.
#
#   bench/fault/run.sh [RUNS] >> bench/results/<date>-fault.jsonl
#
# Builds //tests/fault:fault_test_bin first. Every run is bounded (fault_test.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-7}"
bazel build -c opt //tests/fault:fault_test_bin >&2
bin="bazel-bin/tests/fault/fault_test_bin"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for mode in stall kill; do
  for ((i = 0; i < runs; i++)); do
    if ! tests/fault/fault_test.sh "$mode" "$bin" > "$out.log" 2>&1; then
      echo "run $i of $mode failed:" >&2
      cat "$out.log" >&2
      exit 1
    fi
    grep '^rank [0-9]*: PASS' "$out.log" >> "$out"
  done
done
rm -f "$out.log"
python3 - "$out" "$runs" <<'PY'
import json, statistics, sys
values = {}
for line in open(sys.argv[1]):
    fields = line.split()
    mode = next(f.split("=")[1] for f in fields if f.startswith("mode="))
    for f in fields:
        if "=" not in f or f.startswith("mode="):
            continue
        name, value = f.split("=")
        values.setdefault((mode, name), []).append(float(value))
for (mode, name), v in sorted(values.items()):
    if name in ("collectives_before_fault",):
        continue
    print(json.dumps({"bench": f"fault_{mode}_{name}", "suite": "fault", "unit": "s" if name.endswith("_s") else "",
                      "median": round(statistics.median(v), 6), "min": round(min(v), 6),
                      "max": round(max(v), 6), "samples": len(v), "runs": int(sys.argv[2]),
                      "ranks": 3, "timeout_s": 1.0}))
PY
