"""The runtime's life as the package shapes it (world of one rank): importing starts
nothing, the first call that needs the runtime starts it, init() takes options,
finalize() is idempotent with the atexit hook; the GIL is released while a C call
waits; the DLPack protocol. Each life-cycle case runs in its own interpreter."""

import ctypes
import os
import subprocess
import sys
import textwrap
import threading
import time
import unittest

import numpy as np

import tessera as ts

# The folder holding the package, for the child interpreters.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(ts.__file__)))


# Prepended to each child's code: mpi_state() asks the MPI library the process
# loaded (through the extension) itself: (MPI_Initialized, MPI_Finalized).
MPI_STATE = """
import ctypes
def mpi_state():
    path = next(line.split()[-1] for line in open("/proc/self/maps") if "/libmpi.so" in line)
    lib = ctypes.CDLL(path)
    initialized, finalized = ctypes.c_int(-1), ctypes.c_int(-1)
    assert lib.MPI_Initialized(ctypes.byref(initialized)) == 0
    assert lib.MPI_Finalized(ctypes.byref(finalized)) == 0
    return initialized.value, finalized.value
"""


def run_python(code):
    """Runs `code` in a fresh interpreter that imports the package; (rc, output)."""
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT)
    proc = subprocess.run([sys.executable, "-c", MPI_STATE + textwrap.dedent(code)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=60)
    return proc.returncode, proc.stdout


class LifeCycleTest(unittest.TestCase):
    def assertRuns(self, code, *expected_lines):
        rc, out = run_python(code)
        self.assertEqual(rc, 0, out)
        for line in expected_lines:
            self.assertIn(line, out.splitlines(), out)
        return out

    def test_import_starts_nothing(self):
        # MPI says so (MPI_Initialized is 0), and so does the C layer: tess_runtime_world_rank
        # fails before tess_runtime_init. Local calls keep it so.
        self.assertRuns("""
            import tessera as ts
            assert not ts._runtime_started()
            print("mpi after import", mpi_state())
            try:
                ts._capi.runtime_world_rank()
                print("initialised at import")
            except ts.FailedPreconditionError as e:
                assert "not initialised" in e.message, e.message
            p = ts.placement("cpu", ranks=[0, 1])
            ts.layout(p, ts.NdSbp.parse("S(0)"), (5,), 1)
            ts.box_plan((4, 4), "f32", p, "S(0)", p, "B")
            ts.OpCall("relu").input((4,), "f32", p, "S(0)").infer()
            ts.set_collective_timeout(5)
            ts.cuda_info()
            assert not ts._runtime_started()
            try:
                ts._capi.runtime_world_rank()
            except ts.FailedPreconditionError:
                print("still not initialised")
            print("mpi after local calls", mpi_state())
            """, "mpi after import (0, 0)", "still not initialised", "mpi after local calls (0, 0)")

    def test_first_use_starts(self):
        self.assertRuns("""
            import tessera as ts
            p = ts.placement("cpu", ranks=[0])
            print(ts.ones(3, placement=p, sbp=ts.sbp.broadcast).numpy().tolist())
            print(ts._runtime_started(), ts._capi.runtime_world_rank(), ts.world_size())
            print("mpi", mpi_state())
            """, "[1.0, 1.0, 1.0]", "True 0 1", "mpi (1, 0)")

    def test_each_entry_point_starts(self):
        # Every call that needs the runtime starts it by itself, in a fresh process;
        # building a program does not, compiling it does.
        cases = {
            "tensor": "ts.tensor([1.0, 2.0], placement=p, sbp=ts.sbp.broadcast)",
            "from_local": "ts.from_local(np.ones(2, np.float32), placement=p, sbp='B')",
            "from_dlpack": "ts.from_dlpack(np.ones(2), placement=p, sbp='B')",
            "randn": "ts.randn(2, placement=p, sbp='B')",
            "raw tensor_full": "ts.tensor_full([2], ts.DTYPE_F32, 1.0, p, ts.NdSbp.parse('B'))",
            "box": "ts.box(np.ones(2), (2,), p, 'S(0)', p, 'B')",
            "allreduce": "ts.allreduce(np.ones(2))",
            "bucketed_allreduce": "ts.bucketed_allreduce([np.ones(2)])",
            "capture": "ts.capture().__enter__()",
            "compile": "ts.compile(prog)",
            "world_size": "ts.world_size()",
            "topology": "ts.topology()",
        }
        for name, call in cases.items():
            self.assertRuns("""
                import numpy as np
                import tessera as ts
                p = ts.placement("cpu", ranks=[0])
                prog = ts.Program()
                (y,) = prog.add_op("relu", [prog.add_input("x", (4,), "f32", p)])
                prog.mark_output(y)
                assert not ts._runtime_started()
                %s
                print("started", ts._runtime_started(), mpi_state())
                """ % call, "started True (1, 0)")

    def test_world_rank_starts(self):
        self.assertRuns("""
            import tessera as ts
            print(ts.world_rank(), ts._runtime_started())
            """, "0 True")

    def test_init_options(self):
        self.assertRuns("""
            import tessera as ts
            ts.init(collective_timeout=30)
            print(ts._runtime_started(), ts.collective_timeout())
            ts.init()  # idempotent
            """, "True 30.0")
        rc, out = run_python("""
            import tessera as ts
            ts.init(collective_timeout=-1)
            """)
        self.assertNotEqual(rc, 0)
        self.assertIn("InvalidArgumentError", out)

    def test_init_options_while_running(self):
        # A later init() checks and applies its options: tess_runtime_init_with_options.
        self.assertRuns("""
            import tessera as ts
            ts.init()
            ts.init(collective_timeout=7)
            print("timeout", ts.collective_timeout())
            try:
                ts.init(collective_timeout=float("nan"))
            except ts.InvalidArgumentError as e:
                print("nan:", e.message)
            try:
                ts.init(cuda_device=1.5)
            except TypeError:
                print("float device: TypeError")
            """, "timeout 7.0", "nan: init: collective_timeout is nan; expected seconds >= 0 "
            "(0: wait forever) or None", "float device: TypeError")

    def test_init_check_mode(self):
        # check=True/False reach tess_runtime_init_options.check_mode; another value is
        # refused here, and a bad TESSERA_CHECK by the C library, naming it.
        self.assertRuns("""
            import os
            import tessera as ts
            try:
                ts.init(check="yes")
            except ts.InvalidArgumentError as e:
                print("str:", e.message)
            ts.init(check=True)
            import numpy as np
            x = ts.tensor(np.array([1.0, 2.0], dtype=np.float32), placement=ts.placement("cpu", ranks=[0]),
                          sbp=ts.sbp.broadcast)
            print("sum", (x + x).numpy().tolist())
            ts.init(check=False)
            """, "str: init: check is 'yes'; expected True, False or None", "sum [2.0, 4.0]")
        rc, out = run_python("""
            import os
            os.environ["TESSERA_CHECK"] = "on"
            import tessera as ts
            try:
                ts.init()
            except ts.InvalidArgumentError as e:
                print("env:", e.message)
            """)
        self.assertIn('env: tess_runtime_init_with_options: environment variable TESSERA_CHECK '
                      'is "on"; it must be 0 (off) or 1 (on)', out.splitlines(), out)

    def test_init_cuda_device(self):
        # A bad device starts nothing (and a later init works); device 0 follows the
        # build: UnimplementedError without CUDA, UnavailableError without a GPU.
        out = self.assertRuns("""
            import tessera as ts
            try:
                ts.init(cuda_device=-2)
            except ts.InvalidArgumentError as e:
                print("-2:", e.message)
            print("started", ts._runtime_started())
            info = ts.cuda_info()
            try:
                ts.init(cuda_device=0)
                print("0: ok", info.device_count > 0)
            except (ts.UnimplementedError, ts.UnavailableError) as e:
                print("0:", type(e).__name__, e.message, info.built_with_cuda, info.device_count)
            ts.init()
            print("started", ts._runtime_started(), ts.world_size())
            """, "-2: tess_runtime_init_with_options: options->cuda_device is -2; expected -1 "
            "(local rank % device count) or a device >= 0", "started False", "started True 1")
        lines = [line for line in out.splitlines() if line.startswith("0:")]
        self.assertEqual(len(lines), 1, out)
        if not ts.cuda_info().built_with_cuda:
            self.assertEqual(lines[0], "0: UnimplementedError tess_runtime_init_with_options: "
                             "options->cuda_device is 0, but this library was built without "
                             "CUDA (--config=cuda) False 0")
        elif ts.cuda_info().device_count == 0:
            self.assertTrue(lines[0].startswith("0: UnavailableError"), out)
        else:
            self.assertEqual(lines[0], "0: ok True")

    def test_finalize_is_idempotent_with_atexit(self):
        self.assertRuns("""
            import atexit
            import tessera as ts
            ts.finalize()  # never started: a no-op
            ts.zeros(2, placement="cpu:[0]", sbp="B")
            ts.finalize()
            ts.finalize()
            print("started", ts._runtime_started(), "mpi", mpi_state())
            try:
                ts.zeros(2, placement="cpu:[0]", sbp="B")
            except ts.FailedPreconditionError as e:
                print("after finalize:", e.status)
            """, "started False mpi (1, 1)", "after finalize: FAILED_PRECONDITION")

    def test_atexit_finalizes(self):
        # atexit runs hooks last-registered first: this one, registered before the
        # runtime starts (and registers its own), sees the state after tessera's.
        self.assertRuns("""
            import atexit
            import tessera as ts
            atexit.register(lambda: print("at exit started:", ts._runtime_started(),
                                          "mpi", mpi_state()))
            ts.ones(2, placement="cpu:[0]", sbp="B").numpy()
            print("running:", ts._runtime_started(), "mpi", mpi_state())
            """, "running: True mpi (1, 0)", "at exit started: False mpi (1, 1)")

    def test_forked_child_does_not_finalize(self):
        # A child forked after the start inherits the state, not MPI: its exit
        # must leave MPI alone; the parent's exit finalizes.
        self.assertRuns("""
            import atexit, os, sys
            import tessera as ts
            atexit.register(lambda: print("parent" if os.getpid() == parent else "child",
                                          "at exit", mpi_state(), flush=True))
            parent = os.getpid()
            ts.world_rank()
            pid = os.fork()
            if pid == 0:
                sys.exit(0)
            os.waitpid(pid, 0)
            """, "child at exit (1, 0)", "parent at exit (1, 1)")

    def test_finalize_at_exit_off(self):
        self.assertRuns("""
            import atexit
            import tessera as ts
            atexit.register(lambda: print("at exit started:", ts._runtime_started(),
                                          "mpi", mpi_state()))
            ts.init(finalize_at_exit=False)
            """, "at exit started: True mpi (1, 0)")


class TopologyTest(unittest.TestCase):
    """A world of one rank: one host, named as the machine is."""

    def test_one_rank_on_one_host(self):
        import socket
        t = ts.topology()
        self.assertEqual(t, ts.Topology(world_size=1, world_rank=0, host_count=1, host_index=0,
                                        local_rank=0, local_size=1, min_ranks_per_host=1,
                                        max_ranks_per_host=1, pretend_ranks_per_host=0,
                                        cuda_device=0 if ts.cuda_info().device_count else -1))
        self.assertEqual(ts.rank_host(0), (0, 0))
        with self.assertRaisesRegex(ts.OutOfRangeError, "world_rank 1 is outside the world of 1"):
            ts.rank_host(1)
        with self.assertRaisesRegex(ts.OutOfRangeError, "world_rank -1"):
            ts.rank_host(-1)
        with self.assertRaises(TypeError):
            ts.rank_host(0.5)
        lines = ts.topology_string().splitlines()
        self.assertEqual(lines[0], "1 rank on 1 host (found with MPI_COMM_TYPE_SHARED)")
        self.assertEqual(lines[1], 'host 0 "%s": rank 0' % socket.gethostname())


class Counter(object):
    """A Python thread counting as fast as it can until stop(), noting the time every
    1000 counts. Samples noted while another thread sat inside one C call prove the
    call released the GIL: holding it, the counter could not run until the call
    returned (it then runs for a switch interval, 5 ms, so the samples must fall
    well inside the call, not just be taken across it)."""

    def __init__(self):
        self.times = []
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        while not self.times:
            time.sleep(0.001)

    def _run(self):
        n = 0
        while not self._stop:
            n += 1
            if n % 1000 == 0:
                self.times.append(time.monotonic())

    def stop(self):
        self._stop = True
        self._thread.join()

    def samples_inside(self, start, end, margin=0.1):
        return [t for t in self.times if start + margin < t < end - margin]


class GilTest(unittest.TestCase):
    def test_counter_runs_while_run_pushed_waits(self):
        # run_pushed waits in C for a pushed input set (none comes) until its
        # timeout, 1 s.
        p = ts.placement("cpu", ranks=[0])
        prog = ts.Program()
        x = prog.add_input("x", (4,), "f32", p)
        (y,) = prog.add_op("relu", [x])
        prog.mark_output(y)
        inst = ts.compile(prog, 2).instantiate()
        counter = Counter()
        try:
            start = time.monotonic()
            with self.assertRaises(ts.DeadlineExceededError):
                inst.run_pushed(timeout=1.0)
            end = time.monotonic()
        finally:
            counter.stop()
        self.assertGreaterEqual(end - start, 0.9)
        self.assertTrue(counter.samples_inside(start, end),
                        "the counter thread did not run during the %.2f s wait" % (end - start))


class DlpackTest(unittest.TestCase):
    def setUp(self):
        self.p = ts.placement("cpu", ranks=[0])
        self.t = ts.arange(6, placement=self.p, sbp=ts.sbp.split(0))

    def test_dlpack_device(self):
        self.assertEqual(self.t.__dlpack_device__(), (1, 0))  # kDLCPU, from the export

    def test_capsules(self):
        self.assertIn('"dltensor"', repr(self.t.__dlpack__()))
        self.assertIn('"dltensor_versioned"', repr(self.t.__dlpack__(max_version=(1, 0))))
        self.assertIn('"dltensor"', repr(self.t.__dlpack__(max_version=(0, 8))))
        np.testing.assert_array_equal(np.from_dlpack(self.t), np.arange(6))

    def test_stream(self):
        self.t.__dlpack__(stream=None)
        self.t.__dlpack__(stream=-1)  # "no synchronisation": nothing to do on a cpu
        for bad in (0, 1, 2, 12345):
            with self.assertRaises(ValueError):
                self.t.__dlpack__(stream=bad)
        with self.assertRaises(TypeError):
            self.t.__dlpack__(stream="default")

    def test_device(self):
        self.t.__dlpack__(dl_device=(1, 0))
        with self.assertRaises(BufferError):
            self.t.__dlpack__(dl_device=(2, 0))

    @staticmethod
    def flags(capsule):
        """DLManagedTensorVersioned.flags of an unconsumed "dltensor_versioned"."""
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        # version (2 x uint32), manager_ctx, deleter, then flags.
        return ctypes.c_uint64.from_address(get(capsule, b"dltensor_versioned") + 24).value

    def test_copy(self):
        READ_ONLY, IS_COPIED = 1, 2
        self.assertEqual(self.flags(self.t.__dlpack__(max_version=(1, 0))), READ_ONLY)
        self.assertEqual(self.flags(self.t.__dlpack__(max_version=(1, 0), copy=False)),
                         READ_ONLY)
        self.assertEqual(self.flags(self.t.__dlpack__(max_version=(1, 0), copy=True)),
                         IS_COPIED)

        class Copying(object):  # what numpy sees: a producer asked to copy
            def __init__(self, t):
                self.t = t

            def __dlpack__(self, **kwargs):
                return self.t.__dlpack__(copy=True, **kwargs)

            def __dlpack_device__(self):
                return self.t.__dlpack_device__()

        view, copy = np.from_dlpack(self.t), np.from_dlpack(Copying(self.t))
        np.testing.assert_array_equal(copy, np.arange(6))
        self.assertNotEqual(view.__array_interface__["data"][0],
                            copy.__array_interface__["data"][0])
        for versioned in (None, (1, 0)):
            capsule = self.t.__dlpack__(max_version=versioned, copy=True)
            back = ts.from_dlpack(capsule, placement=self.p, sbp=ts.sbp.split(0))
            np.testing.assert_array_equal(back.numpy(), np.arange(6))
        empty = ts.zeros(0, 3, placement=self.p, sbp=ts.sbp.broadcast)
        self.assertEqual(np.from_dlpack(Copying(empty)).shape, (0, 3))

    def test_round_trip(self):
        back = ts.from_dlpack(self.t, placement=self.p, sbp=ts.sbp.split(0))
        np.testing.assert_array_equal(back.numpy(), np.arange(6))


class WithoutNumpyTest(unittest.TestCase):
    def test_tensor_and_serving_with_the_standard_library(self):
        # numpy blocked: ts.tensor takes nested lists, a server takes array.array and
        # bytes and answers as array.array / bytes; output() alone needs numpy. The
        # values are small multiples of 1/4, so the answers are exact.
        rc, out = run_python("""
            import array, struct, sys
            sys.modules["numpy"] = None
            import tessera as ts
            p = ts.placement("cpu:[[0]]")
            w = ts.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], placement=p, sbp="(B, S(1))")
            def dtype(t):
                return ts.dtype_name(ts.tensor_dtype(t))
            assert (w.shape, dtype(w)) == ((2, 3), "f32"), (w.shape, dtype(w))
            assert dtype(ts.tensor([[1, 2]], placement=p, sbp="(B, B)")) == "i64"
            assert dtype(ts.tensor([1, 2], dtype="f64", placement=p, sbp="(B, B)")) == "f64"
            for bad, error, text in (
                    ([[1.0], [1.0, 2.0]], ts.InvalidArgumentError, "not rectangular"),
                    ([["a"]], TypeError, "nested lists of numbers"),
                    ([1.0], ts.InvalidArgumentError, "f16 needs numpy")):
                try:
                    ts.tensor(bad, dtype="f16" if "f16" in text else None, placement=p,
                              sbp="(B, B)")
                    print("no error for", bad)
                except error as e:
                    assert text in str(e), e
            program = ts.Program()
            x = program.add_input("x", (4, 2), "f32", p, "(S(0), B)")
            (y,) = program.add_op("matmul", [x, program.add_variable("w", w)])
            program.mark_output(y)
            with ts.Server() as server:
                server.add_plan(ts.compile(program), batching=True)
                with server.request() as request:
                    request.set_input(0, array.array("f", [1.0, 1.0, 2.0, 0.0]))
                    server.run(request)
                    print("array", request.output_array(0).tolist())
                    request.set_input(0, struct.pack("2f", 0.0, -4.0))
                    server.run(request)
                    print("bytes", struct.unpack("3f", request.output_bytes(0)))
                    try:
                        request.output(0)
                    except ImportError as e:
                        print("output needs numpy")
                server.stop()
            """)
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines(), ["array [1.25, 1.0, -0.5, 2.0, -4.0, 1.0]",
                                            "bytes (-1.0, -12.0, 4.0)", "output needs numpy"])


if __name__ == "__main__":
    unittest.main()
