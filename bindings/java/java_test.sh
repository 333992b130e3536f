#!/bin/bash
# Runs a Java binding test: java -cp <tessera.jar>:<test jar> with
# -Dtessera.library.path=DIR, where DIR holds copies of the JNI library and of
# libtessera under the name the JNI library's DT_NEEDED asks for (its SONAME once it
# has one: Bazel's runfiles only have libtessera.so), as the jar lays them out; the JNI
# library finds libtessera through its RUNPATH $ORIGIN.
# Usage: java_test.sh [--mpi N MPIRUN_TEST_SH] TESSERA_JAR TEST_JAR LIBTESSERA_JNI_SO
#                     LIBTESSERA_SO [MAIN_CLASS]
# (MAIN_CLASS defaults to org.tessera.TesseraTest.) With --mpi, MPIRUN_TEST_SH starts
# N JVMs, one per rank, and the main class gets N as its argument (the world size it
# should see).
set -euo pipefail
launcher=()
main_args=()
if [[ "${1:-}" == "--mpi" ]]; then
  launcher=("$3" "$2")
  main_args=("$2")
  shift 3
fi
jar="$1"
test_jar="$2"
jni_so="$3"
libtessera_so="$4"
main_class="${5:-org.tessera.TesseraTest}"
export HOME="${TEST_TMPDIR:-$(mktemp -d)}"
jni_dir="$HOME/native"
mkdir -p "$jni_dir"
needed="$(readelf -d "$jni_so" | sed -n 's/.*(NEEDED).*\[\(libtessera[^]]*\)\]/\1/p')"
cp "$jni_so" "$jni_dir/libtessera_jni.so"
cp "$libtessera_so" "$jni_dir/${needed:-libtessera.so}"
java_bin=/usr/bin/java
[[ -x "$java_bin" ]] || java_bin="$(command -v java)"
exec ${launcher[@]+"${launcher[@]}"} "$java_bin" -XX:-UsePerfData -Xshare:auto \
  -Dtessera.library.path="$jni_dir" -cp "$jar:$test_jar" "$main_class" \
  ${main_args[@]+"${main_args[@]}"}
