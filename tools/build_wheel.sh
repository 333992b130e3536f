#!/usr/bin/env bash
# Builds the Python wheel: tools/build_wheel.sh [--cuda] [OUTDIR]
#
# `bazel build -c opt //bindings/python:wheel` (with --config=cuda for --cuda), then copies
# the wheel into OUTDIR (default: dist/) under its proper name,
# tessera_runtime-<version>-cp3XX-cp3XX-linux_x86_64.whl (<version>+cuda for --cuda):
# the package `tessera`, its extension (RUNPATH $ORIGIN) and libtessera beside it. The
# version is capi/include/tessera/version.h's, read by bindings/python/make_wheel.py.
# Offline; needs patchelf (tools/setup.sh). Install: pip install OUTDIR/<the wheel>.
set -euo pipefail
cd "$(dirname "$0")/.."

flags=(-c opt)
outdir=dist
while (($#)); do
  case "$1" in
    --cuda) flags+=(--config=cuda) ;;
    -h | --help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "build_wheel.sh: unknown option $1 (usage: tools/build_wheel.sh [--cuda] [OUTDIR])" >&2
      exit 2
      ;;
    *) outdir="$1" ;;
  esac
  shift
done

bazel build "${flags[@]}" //bindings/python:wheel
# The configuration's own output tree: bazel-bin may point at another one.
bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)"
name="$(cat "$bin/bindings/python/tessera_wheel.name")"
mkdir -p "$outdir"
cp -f "$bin/bindings/python/tessera_wheel.whl" "$outdir/$name"
chmod 644 "$outdir/$name"
echo "build_wheel.sh: wrote $outdir/$name"
