#!/usr/bin/env bash
# Rewrites capi/abi/libtessera.abi, the C ABI baseline //capi:abi_test compares
# libtessera.so against, from a fresh build. Run it only for a deliberate ABI change:
# an addition (new functions; new members at the end of a struct that starts with
# size_t struct_size), or an incompatible change that also bumps the version in
# capi/include/tessera/version.h: TESS_VERSION_MINOR while MAJOR is 0 (pre-1.0),
# TESS_VERSION_MAJOR from 1.0 on. Commit the new baseline with the change; its diff
# shows the ABI change to reviewers.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //capi:libtessera_abi
bash capi/abi/abi_dump.sh bazel-bin/capi/libtessera_abi.so capi/include/tessera \
  > capi/abi/libtessera.abi
echo "wrote capi/abi/libtessera.abi; review and commit it: git diff --stat capi/abi/"
