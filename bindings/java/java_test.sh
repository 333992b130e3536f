#!/bin/bash
# Runs a Java binding test: java -cp <tessera.jar>:<test jar> with the JNI
# library's folder on java.library.path.
# Usage: java_test.sh [--mpi N MPIRUN_TEST_SH] TESSERA_JAR TEST_JAR LIBTESSERA_JNI_SO
#                     [MAIN_CLASS]
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
jni_dir="$(cd "$(dirname "$3")" && pwd)"
main_class="${4:-org.tessera.TesseraTest}"
export HOME="${TEST_TMPDIR:-$(mktemp -d)}"
java_bin=/usr/bin/java
[[ -x "$java_bin" ]] || java_bin="$(command -v java)"
exec ${launcher[@]+"${launcher[@]}"} "$java_bin" -XX:-UsePerfData -Xshare:auto \
  -Djava.library.path="$jni_dir" -cp "$jar:$test_jar" "$main_class" \
  ${main_args[@]+"${main_args[@]}"}
