"""The Python tensor API in a world of one rank: creation, metadata, numpy and DLPack
interchange, every op and operator against numpy, explain, and bad inputs."""

import math
import os
import threading
import unittest

import numpy as np

import tessera as ts
from tessera_test_util import TesseraTestCase


class TensorTestCase(TesseraTestCase):
    def setUp(self):
        self.p = ts.placement("cpu", ranks=[0])
        self.grid = ts.placement("cpu", ranks=[[0]])

    def values(self, shape, dtype=np.float32, salt=0):
        n = int(np.prod(shape))
        v = (np.arange(n) * 7 + salt) % 23 - 11
        return (v * 0.25).astype(dtype).reshape(shape)


class PlacementAndSbpTest(TensorTestCase):
    def test_placement(self):
        self.assertEqual(str(ts.placement("cpu", ranks=[0, 1])), "cpu:[0,1]")
        self.assertEqual(str(ts.placement("cuda", ranks=[[0, 1], [2, 3]])), "cuda:[[0,1],[2,3]]")
        self.assertEqual(ts.placement("cpu", ranks=[[0, 1], [2, 3]]).hierarchy, (2, 2))
        self.assertEqual(str(ts.placement("cpu:0-2")), "cpu:[0,1,2]")
        self.assertTesseraError(ts.InvalidArgumentError, "not rectangular", ts.placement, "cpu",
                                ranks=[[0, 1], [2]])
        self.assertTesseraError(ts.InvalidArgumentError, "device type 'tpu'", ts.placement, "tpu",
                                ranks=[0])
        self.assertTesseraError(ts.InvalidArgumentError, "lists rank 0 twice", ts.placement,
                                "cpu", ranks=[0, 0])
        self.assertTesseraError(ts.InvalidArgumentError, "empty rank list", ts.placement, "cpu",
                                ranks=[])

    def test_sbp_values(self):
        self.assertEqual(str(ts.sbp.split(1)), "S(1)")
        self.assertEqual(repr(ts.sbp.split(1)), "tessera.sbp.split(1)")
        self.assertEqual(str(ts.sbp.broadcast), "B")
        self.assertEqual(str(ts.sbp.partial_sum), "P")
        self.assertEqual(str(ts.sbp.partial_max), "P(max)")
        self.assertEqual(repr(ts.sbp.partial_min), "tessera.sbp.partial_min")
        self.assertEqual(ts.sbp.split(0), ts.sbp.split(0))
        self.assertNotEqual(ts.sbp.split(0), ts.sbp.split(1))
        self.assertTesseraError(ts.InvalidArgumentError, "axis must be an int >= 0",
                                ts.sbp.split, -1)
        x = ts.zeros(2, 2, placement=self.grid, sbp=(ts.sbp.split(1), "P(max)"))
        self.assertEqual(x.sbp, (ts.sbp.split(1), ts.sbp.partial_max))
        self.assertEqual(str(x.nd_sbp), "(S(1), P(max))")
        with self.assertRaises(TypeError):
            ts.zeros(2, placement=self.p, sbp=3)


class CreationTest(TensorTestCase):
    def test_tensor_round_trips_every_dtype(self):
        for dtype in (np.float32, np.float64, np.int32, np.int64):
            a = self.values((4, 3), dtype)
            for sbp in (ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast, ts.sbp.partial_sum,
                        ts.sbp.partial_max, ts.sbp.partial_min):
                t = ts.tensor(a, placement=self.p, sbp=sbp)
                self.assertEqual(t.dtype, np.dtype(dtype))
                self.assertEqual(t.shape, (4, 3))
                np.testing.assert_array_equal(t.numpy(), a)
        mask = np.array([[True, False, True], [False, False, True]])
        for sbp in (ts.sbp.split(0), ts.sbp.split(1), ts.sbp.broadcast):
            t = ts.tensor(mask, placement=self.p, sbp=sbp)
            self.assertEqual(t.dtype, np.dtype(bool))
            np.testing.assert_array_equal(t.numpy(), mask)
        # Python lists: floats become float32, ints int64; an explicit dtype converts.
        self.assertEqual(ts.tensor([1.5, 2], placement=self.p, sbp="B").dtype, np.float32)
        self.assertEqual(ts.tensor([[1, 2]], placement=self.p, sbp="B").dtype, np.int64)
        t = ts.tensor([1, 2], dtype=ts.float64, placement=self.p, sbp="B")
        self.assertEqual(t.dtype, np.float64)
        # Non-contiguous arrays are copied into order first.
        a = self.values((4, 6))[:, ::2]
        np.testing.assert_array_equal(ts.tensor(a, placement=self.p, sbp="S(1)").numpy(), a)

    def test_negative_split_axes(self):
        """"S(-1)" names the last axis wherever an sbp meets a tensor's shape."""
        a = self.values((4, 3))
        t = ts.tensor(a, placement=self.p, sbp="S(-1)")
        self.assertEqual(t.sbp, (ts.sbp.split(1),))
        np.testing.assert_array_equal(t.numpy(), a)
        u = ts.tensor(a, placement=self.p, sbp="S(0)").to_global(sbp="S(-2)")
        self.assertEqual(u.sbp, (ts.sbp.split(0),))
        for shape in (None, (4, 3)):
            v = ts.from_local(a, placement=self.p, sbp="S(-1)", shape=shape)
            self.assertEqual(v.sbp, (ts.sbp.split(1),))
            self.assertEqual(v.shape, (4, 3))
        self.assertTesseraError(ts.InvalidArgumentError, "splits axis -3 but the tensor of shape "
                                "[4,3] has 2 axes", ts.tensor, a, placement=self.p, sbp="S(-3)")

    def test_tensor_bad_input(self):
        a = self.values((2, 3))
        self.assertTesseraError(ts.InvalidArgumentError, "placement and sbp are required",
                                ts.tensor, a)
        self.assertTesseraError(ts.InvalidArgumentError, "dtype uint8 has no Tessera dtype",
                                ts.tensor, np.ones(2, np.uint8), placement=self.p, sbp="B")
        # bool has no sum, max or min: a bool tensor is never partial.
        self.assertTesseraError(ts.InvalidArgumentError, "dtype bool cannot be partial",
                                ts.tensor, np.ones(2, bool), placement=self.p, sbp="P")
        self.assertTesseraError(ts.InvalidArgumentError, "S(2)", ts.tensor, a, placement=self.p,
                                sbp=ts.sbp.split(2))
        self.assertTesseraError(ts.InvalidArgumentError, "(S(0), B)", ts.tensor, a,
                                placement=self.p, sbp=(ts.sbp.split(0), ts.sbp.broadcast))
        self.assertTesseraError(ts.InvalidArgumentError, "shape has 9 dims", ts.tensor,
                                np.zeros([1] * 9, np.float32), placement=self.p, sbp="B")

    def test_from_local(self):
        a = self.values((3, 2))
        t = ts.from_local(a, placement=self.p, sbp=ts.sbp.split(0))
        self.assertEqual(t.shape, (3, 2))
        np.testing.assert_array_equal(t.numpy(), a)
        t = ts.from_local(a, placement=self.p, sbp=ts.sbp.partial_sum, shape=(3, 2))
        np.testing.assert_array_equal(t.numpy(), a)
        self.assertTesseraError(ts.InvalidArgumentError, "local shape [3,2] is not its part [4,2]",
                                ts.from_local, a, placement=self.p, sbp="S(0)", shape=(4, 2))
        self.assertTesseraError(ts.InvalidArgumentError, "shape (3,) has 1 dims",
                                ts.from_local, a, placement=self.p, sbp="S(0)", shape=(3,))

    def test_full_zeros_ones_arange_rand(self):
        np.testing.assert_array_equal(
            ts.zeros(2, 3, placement=self.p, sbp="B").numpy(), np.zeros((2, 3), np.float32))
        np.testing.assert_array_equal(
            ts.ones((2, 3), dtype=ts.int32, placement=self.p, sbp="S(1)").numpy(),
            np.ones((2, 3), np.int32))
        np.testing.assert_array_equal(
            ts.full((4,), -2.5, dtype=np.float64, placement=self.p, sbp="P").numpy(),
            np.full(4, -2.5))
        t = ts.arange(5, placement=self.p, sbp=ts.sbp.split(0))
        self.assertEqual(t.dtype, np.int64)
        np.testing.assert_array_equal(t.numpy(), np.arange(5))
        np.testing.assert_array_equal(
            ts.arange(1, 0, -0.25, placement=self.p, sbp="B").numpy(),
            np.arange(1, 0, -0.25, dtype=np.float32))
        r1 = ts.rand(3, 4, seed=7, placement=self.p, sbp="S(0)").numpy()
        r2 = ts.rand(3, 4, seed=7, placement=self.grid, sbp=("B", "S(1)")).numpy()
        np.testing.assert_array_equal(r1, r2)
        self.assertTrue(((r1 >= 0) & (r1 < 1)).all())
        self.assertFalse(np.array_equal(r1, ts.rand(3, 4, seed=8, placement=self.p,
                                                    sbp="B").numpy()))
        n = ts.randn(100, dtype=ts.float64, seed=1, placement=self.p, sbp="B").numpy()
        self.assertTrue((n < 0).any() and (n > 0).any())
        self.assertTesseraError(ts.InvalidArgumentError, "value 0.5 is not representable",
                                ts.full, (2,), 0.5, dtype=ts.int32, placement=self.p, sbp="B")
        self.assertTesseraError(ts.InvalidArgumentError, "step non-zero", ts.arange, 0, 4, 0,
                                placement=self.p, sbp="B")
        self.assertTesseraError(ts.InvalidArgumentError, "dtype i32 is not a floating type",
                                ts.rand, 2, dtype=ts.int32, placement=self.p, sbp="B")


class HalfTest(TensorTestCase):
    """f16 is numpy.float16; bf16 is ml_dtypes.bfloat16 where ml_dtypes imports."""

    def test_float16_matches_numpy(self):
        # numpy's float16 arithmetic converts to float32, computes, and rounds to nearest
        # even: Tessera's contract, so numpy is the reference. 65504 + 65504 overflows to
        # inf; 1e-7 is an f16 subnormal; 0.1 and 0.2 are inexact.
        a = np.array([1.0, 0.1, 65504, 1e-7, -2.5, 3.0], dtype=np.float16)
        b = np.array([3.0, 0.2, 65504, 1e-7, 0.75, 1 / 3], dtype=np.float16)
        x = ts.tensor(a, placement=self.p, sbp="S(0)")
        y = ts.tensor(b, placement=self.p, sbp="B")
        self.assertEqual(x.dtype, np.float16)
        np.testing.assert_array_equal(x.numpy(), a)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal((x + y).numpy(), a + b)
            np.testing.assert_array_equal((x * y).numpy(), a * b)
            np.testing.assert_array_equal((x / y).numpy(), a / b)

    def test_bfloat16(self):
        if not ts.has_bfloat16():
            bits = ts.full([2], 1.5, dtype="bf16", placement=self.p, sbp="B")
            self.assertTesseraError(
                ts.UnimplementedError,
                "dtype bf16 has no numpy type without ml_dtypes (pip install ml_dtypes)",
                bits.numpy)
            return
        import ml_dtypes
        a = np.array([1.0, 0.1, 3.0, -2.5], dtype=ml_dtypes.bfloat16)
        x = ts.tensor(a, placement=self.p, sbp="S(0)")
        self.assertEqual(x.dtype, np.dtype(ml_dtypes.bfloat16))
        np.testing.assert_array_equal(x.numpy(), a)
        # The sum in float32, rounded once to bf16 (computed here through float32).
        want = (a.astype(np.float32) + a.astype(np.float32)).astype(ml_dtypes.bfloat16)
        np.testing.assert_array_equal((x + x).numpy(), want)


class CudaTest(TensorTestCase):
    """cuda_info, and cuda placements behaving as it says: UNIMPLEMENTED without a CUDA
    build, UNAVAILABLE without a device, a round trip through add with one."""

    def test_cuda_info(self):
        info = ts.cuda_info()
        self.assertIsInstance(info, ts.CudaInfo)
        self.assertIsInstance(info.built_with_cuda, bool)
        self.assertGreaterEqual(info.device_count, 0)
        if not info.built_with_cuda:
            self.assertEqual(info.device_count, 0)
        # BUILD sets it from the build configuration (tools/cuda.bzl's if_cuda).
        built = os.environ.get("TESSERA_TEST_CUDA_BUILD")
        if built is not None:
            self.assertEqual(info.built_with_cuda, built == "1")
        self.assertEqual(ts.cuda_info(), info)

    def test_cuda_placement_follows_cuda_info(self):
        cuda = ts.placement("cuda", ranks=[0])
        a = self.values((5, 3))
        b = self.values((5, 3), salt=4)
        info = ts.cuda_info()
        if not info.built_with_cuda:
            self.assertTesseraError(
                ts.UnimplementedError,
                "tess_tensor_from_host: eager tensors on cuda:[0]: this Tessera was built "
                "without CUDA, so only cpu placements hold eager tensors (build with "
                "--config=cuda)", ts.tensor, a, placement=cuda, sbp="S(0)")
            return
        if info.device_count == 0:
            self.assertTesseraError(ts.UnavailableError, "no CUDA device visible", ts.tensor, a,
                                    placement=cuda, sbp="S(0)")
            return
        x = ts.tensor(a, placement=cuda, sbp="S(0)")
        y = ts.tensor(b, placement=cuda, sbp="B")
        self.assertEqual(str(x.placement), "cuda:[0]")
        want = np.empty_like(a)
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                want[i, j] = a[i, j] + b[i, j]
        np.testing.assert_array_equal((x + y).numpy(), want)


class TensorMetadataTest(TensorTestCase):
    def test_metadata(self):
        t = ts.tensor(self.values((5, 6)), placement=self.grid,
                      sbp=(ts.sbp.split(1), ts.sbp.split(0)))
        self.assertEqual(t.shape, (5, 6))
        self.assertEqual(t.ndim, 2)
        self.assertEqual(len(t), 5)
        self.assertEqual(t.num_elements, 30)
        self.assertEqual(t.dtype, np.float32)
        self.assertEqual(t.placement, self.grid)
        self.assertEqual(t.sbp, (ts.sbp.split(1), ts.sbp.split(0)))
        self.assertTrue(t.has_local)
        self.assertEqual(t.local_shape, (5, 6))
        self.assertEqual(t.local_num_elements, 30)
        self.assertEqual(str(t), "[5,6] f32 cpu:[[0]] (S(1), S(0))")
        self.assertEqual(repr(t), "tessera.Tensor([5,6] f32 cpu:[[0]] (S(1), S(0)))")
        # Shapes come whole (tess_tensor_shape, tess_tensor_local_shape): no per-dim getter.
        self.assertEqual((ts.tensor_shape(t), ts.tensor_local_shape(t)), ((5, 6), (5, 6)))
        for name in ("dim", "local_dim"):
            self.assertFalse(hasattr(t, name), name)
        for name in ("tensor_ndim", "tensor_dim", "tensor_local_ndim", "tensor_local_dim",
                     "layout_ndim", "layout_local_dim", "infer_result_output_ndim",
                     "infer_result_output_dim", "plan_instance_output_local_ndim",
                     "plan_instance_output_local_dim"):
            self.assertFalse(hasattr(ts._capi, name), name)
        scalar = ts.tensor(1.0, placement=self.p, sbp="B")
        self.assertEqual(scalar.shape, ())
        self.assertEqual((scalar.ndim, scalar.local_shape, scalar.local_ndim), (0, (), 0))
        np.testing.assert_array_equal(scalar.numpy(), np.float32(1.0))
        with self.assertRaises(TypeError):
            len(scalar)

    def test_rank_outside_the_placement(self):
        t = ts.ones(4, placement=ts.placement("cpu", ranks=[1]), sbp="B")
        self.assertFalse(t.has_local)
        self.assertEqual(t.shape, (4,))
        self.assertTesseraError(ts.FailedPreconditionError,
                                "tess_tensor_local_shape: rank 0 holds no local piece",
                                getattr, t, "local_shape")
        self.assertTesseraError(ts.FailedPreconditionError, "rank 0 holds no local piece",
                                t.to_local)
        self.assertTesseraError(ts.FailedPreconditionError, "rank 0 holds no local piece",
                                t.__dlpack__)

    def test_close(self):
        t = ts.zeros(2, placement=self.p, sbp="B")
        t.close()
        t.close()
        with self.assertRaises(TypeError):
            t.numpy()


class AllocatorStatsTest(TensorTestCase):
    def test_thread_allocator_counts_a_tensor(self):
        # A fresh thread's own allocator: 1000 f32 elements are one 4000-byte request,
        # a 4096-byte block (requests round up to 512 bytes).
        seen = []

        def body():
            seen.append(ts.allocator_stats("host_thread"))
            t = ts.zeros(1000, placement=self.p, sbp="B")
            seen.append(ts.allocator_stats("host_thread"))
            t.close()
            seen.append(ts.allocator_stats("host_thread"))

        thread = threading.Thread(target=body)
        thread.start()
        thread.join()
        before, held, after = seen
        self.assertEqual(before, ts.AllocatorStats(0, 0, 0, 0, 0, 0, 0, 0, 0))
        self.assertEqual((held.bytes_in_use, held.peak_bytes_in_use, held.num_allocs,
                          held.num_frees, held.num_system_allocs, held.num_segments),
                         (4096, 4096, 1, 0, 1, 1))
        self.assertGreaterEqual(held.bytes_reserved, 4096)
        self.assertEqual((after.bytes_in_use, after.peak_bytes_in_use, after.num_frees),
                         (0, 4096, 1))

    def test_process_allocator(self):
        stats = ts.allocator_stats()
        self.assertEqual(stats, ts.allocator_stats("host"))
        self.assertEqual(stats._fields[0], "bytes_in_use")
        self.assertEqual(len(stats), 9)
        self.assertGreaterEqual(stats.peak_bytes_in_use, stats.bytes_in_use)
        self.assertGreaterEqual(stats.bytes_reserved, stats.bytes_in_use)

    def test_bad_allocator(self):
        for which in ("gpu", "HOST", 0, None):
            self.assertTesseraError(ts.InvalidArgumentError,
                                    "allocator_stats: which is %r; expected \"host\" or "
                                    "\"host_thread\"" % (which,), ts.allocator_stats, which)
        self.assertTesseraError(ts.InvalidArgumentError,
                                "tess_allocator_get_stats: allocator 7 is not a known allocator",
                                ts.allocator_get_stats, 7)
        self.assertEqual(len(ts.allocator_get_stats(ts.ALLOCATOR_HOST_THREAD)), 9)


class DataTest(TensorTestCase):
    def test_numpy_to_local_to_global(self):
        a = self.values((3, 4))
        t = ts.tensor(a, placement=self.p, sbp="S(0)")
        np.testing.assert_array_equal(t.to_local(), a)
        g = t.to_global(placement=self.grid, sbp=(ts.sbp.split(1), ts.sbp.partial_sum))
        self.assertEqual(str(g), "[3,4] f32 cpu:[[0]] (S(1), P)")
        np.testing.assert_array_equal(g.numpy(), a)
        b = t.to_global(sbp=ts.sbp.broadcast)
        self.assertEqual(b.placement, self.p)
        self.assertEqual(b.sbp, (ts.sbp.broadcast,))
        self.assertTesseraError(ts.InvalidArgumentError, "S(5)", t.to_global,
                                sbp=ts.sbp.split(5))

    def test_raw_buffers_are_checked(self):
        t = ts.tensor(self.values((2, 3)), placement=self.p, sbp="B")
        small = bytearray(8)
        self.assertTesseraError(ts.InvalidArgumentError,
                                "tess_tensor_to_host: out has 8 bytes but 6 f32 elements need 24",
                                ts.tensor_to_host, small, t)
        self.assertTesseraError(ts.InvalidArgumentError, "out has 4 bytes",
                                ts.tensor_copy_local, bytearray(4), t)
        with self.assertRaises(BufferError):
            ts.tensor_to_host(b"read-only bytes", t)
        self.assertFalse(hasattr(ts, "tensor_from_host"))

    def test_dlpack(self):
        a = self.values((3, 2), np.float64)
        t = ts.tensor(a, placement=self.p, sbp="S(0)")
        self.assertEqual(t.__dlpack_device__(), (1, 0))
        view = np.from_dlpack(t)  # numpy 1.24 asks for the legacy capsule
        np.testing.assert_array_equal(view, a)
        self.assertFalse(view.flags.writeable)
        del t  # the view keeps the data alive
        np.testing.assert_array_equal(view, a)
        t = ts.tensor(a, placement=self.p, sbp="B")
        capsule = t.__dlpack__(max_version=(1, 0))
        self.assertIn('"dltensor_versioned"', repr(capsule))
        self.assertIn('"dltensor"', repr(t.__dlpack__()))
        back = ts.from_dlpack(capsule, placement=self.p, sbp="S(0)")
        np.testing.assert_array_equal(back.numpy(), a)
        with self.assertRaises(TypeError):
            ts.from_dlpack(capsule, placement=self.p, sbp="S(0)")  # already consumed
        with self.assertRaises(TypeError):
            ts.from_dlpack(42, placement=self.p, sbp="B")
        # From numpy: any strides, either capsule kind.
        m = np.arange(12, dtype=np.int32).reshape(3, 4)[::-1, ::2]
        t = ts.from_dlpack(m, placement=self.p, sbp="B")
        np.testing.assert_array_equal(t.numpy(), m)
        t = ts.from_dlpack(m.copy(), placement=self.p, sbp="S(1)", shape=(3, 2))
        np.testing.assert_array_equal(t.numpy(), m)
        # A read-only numpy array (which numpy 1.24 will not export) is copied instead.
        np.testing.assert_array_equal(
            ts.from_dlpack(view, placement=self.p, sbp="B").numpy(), view)
        self.assertTesseraError(ts.InvalidArgumentError, "DLPack dtype (code 1, bits 8",
                                ts.from_dlpack, np.zeros(3, np.uint8), placement=self.p, sbp="B")
        # copy=True: a copy the capsule owns (the array API asks the producer to copy).
        copied = ts.from_dlpack(t.__dlpack__(copy=True), placement=self.p, sbp="B")
        np.testing.assert_array_equal(copied.numpy(), m)
        with self.assertRaises(BufferError):
            t.__dlpack__(dl_device=(2, 0))


class OpsTest(TensorTestCase):
    def setUp(self):
        super().setUp()
        self.a = self.values((2, 3))
        self.b = self.values((3,), salt=5) + np.float32(12)  # nonzero, for div
        self.x = ts.tensor(self.a, placement=self.p, sbp="S(0)")
        self.y = ts.tensor(self.b, placement=self.p, sbp="B")

    def test_binary_ops_and_operators(self):
        cases = [(ts.add, np.add), (ts.sub, np.subtract), (ts.mul, np.multiply),
                 (ts.div, np.divide), (ts.maximum, np.maximum), (ts.minimum, np.minimum)]
        for op, ref in cases:
            np.testing.assert_allclose(op(self.x, self.y).numpy(), ref(self.a, self.b),
                                       rtol=1e-6, err_msg=op.__name__)
            np.testing.assert_allclose(op(self.x, 2).numpy(), ref(self.a, np.float32(2)),
                                       rtol=1e-6, err_msg=op.__name__)
            np.testing.assert_allclose(op(3, self.y).numpy(), ref(np.float32(3), self.b),
                                       rtol=1e-6, err_msg=op.__name__)
        np.testing.assert_allclose((self.x + self.y).numpy(), self.a + self.b)
        np.testing.assert_allclose((self.x - self.y).numpy(), self.a - self.b)
        np.testing.assert_allclose((self.x * self.y).numpy(), self.a * self.b)
        np.testing.assert_allclose((self.x / self.y).numpy(), self.a / self.b, rtol=1e-6)
        np.testing.assert_allclose((1 - self.x).numpy(), 1 - self.a)
        np.testing.assert_allclose((2 / self.y).numpy(), 2 / self.b, rtol=1e-6)
        np.testing.assert_allclose((0.5 + self.x).numpy(), 0.5 + self.a)
        np.testing.assert_allclose((-self.x).numpy(), -self.a)
        self.assertTesseraError(ts.InvalidArgumentError, "tess_add: add", ts.add, self.x,
                                ts.tensor(np.ones(2, np.float32), placement=self.p, sbp="B"))
        with self.assertRaises(TypeError):
            ts.add(self.x, "two")

    def test_unary_ops(self):
        a = self.a
        erf = np.vectorize(math.erf)
        cases = [(ts.relu, np.maximum(a, 0), 1e-6), (ts.gelu, 0.5 * a * (1 + erf(a / 2 ** 0.5)),
                                                   1e-3),
                 (ts.sigmoid, 1 / (1 + np.exp(-a)), 1e-5), (ts.tanh, np.tanh(a), 1e-5),
                 (ts.exp, np.exp(a), 1e-5), (ts.neg, -a, 0),
                 (ts.sqrt, np.sqrt(np.abs(a)), 1e-6)]
        for op, want, tol in cases:
            x = ts.tensor(np.abs(a), placement=self.p, sbp="S(1)") if op is ts.sqrt else self.x
            np.testing.assert_allclose(op(x).numpy(), want, rtol=tol, atol=tol,
                                       err_msg=op.__name__)
        np.testing.assert_allclose(self.x.relu().numpy(), np.maximum(a, 0))
        self.assertTesseraError(ts.InvalidArgumentError, "tess_gelu: gelu", ts.gelu,
                                ts.arange(3, placement=self.p, sbp="B"))

    def test_generated_ops(self):
        """abs and pow (added through the op table), and ops whose typed functions are
        generated: repeated inputs, several outputs, dtype and int-list attributes."""
        a, b = self.a, self.b
        np.testing.assert_allclose(ts.abs(self.x).numpy(), np.abs(a))
        np.testing.assert_allclose(abs(self.x).numpy(), np.abs(a))
        np.testing.assert_allclose(self.x.abs().numpy(), np.abs(a))
        # Negative bases with integral exponents, broadcasting, numbers as tensors.
        exps = ts.tensor(np.array([2, 3, 0], np.float32), placement=self.p, sbp="B")
        np.testing.assert_allclose(ts.pow(self.x, exps).numpy(),
                                   np.power(a, np.array([2, 3, 0], np.float32)), rtol=1e-6)
        np.testing.assert_allclose((self.x ** 2).numpy(), a ** 2, rtol=1e-6)
        np.testing.assert_allclose((2 ** self.y).numpy(), 2 ** b, rtol=1e-6)
        self.assertTrue(np.isnan(ts.pow(ts.tensor(np.array([-8.0]), placement=self.p, sbp="B"),
                                        0.5).numpy()[0]))
        self.assertTesseraError(ts.InvalidArgumentError, "tess_pow: pow", ts.pow,
                                ts.arange(3, placement=self.p, sbp="B"),
                                ts.arange(3, placement=self.p, sbp="B"))
        np.testing.assert_allclose(ts.add_n([self.x, self.x, self.x]).numpy(), 3 * a, rtol=1e-6)
        np.testing.assert_allclose(ts.concat([self.x, self.x], axis=1).numpy(),
                                   np.concatenate([a, a], axis=1))
        self.assertEqual(ts.cast(self.x, "f64").dtype, np.float64)
        self.assertEqual(ts.cast(self.x, np.int32).dtype, np.int32)
        np.testing.assert_allclose(ts.transpose(self.x, perm=(1, 0)).numpy(), a.T)
        np.testing.assert_allclose(ts.reduce_sum(self.x, axis=1).numpy(), a.sum(axis=1),
                                   rtol=1e-6)
        gamma = ts.tensor(np.ones(3, np.float32), placement=self.p, sbp="B")
        beta = ts.tensor(np.zeros(3, np.float32), placement=self.p, sbp="B")
        y, mean, inv_var = ts.layer_norm(self.x, gamma, beta)
        np.testing.assert_allclose(mean.numpy(), a.mean(axis=1), rtol=1e-5, atol=1e-6)
        want = (a - a.mean(axis=1, keepdims=True)) / np.sqrt(a.var(axis=1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5)
        self.assertEqual(inv_var.numpy().shape, (2,))

    def test_training_ops(self):
        """Ops of issue 17 item 8 against numpy: views, log/sin/cos, comparisons to bool
        and where."""
        a, b = self.a, self.b
        x = self.x
        np.testing.assert_array_equal(ts.expand(ts.unsqueeze(x, axis=0), shape=(2, -1, -1)).numpy(),
                                      np.broadcast_to(a[None], (2,) + a.shape))
        np.testing.assert_array_equal(ts.squeeze(ts.unsqueeze(x, axis=1)).numpy(), a)
        np.testing.assert_array_equal(ts.flatten(x).numpy(), a.reshape(-1))
        pos = ts.tensor(np.abs(a) + 0.5, placement=self.p, sbp="S(1)")
        np.testing.assert_allclose(ts.log(pos).numpy(), np.log(np.abs(a) + 0.5), rtol=1e-6)
        np.testing.assert_allclose(ts.sin(x).numpy(), np.sin(a), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(ts.cos(x).numpy(), np.cos(a), rtol=1e-6, atol=1e-7)
        # c equals a in row 0 but one element, and is below it in row 1.
        c = a.copy()
        c[0, 1] += 1
        c[1, :] -= 1
        y = ts.tensor(c, placement=self.p, sbp="B")
        for op, want in ((ts.equal, np.equal), (ts.not_equal, np.not_equal), (ts.less, np.less),
                         (ts.less_equal, np.less_equal), (ts.greater, np.greater),
                         (ts.greater_equal, np.greater_equal)):
            got = op(x, y)
            self.assertEqual(got.dtype, np.dtype(bool))
            np.testing.assert_array_equal(got.numpy(), want(a, c), err_msg=op.__name__)
        cond = ts.greater_equal(x, y)
        np.testing.assert_array_equal(ts.where(cond, x, y).numpy(), np.where(a >= c, a, c + 0))
        np.testing.assert_array_equal(ts.where(cond, y, ts.neg(x)).numpy(), np.where(a >= c, c, -a))
        np.testing.assert_array_equal(ts.cast(cond, np.float32).numpy(),
                                      (a >= c).astype(np.float32))
        self.assertTesseraError(ts.InvalidArgumentError, "expected bool", ts.where, x, x, y)
        w = self.values((3, 4, 5), np.float64)
        tw = ts.tensor(w, placement=self.p, sbp="S(0)")
        np.testing.assert_array_equal(ts.argmax(tw, axis=1).numpy(), np.argmax(w, axis=1))
        np.testing.assert_allclose(ts.cumsum(tw, axis=2).numpy(), np.cumsum(w, axis=2), rtol=1e-12)
        np.testing.assert_allclose(ts.var(tw, axes=(0, 2)).numpy(), np.var(w, axis=(0, 2), ddof=1),
                                   rtol=1e-12)
        np.testing.assert_allclose(ts.std(tw, axes=(1,), correction=0, keepdims=True).numpy(),
                                   np.std(w, axis=1, keepdims=True), rtol=1e-12)
        # Losses over 5 rows split over the placement's ranks: the mean uses all 5.
        logits = self.values((5, 4), np.float64)
        target = np.array([3, 0, 1, 1, 2], np.int64)
        lp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        want = -lp[np.arange(5), target]
        tl = ts.tensor(logits, placement=self.p, sbp="S(0)")
        tt = ts.tensor(target, placement=self.p, sbp="S(0)")
        np.testing.assert_allclose(ts.cross_entropy(tl, tt, reduction=0).numpy(), want,
                                   rtol=1e-12)
        np.testing.assert_allclose(ts.cross_entropy(tl, tt).numpy(), want.mean(), rtol=1e-12)
        tlp = ts.tensor(lp, placement=self.p, sbp="S(0)")
        np.testing.assert_allclose(ts.nll_loss(tlp, tt, reduction=2).numpy(), want.sum(),
                                   rtol=1e-12)

    def test_matmul(self):
        a = self.values((3, 4), np.float64)
        b = self.values((4, 2), np.float64, salt=3)
        ta = ts.tensor(a, placement=self.p, sbp="S(0)")
        tb = ts.tensor(b, placement=self.p, sbp="B")
        np.testing.assert_allclose(ts.matmul(ta, tb).numpy(), a @ b)
        np.testing.assert_allclose((ta @ tb).numpy(), a @ b)
        tat = ts.tensor(a.T.copy(), placement=self.p, sbp="B")
        tbt = ts.tensor(b.T.copy(), placement=self.p, sbp="B")
        np.testing.assert_allclose(
            ts.matmul(tat, tbt, transpose_a=True, transpose_b=True).numpy(), a @ b)
        self.assertTesseraError(ts.InvalidArgumentError, "tess_matmul: matmul", ts.matmul, ta, ta)

    def test_reductions_and_softmax(self):
        a = self.values((2, 3, 4))
        t = ts.tensor(a, placement=self.p, sbp="S(2)")
        for op, ref in ((ts.reduce_sum, np.sum), (ts.reduce_mean, np.mean),
                        (ts.reduce_max, np.max), (ts.reduce_min, np.min)):
            np.testing.assert_allclose(op(t).numpy(), ref(a), rtol=1e-6, err_msg=op.__name__)
            np.testing.assert_allclose(op(t, 1).numpy(), ref(a, axis=1), rtol=1e-6)
            np.testing.assert_allclose(op(t, (0, -1), keepdims=True).numpy(),
                                       ref(a, axis=(0, 2), keepdims=True), rtol=1e-6)
            self.assertTesseraError(ts.InvalidArgumentError, op.__name__, op, t, 3)
        np.testing.assert_allclose(t.sum(axis=0).numpy(), a.sum(axis=0))
        np.testing.assert_allclose(t.mean().numpy(), a.mean(), rtol=1e-6)
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        np.testing.assert_allclose(ts.softmax(t).numpy(), e / e.sum(axis=-1, keepdims=True),
                                   rtol=1e-5)
        e = np.exp(a - a.max(axis=0, keepdims=True))
        np.testing.assert_allclose(t.softmax(0).numpy(), e / e.sum(axis=0, keepdims=True),
                                   rtol=1e-5)

    def test_apply_and_explain(self):
        (out,) = ts.apply("scalar_add", self.x, value=1.5)
        np.testing.assert_allclose(out.numpy(), self.a + 1.5)
        call = ts.OpCall("add").constrain_output(0, "S(1)")
        (out,) = ts.apply(call, self.x, self.y)
        self.assertEqual(out.sbp, (ts.sbp.split(1),))
        np.testing.assert_allclose(out.numpy(), self.a + self.b)
        e = ts.explain()
        self.assertIn("add", e.text)
        self.assertEqual(e.record["op"], "add")
        self.assertTesseraError(ts.InvalidArgumentError, "value", ts.apply, "scalar_add", self.x)
        self.assertTesseraError(ts.NotFoundError, 'no op named "rleu"', ts.apply, "rleu", self.x)
        with_metas = ts.OpCall("relu").input([2, 3], "f32", "cpu:[0]", "S(0)")
        self.assertTesseraError(ts.InvalidArgumentError,
                                "tess_op_call_add_input is for inference", ts.apply, with_metas,
                                self.x)
        with self.assertRaises(TypeError):
            ts.apply("relu", self.a)
        # explain(call) is still the inference explain.
        self.assertIn("relu", ts.explain(with_metas).text)

    def test_explain_before_any_op_on_a_thread(self):
        errors = []

        def work():
            try:
                ts.explain()
                errors.append("no error")
            except ts.FailedPreconditionError as e:
                if "this thread has run no op yet" not in e.message:
                    errors.append(e.message)

        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        self.assertEqual(errors, [])


if __name__ == "__main__":
    unittest.main()
