#!/usr/bin/env bash
# Uses the Go module the way a Go user outside this repository would: Tessera installed
# into a temporary prefix (tools/install.sh, from the files Bazel built), a copy of the
# module (bindings/go/tessera, its SWIG output checked in), and a new module in a
# temporary directory (go_consumer/: go.mod with a replace to the copy, main.go). With
# PKG_CONFIG_PATH at the prefix (`#cgo pkg-config: tessera`), and nothing of Bazel's or
# of the source tree on its include, library or module paths, `go build` makes the
# program (SWIG does not run: the module carries its output); tools/mpirun.sh runs it
# on 1 and 3 ranks; every rank must exit 0 and the output equal the lines derived here.
set -euo pipefail
src="$TEST_SRCDIR/$TEST_WORKSPACE"
mpirun_sh="$src/tools/mpirun.sh"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/go_consumer.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# 1. Install.
prefix="$tmp/prefix"
"$src/tools/install.sh" --prefix "$prefix" --prebuilt "$src" >/dev/null

# 2. The module (a copy: what `go mod download` or a checkout would give) and the program.
module_path="github.com/tessera-runtime/tessera/bindings/go/tessera"
(cd "$src/bindings/go/tessera" && find -L . -type f) | while read -r f; do
  mkdir -p "$tmp/tessera-go/$(dirname "$f")"
  cp -L "$src/bindings/go/tessera/$f" "$tmp/tessera-go/$f"
done
grep -qx "module $module_path" "$tmp/tessera-go/go.mod" || fail "the module is not $module_path"
[ -f "$tmp/tessera-go/internal/capi/tessera_wrap.c" ] || fail "no checked-in SWIG output in the module"
mkdir "$tmp/app"
cp -L "$src/tests/packaging/go_consumer/go.mod" "$src/tests/packaging/go_consumer/main.go" "$tmp/app/"

# 3. go build, with the installed prefix only (no CGO_CFLAGS, no -I/-L of this tree).
(
  cd "$tmp/app"
  unset CGO_CFLAGS CGO_CPPFLAGS
  export HOME="$tmp/home" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOTMPDIR="$tmp"
  export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on CGO_ENABLED=1
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  export CGO_LDFLAGS="-Wl,-rpath,$(pkg-config --variable=libdir tessera)"
  export PATH="/usr/lib/go/bin:/usr/bin:/bin"
  mkdir -p "$HOME"
  go build -o consumer .
) || fail "go build against $prefix failed"
echo "ok: go build against the installed prefix ($((SECONDS - start)) s so far)"
lib="$(ldd "$tmp/app/consumer" | awk '$1 ~ /^libtessera\.so/ { print $3 }')"
[ "$lib" = "$prefix/lib/$(basename "$lib")" ] || fail "consumer loads libtessera from '$lib', not $prefix/lib"

# 4. Run it; the expected lines come from the definitions in main.go's comment.
expected() {
  awk -v np="$1" 'BEGIN {
    for (r = 0; r < np; r++)
      printf "rank %d of %d: c [7 2], local [%d 2]\n", r, np, int(7 / np) + (r < 7 % np)
    printf "c ="
    total = 0
    for (i = 0; i < 7; i++) for (k = 0; k < 2; k++) {
      s = 0; for (j = 0; j < 3; j++) s += (i + j) * (2 * j + k + 1)
      printf " %d", s; total += s
    }
    printf "\nsum(c) = %d\nsum(rank + 1) = %d\n", total, np * (np + 1) / 2
  }' | sort
}
for np in 1 3; do
  got="$(cd "$tmp/app" && env -u LD_LIBRARY_PATH "$mpirun_sh" -np "$np" ./consumer | sort)" ||
    fail "consumer -np $np exited with status $?"
  want="$(expected "$np")"
  [ "$got" = "$want" ] || fail "consumer -np $np: got
$got
want
$want"
  echo "ok: consumer -np $np (exit 0, output as derived)"
done
echo "go_consumer_test: $((SECONDS - start)) s"
