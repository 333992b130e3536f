"""Tessera: global tensors over a cluster of CPUs or GPUs, from Python.

    import tessera as ts
    p = ts.placement("cpu", ranks=[0, 1, 2])
    x = ts.ones(4, placement=p, sbp=ts.sbp.split(0))
    print(x.numpy())

Importing starts nothing. The runtime (MPI included) starts on the first call that
needs it, or on ts.init(...), and is finalized at interpreter exit (or by
ts.finalize()), so `mpirun -np N python3 prog.py` needs neither.

The package's modules, by concern: _errors (TesseraError and per-code
subclasses), _runtime (init, finalize, world), _placement (Placement, NdSbp, Layout,
placement(), sbp), _infer (OpCall, infer, explain), _tensor (Tensor, creation),
_dlpack, _ops, _collectives (box, allreduce), _plan (Program, capture, compile),
over the private SWIG module _capi, whose raw functions (placement_parse,
layout_range, ...) and constants are re-exported here as they were.
"""

# The raw layer first: what follows replaces some of its names with checked forms.
from ._capi import *  # noqa: F401,F403
from . import _capi

from ._errors import (  # noqa: F401
    AbortedError, AlreadyExistsError, CancelledError, DataLossError, DeadlineExceededError,
    FailedPreconditionError, InternalError, InvalidArgumentError, NotFoundError,
    OutOfRangeError, PermissionDeniedError, ResourceExhaustedError, TesseraError,
    UnavailableError, UnimplementedError, UnknownError)
from ._runtime import (  # noqa: F401
    CudaInfo, _runtime_started, cuda_info, finalize, init, world_rank, world_size)
from ._runtime import check_version as _check_version, needs_runtime as _needs_runtime
from ._placement import layout, placement, sbp  # noqa: F401
from ._infer import (  # noqa: F401
    InferCacheStats, TensorMeta, infer_cache_stats, op_names)
from ._dtypes import bfloat16, float16, float32, float64, int32, int64  # noqa: F401
from ._tensor import (  # noqa: F401
    arange, from_local, full, ones, rand, randn, tensor, tensor_arange, tensor_full,
    tensor_rand, tensor_randn, zeros)
from ._dlpack import from_dlpack  # noqa: F401
from ._ops import (  # noqa: F401
    add, apply, div, exp, explain, gelu, matmul, maximum, minimum, mul, neg, reduce_max,
    reduce_mean, reduce_min, reduce_sum, relu, sigmoid, softmax, sqrt, sub, tanh)
from ._collectives import (  # noqa: F401
    BucketStats, allreduce, box, box_plan, bucketed_allreduce)
from ._plan import ProgramSizes, capture, capturing, compile  # noqa: F401

# Raw buffers without checks: only the checked forms (tensor, from_local) are public.
del tensor_from_host, tensor_from_local  # noqa: F821

# Raw functions that need a running runtime start it first.
capture_begin = _needs_runtime(_capi.capture_begin)
capture_placeholder = _needs_runtime(_capi.capture_placeholder)
plan_compile = _needs_runtime(_capi.plan_compile)

_check_version()
