#!/usr/bin/env bash
# Builds what an installed Tessera holds, optimized (-c opt; --cuda adds
# --config=cuda), and prints the bazel-bin directory that holds it. Leaves the
# workspace's bazel-* symlinks alone (--symlink_prefix=/), so a later plain build or
# test is not thrown off. Used by tools/install.sh and tools/package.sh.
# Usage: build.sh [--cuda]
set -euo pipefail
cd "$(dirname "$0")/../.."
flags=(-c opt --symlink_prefix=/)
case "${1:-}" in
  "") ;;
  --cuda) flags+=(--config=cuda) ;;
  *) echo "build.sh: unknown argument '$1'; usage: build.sh [--cuda]" >&2 && exit 2 ;;
esac
bazel build "${flags[@]}" //capi:libtessera.so //tools/tessera_cli:tessera >&2
bazel info "${flags[@]}" bazel-bin 2>/dev/null
