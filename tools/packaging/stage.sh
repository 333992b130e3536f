#!/usr/bin/env bash
# Lays out an installed Tessera (the tree docs/packaging.md describes) from a source
# tree and already built files; tools/install.sh and tools/package.sh build, then call
# this, and so does the consumer test (tests/packaging), on Bazel's runfiles.
#
# Usage: stage.sh --srcdir DIR --bindir DIR --prefix PREFIX --libdir LIBDIR
#                 [--destdir DIR] [--cuda]
#   --srcdir   the source tree (capi/include/tessera/*.h, docs, examples, templates)
#   --bindir   where capi/libtessera.so and tools/tessera_cli/tessera were built
#   --prefix   the absolute prefix the installed files name (tessera.pc's prefix)
#   --libdir   the library directory relative to the prefix: lib, lib/x86_64-linux-gnu
#   --destdir  a root the files are written under (DESTDIR; default: none, /)
#   --cuda     the library was built with --config=cuda (pc Description, CMake variant)
# The version is read from capi/include/tessera/version.h, the SONAME from the library.
set -euo pipefail

usage() {
  sed -n 's/^# \{0,1\}//; 6,13p' "$0" >&2
  exit 2
}

srcdir="" bindir="" prefix="" libdir="" destdir="" cuda=0
while [ $# -gt 0 ]; do
  case "$1" in
    --srcdir | --bindir | --prefix | --libdir | --destdir)
      [ $# -ge 2 ] || usage
      declare "${1#--}=$2"
      shift 2
      ;;
    --cuda) cuda=1 && shift ;;
    *) echo "stage.sh: unknown argument '$1'" >&2 && usage ;;
  esac
done
[[ -n "$srcdir" && -n "$bindir" && -n "$prefix" && -n "$libdir" ]] || usage
case "$prefix" in /*) ;; *) echo "stage.sh: --prefix '$prefix' is not absolute" >&2 && exit 2 ;; esac
case "$libdir" in /* | *..*) echo "stage.sh: --libdir '$libdir' must be relative" >&2 && exit 2 ;; esac
prefix="${prefix%/}"

die() {
  echo "stage.sh: $*" >&2
  exit 1
}

# The version, from the one place it is written.
version_h="$srcdir/capi/include/tessera/version.h"
version_part() {
  sed -n "s/^#define TESS_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$version_h"
}
major=$(version_part MAJOR)
minor=$(version_part MINOR)
patch=$(version_part PATCH)
[[ -n "$major" && -n "$minor" && -n "$patch" ]] ||
  die "no '#define TESS_VERSION_MAJOR/MINOR/PATCH <n>' in $version_h"
version="$major.$minor.$patch"

library="$bindir/capi/libtessera.so"
cli="$bindir/tools/tessera_cli/tessera"
[ -f "$library" ] || die "no library at $library (build //capi:libtessera.so)"
[ -f "$cli" ] || die "no CLI at $cli (build //tools/tessera_cli:tessera)"
soname=$(objdump -p "$library" | awk '$1 == "SONAME" { print $2 }')
case "$soname" in
  libtessera.so.*) ;;
  *) die "$library has SONAME '$soname', not libtessera.so.<version>" ;;
esac
case "$version." in
  "${soname#libtessera.so.}".*) ;;
  *) die "SONAME $soname does not match version $version from $version_h" ;;
esac

# Link flags for static linking (pkg-config --static), derived from what the library
# needs: Open MPI through its own pkg-config module, the rest as -l (with -L for a
# directory outside the system's, such as /usr/local/cuda/lib64).
requires_private=""
libs_private=""
while read -r needed path; do
  case "$needed" in
    libc.so.* | ld-linux* | libgcc_s.so.*) continue ;;
    libmpi.so.*)
      requires_private="ompi-c"
      continue
      ;;
  esac
  case "$path" in
    /lib/* | /usr/lib/* | "") ;;
    *) libs_private="$libs_private -L$(dirname "$path")" ;;
  esac
  name=${needed#lib}
  libs_private="$libs_private -l${name%%.so*}"
done < <(ldd "$library" | awk 'NR == FNR { need[$0] = 1; next } ($1 in need) { print $1, $3 }' \
  <(objdump -p "$library" | awk '$1 == "NEEDED" { print $2 }') -)
libs_private="$(tr ' ' '\n' <<<"$libs_private" | awk 'NF && !seen[$0]++' | paste -sd' ' -)"

variant="cpu" variant_text=""
if [ "$cuda" = 1 ]; then variant="cuda" variant_text=" (CUDA and NCCL)"; fi
cmake_to_prefix=$(awk -F/ '{ s = "../.."; for (i = 1; i <= NF; i++) s = s "/.."; print s }' <<<"$libdir")

root="$destdir$prefix"
lib="$root/$libdir"
install -d "$root/include/tessera" "$lib/pkgconfig" "$lib/cmake/Tessera" "$root/bin" \
  "$root/share/doc/tessera/examples/c"
install -m 644 "$srcdir"/capi/include/tessera/*.h "$root/include/tessera/"
install -m 644 "$library" "$lib/libtessera.so.$version"
strip --strip-unneeded "$lib/libtessera.so.$version"
if [ "$soname" != "libtessera.so.$version" ]; then
  ln -sfn "libtessera.so.$version" "$lib/$soname"
fi
ln -sfn "$soname" "$lib/libtessera.so"
install -m 755 "$cli" "$root/bin/tessera"
strip --strip-unneeded "$root/bin/tessera"

fill() {  # template output: replaces every @NAME@
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@LIBDIR@|$libdir|g" -e "s|@VERSION@|$version|g" \
    -e "s|@MAJOR@|$major|g" -e "s|@MINOR@|$minor|g" -e "s|@SONAME@|$soname|g" \
    -e "s|@REQUIRES_PRIVATE@|$requires_private|g" -e "s|@LIBS_PRIVATE@|$libs_private|g" \
    -e "s|@VARIANT@|$variant_text|g" -e "s|@VARIANT_NAME@|$variant|g" \
    -e "s|@CMAKE_TO_PREFIX@|$cmake_to_prefix|g" "$srcdir/tools/packaging/$1" >"$2"
  if grep -n '@[A-Z_]*@' "$2" >&2; then die "$2: unreplaced placeholders"; fi
  chmod 644 "$2"
}
fill tessera.pc.in "$lib/pkgconfig/tessera.pc"
fill TesseraConfig.cmake.in "$lib/cmake/Tessera/TesseraConfig.cmake"
fill TesseraConfigVersion.cmake.in "$lib/cmake/Tessera/TesseraConfigVersion.cmake"

install -m 644 "$srcdir/README.md" "$srcdir/CHANGELOG.md" "$srcdir/docs/c-api.md" \
  "$srcdir/docs/architecture.md" "$srcdir/docs/gpu.md" "$srcdir/docs/packaging.md" \
  "$root/share/doc/tessera/"
install -m 644 "$srcdir"/examples/c/*.c "$root/share/doc/tessera/examples/c/"
echo "stage.sh: Tessera $version ($variant, SONAME $soname) in $root"
