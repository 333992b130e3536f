#!/usr/bin/env bash
# Every test: the whole suite, the unit and MPI tests under AddressSanitizer + UBSan,
# the multi-threaded tests under ThreadSanitizer, and the CUDA build (its GPU tests run on a GPU and skip, saying so, without one).
# Ends with one line "tessera: N passed, N failed, N skipped" over all steps.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel_flags=(--noshow_progress)
[ -n "${CI:-}" ] && bazel_flags+=(--curses=no --color=no)

passed=0
skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step() { printf '\n=== %s\n' "$*"; }

# Runs `bazel test ARGS...`, echoing its output, and adds its counts to the totals.
bazel_test() {
  set +e
  bazel test "${bazel_flags[@]}" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  local line
  line=$(grep -E '^Executed [0-9]+ out of [0-9]+ tests?' "$log" | tail -n 1 || true)
  local p s f
  p=$(sed -nE 's/.*: ([0-9]+) tests? pass.*/\1/p' <<<"$line")
  s=$(sed -nE 's/.* ([0-9]+) (was|were) skipped.*/\1/p' <<<"$line")
  passed=$((passed + ${p:-0}))
  skipped=$((skipped + ${s:-0}))
  if [ "$rc" -ne 0 ]; then
    f=$(sed -nE 's/.* ([0-9]+) fails? .*/\1/p' <<<"$line")
    echo "tessera: ${passed} passed, ${f:-1} failed, ${skipped} skipped"
    exit "$rc"
  fi
}

step "bazel test //... (all tests)"
bazel_test //...

# A workspace of its own (so its own output base) that uses Tessera as the external
# repository @tessera; it shares the .bazelrc disk cache. See docs/bazel.md.
step "examples/bazel_consumer: bazel test //... from another workspace (@tessera)"
pushd examples/bazel_consumer >/dev/null
bazel_test //...
popd >/dev/null

step "tools/check_layers.sh (the build rejects back edges between layers)"
tools/check_layers.sh
passed=$((passed + 1))

step "bazel test --config=asan (unit and MPI tests under AddressSanitizer + UBSan)"
bazel_test --config=asan --test_tag_filters=-no-sandbox,-multihost \
  //core/... //capi/... //kernels/... //tests/... //fuzz/...

# The libFuzzer targets (fuzz/), built with clang + ASan/UBSan in their own output base,
# 10 s each: any crash, sanitizer report or leak fails CI. Their corpora also replay in
# every `bazel test` above (//fuzz:*_fuzz_test). docs/reliability.md, "Fuzzing".
step "tools/fuzz.sh (each libFuzzer target for 10 s)"
tools/fuzz.sh --seconds 10
passed=$((passed + 1))

# Only the multi-threaded tests (tagged "tsan"): a ThreadSanitizer build of their
# dependencies, then a few seconds of running. See docs/reliability.md, "Threads".
step "bazel test --config=tsan (multi-threaded tests under ThreadSanitizer)"
bazel_test --config=tsan --test_tag_filters=tsan //tests/... //core/device:host_copy_test

step "bazel test --config=cuda (CUDA kernels and NCCL; GPU tests skip without a GPU)"
bazel_test --config=cuda //kernels/... //core/...
bazel build "${bazel_flags[@]}" --config=cuda //...

step "all test steps passed"
echo "tessera: ${passed} passed, 0 failed, ${skipped} skipped"
