#!/usr/bin/env bash
# Builds Tessera's Debian packages with dpkg-deb, into OUTDIR:
#   libtessera<soversion>  the library, libtessera.so.<soversion> (libtessera0.2 for 0.2.x)
#   libtessera-dev         headers, the dev link, pkg-config and CMake files, the
#                          tessera CLI and the docs
# Install both with dpkg -i (apt-get install -f for missing dependencies), then
# pkg-config --cflags --libs tessera. The layout: docs/packaging.md.
#
# Usage: tools/package.sh [--cuda] [--prebuilt DIR] OUTDIR
#   --cuda          the CUDA variant (--config=cuda; version <version>+cuda)
#   --prebuilt DIR  skip the build: DIR holds capi/libtessera.so and
#                   tools/tessera_cli/tessera (a bazel-bin, or a test's runfiles)
set -euo pipefail

usage() {
  sed -n '9,12s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

cuda=() prebuilt="" outdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda) cuda=(--cuda) && shift ;;
    --prebuilt)
      [[ $# -ge 2 && -n "$2" ]] || usage
      prebuilt="$2" && shift 2
      ;;
    -h | --help) usage ;;
    -*) echo "package.sh: unknown option '$1'" >&2 && usage ;;
    *)
      [ -z "$outdir" ] || { echo "package.sh: more than one OUTDIR ('$outdir', '$1')" >&2 && usage; }
      outdir="$1"
      shift
      ;;
  esac
done
[ -n "$outdir" ] || { echo "package.sh: OUTDIR is required" >&2 && usage; }
for tool in dpkg-deb dpkg objdump; do
  command -v "$tool" >/dev/null || { echo "package.sh: needs $tool (Debian's dpkg, binutils)" >&2 && exit 1; }
done
tree="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
bindir="${prebuilt:-$("$tree/tools/packaging/build.sh" "${cuda[@]}")}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
arch="$(dpkg --print-architecture)"
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
"$tree/tools/packaging/stage.sh" --srcdir "$tree" --bindir "$bindir" --prefix /usr \
  --libdir "lib/$multiarch" --destdir "$work/stage" "${cuda[@]}" >/dev/null
stage="$work/stage/usr"

version="$(sed -n 's/^Version: //p' "$stage/lib/$multiarch/pkgconfig/tessera.pc")"
soname="$(readlink "$stage/lib/$multiarch/libtessera.so")"
soversion="${soname#libtessera.so.}"
lib_pkg="libtessera$soversion"
deb_version="$version"
description="global-tensor runtime (C API)"
if [ ${#cuda[@]} -gt 0 ]; then
  deb_version="$version+cuda"
  description="global-tensor runtime (C API, CUDA and NCCL)"
fi
maintainer="Tessera developers <tessera@localhost>"

# The Debian packages whose libraries FILE... link: dpkg-shlibdeps where it works, else
# the packages owning what ldd resolves (without version constraints).
shlib_depends() {
  local dir="$work/shlibdeps"
  mkdir -p "$dir/debian"
  printf 'Source: tessera\n\nPackage: %s\nArchitecture: any\n' "$lib_pkg" >"$dir/debian/control"
  local flags=()
  if [ ${#cuda[@]} -gt 0 ]; then flags+=(--ignore-missing-info); fi
  local out
  if out="$(cd "$dir" && dpkg-shlibdeps "${flags[@]}" -O "$@" 2>"$dir/err")"; then
    sed -n 's/^shlibs:Depends=//p' <<<"$out"
    return
  fi
  echo "package.sh: dpkg-shlibdeps failed ($(head -n 1 "$dir/err")); deriving Depends from dpkg -S" >&2
  ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    while read -r path; do
      dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || true
    done | cut -d: -f1 | sort -u | paste -sd, - | sed 's/,/, /g'
}

# control ROOT PACKAGE SECTION DEPENDS SUMMARY DESCRIPTION: writes ROOT/DEBIAN/control.
control() {
  local root="$1"
  mkdir -p "$root/DEBIAN"
  cat >"$root/DEBIAN/control" <<CONTROL
Package: $2
Version: $deb_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Section: $3
Priority: optional
Depends: $4
Description: $5
 Tessera lets a program see a cluster of CPUs or GPUs as one device: tensors
 have a logical shape, a placement and an SBP layout; Tessera infers each op's
 layout, moves data with MPI (or NCCL) collectives and runs local kernels.
 .
$(fold -s -w 72 <<<"$6" | sed 's/ *$//; s/^/ /')
CONTROL
}

# libtessera<soversion>: the library and its SONAME link.
lib_root="$work/$lib_pkg"
mkdir -p "$lib_root/usr/lib/$multiarch" "$lib_root/usr/share/doc/$lib_pkg"
cp -a "$stage/lib/$multiarch/libtessera.so.$version" "$lib_root/usr/lib/$multiarch/"
if [ "$soname" != "libtessera.so.$version" ]; then
  cp -a "$stage/lib/$multiarch/$soname" "$lib_root/usr/lib/$multiarch/"
fi
cp "$stage/share/doc/tessera/README.md" "$stage/share/doc/tessera/CHANGELOG.md" \
  "$lib_root/usr/share/doc/$lib_pkg/"
control "$lib_root" "$lib_pkg" libs \
  "$(shlib_depends "$lib_root/usr/lib/$multiarch/libtessera.so.$version")" \
  "Tessera $description" "This package holds the shared library, $soname."
# What packages built against this one depend on, and ldconfig after (un)installing.
echo "libtessera $soversion $lib_pkg (>= $deb_version)" >"$lib_root/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$lib_root/DEBIAN/triggers"

# libtessera-dev: headers, the dev link, pkg-config, CMake, the CLI and the docs.
dev_root="$work/libtessera-dev"
mkdir -p "$dev_root/usr/lib/$multiarch" "$dev_root/usr/share/doc"
cp -a "$stage/include" "$stage/bin" "$dev_root/usr/"
cp -a "$stage/lib/$multiarch/libtessera.so" "$stage/lib/$multiarch/pkgconfig" \
  "$stage/lib/$multiarch/cmake" "$dev_root/usr/lib/$multiarch/"
cp -a "$stage/share/doc/tessera" "$dev_root/usr/share/doc/libtessera-dev"
control "$dev_root" libtessera-dev libdevel \
  "$lib_pkg (= $deb_version), libopenmpi-dev, $(shlib_depends "$dev_root/usr/bin/tessera")" \
  "Tessera $description - development files" \
  "This package holds the headers, pkg-config and CMake files, the tessera CLI (tessera explain shows how an op's layout is chosen) and the documentation."

for root in "$lib_root" "$dev_root"; do
  dpkg-deb --root-owner-group --build "$root" "$outdir" >&2
done
ls "$outdir"/*_"$deb_version"_"$arch".deb
