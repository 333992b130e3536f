#!/usr/bin/env bash
# The Python training example against the C one: train_test.sh NP MPIRUN_TEST_SH
# C_TRAIN PY_TRAIN. Both run under mpirun on NP ranks with the same arguments (2 epochs);
# the per-epoch lines and the final accuracy line must be equal, the PNG must exist and
# be a PNG, the --curve file must hold one line per epoch, and at 3 ranks and more the
# loss must fall from the first epoch to the second.
set -euo pipefail
np="$1"
mpirun_test="$2"
c_train="$3"
py_train="$4"
out="${TEST_TMPDIR:-$(mktemp -d)}"
args=(--epochs 2 --batch 64 --lr 0.01 --seed 1 --fused 1)

"$mpirun_test" "$np" "$c_train" "${args[@]}" --bar 0 --curve "$out/c_curve.jsonl" \
  >"$out/c.txt"
"$mpirun_test" "$np" "$py_train" "${args[@]}" --plot "$out/c.png" \
  --bar 0 --curve "$out/py_curve.jsonl" >"$out/py.txt"
echo "--- C";      cat "$out/c.txt"
echo "--- Python"; cat "$out/py.txt"

lines() { grep -E '^(epoch|final test accuracy)' "$1" || true; }
if [ "$(lines "$out/c.txt")" != "$(lines "$out/py.txt")" ]; then
  echo "FAIL: the Python example's epoch lines differ from the C example's"
  diff <(lines "$out/c.txt") <(lines "$out/py.txt") || true
  exit 1
fi
if [ "$(lines "$out/py.txt" | grep -c '^epoch')" != 2 ]; then
  echo "FAIL: expected 2 epoch lines"
  exit 1
fi
python3 - "$out/c.png" "$out/py_curve.jsonl" "$np" <<'PY'
import json, sys
png, curve, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(png, "rb") as f:
    head = f.read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG: %r" % head[:8]
assert head[12:16] == b"IHDR", "PNG without IHDR first"
epochs = [json.loads(line) for line in open(curve)]
assert [e["epoch"] for e in epochs] == [1, 2], epochs
assert all(e["ranks"] == np for e in epochs), epochs
if np >= 3:
    assert epochs[1]["loss"] < epochs[0]["loss"], "loss did not fall: %r" % epochs
print("PNG, curve and loss checks pass")
PY
echo PASS
