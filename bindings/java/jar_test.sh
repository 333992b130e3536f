#!/bin/bash
# The jar as a user gets it: unpacks :java_dist (tessera-<version>.jar, -sources.jar,
# -javadoc.jar, pom.xml) into a temporary directory outside the source tree and the
# runfiles, checks the names and coordinates against tessera/version.h, compiles
# dist_test/Prog.java with `javac -cp tessera-<version>.jar` and runs it with only the
# jar and `.` on the class path and a clean environment (no LD_LIBRARY_PATH, no
# java.library.path): under tools/mpirun.sh at 3 and 1 ranks (the libraries come from
# the jar, extracted to a private temporary directory that is gone afterwards), then
# with -Dtessera.library.path and java.library.path pointing at unpacked libraries, and
# with a wrong -Dtessera.library.path (a clear UnsatisfiedLinkError).
# Usage: jar_test.sh JAVA_DIST_TAR PROG_JAVA MPIRUN_SH PUBLIC_HEADERS...
set -euo pipefail
here="$PWD"
abs() { case "$1" in /*) echo "$1" ;; *) echo "$here/$1" ;; esac; }
dist_tar="$(abs "$1")" prog="$(abs "$2")" mpirun="$(abs "$3")"
shift 3
version_h=""
for h in "$@"; do
  case "$h" in */tessera/version.h) version_h="$(abs "$h")" ;; esac
done
part() { sed -n "s/^#define TESS_VERSION_$1 \([0-9][0-9]*\)$/\1/p" "$version_h"; }
v="$(part MAJOR).$(part MINOR).$(part PATCH)"

# Open MPI's session directory needs a short path (Bazel's TMPDIR is too deep).
tmp="$(mktemp -d /tmp/tessera-jar-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "jar_test: FAIL: $*" >&2; exit 1; }

mkdir "$tmp/dist" "$tmp/app" "$tmp/jtmp" "$tmp/libs"
tar -xf "$dist_tar" -C "$tmp/dist"
jar="tessera-$v.jar"
for f in "$jar" "tessera-$v-sources.jar" "tessera-$v-javadoc.jar" pom.xml; do
  [[ -f "$tmp/dist/$f" ]] || fail "the distribution lacks $f: $(ls "$tmp/dist")"
done
grep -q "<groupId>org.tessera</groupId>" "$tmp/dist/pom.xml" || fail "pom groupId"
grep -q "<artifactId>tessera</artifactId>" "$tmp/dist/pom.xml" || fail "pom artifactId"
grep -q "<version>$v</version>" "$tmp/dist/pom.xml" || fail "pom version is not $v"
# (Listings go through variables: `unzip | grep -q` fails under pipefail when grep
# stops reading early.)
manifest="$(unzip -p "$tmp/dist/$jar" META-INF/MANIFEST.MF)"
grep -q "^Implementation-Version: $v" <<<"$manifest" || fail "manifest version is not $v"
listing="$(unzip -l "$tmp/dist/$jar")"
native=native/linux-x86_64
for f in org/tessera/Tessera.class org/tessera/TesseraJNI.class "$native/libraries" \
    "$native/libtessera_jni.so" "$native/$(unzip -p "$tmp/dist/$jar" "$native/libraries" | sed -n 1p)"; do
  grep -q " $f\$" <<<"$listing" || fail "$jar lacks $f"
done
sources="$(unzip -l "$tmp/dist/tessera-$v-sources.jar")"
grep -q " org/tessera/TesseraJNI.java$" <<<"$sources" || fail "the sources jar lacks TesseraJNI.java"
javadoc="$(unzip -l "$tmp/dist/tessera-$v-javadoc.jar")"
grep -q " org/tessera/Tessera.html$" <<<"$javadoc" || fail "the javadoc jar lacks Tessera.html"

# A user's program: only the jar.
cp "$tmp/dist/$jar" "$prog" "$tmp/app/"
cd "$tmp/app"
clean=(env -i PATH=/usr/bin:/bin HOME="$tmp" TMPDIR=/tmp OMPI_MCA_btl=self,vader
  OMPI_MCA_mpi_yield_when_idle=1)
"${clean[@]}" javac -cp "$jar" Prog.java

for np in 3 1; do
  out="$tmp/out.$np"
  if ! "${clean[@]}" timeout 120 "$mpirun" -np "$np" java -XX:-UsePerfData \
      -Djava.io.tmpdir="$tmp/jtmp" -cp "$jar:." Prog "$np" >"$out" 2>&1; then
    cat "$out" >&2
    fail "mpirun -np $np java -cp $jar:. Prog exited non-zero"
  fi
  cat "$out"
  [[ "$(grep -c ": ok " "$out")" == "$np" ]] || fail "-np $np: not $np ranks said ok"
  [[ "$(grep -c "native=$tmp/jtmp/tessera-native-[^/]*/libtessera_jni.so" "$out")" == "$np" ]] ||
    fail "-np $np: the libraries were not extracted to java.io.tmpdir"
  [[ -z "$(ls -A "$tmp/jtmp")" ]] || fail "-np $np: left behind: $(ls -A "$tmp/jtmp")"
done

# The overrides: the libraries unpacked into a directory of their own.
(cd "$tmp/libs" && unzip -qj "$tmp/app/$jar" "$native/*")
"${clean[@]}" java -Dtessera.library.path="$tmp/libs" -Djava.io.tmpdir="$tmp/jtmp" \
  -cp "$jar:." Prog 1 >"$tmp/out.prop"
grep -q ": ok .*native=$tmp/libs/libtessera_jni.so$" "$tmp/out.prop" ||
  fail "-Dtessera.library.path was not used: $(cat "$tmp/out.prop")"
"${clean[@]}" java -Djava.library.path="$tmp/libs" -Djava.io.tmpdir="$tmp/jtmp" \
  -cp "$jar:." Prog 1 >"$tmp/out.jlp"
grep -q ": ok .*native=$tmp/libs/libtessera_jni.so$" "$tmp/out.jlp" ||
  fail "java.library.path was not used: $(cat "$tmp/out.jlp")"
if "${clean[@]}" java -Dtessera.library.path="$tmp/nowhere" -cp "$jar:." Prog 1 \
    >"$tmp/out.bad" 2>&1; then
  fail "a wrong -Dtessera.library.path ran"
fi
grep -q "UnsatisfiedLinkError: tessera: -Dtessera.library.path=$tmp/nowhere has no libtessera_jni.so" \
  "$tmp/out.bad" || fail "a wrong -Dtessera.library.path: $(cat "$tmp/out.bad")"
echo "jar_test: ok ($jar: mpirun -np 3 and -np 1, tessera.library.path, java.library.path)"
