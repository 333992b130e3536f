#!/usr/bin/env bash
# Runs examples/c/parallel in each style under mpirun (dp and tp at 1 and 3 ranks, 2d
# at 1, 3 and 4) and checks that every run prints the loss curve of the one-rank data
# parallel run, to 1e-5 relative (the order of f32 sums), and that the curve falls.
set -euo pipefail
mpirun_sh="$1"
example="$2"
steps=8

curve() {  # style ranks -> "step N loss X" lines from rank 0
  "$mpirun_sh" -np "$2" "$example" --style "$1" --steps "$steps" | grep '^step '
}

want=$(curve dp 1)
for run in "dp 3" "tp 1" "tp 3" "2d 1" "2d 3" "2d 4"; do
  # shellcheck disable=SC2086
  got=$(curve $run)
  python3 - "$run" "$steps" "$want" "$got" <<'PY'
import sys
run, steps, want, got = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def losses(text):
    return [float(line.split()[3]) for line in text.splitlines()]
w, g = losses(want), losses(got)
if len(w) != steps or len(g) != steps:
    sys.exit(f"FAIL {run}: {len(g)} steps printed, want {steps}\n{got}")
if not w[-1] < 0.9 * w[0]:
    sys.exit(f"FAIL: the one-rank data parallel loss does not fall: {w}")
worst = max(abs(a - b) / abs(b) for a, b in zip(g, w))
if worst > 1e-5:
    sys.exit(f"FAIL {run}: loss curve {g} differs from the 1-rank dp curve {w} by {worst:.3g}")
print(f"ok: style {run.split()[0]} at {run.split()[1]} ranks, max relative difference {worst:.3g}")
PY
done

# A bad option value is refused, naming it.
if err=$("$example" --style pp 2>&1); then
  echo "FAIL: --style pp was accepted"; exit 1
fi
case "$err" in
  *"--style must be dp, tp or 2d, not pp"*) echo "ok: --style pp refused" ;;
  *) echo "FAIL: --style pp gave: $err"; exit 1 ;;
esac
