#!/usr/bin/env bash
# The C training example as the README's main job runs it, shortened: 20 epochs on 1
# and 3 ranks (3 splits each batch of 64 unevenly: 22/21/21 rows). Checks what the
# README promises: a line per epoch whose loss falls, a final test accuracy of at
# least 95% (what a 64-64-10 MLP normally reaches on these digits), and the same
# numbers at every rank count (data parallelism changes only the order of float sums:
# the printed 4-digit losses and the accuracies must agree).
# Usage: train_example_test.sh MPIRUN TRAIN
set -euo pipefail
mpirun="$1"
train="$2"
export OMPI_MCA_mpi_yield_when_idle=1
out="${TEST_TMPDIR:-/tmp}"
for np in 1 3; do
  "$mpirun" -np "$np" "$train" --bar 0 --curve "$out/curve$np.jsonl" > "$out/train$np.txt"
  cat "$out/train$np.txt"
done
python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
texts = {np: open("%s/train%d.txt" % (out, np)).read() for np in (1, 3)}
for np, text in texts.items():
    epochs = re.findall(r"^epoch +(\d+)/20  loss ([0-9.]+)  test accuracy ([0-9.]+)%$", text, re.M)
    assert len(epochs) == 20, "np%d: expected 20 epoch lines, got %d" % (np, len(epochs))
    losses = [float(e[1]) for e in epochs]
    assert losses[-1] < losses[0] / 10, "np%d: the loss did not fall: %s" % (np, losses)
    final = re.search(r"^final test accuracy: ([0-9.]+)% \((\d+) of 359 digits\)$", text, re.M)
    assert final, "np%d: no final accuracy line" % np
    assert float(final.group(1)) >= 95.0, "np%d: final accuracy %s%% < 95%%" % (np, final.group(1))
    curve = [json.loads(l) for l in open("%s/curve%d.jsonl" % (out, np))]
    assert [c["epoch"] for c in curve] == list(range(1, 21)), "np%d: curve epochs" % np
    assert all(c["ranks"] == np for c in curve)
lines = {np: [l for l in t.splitlines() if l.startswith(("epoch", "final"))] for np, t in texts.items()}
assert lines[1] == lines[3], "1 and 3 ranks printed different numbers:\n%s\n---\n%s" % (
    "\n".join(lines[1]), "\n".join(lines[3]))
c1 = [json.loads(l)["loss"] for l in open(out + "/curve1.jsonl")]
c3 = [json.loads(l)["loss"] for l in open(out + "/curve3.jsonl")]
worst = max(abs(a - b) / max(1e-12, abs(a)) for a, b in zip(c1, c3))
assert worst < 1e-4, "loss curves differ by %g (relative) between 1 and 3 ranks" % worst
print("train example: 20 epochs at 1 and 3 ranks, same numbers (curves within %.1e)" % worst)
PY
