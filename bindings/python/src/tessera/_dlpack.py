"""DLPack (the Python array API's interchange protocol): Tensor.__dlpack__ and
__dlpack_device__ export this rank's local piece, zero-copy and read-only (or a copy
when asked); from_dlpack() imports another library's array as this rank's piece (a
copy)."""

import os

from . import _capi
from ._capi import Tensor
from ._dtypes import has_numpy_array
from ._placement import require
from ._runtime import cuda_info, ensure_started
from ._tensor import from_local

KDL_CPU = 1
KDL_CUDA = 2


def _tensor_dlpack_device(self):
    """(device_type, device_id) of this rank's local piece, as DLPack numbers them:
    (1, 0) for a cpu piece (kDLCPU), (2, id) for a cuda one (kDLCUDA and the CUDA
    device holding it, local rank % device count). Read from the export itself,
    which for a cuda piece first waits for the kernels writing it. On a rank the
    placement lacks (no piece), the device such a piece would have."""
    if self.has_local:
        return _capi._tensor_dlpack_device(self)
    if self.placement.device_type == _capi.DEVICE_CPU:
        return (KDL_CPU, 0)
    # No piece to ask: the C API's documented choice (and no getter for it).
    count = cuda_info().device_count
    local_rank = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    return (KDL_CUDA, local_rank % count if count > 0 else 0)


def _check_stream(stream, device_type):
    """The array API's rules for `stream`. kDLCPU has no streams: None (or -1, "do
    not synchronise") only. kDLCUDA: None, -1, 1, 2 or a stream pointer > 2; 0 is
    ambiguous and refused. The export waits for the kernels writing the piece before
    it returns (the C API's contract), so the data is ready for work on any stream
    and no stream needs an event."""
    if stream is None:
        return
    if not isinstance(stream, int) or isinstance(stream, bool):
        raise TypeError("__dlpack__: stream must be None or an int, got %r" % (stream,))
    if device_type == KDL_CPU:
        if stream != -1:
            raise ValueError("__dlpack__: a cpu tensor takes stream=None (or -1), got %d"
                             % stream)
    elif stream == 0 or stream < -1:
        raise ValueError("__dlpack__: stream %d is not valid for CUDA (None, -1, 1, 2 or a "
                         "stream > 2)" % stream)


def _tensor_dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of this rank's local piece, zero-copy and read-only:
    "dltensor_versioned" when the consumer passes max_version >= (1, 0), else the
    pre-1.0 "dltensor" (numpy < 2.1 asks for that). `stream` per _check_stream;
    `dl_device` must be None or __dlpack_device__(). copy=True exports a writable
    copy the capsule owns (flagged IS_COPIED when versioned; host pieces only,
    BufferError for a cuda one); None and False export without copying."""
    cpu = self.placement.device_type == _capi.DEVICE_CPU
    _check_stream(stream, KDL_CPU if cpu else KDL_CUDA)
    if dl_device is not None:
        device = self.__dlpack_device__()  # an export of its own: only when asked
        if tuple(dl_device) != tuple(device):
            raise BufferError("tessera: cannot export a piece on device %r to device %r"
                              % (device, tuple(dl_device)))
    versioned = 1 if max_version is not None and tuple(max_version)[0] >= 1 else 0
    if copy:
        return _capi._tensor_to_capsule_copy(self, versioned)
    return _capi._tensor_to_capsule(self, versioned)


Tensor.__dlpack__ = _tensor_dlpack
Tensor.__dlpack_device__ = _tensor_dlpack_device


def from_dlpack(obj, placement=None, sbp=None, shape=None):
    """The global tensor whose piece on this rank is `obj` (anything with
    __dlpack__, such as a numpy array, or a DLPack capsule): the data is copied, as
    from_local does; `shape` as there. Collective."""
    p, s = require("from_dlpack", placement, sbp)
    capsule = obj
    if hasattr(obj, "__dlpack__"):
        try:
            try:
                capsule = obj.__dlpack__(max_version=(1, 0))
            except TypeError:  # a producer from before DLPack 1.0 (numpy < 2.1)
                capsule = obj.__dlpack__()
        except BufferError:
            # numpy < 2.1 will not export a read-only array (the old struct cannot say
            # so); the data is copied either way.
            if not has_numpy_array(obj):
                raise
            return from_local(obj, placement=placement, sbp=sbp, shape=shape)
    ensure_started()
    return _capi._tensor_from_capsule(capsule, p, s,
                                      None if shape is None else [int(d) for d in shape])
