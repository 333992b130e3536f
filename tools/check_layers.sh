#!/usr/bin/env bash
# Proves the layers are enforced (docs/architecture.md): for each back edge below, adds a
# probe target with that one dependency to the lower package's BUILD.bazel, asks Bazel to
# analyse it, and expects the visibility error; one allowed edge must analyse cleanly.
# Also checks that nothing under core/ includes kernels/. BUILD files are restored on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if grep -rn --include='*.h' --include='*.cc' --include='*.cu' '#include "kernels/' core; then
  fail "core/ includes kernels/ (core/kernel holds the interface kernels implement)"
fi

probe_dir=""
restore() { [ -n "$probe_dir" ] && [ -f "$probe_dir/BUILD.bazel.orig" ] && \
  mv "$probe_dir/BUILD.bazel.orig" "$probe_dir/BUILD.bazel"; probe_dir=""; }
trap restore EXIT

# probe PACKAGE DEP: analyse //PACKAGE:layering_probe depending on DEP; prints Bazel's output.
probe() {
  probe_dir="$1"
  cp "$1/BUILD.bazel" "$1/BUILD.bazel.orig"
  printf '\ncc_library(name = "layering_probe", deps = ["%s"])\n' "$2" >>"$1/BUILD.bazel"
  set +e
  bazel build --nobuild --noshow_progress --curses=no "//$1:layering_probe" 2>&1
  local rc=$?
  set -e
  restore
  return $rc
}

# Back edges: a lower module depending on a higher one.
back_edges=(
  "core/kernel //kernels/cpu:cpu_kernels"
  "core/plan //core/eager:interpreter"
  "core/plan //core/serve"
  "core/eager //core/autograd"
  "core/autograd //core/optim"
  "core/tensor //core/eager:interpreter"
  "core/tensor //core/checkpoint"
  "core/checkpoint //core/eager:interpreter"
  "core/boxing //core/tensor:global_tensor"
  "core/memory //core/boxing"
  "core/op //core/infer"
  "core/common //core/placement"
  "kernels/cpu //core/comm:communicator"
  "core/eager //capi"
)
for edge in "${back_edges[@]}"; do
  read -r package dep <<<"$edge"
  if out=$(probe "$package" "$dep"); then
    fail "//$package may depend on $dep, a back edge"
  elif grep -q "is not visible from target" <<<"$out"; then
    echo "ok: //$package -> $dep is rejected: not visible"
  else
    fail "//$package -> $dep failed for another reason:"; echo "$out" | tail -n 5
  fi
done

# An edge that points down must pass, or the probes above prove nothing.
if out=$(probe core/plan //core/tensor:global_tensor); then
  echo "ok: //core/plan -> //core/tensor:global_tensor is allowed"
else
  fail "the allowed edge //core/plan -> //core/tensor failed:"; echo "$out" | tail -n 5
fi

if [ "$failures" -ne 0 ]; then
  echo "check_layers: $failures failure(s)"
  exit 1
fi
echo "check_layers: the build rejects every back edge tried"
