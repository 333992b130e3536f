#!/bin/bash
# Runs a Java binding test: java -cp <tessera.jar>:<test jar> with the JNI
# library's folder on java.library.path.
# Usage: java_test.sh TESSERA_JAR TEST_JAR LIBTESSERA_JNI_SO [MAIN_CLASS]
# (MAIN_CLASS defaults to org.tessera.TesseraTest.)
set -euo pipefail
jar="$1"
test_jar="$2"
jni_dir="$(cd "$(dirname "$3")" && pwd)"
main_class="${4:-org.tessera.TesseraTest}"
export HOME="${TEST_TMPDIR:-$(mktemp -d)}"
java_bin=/usr/bin/java
[[ -x "$java_bin" ]] || java_bin="$(command -v java)"
exec "$java_bin" -XX:-UsePerfData -Xshare:auto -Djava.library.path="$jni_dir" \
  -cp "$jar:$test_jar" "$main_class"
