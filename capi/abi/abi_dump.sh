#!/usr/bin/env bash
# Writes the ABI of the C API (LIB: //capi:libtessera_abi.so, libtessera.so's exports
# with DWARF) as libabigail XML on stdout: the exported tess_* functions and only the
# types reachable from them. Types defined outside HEADERS_DIR (the handles' C++
# definitions in capi/src/handles.h) count as private, so every handle is opaque and
# the core's types never enter the ABI. No paths or source locations are written, so
# the output does not depend on where the build ran.
#
# Usage: abi_dump.sh LIB HEADERS_DIR
# The one place the abidw flags live: //capi:abi_test and
# tools/update_abi_baseline.sh both call it.
set -euo pipefail
lib="$1"
headers_dir="$2"
abidw --exported-interfaces-only --drop-private-types --headers-dir "$headers_dir" \
  --no-corpus-path --no-comp-dir-path --no-show-locs --type-id-style hash "$lib"
