#!/bin/bash
# Fails when the checked-in SWIG output of the Go module (tessera/internal/capi/
# tessera.go and tessera_wrap.c) is stale: copies the module, the SWIG interface
# (bindings/tessera.i, ops_generated.i, go/tessera_go.i) and the public headers into a
# temporary tree at their paths in this repository, deletes the copies of the two
# generated files, runs `go generate ./internal/capi` there (the //go:generate line of
# internal/capi/generate.go, with its relative paths) and compares the result with the
# checked-in files. Without swig it fails: the check cannot be skipped silently.
set -euo pipefail
src="$TEST_SRCDIR/$TEST_WORKSPACE"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/go_generate.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
module="bindings/go/tessera"
generated=(internal/capi/tessera.go internal/capi/tessera_wrap.c)

if ! command -v swig >/dev/null; then
  echo "FAIL: swig is not on PATH ($PATH); go generate needs it (apt-get install swig)" >&2
  exit 1
fi
for f in "$src"/bindings/tessera.i "$src"/bindings/ops_generated.i "$src"/bindings/struct_shims.i "$src"/bindings/go/tessera_go.i \
  "$src"/capi/include/tessera/*.h; do
  f="${f#"$src/"}"
  mkdir -p "$tmp/$(dirname "$f")"
  cp -L "$src/$f" "$tmp/$f"
done
(cd "$src" && find -L "$module" -type f) | while read -r f; do
  mkdir -p "$tmp/$(dirname "$f")"
  cp -L "$src/$f" "$tmp/$f"
done
for f in "${generated[@]}"; do rm "$tmp/$module/$f"; done

export HOME="$tmp/home" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache"
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on
export PATH="/usr/lib/go/bin:$PATH"
mkdir -p "$HOME"
(cd "$tmp/$module" && go generate ./internal/capi)
echo "go generate: $(swig -version | awk '/SWIG Version/ { print $3 }')"
stale=0
for f in "${generated[@]}"; do
  if ! diff -u "$src/$module/$f" "$tmp/$module/$f" >"$tmp/diff" 2>&1; then
    echo "FAIL: $module/$f is stale; regenerate it: (cd $module && go generate ./internal/capi)" >&2
    head -40 "$tmp/diff" >&2
    stale=1
  else
    echo "ok: $module/$f is what go generate makes"
  fi
done
exit "$stale"
