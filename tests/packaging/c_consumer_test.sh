#!/usr/bin/env bash
# Uses Tessera the way a C user outside this repository would, from the files Bazel
# built (passed to tools/install.sh and tools/package.sh as --prebuilt):
#   1. install into a temporary prefix; compile every examples/c/*.c with
#      cc $(pkg-config --cflags --libs tessera) and run them under mpirun (1 and 3 ranks);
#   2. a CMake project with find_package(Tessera REQUIRED) and Tessera::tessera, run the
#      same way, its output checked against numbers computed here; the version file
#      accepts this version and refuses incompatible ones;
#   3. the Debian packages: names, Depends and contents; unpacked (dpkg -x) into a
#      throwaway root, pkg-config (with PKG_CONFIG_SYSROOT_DIR) builds against them.
# Expected outputs are derived here (or by tests/examples' oracle), never copied.
set -euo pipefail
src="$TEST_SRCDIR/$TEST_WORKSPACE"
mpirun_sh="$src/tools/mpirun.sh"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/consumer.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
version_part() {
  sed -n "s/^#define TESS_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$src/capi/include/tessera/version.h"
}
major=$(version_part MAJOR) minor=$(version_part MINOR) patch=$(version_part PATCH)
version="$major.$minor.$patch"
if [ "$major" = 0 ]; then soversion="0.$minor"; else soversion="$major"; fi

# 1. Install, then pkg-config and the examples.
prefix="$tmp/prefix"
"$src/tools/install.sh" --prefix "$prefix" --prebuilt "$src"
lib="$prefix/lib"
[ -f "$lib/libtessera.so.$version" ] || fail "no $lib/libtessera.so.$version"
[ "$(readlink "$lib/libtessera.so")" = "libtessera.so.$soversion" ] ||
  fail "libtessera.so -> $(readlink "$lib/libtessera.so"), want libtessera.so.$soversion"
[ "$(readlink -f "$lib/libtessera.so")" = "$(readlink -f "$lib/libtessera.so.$version")" ] ||
  fail "libtessera.so does not lead to libtessera.so.$version"
soname=$(objdump -p "$lib/libtessera.so.$version" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = "libtessera.so.$soversion" ] || fail "SONAME '$soname', want libtessera.so.$soversion"
for h in "$src"/capi/include/tessera/*.h; do
  cmp -s "$h" "$prefix/include/tessera/$(basename "$h")" || fail "include/tessera/$(basename "$h") differs"
done
"$prefix/bin/tessera" ops >/dev/null || fail "bin/tessera ops failed"
[ -f "$prefix/share/doc/tessera/c-api.md" ] || fail "no share/doc/tessera/c-api.md"

export PKG_CONFIG_PATH="$lib/pkgconfig"
[ "$(pkg-config --modversion tessera)" = "$version" ] || fail "pkg-config --modversion: $(pkg-config --modversion tessera)"
echo "pkg-config --cflags --libs tessera: $(pkg-config --cflags --libs tessera)"
[ "$(pkg-config --libs tessera | xargs)" = "-L$lib -ltessera" ] || fail "pkg-config --libs: $(pkg-config --libs tessera)"
pkg-config --static --libs tessera | grep -q -- '-lmpi' || fail "pkg-config --static --libs lacks MPI"

mkdir examples
for c in "$src"/examples/c/*.c; do
  name="$(basename "$c" .c)"
  # shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
  cc -std=c99 -Wall -Wextra -pedantic -Werror -o "examples/$name" "$c" \
    $(pkg-config --cflags --libs tessera) -Wl,-rpath,"$(pkg-config --variable=libdir tessera)" -lm
  echo "built examples/$name"
done
[[ -x examples/layout_example && -x examples/plan_example ]] || fail "examples/c changed: update this test"

# The README's main job: the training example compiled exactly as the README does
# (its dataset is compiled in), then tests/examples' oracle (1 and 3 ranks).
# shellcheck disable=SC2046
cc -o examples/train "$src/examples/c/train/train.c" $(pkg-config --cflags --libs tessera) \
  -Wl,-rpath,"$(pkg-config --variable=libdir tessera)" -lm
bash "$src/tests/examples/train_example_test.sh" "$mpirun_sh" examples/train

# layout_example: tests/examples' oracle (1 to 5 ranks).
bash "$src/tests/examples/layout_example_test.sh" "$mpirun_sh" examples/layout_example

# plan_example: the plan's output equals the eager model's, and its runs allocate
# nothing; every rank reports.
for np in 1 3; do
  out="$("$mpirun_sh" -np "$np" examples/plan_example)"
  [ "$(grep -c '^run [0-9]*: max |plan - eager| = ' <<<"$out")" = 3 ] || fail "plan_example -np $np: $out"
  grep '^run ' <<<"$out" | awk '{ if ($NF + 0 > 1e-5) bad = 1 } END { exit bad }' ||
    fail "plan_example -np $np: plan and eager differ: $out"
  for ((r = 0; r < np; r++)); do
    grep -q "^rank $r: .*allocator calls in the last run: 0\$" <<<"$out" ||
      fail "plan_example -np $np: rank $r's line missing or allocating: $out"
  done
  echo "ok: plan_example -np $np"
done

# 2. CMake.
# What consumer.c must print with NP ranks: c = a @ b, each rank's share of 7 rows.
consumer_expected() {
  awk -v np="$1" -v ver="$version" 'BEGIN {
    printf "header %s library %s number %d\n", ver, ver, '"$major"' * 10000 + '"$minor"' * 100 + '"$patch"'
    printf "c ="
    for (i = 0; i < 7; i++) for (k = 0; k < 2; k++) {
      s = 0; for (j = 0; j < 3; j++) s += (i + j) * (2 * j + k + 1); printf " %d", s
    }
    printf "\n"
    for (r = 0; r < np; r++) printf "rank %d of %d: %d rows\n", r, np, int(7 / np) + (r < 7 % np)
  }' | sort
}
cp -r "$src/tests/packaging/cmake_consumer" cmake_src
configure() {  # build dir, then cmake arguments
  local dir="$1"
  shift
  cmake -S cmake_src -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release "$@"
}
configure cmake_build >/dev/null
cmake --build cmake_build >/dev/null
for np in 1 3; do
  got="$("$mpirun_sh" -np "$np" cmake_build/consumer | sort)"
  want="$(consumer_expected "$np")"
  [ "$got" = "$want" ] || fail "CMake consumer -np $np: got
$got
want
$want"
  echo "ok: CMake consumer -np $np"
done
configure cmake_exact -DTESSERA_VERSION="$version" >/dev/null || fail "find_package(Tessera $version) failed"
configure cmake_minor -DTESSERA_VERSION="$major.$minor" >/dev/null || fail "find_package(Tessera $major.$minor) failed"
incompatible=("$major.$((minor + 1)).0" "$((major + 1)).0.0")
if [ "$major" = 0 ] && [ "$minor" -gt 0 ]; then incompatible+=("0.$((minor - 1)).0"); fi
for v in "${incompatible[@]}"; do
  if configure "cmake_$v" -DTESSERA_VERSION="$v" >/dev/null 2>&1; then
    fail "find_package(Tessera $v) accepted Tessera $version"
  fi
done
echo "ok: find_package(Tessera) accepts $version and $major.$minor, refuses ${incompatible[*]}"

# 3. The Debian packages.
"$src/tools/package.sh" --prebuilt "$src" debs
arch="$(dpkg --print-architecture)"
lib_deb="debs/libtessera${soversion}_${version}_$arch.deb"
dev_deb="debs/libtessera-dev_${version}_$arch.deb"
[[ -f "$lib_deb" && -f "$dev_deb" ]] || fail "package.sh made $(ls debs), want $lib_deb and $dev_deb"
depends="$(dpkg-deb -f "$lib_deb" Depends)"
echo "$lib_deb Depends: $depends"
for p in libopenmpi libopenblas libstdc++6 libc6; do
  grep -q "\b$p" <<<"$depends" || fail "$lib_deb does not depend on $p"
done
dev_depends="$(dpkg-deb -f "$dev_deb" Depends)"
echo "$dev_deb Depends: $dev_depends"
grep -q "libtessera$soversion (= $version)" <<<"$dev_depends" || fail "$dev_deb Depends lacks libtessera$soversion (= $version)"
grep -q "libopenmpi-dev" <<<"$dev_depends" || fail "$dev_deb Depends lacks libopenmpi-dev"
dpkg-deb -c "$lib_deb" | grep -q "libtessera.so.$soversion -> libtessera.so.$version" ||
  fail "$lib_deb lacks the SONAME link"
if dpkg-deb -c "$lib_deb" | grep -E '/(include|bin)/|\.pc$|cmake'; then fail "$lib_deb holds development files"; fi

root="$tmp/debroot"
dpkg -x "$lib_deb" "$root"
dpkg -x "$dev_deb" "$root"
multiarch="$(gcc -print-multiarch)"
export PKG_CONFIG_PATH="$root/usr/lib/$multiarch/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
[ "$(pkg-config --libs tessera | xargs)" = "-L$root/usr/lib/$multiarch -ltessera" ] ||
  fail "pkg-config --libs in the .deb root: $(pkg-config --libs tessera)"
# shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
cc -std=c99 -o deb_layout_example "$src/examples/c/layout_example.c" $(pkg-config --cflags --libs tessera)
# The same output as the prefix's example, which the oracle checked above.
want="$(LD_LIBRARY_PATH="$root/usr/lib/$multiarch" "$mpirun_sh" -np 3 examples/layout_example | sort)"
got="$(LD_LIBRARY_PATH="$root/usr/lib/$multiarch" "$mpirun_sh" -np 3 ./deb_layout_example | sort)"
[[ -n "$got" && "$got" == "$want" ]] || fail "layout_example from the .debs: $got"
echo "ok: .deb contents, Depends, pkg-config build from the unpacked packages"
echo "PASS"
