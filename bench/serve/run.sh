#!/bin/bash
# The serving benchmark (issue 15; bench/serve/README.md). Starts an example service
# (serve_spec.md / docs/serving.md) under tools/mpirun.sh for every rank count and
# batching setting of the matrix, and for each: runs bench/serve/loadgen at every client
# count, measures every rank's CPU over an idle window and the first request after it,
# then SIGTERMs the driver and records the job's exit status. Every result is a JSON
# line appended to bench/results/<date>-serve.jsonl; a table is printed at the end.
#
# Usage: bench/serve/run.sh [PROGRAM]
#   PROGRAM: a Bazel label (built with -c opt) or the path of a runnable program that
#   follows serve_spec.md; default $SERVE_PROGRAM, else //examples/go/service.
# Settings (environment):
#   T=10               measured seconds of each load run
#   WARMUP=1           seconds of load before each run's window, not counted
#   RANKS="1 4"        rank counts
#   BATCHING="off on"  the service's --batching settings
#   CLIENTS="1 16 64"  concurrent clients
#   ROWS=1             rows per request
#   SEED=0             the service's --seed (loadgen checks against the same)
#   IDLE_SECONDS=10    the idle window (CPU per rank, then the first request after it)
#   SERVICE_ARGS=""    more flags for the service, e.g. "--max-queue-delay-us 500"
#   LABELS=""          more k=v labels for every line, space-separated, e.g. "note=nodelay"
#   STARTUP_TIMEOUT=180, STOP_TIMEOUT=30   seconds
#   RESULTS=bench/results/$(date +%F)-serve.jsonl
# The goal run of issue 15: T=60 RANKS=4 CLIENTS=64 BATCHING=on bench/serve/run.sh
# Exit status 0 when every request of every run was answered right and every job
# exited 0 after SIGTERM, else 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

T="${T:-10}"
WARMUP="${WARMUP:-1}"
RANKS="${RANKS:-1 4}"
BATCHING="${BATCHING:-off on}"
CLIENTS="${CLIENTS:-1 16 64}"
ROWS="${ROWS:-1}"
SEED="${SEED:-0}"
IDLE_SECONDS="${IDLE_SECONDS:-10}"
SERVICE_ARGS="${SERVICE_ARGS:-}"
LABELS="${LABELS:-}"
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-180}"
STOP_TIMEOUT="${STOP_TIMEOUT:-30}"
RESULTS="${RESULTS:-bench/results/$(date +%F)-serve.jsonl}"
program="${1:-${SERVE_PROGRAM:-//examples/go/service}}"

die() { echo "run.sh: $*" >&2; exit 2; }
for v in T WARMUP IDLE_SECONDS STARTUP_TIMEOUT STOP_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "$v=${!v} is not a number of seconds"
done
for v in ROWS SEED; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v=${!v} is not a non-negative integer"
done
for n in $RANKS; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "RANKS has $n, not a rank count"; done
for c in $CLIENTS; do [[ "$c" =~ ^[1-9][0-9]*$ ]] || die "CLIENTS has $c, not a client count"; done
for b in $BATCHING; do [[ "$b" == on || "$b" == off ]] || die "BATCHING has $b, not on or off"; done
for l in $LABELS; do [[ "$l" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^\"]*$ ]] || die "LABELS has $l, not key=value (a value without quotes or backslashes)"; done

work="$(mktemp -d "${TMPDIR:-/tmp}/serve-bench.XXXXXX")"
mpirun_pid=""
driver_pid=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  if [[ -n "$mpirun_pid" ]] && kill -0 "$mpirun_pid" 2>/dev/null; then
    if [[ -n "$driver_pid" ]]; then kill -TERM "$driver_pid" 2>/dev/null || true; fi
    sleep 2
    kill -TERM "$mpirun_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The load generator: go build, standard library only, offline.
(
  cd bench/serve/loadgen
  GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on go build -o "$work/loadgen" .
) || die "go build of bench/serve/loadgen failed"
loadgen="$work/loadgen"

# The service: a label is built optimised and its executable taken from Bazel's
# "Target ... up-to-date:" lines.
if [[ "$program" == //* || "$program" == @* ]]; then
  bazel build -c opt "$program" 2>&1 | tee "$work/build.log" >&2 || die "bazel build -c opt $program failed"
  exe="$(awk '/ up-to-date:$/ { getline; print $1; exit }' "$work/build.log")"
  [[ -n "$exe" && -x "$exe" ]] || die "no executable for $program in bazel's output (got '$exe')"
  exe="$root/$exe"
else
  [[ -x "$program" ]] || die "PROGRAM $program is neither a Bazel label nor an executable file"
  exe="$(cd "$(dirname "$program")" && pwd)/$(basename "$program")"
fi
echo "run.sh: service program $exe" >&2

mkdir -p "$(dirname "$RESULTS")"
run_id="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
host_cores="$(nproc)"
clk_tck="$(getconf CLK_TCK)"
status=0

# The labels every line of this service instance carries (loadgen -label k=v).
labels=()
set_labels() {  # ranks batching
  read -r l1 l5 l15 _ </proc/loadavg
  labels=(-label "ranks=$1" -label "batching=$2" -label "run_id=$run_id"
    -label "program=$program" -label "host_cores=$host_cores"
    -label "loadavg_1m=$l1" -label "loadavg_5m=$l5" -label "loadavg_15m=$l15")
  for l in $LABELS; do labels+=(-label "$l"); done
}
# The same labels as JSON members, for the lines written here.
labels_json() {
  local out="" i k v
  for ((i = 1; i < ${#labels[@]}; i += 2)); do
    k="${labels[i]%%=*}"
    v="${labels[i]#*=}"
    if [[ "$v" =~ ^-?[0-9]+([.][0-9]+)?$ ]]; then out+=", \"$k\": $v"; else out+=", \"$k\": \"$v\""; fi
  done
  printf '%s' "$out"
}

# A process and its descendants (a rank may be a launcher that starts the program).
subtree() {
  local p="$1" c
  echo "$p"
  # shellcheck disable=SC2013  # the file holds pids separated by spaces
  for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do subtree "$c"; done
}
# utime + stime in clock ticks of the given processes, summed (gone ones count 0).
cpu_ticks() {
  local total=0 p t
  for p in "$@"; do
    t="$(sed 's/^.*) //' /proc/"$p"/stat 2>/dev/null | awk '{ print $12 + $13 }')" || t=0
    total=$((total + ${t:-0}))
  done
  echo "$total"
}

for ranks in $RANKS; do
  for batching in $BATCHING; do
    echo "run.sh: == $ranks ranks, batching $batching" >&2
    out="$work/service-$ranks-$batching.out"
    err="$work/service-$ranks-$batching.err"
    : >"$out"
    # shellcheck disable=SC2086  # SERVICE_ARGS is split into flags on purpose
    OMPI_MCA_mpi_yield_when_idle=1 tools/mpirun.sh -np "$ranks" "$exe" --port 0 \
      --seed "$SEED" --batching "$batching" $SERVICE_ARGS >"$out" 2>"$err" &
    mpirun_pid=$!
    driver_pid=""
    port=""
    deadline=$((SECONDS + ${STARTUP_TIMEOUT%.*}))
    while ((SECONDS < deadline)) && kill -0 "$mpirun_pid" 2>/dev/null; do
      line="$(grep -m1 -E '^tessera-service listening port=[0-9]+ pid=[0-9]+ ranks=[0-9]+$' "$out" || true)"
      if [[ -n "$line" ]]; then
        port="$(sed -E 's/.*port=([0-9]+).*/\1/' <<<"$line")"
        driver_pid="$(sed -E 's/.*pid=([0-9]+).*/\1/' <<<"$line")"
        said_ranks="$(sed -E 's/.*ranks=([0-9]+)$/\1/' <<<"$line")"
        break
      fi
      sleep 0.2
    done
    set_labels "$ranks" "$batching"
    if [[ -z "$port" || "$said_ranks" != "$ranks" ]]; then
      echo "run.sh: no startup line with ranks=$ranks from $exe within $STARTUP_TIMEOUT s; its stderr:" >&2
      tail -20 "$err" >&2
      printf '{"mode": "start_failed", "startup_line": "%s"%s}\n' "${line:-}" "$(labels_json)" >>"$RESULTS"
      kill -TERM "$mpirun_pid" 2>/dev/null || true
      wait "$mpirun_pid" 2>/dev/null || true
      mpirun_pid=""
      status=1
      continue
    fi
    url="http://127.0.0.1:$port"
    echo "run.sh: service up at $url, driver pid $driver_pid" >&2

    for clients in $CLIENTS; do
      set_labels "$ranks" "$batching"
      if ! result="$("$loadgen" -url "$url" -clients "$clients" -duration "$T" -warmup "$WARMUP" \
        -rows "$ROWS" -seed "$SEED" "${labels[@]}")"; then
        status=1
      fi
      echo "$result" | tee -a "$RESULTS"
    done

    # Idle: the probe sends one request now, then nothing for IDLE_SECONDS + 2 s;
    # every rank's CPU is read over IDLE_SECONDS inside that quiet time.
    set_labels "$ranks" "$batching"
    "$loadgen" -url "$url" -idle-probe "$((${IDLE_SECONDS%.*} + 2))" -rows "$ROWS" -seed "$SEED" \
      "${labels[@]}" >"$work/probe.json" &
    probe_pid=$!
    sleep 1
    rank_pids=()
    # shellcheck disable=SC2013  # pids separated by spaces
    for child in $(cat /proc/"$mpirun_pid"/task/*/children); do
      r="$(tr '\0' '\n' </proc/"$child"/environ | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')"
      rank_pids[${r:-0}]="$child"
    done
    declare -A before=() procs=()
    for r in "${!rank_pids[@]}"; do
      procs[$r]="$(subtree "${rank_pids[$r]}" | tr '\n' ' ')"
      # shellcheck disable=SC2086
      before[$r]="$(cpu_ticks ${procs[$r]})"
    done
    start_ns="$(date +%s%N)"
    sleep "$IDLE_SECONDS"
    window_ns=$(($(date +%s%N) - start_ns))
    for r in "${!rank_pids[@]}"; do
      # shellcheck disable=SC2086
      after="$(cpu_ticks ${procs[$r]})"
      pct="$(awk -v d=$((after - before[$r])) -v hz="$clk_tck" -v ns="$window_ns" \
        'BEGIN { printf "%.2f", 100 * d / hz / (ns / 1e9) }')"
      printf '{"mode": "idle_cpu", "rank": %d, "pids": "%s", "window_seconds": %.3f, "cpu_ticks": %d, "cpu_percent": %s%s}\n' \
        "$r" "${procs[$r]% }" "$(awk -v ns="$window_ns" 'BEGIN { print ns / 1e9 }')" \
        $((after - before[$r])) "$pct" "$(labels_json)" | tee -a "$RESULTS"
    done
    unset before procs
    wait "$probe_pid" || status=1
    tee -a "$RESULTS" <"$work/probe.json"

    # Stop: SIGTERM to the driver; mpirun (so every rank) must exit 0.
    kill -TERM "$driver_pid"
    stop_start="$(date +%s%N)"
    stop_deadline=$((SECONDS + ${STOP_TIMEOUT%.*}))
    while kill -0 "$mpirun_pid" 2>/dev/null && ((SECONDS < stop_deadline)); do sleep 0.1; done
    if kill -0 "$mpirun_pid" 2>/dev/null; then
      echo "run.sh: the job did not exit within $STOP_TIMEOUT s of SIGTERM; killing mpirun" >&2
      kill -TERM "$mpirun_pid" 2>/dev/null || true
      sleep 5
      kill -KILL "$mpirun_pid" 2>/dev/null || true
      exit_status="\"timeout\""
      wait "$mpirun_pid" 2>/dev/null || true
    else
      exit_status=0
      wait "$mpirun_pid" || exit_status=$?
    fi
    stop_s="$(awk -v ns=$(($(date +%s%N) - stop_start)) 'BEGIN { printf "%.3f", ns / 1e9 }')"
    [[ "$exit_status" == 0 ]] || status=1
    printf '{"mode": "stop", "exit_status": %s, "stop_seconds": %s%s}\n' "$exit_status" "$stop_s" \
      "$(labels_json)" | tee -a "$RESULTS"
    if [[ "$exit_status" != 0 ]]; then
      echo "run.sh: the service's stderr ends:" >&2
      tail -20 "$err" >&2
    fi
    mpirun_pid=""
  done
done

python3 bench/serve/table.py "$RESULTS" "$run_id"
exit "$status"
