#!/bin/bash
# Builds the Go example service with the system Go toolchain, for the genrule
# //examples/go/service:service_go: lays the program's module and the binding's module
# out in a temporary tree at their paths in this repository (so the program's go.mod
# replace, ../../../bindings/go/tessera, holds), beside a prefix with tessera.h,
# libtessera.so and a tessera.pc (the binding's cgo flags come from pkg-config, as in
# bindings/go/go_test.sh), and runs `go build` offline (no module downloads). The
# program finds libtessera at run time through its RUNPATH: $ORIGIN/../../../capi,
# Bazel's capi output folder holding the library under its SONAME.
#
# Usage: build.sh OUT TESSERA_H LIBTESSERA_SO FILE...  (each FILE at its path in the
# repository: examples/go/service/... or bindings/go/tessera/...)
set -euo pipefail
out="$(pwd)/$1"
header="$2"
library="$3"
shift 3
tmp="$(mktemp -d "${TMPDIR:-/tmp}/go_service.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/prefix/include/tessera" "$tmp/prefix/lib/pkgconfig" "$tmp/src"
cp -L "$header" "$tmp/prefix/include/tessera/tessera.h"
cp -L "$library" "$tmp/prefix/lib/libtessera.so"
printf '%s\n' "prefix=$tmp/prefix" "Name: Tessera" "Description: Tessera C API (build prefix)" \
  "Version: 0" 'Cflags: -I${prefix}/include' 'Libs: -L${prefix}/lib -ltessera' \
  >"$tmp/prefix/lib/pkgconfig/tessera.pc"
for f in "$@"; do
  case "$f" in
    examples/go/service/* | bindings/go/tessera/*) ;;
    *)
      echo "build.sh: $f is neither under examples/go/service/ nor bindings/go/tessera/" >&2
      exit 2
      ;;
  esac
  mkdir -p "$tmp/src/$(dirname "$f")"
  cp -L "$f" "$tmp/src/$f"
done
export HOME="$tmp/home" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOTMPDIR="$tmp"
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on CGO_ENABLED=1
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2016  # $ORIGIN is for the dynamic loader
export CGO_LDFLAGS='-Wl,-rpath,$ORIGIN/../../../capi'
export PATH="/usr/lib/go/bin:/usr/bin:/bin:$PATH"
mkdir -p "$HOME"
cd "$tmp/src/examples/go/service"
go vet .
unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
  echo "build.sh: not gofmt-formatted: $unformatted" >&2
  exit 1
fi
go build -trimpath -o "$out" .
