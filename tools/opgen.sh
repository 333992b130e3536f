#!/usr/bin/env bash
# Regenerates the typed op surfaces from the op registry (tools/opgen/opgen.cc says
# which files): run after adding or changing an op in core/op/ops/, then commit the
# result. //tools/opgen:opgen_test fails while they are out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //tools/opgen:opgen
bazel-bin/tools/opgen/opgen "$(pwd)"
echo "regenerated: capi/include/tessera/ops.h capi/src/ops_generated.cc bindings/ops_generated.i" \
  "bindings/python/src/tessera/_ops_generated.py(i) bindings/java/src/org/tessera/Ops.java" \
  "bindings/go/tessera/ops_generated.go"
