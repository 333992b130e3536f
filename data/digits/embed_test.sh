#!/usr/bin/env bash
# Regenerates the digits header from the CSV and compares it with the checked-in one.
set -euo pipefail
embed="$1"
csv="$2"
header="$3"
fresh="${TEST_TMPDIR:-/tmp}/digits_data.h"
bash "$embed" "$PWD/$csv" "$fresh"
if ! cmp -s "$fresh" "$header"; then
  echo "examples/c/train/digits_data.h is out of step with data/digits/digits.csv:" \
    "run tools/embed_digits.sh"
  exit 1
fi
rows=$(grep -c '^    {' "$header")
[ "$rows" -eq 1797 ] || { echo "expected 1797 rows in the header, found $rows"; exit 1; }
echo "digits_data.h is in step (1797 rows)"
