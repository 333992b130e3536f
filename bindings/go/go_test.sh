#!/bin/bash
# Runs the Go binding's tests: lays the module (bindings/go/tessera, with its
# checked-in internal/capi) out under $TEST_TMPDIR beside a prefix holding tessera.h,
# libtessera.so and a tessera.pc naming them (the capi package's cgo flags come from
# `#cgo pkg-config: tessera`), vets it, and runs `go test`. Standard library only; no
# network.
#
# Usage: go_test.sh [--mpi|--program N MPIRUN_TEST_SH] TESSERA_H LIBTESSERA_SO \
#                   MODULE_FILE...
# Each MODULE_FILE's path contains bindings/go/tessera/; it is copied to the same
# path inside the module (go.mod, the package's .go files, tests included, and
# internal/capi/...).
# With --mpi the test binary is built once (`go test -c`) and MPIRUN_TEST_SH starts N
# copies of it, which run the TestMPI* tests (-tessera.np=N tells them the world size
# to expect). mpirun must not start `go test` itself: that would build N times, racing.
# With --program the same launcher starts N copies of the program
# internal/cmd/worldcheck (go build), which must all exit with status 0; first a
# module outside (a user's) must build against the module path and be refused
# internal/capi.
set -euo pipefail
np=""
mode="test"
if [[ "${1:-}" == "--mpi" || "${1:-}" == "--program" ]]; then
  mode="${1#--}"
  np="$2"
  launcher="$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"
  shift 3
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
src="$tmp/src"
mkdir -p "$src" "$tmp/lib" "$tmp/include/tessera"
cp "$1" "$tmp/include/tessera/tessera.h"
cp "$2" "$tmp/lib/libtessera.so"
# The library's SONAME (libtessera.so.<major>) beside it: cgo links the plain name, and
# the test binary then loads the SONAME.
soname="$(objdump -p "$2" | awk '$1 == "SONAME" { print $2 }')"
if [[ -z "$soname" ]]; then
  echo "go_test.sh: $2 has no SONAME" >&2
  exit 1
fi
ln -sf libtessera.so "$tmp/lib/$soname"
# A minimal tessera.pc for this prefix (an installed one comes from tools/install.sh).
mkdir -p "$tmp/lib/pkgconfig"
printf '%s\n' "prefix=$tmp" "Name: Tessera" "Description: Tessera C API (test prefix)" \
  "Version: 0" 'Cflags: -I${prefix}/include' 'Libs: -L${prefix}/lib -ltessera' \
  >"$tmp/lib/pkgconfig/tessera.pc"
shift 2
for f in "$@"; do
  rel="${f##*bindings/go/tessera/}"
  if [[ "$rel" == "$f" ]]; then
    echo "go_test.sh: $f is not under bindings/go/tessera/" >&2
    exit 2
  fi
  mkdir -p "$src/$(dirname "$rel")"
  cp "$f" "$src/$rel"
done

export HOME="$tmp/home" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOTMPDIR="$tmp"
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on CGO_ENABLED=1
export PKG_CONFIG_PATH="$tmp/lib/pkgconfig" CGO_LDFLAGS="-Wl,-rpath,$tmp/lib"
export PATH="/usr/lib/go/bin:/usr/bin:/bin:$PATH"
mkdir -p "$HOME"
cd "$src"
# Vet everything: the hand-written packages fully; SWIG's generated capi without the
# unsafeptr check, which its uintptr-to-pointer conversions trip. Then gofmt the
# hand-written files (the doc-comment check is TestEveryExportedNameHasADocComment).
# shellcheck disable=SC2046  # one argument per package and file, split on purpose
go vet $(go list ./... | grep -v /internal/capi)
go vet -unsafeptr=false ./internal/capi
# shellcheck disable=SC2046
unformatted="$(gofmt -l $(find . -name '*.go' -not -path './internal/capi/*'))"
if [[ -n "$unformatted" ]]; then
  echo "go_test.sh: not gofmt-formatted: $unformatted" >&2
  exit 1
fi
if [[ "$mode" == "test" ]]; then
  exec go test -count=1 -v ./...
fi
if [[ "$mode" == "program" ]]; then
  go build -o "$tmp/worldcheck" ./internal/cmd/worldcheck
  # A module outside, as a user's: it builds against the module path through a
  # replace directive, and Go refuses its import of internal/capi.
  consumer="$tmp/consumer"
  mkdir -p "$consumer/app" "$consumer/raw"
  printf '%s\n' "module example.com/consumer" "" "go 1.19" "" \
    "require github.com/tessera-runtime/tessera/bindings/go/tessera v0.0.0" "" \
    "replace github.com/tessera-runtime/tessera/bindings/go/tessera => $src" >"$consumer/go.mod"
  printf '%s\n' "package main" "" 'import "github.com/tessera-runtime/tessera/bindings/go/tessera"' \
    "" "func main() { _, _ = tessera.ParsePlacement(\"cpu:[0]\") }" >"$consumer/app/main.go"
  printf '%s\n' "package raw" "" \
    'import _ "github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"' \
    >"$consumer/raw/raw.go"
  (cd "$consumer" && go build -o /dev/null ./app)
  if out="$(cd "$consumer" && go build ./raw 2>&1)" || [[ "$out" != *"use of internal package"* ]]; then
    echo "go_test.sh: a module outside could import internal/capi: $out" >&2
    exit 1
  fi
  exec "$launcher" "$np" "$tmp/worldcheck" -np="$np"
fi
go test -c -o "$tmp/tessera.test" .
exec "$launcher" "$np" "$tmp/tessera.test" -test.count=1 -test.v -test.run '^TestMPI' \
  -tessera.np="$np"
