#!/bin/bash
# Starts the Java example service (Main.java): java -cp tessera.jar:service.jar, the JNI
# library from Bazel's runfiles (it finds libtessera beside it through its RUNPATH).
# Usage: service --port P [flags]; under mpirun: tools/mpirun.sh -np N service --port P.
set -euo pipefail
self="${BASH_SOURCE[0]}"
if [[ -d "$self.runfiles/tessera" ]]; then
  root="$self.runfiles/tessera"
elif [[ -n "${RUNFILES_DIR:-}" && -d "$RUNFILES_DIR/tessera" ]]; then
  root="$RUNFILES_DIR/tessera"
elif [[ -n "${TEST_SRCDIR:-}" && -d "$TEST_SRCDIR/tessera" ]]; then
  root="$TEST_SRCDIR/tessera"
else
  echo "service: cannot find the runfiles of $self" >&2
  exit 2
fi
java_bin=/usr/bin/java
[[ -x "$java_bin" ]] || java_bin="$(command -v java)"
exec "$java_bin" -XX:-UsePerfData -Xshare:auto \
  -Dtessera.library.path="$root/bindings/java" \
  -cp "$root/bindings/java/tessera.jar:$root/examples/java/service/service.jar" \
  org.tessera.examples.service.Main "$@"
