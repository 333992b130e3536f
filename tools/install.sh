#!/usr/bin/env bash
# Builds Tessera optimized and installs it under a prefix: headers, libtessera.so with
# its SONAME and dev links, pkg-config and CMake files, the tessera CLI and the docs
# (the layout: docs/packaging.md).
#
# Usage: tools/install.sh --prefix DIR [--cuda] [--prebuilt DIR]
#   --prefix DIR    where to install (DIR/include, DIR/lib, DIR/bin, DIR/share)
#   --cuda          the CUDA variant (--config=cuda: CUDA kernels, cuBLAS, NCCL)
#   --prebuilt DIR  skip the build: DIR holds capi/libtessera.so and
#                   tools/tessera_cli/tessera (a bazel-bin, or a test's runfiles)
# Then: PKG_CONFIG_PATH=DIR/lib/pkgconfig pkg-config --cflags --libs tessera, or
# CMake with -DCMAKE_PREFIX_PATH=DIR and find_package(Tessera REQUIRED).
set -euo pipefail

usage() {
  sed -n '6,10s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

prefix="" cuda=() prebuilt=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix | --prebuilt)
      [[ $# -ge 2 && -n "$2" ]] || usage
      declare "${1#--}=$2"
      shift 2
      ;;
    --prefix=?*) prefix="${1#--prefix=}" && shift ;;
    --cuda) cuda=(--cuda) && shift ;;
    -h | --help) usage ;;
    *) echo "install.sh: unknown argument '$1'" >&2 && usage ;;
  esac
done
[ -n "$prefix" ] || { echo "install.sh: --prefix is required" >&2 && usage; }
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
tree="$(cd "$(dirname "$0")/.." && pwd)"

bindir="${prebuilt:-$("$tree/tools/packaging/build.sh" "${cuda[@]}")}"
"$tree/tools/packaging/stage.sh" --srcdir "$tree" --bindir "$bindir" --prefix "$prefix" \
  --libdir lib "${cuda[@]}"
