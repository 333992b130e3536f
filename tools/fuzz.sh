#!/usr/bin/env bash
# Builds Tessera's libFuzzer targets (fuzz/, docs/reliability.md "Fuzzing") with clang
# and -fsanitize=fuzzer,address,undefined, runs each for a bounded time, and prints one
# line per target: executions, executions per second and crashes. Exits non-zero when
# any target crashed (a crash, UBSan report, leak, timeout or out-of-memory), leaving
# the reproducer under the artifacts directory it prints.
#
# Usage: tools/fuzz.sh [--seconds N] [--jobs J] [--json FILE] [--keep-corpus DIR] [TARGET ...]
#   --seconds N   how long each target runs (default 15)
#   --jobs J      targets run J at a time (default 1)
#   --json FILE   also append one JSON line per target and a total to FILE
#   --keep-corpus DIR   keep the corpora the run grew under DIR/<target>
#   TARGET        placement_parse nd_sbp_parse layout infer boxing_plan capi_ops dlpack
#                 checkpoint_index
#                 (default: all)
#
# The checked-in seeds (fuzz/corpus/<target>/) are read, never written: each run grows
# a corpus of its own in a temporary directory. The build uses an output base of its
# own (TESSERA_FUZZ_OUTPUT_BASE, default ~/.cache/tessera/fuzz-output-base) because
# --config=fuzz switches Bazel's C++ toolchain to clang; the shared disk cache serves it.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(placement_parse nd_sbp_parse layout infer boxing_plan capi_ops dlpack checkpoint_index)
seconds=15
jobs=1
json=""
keep=""
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    --keep-corpus) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ -f "fuzz/${t}_fuzzer.cc" ]] || { echo "fuzz.sh: no target ${t} (fuzz/${t}_fuzzer.cc)" >&2; exit 2; }
done

if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: needs clang and libFuzzer (Debian: clang libclang-rt-14-dev; tools/setup.sh)" >&2
  exit 2
fi

# The sources the binaries are built from (what the JSON lines name).
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
output_base="${TESSERA_FUZZ_OUTPUT_BASE:-$HOME/.cache/tessera/fuzz-output-base}"
bazel_flags=(--noshow_progress)
[ -n "${CI:-}" ] && bazel_flags+=(--curses=no --color=no)
labels=()
for t in "${targets[@]}"; do labels+=("//fuzz:${t}_fuzzer"); done
bazel --output_base="${output_base}" build "${bazel_flags[@]}" --config=fuzz "${labels[@]}" >&2
bin="$(bazel --output_base="${output_base}" info --config=fuzz bazel-bin 2>/dev/null)/fuzz"

work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-fuzz.XXXXXX")"
artifacts="${work}/artifacts"
mkdir -p "${artifacts}"
echo "fuzz.sh: ${#targets[@]} target(s), ${seconds} s each, ${jobs} at a time; artifacts under ${artifacts}" >&2

# Leaks are reported (detect_leaks is on with ASan); Open MPI's own allocations are
# suppressed by tools/lsan.supp, compiled in through --config=fuzz's --custom_malloc.
# The C API targets start MPI as a singleton (no mpirun), the way a plain program does.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export OMPI_MCA_btl=self,vader
# Root may start MPI singletons in CI containers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

run_target() {
  local t="$1"
  local corpus="${work}/corpus/${t}"
  mkdir -p "${corpus}"
  local log="${work}/${t}.log"
  local start end rc=0
  start=$(date +%s.%N)
  # -max_len bounds each input; the targets also clamp the sizes they decode.
  # -rss_limit_mb / -malloc_limit_mb turn a runaway allocation into a reported crash;
  # -timeout (s) a hang. The coverage build's instrumented compares make the largest
  # legal placements (2^20 ranks) take seconds to sort, hence not less than 30.
  "${bin}/${t}_fuzzer" -max_total_time="${seconds}" -max_len=4096 -timeout=30 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="${artifacts}/${t}-" "${corpus}" "fuzz/corpus/${t}" >"${log}" 2>&1 || rc=$?
  end=$(date +%s.%N)
  local execs crashes
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "${log}" | tail -n 1)
  # What libFuzzer writes for a failure (slow-unit-* files are only reports).
  crashes=$(find "${artifacts}" -type f \( -name "${t}-crash-*" -o -name "${t}-leak-*" \
    -o -name "${t}-timeout-*" -o -name "${t}-oom-*" \) | wc -l)
  if [ "${rc}" -ne 0 ] && [ "${crashes}" -eq 0 ]; then crashes=1; fi
  if [ -n "${keep}" ]; then mkdir -p "${keep}/${t}" && cp -r "${corpus}/." "${keep}/${t}/"; fi
  printf '%s %s %s %s %s\n' "${t}" "${execs:-0}" "${start}" "${end}" "${crashes}" >"${work}/${t}.result"
  if [ "${crashes}" -ne 0 ]; then
    echo "fuzz.sh: ${t} crashed (exit ${rc}); its log:" >&2
    grep -E 'ERROR|runtime error|FUZZ_CHECK|SUMMARY|Test unit written|^    #[0-9]' "${log}" | head -n 40 >&2 || true
  fi
}

running=0
for t in "${targets[@]}"; do
  run_target "${t}" &
  running=$((running + 1))
  if [ "${running}" -ge "${jobs}" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

total_execs=0
total_crashes=0
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf '%-16s %14s %10s %10s %8s\n' target executions seconds exec/s crashes
for t in "${targets[@]}"; do
  read -r name execs start end crashes <"${work}/${t}.result"
  secs=$(awk -v a="${start}" -v b="${end}" 'BEGIN { printf "%.1f", b - a }')
  rate=$(awk -v n="${execs}" -v s="${secs}" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
  printf '%-16s %14d %10s %10s %8d\n' "${name}" "${execs}" "${secs}" "${rate}" "${crashes}"
  total_execs=$((total_execs + execs))
  total_crashes=$((total_crashes + crashes))
  if [ -n "${json}" ]; then
    printf '{"bench": "fuzz_%s", "suite": "fuzz", "value": %d, "unit": "executions", "seconds": %s, "exec_per_s": %s, "crashes": %d, "jobs": %d, "commit": "%s", "date": "%s"}\n' \
      "${name}" "${execs}" "${secs}" "${rate}" "${crashes}" "${jobs}" "${commit}" "${stamp}" >>"${json}"
  fi
done
printf '%-16s %14d %10s %10s %8d\n' total "${total_execs}" "" "" "${total_crashes}"
if [ -n "${json}" ]; then
  printf '{"bench": "fuzz_total", "suite": "fuzz", "value": %d, "unit": "executions", "crashes": %d, "targets": %d, "seconds_per_target": %s, "jobs": %d, "commit": "%s", "date": "%s"}\n' \
    "${total_execs}" "${total_crashes}" "${#targets[@]}" "${seconds}" "${jobs}" "${commit}" "${stamp}" >>"${json}"
fi
if [ "${total_crashes}" -ne 0 ]; then
  echo "fuzz.sh: ${total_crashes} crash(es); reproducers under ${artifacts}" >&2
  exit 1
fi
rm -rf "${work}"
