"""The wheel test's program (wheel_test.sh runs it from a temporary directory outside the
tree, with the installed wheel's interpreter, under mpirun): global tensors split over
every rank, checked against values worked out by hand in plain Python, not by numpy or
Tessera. Prints "rank R of N: ok" on each rank; no finalize() (the atexit hook does it).
"""

import os
import sys

import numpy as np

import tessera as ts

# Loaded from the installed wheel (site-packages), not from a source tree.
here = os.path.dirname(os.path.abspath(ts.__file__))
assert "site-packages" in here, here
assert os.path.exists(os.path.join(here, "_tessera_capi.so")), here

n = ts.world_size()
rank = ts.world_rank()
p = ts.placement("cpu", ranks=list(range(n)))

# x[i][j] = 4i + j on a (6, 4) grid, rows split over the ranks: 6 rows on n ranks give
# each rank 6 // n rows, the first 6 % n ranks one more.
x = ts.tensor(np.arange(24, dtype=np.float32).reshape(6, 4), placement=p, sbp=ts.sbp.split(0))
counts = [6 // n + (1 if r < 6 % n else 0) for r in range(n)]
first = sum(counts[:rank])
rows = range(first, first + counts[rank])
assert x.local_shape == (len(rows), 4), x.local_shape
assert x.to_local().tolist() == [[4.0 * i + j for j in range(4)] for i in rows]

# sum of (2k + 1) for k < 24 is 24 squared.
total = (x * 2 + 1).sum().numpy()
assert float(total) == 24 * 24, total

# x @ ones(4, 3): row i holds 3 copies of 4i + 0 + 4i + 1 + 4i + 2 + 4i + 3 = 16i + 6.
y = ts.matmul(x, ts.ones(4, 3, placement=p, sbp=ts.sbp.broadcast))
assert y.shape == (6, 3), y.shape
assert y.numpy().tolist() == [[16.0 * i + 6] * 3 for i in range(6)]

# The same tensor re-laid out as a broadcast: every rank sees the whole value.
b = x.to_global(sbp=ts.sbp.broadcast)
assert b.to_local().tolist() == [[4.0 * i + j for j in range(4)] for i in range(6)]

print("rank %d of %d: ok" % (rank, n))
sys.stdout.flush()
