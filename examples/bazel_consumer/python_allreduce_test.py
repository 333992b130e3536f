"""Run by tessera_py_mpi_test on N ranks: an all-reduce and the sum of a split tensor
through the `tessera` package, checked against numpy on each rank's own values."""

import numpy as np

import tessera as ts

rank, size = ts.world_rank(), ts.world_size()
got = ts.allreduce(np.arange(4, dtype=np.float64) * (rank + 1))
want = np.arange(4, dtype=np.float64) * (size * (size + 1) / 2)
assert np.array_equal(got, want), (rank, got, want)

values = np.arange(2 * size + 1, dtype=np.float64)
world = ts.placement("cpu", ranks=list(range(size)))
total = ts.tensor(values, placement=world, sbp=ts.sbp.split(0)).sum().numpy()
assert total == values.sum(), (rank, total, values.sum())
print("rank %d of %d: ok" % (rank, size))
