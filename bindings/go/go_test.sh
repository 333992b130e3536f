#!/bin/bash
# Runs the Go binding's tests: lays the package out as a module under $TEST_TMPDIR
# (tessera/ + internal/capi/ from SWIG) and runs `go test` with cgo pointed at
# tessera.h and libtessera.so. Standard library only; no network.
# Usage: go_test.sh GO_MOD CAPI_GO CAPI_WRAP_C TESSERA_H LIBTESSERA_SO PACKAGE_GO...
# (PACKAGE_GO: the package's own .go files, tests included.)
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
src="$tmp/src"
mkdir -p "$src/internal/capi" "$tmp/lib" "$tmp/include/tessera"
cp "$1" "$src/go.mod"
cp "$2" "$src/internal/capi/tessera.go"
cp "$3" "$src/internal/capi/tessera_wrap.c"
cp "$4" "$tmp/include/tessera/tessera.h"
cp "$5" "$tmp/lib/libtessera.so"
shift 5
for f in "$@"; do cp "$f" "$src/$(basename "$f")"; done

export HOME="$tmp/home" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOTMPDIR="$tmp"
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on CGO_ENABLED=1
export CGO_CFLAGS="-I$tmp/include" CGO_LDFLAGS="-L$tmp/lib -Wl,-rpath,$tmp/lib"
export PATH="/usr/lib/go/bin:/usr/bin:/bin:$PATH"
mkdir -p "$HOME"
cd "$src"
# Vet the hand-written package; SWIG's generated capi trips the unsafeptr check.
go vet .
go test -count=1 -v ./...
