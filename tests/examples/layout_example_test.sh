#!/usr/bin/env bash
# Runs the C example under mpirun with 1, 2, 3, 4 and 5 ranks and compares what
# every rank prints with an oracle computed here, independently, in Python.
set -euo pipefail
mpirun_sh="$1"
example="$2"

expected_for() {  # world size -> the lines every rank should print, sorted
  python3 - "$1" <<'PY'
import sys
world = int(sys.argv[1])
hierarchy = [[0, 1], [2, 3]]
shape = (6, 5)

def part(total, parts, i):
    # The first total % parts parts get one extra element.
    sizes = [total // parts + (1 if k < total % parts else 0) for k in range(parts)]
    begin = sum(sizes[:i])
    return begin, begin + sizes[i]

lines = []
for rank in range(world):
    where = [(r, c) for r, row in enumerate(hierarchy) for c, x in enumerate(row) if x == rank]
    if not where:
        lines.append(f"rank {rank} of {world}: not in cpu:[[0,1],[2,3]], holds nothing")
        continue
    r, c = where[0]
    rb, re = part(shape[0], 2, r)
    cb, ce = part(shape[1], 2, c)
    lines.append(f"rank {rank} of {world}: local shape ({re - rb}, {ce - cb}) = rows [{rb}, {re})"
                 f" x cols [{cb}, {ce}) of (6, 5) under (S(0), S(1)) on cpu:[[0,1],[2,3]]")
print("\n".join(sorted(lines)))
PY
}

for np in 1 2 3 4 5; do
  got=$("$mpirun_sh" -np "$np" "$example" | sort)
  want=$(expected_for "$np")
  if [ "$got" != "$want" ]; then
    echo "FAIL with $np ranks"; echo "--- got"; echo "$got"; echo "--- want"; echo "$want"
    exit 1
  fi
  echo "ok: $np ranks"
done
