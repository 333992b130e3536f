#!/bin/bash
# Checks the javadoc jar (built by :tessera_javadoc, whose doclint must pass) documents
# the public API: the package page and the main classes.
set -euo pipefail
listing="$(unzip -l "$1" 2>/dev/null || jar tf "$1")"
for page in org/tessera/package-summary.html org/tessera/Tessera.html \
    org/tessera/Tensor.html org/tessera/TesseraException.html \
    org/tessera/InvalidArgumentException.html; do
  if ! grep -q "$page" <<<"$listing"; then
    echo "javadoc jar lacks $page" >&2
    exit 1
  fi
done
if grep -q "org/tessera/TesseraJNI.html\|org/tessera/Handle.html" <<<"$listing"; then
  echo "javadoc documents a package-private class" >&2
  exit 1
fi
echo "javadoc: ok"
