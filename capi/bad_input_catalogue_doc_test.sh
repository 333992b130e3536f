#!/usr/bin/env bash
# docs/reliability.md holds, between "<!-- catalogue:begin -->" and
# "<!-- catalogue:end -->", exactly what `bad_input_catalogue --markdown` prints: the
# bad inputs and the status and message each gets today. Usage: CATALOGUE DOC.
set -euo pipefail
catalogue=$1
doc=$2
expected=$(mktemp)
documented=$(mktemp)
trap 'rm -f "$expected" "$documented"' EXIT
"$catalogue" --markdown >"$expected" 2>/dev/null || {
  echo "bad_input_catalogue --markdown failed: a case no longer gets what it promises" >&2
  "$catalogue" >/dev/null
  exit 1
}
sed -n '/<!-- catalogue:begin -->/,/<!-- catalogue:end -->/p' "$doc" | sed '1d;$d' >"$documented"
if ! diff -u "$documented" "$expected"; then
  echo "docs/reliability.md's catalogue differs from the library's messages (above);" \
    "run tools/update_reliability_catalogue.sh" >&2
  exit 1
fi
echo "docs/reliability.md: catalogue of $(grep -c '^| [0-9]' "$expected") bad inputs is current"
