#!/bin/bash
# The long fuzzing run: every libFuzzer target of fuzz/ (tools/fuzz.sh) for SECONDS each,
# JOBS at a time, appending one JSON line per target and a total (executions, exec/s,
# crashes) to bench/results/fuzz.jsonl. docs/reliability.md ("Fuzzing") records the
# figures of the last such run.
# Usage: bench/fuzz/run.sh [SECONDS [JOBS]]   (default: 600 s each, 2 at a time)
set -euo pipefail
cd "$(dirname "$0")/../.."
exec tools/fuzz.sh --seconds "${1:-600}" --jobs "${2:-2}" --json bench/results/fuzz.jsonl
