#!/usr/bin/env bash
# Every public header compiles alone: for each capi/include/tessera/*.h a one-line
# translation unit including only it, as C99 and as C++17, warnings as errors.
# Fails naming each header that does not (a missing include, a C++-only construct,
# a stray declaration outside its include guard, ...).
#
# Usage: header_test.sh HEADER...   (the headers, as Bazel passes them; the include
# root is the directory above the first header's tessera/ directory)
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "header_test: no headers given" >&2
  exit 2
fi
include_root="$(cd "$(dirname "$1")/.." && pwd)"
CC="${CC:-cc}"
CXX="${CXX:-c++}"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/header_test.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

failed=()
for header in "$@"; do
  name="tessera/$(basename "$header")"
  # The typedef keeps a header of macros alone (common.h) from being an empty,
  # pedantically invalid, translation unit.
  printf '#include "%s"\ntypedef int header_test_tu;\n' "$name" > "$tmp/tu.c"
  cp "$tmp/tu.c" "$tmp/tu.cc"
  # Included twice: the include guard must hold.
  printf '#include "%s"\n#include "%s"\ntypedef int header_test_tu;\n' "$name" "$name" > "$tmp/tu2.c"
  ok=1
  # Public headers use only <stddef.h>, <stdint.h> and other tessera headers.
  bad_includes="$(grep -E '^[[:space:]]*#[[:space:]]*include' "$header" |
    grep -vE '#[[:space:]]*include[[:space:]]*(<std(def|int)\.h>|"tessera/[a-z_]+\.h")' || true)"
  if [ -n "$bad_includes" ]; then
    echo "FAIL: $name includes more than <stddef.h>, <stdint.h> and tessera headers: $bad_includes" >&2
    ok=0
  fi
  if ! "$CC" -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$include_root" "$tmp/tu.c"; then
    echo "FAIL: $name does not compile alone as C99 (cc -std=c99 -Wall -Wextra -pedantic -Werror)" >&2
    ok=0
  fi
  if ! "$CXX" -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$include_root" "$tmp/tu.cc"; then
    echo "FAIL: $name does not compile alone as C++17 (c++ -std=c++17 -Wall -Wextra -pedantic -Werror)" >&2
    ok=0
  fi
  if ! "$CC" -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$include_root" "$tmp/tu2.c"; then
    echo "FAIL: $name cannot be included twice (include guard)" >&2
    ok=0
  fi
  if [ "$ok" -eq 0 ]; then failed+=("$name"); fi
done

if [ "${#failed[@]}" -ne 0 ]; then
  echo "header_test: ${#failed[@]} of $# headers fail: ${failed[*]}" >&2
  exit 1
fi
echo "header_test: all $# headers compile alone (C99 and C++17)"
