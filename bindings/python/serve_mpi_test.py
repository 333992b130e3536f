"""Serving from Python under mpirun (1 and 3 ranks): every rank compiles an MLP laid
out across the world (x split by rows, w1 split by columns, w2 by rows: the plan
boxes), creates a ts.Server and adds the plan; rank 0 drives, from several Python
threads at once, and the other ranks follow. Answers are checked against a plain
Python reference: inputs and weights are small multiples of powers of two, so every
sum is exact in float32 and the answers must match bit for bit. Then every call's bad
inputs. Exits non-zero on any failure."""

import array
import struct
import threading

import numpy as np

import tessera as ts
from tessera_test_util import TesseraTestCase, mpi_main

RANK = ts.world_rank()
SIZE = ts.world_size()
IN, HIDDEN, OUT = 16, 24, 8
CAPACITY = 32
GRID = ts.placement("cpu", ranks=[list(range(SIZE))])


def weights(rows, cols, salt):
    """rows x cols multiples of 1/8 in [-0.75, 0.75], row-major nested lists."""
    return [[((r * cols + c) * 7 + salt) % 13 / 8.0 - 0.75 for c in range(cols)]
            for r in range(rows)]


W1 = weights(IN, HIDDEN, 1)
W2 = weights(HIDDEN, OUT, 5)


def rows_of(count, salt):
    """count x IN multiples of 1/16 in [-0.875, 0.875]."""
    return [[((r * IN + c) * 5 + salt * 3) % 29 / 16.0 - 0.875 for c in range(IN)]
            for r in range(count)]


def reference(x):
    """relu(x W1) W2 with Python floats (exact here), as nested lists."""
    out = []
    for row in x:
        h = [max(0.0, sum(row[k] * W1[k][j] for k in range(IN))) for j in range(HIDDEN)]
        out.append([sum(h[k] * W2[k][j] for k in range(HIDDEN)) for j in range(OUT)])
    return out


def flat(x):
    return [v for row in x for v in row]


def f32_bytes(x):
    return struct.pack("<%df" % (len(x) * len(x[0])), *flat(x))


def compile_model(capacity=CAPACITY):
    program = ts.Program()
    x = program.add_input("x", (capacity, IN), "f32", GRID, "(S(0), B)")
    w1 = program.add_variable("w1", ts.tensor(np.array(W1, np.float32), placement=GRID,
                                              sbp="(B, S(1))"))
    w2 = program.add_variable("w2", ts.tensor(np.array(W2, np.float32), placement=GRID,
                                              sbp="(B, S(0))"))
    (h,) = program.add_op("matmul", [x, w1])
    (h,) = program.add_op("relu", [h])
    (y,) = program.add_op("matmul", [h, w2])
    program.mark_output(y)
    return ts.compile(program)


class ServeMpiTest(TesseraTestCase):
    def setUp(self):
        self.plan = compile_model()

    def follow_or(self, server, drive):
        """The driver runs drive(); the followers follow until it stops the server."""
        if server.is_driver:
            try:
                drive()
            finally:
                server.stop()
        else:
            server.follow()
            self.assertTrue(server.stats().stopped)
            # The extension links libtessera.so, which does not count (serve.h).
            self.assertEqual(server.stats().heap_allocations_last_batch, -1)

    def test_threads_run_at_once_and_answer_exactly(self):
        server = ts.Server(follower_timeout=60)
        self.assertEqual(server.is_driver, RANK == 0)
        # Plan 0 batches, waiting up to 0.5 s for company; plan 1 runs each request alone.
        self.assertEqual(server.add_plan(self.plan, batching=True, max_batch_rows=CAPACITY,
                                         max_queue_delay_us=500000), 0)
        self.assertEqual(server.add_plan(self.plan), 1)
        self.assertEqual(server.num_plans, 2)
        self.assertEqual(server.plan_info(0), ts.ServePlanInfo(
            num_inputs=1, num_outputs=1, capacity_rows=CAPACITY, max_batch_rows=CAPACITY,
            max_queue_delay_us=500000, max_queued_requests=4096, batching=True))
        self.assertFalse(server.plan_info(1).batching)
        self.assertEqual((server.input_width(0), server.output_width(0)), (IN, OUT))
        self.assertEqual((server.input_dtype(1), server.output_dtype(1, 0)), ("f32", "f32"))
        threads, per_thread = 4, 5
        results = {}
        errors = []
        start = threading.Barrier(threads)

        def client(t):
            try:
                with server.request(t % 2) as request:
                    start.wait()
                    for i in range(per_thread):
                        x = rows_of(1 + (t + i) % 4, t * 100 + i)
                        # Each input kind: numpy, array.array, bytes, memoryview.
                        kind = (t + i) % 4
                        data = [np.array(x, np.float32), array.array("f", flat(x)),
                                f32_bytes(x), memoryview(bytearray(f32_bytes(x)))][kind]
                        self.assertIs(request.set_input(0, data), request)
                        self.assertEqual(request.rows, len(x))
                        self.assertIs(server.run(request), request)
                        info = request.info()
                        results[(t, i)] = (x, request.output(0), request.output_bytes(0),
                                           request.output_array(0), info)
            except BaseException as e:  # reported on the main thread
                errors.append((t, e))

        def drive():
            pool = [threading.Thread(target=client, args=(t,)) for t in range(threads)]
            for thread in pool:
                thread.start()
            for thread in pool:
                thread.join()
            self.assertEqual(errors, [])
            batched_together = 0
            total_rows = 0
            for (t, i), (x, out, raw, arr, info) in sorted(results.items()):
                want = reference(x)
                total_rows += len(x)
                self.assertEqual(out.shape, (len(x), OUT))
                self.assertEqual(out.dtype, np.float32)
                self.assertEqual(out.tolist(), want, "thread %d request %d" % (t, i))
                self.assertEqual(raw, f32_bytes(want))
                self.assertEqual(arr.typecode, "f")
                self.assertEqual(arr.tolist(), flat(want))
                self.assertGreaterEqual(info.batch_rows, len(x))
                self.assertGreaterEqual(info.batch_requests, 1)
                self.assertGreaterEqual(info.queue_seconds, 0.0)
                self.assertGreater(info.run_seconds, 0.0)
                if t % 2 == 1:
                    self.assertEqual((info.batch_rows, info.batch_requests), (len(x), 1))
                else:
                    batched_together = max(batched_together, info.batch_requests)
            # Two threads send to the batching plan together: unless run() let go of
            # the GIL, the second could not queue while the first waited 0.5 s.
            self.assertGreater(batched_together, 1)
            stats = server.stats()
            self.assertEqual(stats.requests, threads * per_thread)
            self.assertEqual(stats.failed_requests, 0)
            self.assertEqual(stats.rows, total_rows)
            self.assertLess(stats.runs, stats.requests)
            self.assertEqual(stats.queued_requests, 0)
            self.assertTrue(stats.available)
            self.assertIsNone(server.check_health(30))
            self.assertEqual(server.stats().health_checks, 1)

        self.follow_or(server, drive)
        if server.is_driver:
            stats = server.stats()
            self.assertTrue(stats.stopped)
            with server.request(0) as request:
                request.set_input(0, f32_bytes(rows_of(1, 0)))
                self.assertTesseraError(ts.CancelledError, "", server.run, request)
            self.assertRaises(ts.CancelledError, server.check_health, 1)
            server.stop()  # idempotent
        # Closing the server closes the requests made for it.
        request = server.request(1)
        self.assertIn("plan 1", str(request))
        server.close()
        self.assertEqual(str(request), "ServeRequest(closed)")
        self.assertEqual(str(server), "Server(closed)")
        server.close()

    def test_bad_inputs(self):
        for kwargs, text in (({"driver_rank": SIZE}, "driver_rank"),
                             ({"driver_rank": -1}, "driver_rank"),
                             ({"follower_timeout": -1.0}, "follower_timeout_seconds"),
                             ({"follower_timeout": 2e6}, "follower_timeout_seconds"),
                             ({"follower_timeout": float("nan")}, "follower_timeout_seconds"),
                             ({"follower_poll_max_us": 100001}, "follower_poll_max_us"),
                             ({"follower_poll_max_us": -1}, "follower_poll_max_us")):
            self.assertTesseraError(ts.InvalidArgumentError, text, ts.Server, **kwargs)
        self.assertRaises(ts.InvalidArgumentError, ts.Server, driver_rank=2**31)
        self.assertRaises(TypeError, ts.Server, driver_rank=0.5)
        server = ts.Server(driver_rank=SIZE - 1, follower_timeout=60)
        self.assertEqual(server.is_driver, RANK == SIZE - 1)
        self.assertRaises(TypeError, server.add_plan, "plan")
        self.assertTesseraError(ts.InvalidArgumentError, "batching", server.add_plan, self.plan,
                                batching=1)
        for kwargs, text in (({"max_batch_rows": CAPACITY + 1}, "max_batch_rows is 33"),
                             ({"max_batch_rows": -1}, "max_batch_rows"),
                             ({"max_queue_delay_us": -1}, "max_queue_delay_us is -1"),
                             ({"max_queue_delay_us": 10000001}, "max_queue_delay_us"),
                             ({"max_queued_requests": 1000001}, "max_queued_requests is 1000001"),
                             ({"max_queued_requests": -1}, "max_queued_requests")):
            self.assertTesseraError(ts.InvalidArgumentError, text, server.add_plan, self.plan,
                                    batching=True, **kwargs)
        self.assertEqual(server.num_plans, 0)
        self.assertEqual(server.add_plan(self.plan, max_batch_rows=4), 0)
        self.assertEqual(server.plan_info(0).max_batch_rows, 4)
        self.assertTesseraError(ts.OutOfRangeError, "plan id 1 is unknown", server.plan_info, 1)
        self.assertRaises(ts.OutOfRangeError, server.plan_info, -1)
        self.assertRaises(ts.OutOfRangeError, server.plan_info, 2**40)
        self.assertTesseraError(ts.OutOfRangeError, "index 1 is out of range",
                                server.input_width, 0, 1)
        self.assertRaises(ts.OutOfRangeError, server.output_width, 3, 0)
        self.assertRaises(ts.OutOfRangeError, server.input_dtype, 0, -1)
        self.assertRaises(ts.OutOfRangeError, server.output_dtype, 0, 1)
        self.assertRaises(ts.OutOfRangeError, ts.ServeRequest, server, 1)
        self.assertRaises(TypeError, ts.ServeRequest, "server")
        request = server.request(0)
        self.assertEqual(request.rows, 0)
        # Sizes: not a whole row, too many rows, nothing; types: wrong element, not a buffer.
        self.assertTesseraError(ts.InvalidArgumentError, "input 0 got 68 bytes",
                                request.set_input, 0, array.array("f", [0.5] * (IN + 1)))
        self.assertTesseraError(ts.InvalidArgumentError, "input 0 has 5 rows; plan 0 takes at "
                                "most 4 rows", request.set_input, 0, f32_bytes(rows_of(5, 1)))
        self.assertTesseraError(ts.InvalidArgumentError, "got 0 bytes", request.set_input, 0,
                                b"")
        self.assertTesseraError(ts.InvalidArgumentError, "float64",
                                request.set_input, 0, np.zeros((1, IN), np.float64))
        self.assertTesseraError(ts.InvalidArgumentError, "'d'",
                                request.set_input, 0, array.array("d", [0.0] * IN))
        self.assertTesseraError(ts.InvalidArgumentError, "'i'",
                                request.set_input, 0, array.array("i", [0] * IN))
        self.assertRaises(TypeError, request.set_input, 0, [[0.0] * IN])
        self.assertTesseraError(ts.OutOfRangeError, "index 1 is out of range", request.set_input, 1,
                                f32_bytes(rows_of(1, 1)))
        self.assertTesseraError(ts.OutOfRangeError, "index is -1", request.set_input, -1,
                                f32_bytes(rows_of(1, 1)))
        self.assertEqual(request.rows, 0)
        # Before a run: no output, no info.
        self.assertRaises(ts.FailedPreconditionError, request.output_bytes, 0)
        self.assertRaises(ts.FailedPreconditionError, request.info)
        # A transposed (not C-contiguous) numpy array is copied, not refused.
        x = rows_of(2, 3)
        request.set_input(0, np.array(x, np.float32).T.copy().T)
        self.assertEqual(request.rows, 2)

        def drive():
            self.assertRaises(TypeError, server.run, "request")
            self.assertTesseraError(ts.FailedPreconditionError, "is the driver", server.follow)
            self.assertTesseraError(ts.InvalidArgumentError, "timeout_seconds is 0",
                                    server.check_health, 0)
            self.assertTesseraError(ts.InvalidArgumentError, "timeout_seconds is -1",
                                    server.check_health, -1)
            server.run(request)
            self.assertEqual(request.output(0).tolist(), reference(x))
            self.assertRaises(ts.OutOfRangeError, request.output, 1)
            self.assertRaises(ts.OutOfRangeError, request.output_array, -1)
            self.assertTesseraError(ts.FailedPreconditionError, "already serving", server.add_plan,
                                    self.plan)

        if not server.is_driver:
            self.assertTesseraError(ts.FailedPreconditionError, "", server.run, request)
            self.assertTesseraError(ts.FailedPreconditionError, "", server.stop)
            self.assertTesseraError(ts.FailedPreconditionError, "", server.check_health, 1)
        self.follow_or(server, drive)
        if not server.is_driver:
            self.assertTesseraError(ts.FailedPreconditionError, "", server.follow)
        server.close()
        self.assertRaises(TypeError, request.set_input, 0, f32_bytes(x))


if __name__ == "__main__":
    mpi_main()
