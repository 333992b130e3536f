"""Under mpirun on N ranks, a program that never calls init() or finalize(): the
runtime starts on first use and the atexit hook finalizes it
(python_exit_test.sh checks mpirun's status and output). On 2+ ranks also: the
GIL is released while a rank waits in a collective, and a rank outside a tensor's
placement still answers __dlpack_device__."""

import os
import threading
import time

import numpy as np

import tessera as ts

assert not ts._runtime_started(), "import started the runtime"

n = int(os.environ["OMPI_COMM_WORLD_SIZE"])
rank = ts.world_rank()  # starts the runtime
assert ts._runtime_started()
assert (rank, ts.world_size()) == (int(os.environ["OMPI_COMM_WORLD_RANK"]), n)

world = ts.placement("cpu", ranks=list(range(n)))
a = np.arange(7 * 3, dtype=np.float32).reshape(7, 3)  # the logical value; 7 rows split unevenly
x = ts.tensor(a, placement=world, sbp=ts.sbp.split(0))
np.testing.assert_allclose((ts.relu(x - 5) * 2).numpy(), np.maximum(a - 5, 0) * 2)
np.testing.assert_allclose(ts.reduce_sum(x, axis=0).numpy(), a.sum(axis=0))

if n >= 2:
    # Rank 0 waits in an all-reduce until rank 1 joins, 1 s late; a Python thread
    # of rank 0 counts meanwhile, which it cannot if the wait holds the GIL.
    # (Samples of the clock every 1000 counts; holding the GIL, the wait would let
    # the counter run only after it, for a 5 ms switch interval: the samples must
    # fall well inside the wait.)
    samples = []
    stop = [False]

    def count():
        n = 0
        while not stop[0]:
            n += 1
            if n % 1000 == 0:
                samples.append(time.monotonic())

    thread = threading.Thread(target=count, daemon=True)
    thread.start()
    buf = np.full(4, rank + 1, dtype=np.float64)
    if rank == 1:
        time.sleep(1.0)
    start = time.monotonic()
    ts.allreduce(buf)
    end = time.monotonic()
    stop[0] = True
    thread.join()
    np.testing.assert_allclose(buf, np.full(4, n * (n + 1) / 2))
    if rank == 0:
        assert end - start > 0.5, "rank 0 did not wait (%.3f s)" % (end - start)
        inside = [t for t in samples if start + 0.1 < t < end - 0.1]
        assert inside, "the counter did not run during %.2f s of all-reduce" % (end - start)

    # DLPack on a tensor only rank 0 holds.
    only0 = ts.ones(3, placement="cpu:[0]", sbp=ts.sbp.broadcast)
    assert only0.__dlpack_device__() == (1, 0)
    if rank == 0:
        np.testing.assert_array_equal(np.from_dlpack(only0), np.ones(3, np.float32))

# A server the program neither stops nor closes: the exit hook closes it before it
# finalizes (the driver's close stops it, which releases the followers from follow()).
program = ts.Program()
rows = program.add_input("x", (4, 3), "f32", world, ts.sbp.split(0))
program.mark_output(program.add_op("relu", [rows])[0])
server = ts.Server()
server.add_plan(ts.compile(program))
if server.is_driver:
    request = server.request(0)
    server.run(request.set_input(0, np.array([[-1, 2, -3]], np.float32)))
    np.testing.assert_array_equal(request.output(0), [[0, 2, 0]])
else:
    server.follow()

print("rank %d of %d: ok, exiting without finalize()" % (rank, n))
