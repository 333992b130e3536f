#!/usr/bin/env bash
# Every test: the whole suite, the unit tests under AddressSanitizer + UBSan, and
# the CUDA build (its GPU tests run on a GPU and skip, saying so, without one).
set -euo pipefail
cd "$(dirname "$0")/.."
bazel_flags=(--noshow_progress)
[ -n "${CI:-}" ] && bazel_flags+=(--curses=no --color=no)

step() { printf '\n=== %s\n' "$*"; }

step "bazel test //... (all tests)"
bazel test "${bazel_flags[@]}" //...

step "bazel test --config=asan (unit tests under AddressSanitizer + UBSan)"
bazel test "${bazel_flags[@]}" --config=asan --test_tag_filters=-no-sandbox,-mpi //core/... //capi/... //kernels/...

step "bazel test --config=cuda (CUDA kernels and NCCL; GPU tests skip without a GPU)"
bazel test "${bazel_flags[@]}" --config=cuda //kernels/... //core/...
bazel build "${bazel_flags[@]}" --config=cuda //...

step "all test steps passed"
