"""The host caching allocators' counters (tess_allocator_get_stats): allocator_stats(),
AllocatorStats. Local; needs no runtime."""

import collections

from . import _capi
from ._errors import invalid_argument

AllocatorStats = collections.namedtuple(
    "AllocatorStats", "bytes_in_use peak_bytes_in_use bytes_reserved num_allocs num_frees "
    "num_cache_hits num_system_allocs num_system_frees num_segments")
AllocatorStats.__module__ = "tessera"
AllocatorStats.__doc__ = (
    "A caching allocator's counters; byte counts are block sizes (requests after rounding). "
    "bytes_in_use: handed out and not yet freed; peak_bytes_in_use: the most so far; "
    "bytes_reserved: held from the system (in use plus cached); num_allocs, num_frees; "
    "num_cache_hits: allocations served without a system allocation; num_system_allocs, "
    "num_system_frees; num_segments: system allocations held now.")

_ALLOCATORS = {"host": _capi.ALLOCATOR_HOST, "host_thread": _capi.ALLOCATOR_HOST_THREAD}


def allocator_stats(which="host"):
    """The counters (AllocatorStats) of a host caching allocator: "host", the
    process-wide one (plan registers, staging), or "host_thread", the calling thread's
    own (eager tensors made on it)."""
    allocator = _ALLOCATORS.get(which) if isinstance(which, str) else None
    if allocator is None:
        raise invalid_argument("allocator_stats: which is %r; expected \"host\" or "
                               "\"host_thread\"" % (which,))
    return AllocatorStats(*_capi.allocator_get_stats(allocator))
