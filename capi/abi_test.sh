#!/usr/bin/env bash
# The C ABI of libtessera.so against the checked-in baseline (capi/abi/libtessera.abi).
#
# Fails on any change an existing caller could notice: a removed function, a changed
# signature (parameter or return type), a changed layout of a public struct (the
# DLPack structs, option/stats structs), a changed symbol version. Added functions
# pass (they are reported, not counted).
#
# Usage: abi_test.sh BASELINE LIB ABI_DUMP A_PUBLIC_HEADER
set -euo pipefail
baseline="$1"
lib="$2"
abi_dump="$3"
headers_dir="$(dirname "$4")"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/abi_test.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

bash "$abi_dump" "$lib" "$headers_dir" > "$tmp/current.abi"

# Added functions: informational only.
abidiff --no-default-suppression --added-fns "$baseline" "$tmp/current.abi" \
  > "$tmp/added.txt" 2>&1 || true
if grep -qE '^[0-9]+ Added functions?:' "$tmp/added.txt"; then
  echo "abi_test: functions added since the baseline (compatible; refresh the baseline"
  echo "with tools/update_abi_baseline.sh when convenient):"
  sed -n '/^[0-9]* Added function/,$p' "$tmp/added.txt"
fi

# Everything but additions. abidiff's exit status is a bit field: 1 error, 2 usage
# error, 4 ABI change, 8 incompatible ABI change. A changed struct layout or
# signature sets only bit 4, so any of 4 or 8 fails.
set +e
abidiff --no-default-suppression --no-added-syms "$baseline" "$tmp/current.abi" \
  > "$tmp/diff.txt" 2>&1
status=$?
set -e
if [ $((status & 3)) -ne 0 ]; then
  cat "$tmp/diff.txt"
  echo "FAIL: abidiff could not compare (exit status $status)"
  exit 1
fi
if [ $((status & 12)) -ne 0 ]; then
  cat "$tmp/diff.txt"
  echo "abidiff exit status: $status"
  cat <<'EOF'
FAIL: the C ABI of libtessera.so changed incompatibly against capi/abi/libtessera.abi
(abidiff exit status above: 4 = ABI change, 8 = incompatible change).

Existing programs and bindings built against the old header may now break. Either
undo the change (make it additive: a new function, a new member at the END of a
struct that starts with size_t struct_size), or break the ABI on purpose:
  1. bump the version in capi/include/tessera/version.h: before 1.0 (MAJOR 0),
     TESS_VERSION_MINOR; from 1.0 on, TESS_VERSION_MAJOR (the version-script node
     TESSERA_<major> in the generated capi/tessera.lds follows it), and
  2. rewrite the baseline: tools/update_abi_baseline.sh
and commit both with the reason in the message. See docs/c-api.md, "ABI".
EOF
  exit 1
fi
echo "PASS: the C ABI is compatible with capi/abi/libtessera.abi"
