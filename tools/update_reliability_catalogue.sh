#!/usr/bin/env bash
# Rewrites the table of bad inputs in docs/reliability.md (between the catalogue
# markers) with what //capi:bad_input_catalogue prints today. Run it after changing a
# case or an error message; //capi:bad_input_catalogue_doc_test checks the two agree.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build --noshow_progress //capi:bad_input_catalogue
table=$(mktemp)
trap 'rm -f "$table"' EXIT
bazel-bin/capi/bad_input_catalogue --markdown >"$table"
python3 - "$table" docs/reliability.md <<'PY'
import sys
table = open(sys.argv[1]).read()
path = sys.argv[2]
doc = open(path).read()
begin, end = "<!-- catalogue:begin -->\n", "<!-- catalogue:end -->"
head, rest = doc.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + table + end + tail)
PY
echo "docs/reliability.md: catalogue rewritten ($(grep -c '^| [0-9]' "$table") cases)"
