#!/bin/bash
# Runs the load generator's Go tests (bench/serve/loadgen: go vet, gofmt, go test)
# in a copy of the module under $TEST_TMPDIR. Standard library only, no network, no
# MPI: the tests run loadgen against fake services (httptest) on the loopback.
# Usage: loadgen_test.sh MODULE_FILE...   (each path ends in bench/serve/loadgen/<file>)
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
src="$tmp/loadgen"
mkdir -p "$src"
for f in "$@"; do
  if [[ "$f" != */bench/serve/loadgen/* && "$f" != bench/serve/loadgen/* ]]; then
    echo "loadgen_test.sh: $f is not under bench/serve/loadgen/" >&2
    exit 2
  fi
  cp "$f" "$src/$(basename "$f")"
done
export HOME="$tmp/home" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOTMPDIR="$tmp"
# CGO_ENABLED stays 1 although loadgen has no cgo: the Go release's precompiled
# standard library (net, net/http) is then used as is; with 0 it is rebuilt into the
# empty cache, which takes ~40 s on a loaded 2-core machine instead of ~15.
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on CGO_ENABLED=1
export PATH="/usr/local/go/bin:/usr/lib/go/bin:/usr/bin:/bin:$PATH"
mkdir -p "$HOME"
cd "$src"
go vet .
unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
  echo "loadgen_test.sh: not gofmt-formatted: $unformatted" >&2
  exit 1
fi
exec go test -count=1 -v .
