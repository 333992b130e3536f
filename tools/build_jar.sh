#!/usr/bin/env bash
# Builds the Java distribution with -c opt into OUTDIR (default dist/java):
#   tessera-<version>.jar          org.tessera classes + native/linux-<arch>/ (the JNI
#                                  library and libtessera, extracted on first load)
#   tessera-<version>-sources.jar, tessera-<version>-javadoc.jar, pom.xml
# The version comes from capi/include/tessera/version.h. Users need Java 11+ and Open
# MPI's libmpi on the machine; see docs/java.md.
# Usage: tools/build_jar.sh [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/dist/java}"
cd "$root"
bazel build -c opt //bindings/java:java_dist
tar_file="$(bazel info -c opt bazel-bin 2>/dev/null)/bindings/java/java_dist.tar"
mkdir -p "$out"
tar -xf "$tar_file" -C "$out"
tar -tf "$tar_file" | sed "s|^|$out/|"
