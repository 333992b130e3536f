"""The runtime's life: nothing at import; started by the first call that needs it
(tensor creation, boxing, collectives, plan compile, world_rank/world_size) or by
an explicit init(); finalized at interpreter exit (atexit) or by finalize().

tess_runtime_init initialises MPI (MPI_Init_thread) unless the host program already did;
tess_runtime_finalize finalises it only if tess_runtime_init did, and MPI cannot start again after
it, so a call that needs the runtime after finalize() raises FailedPreconditionError.
"""

import atexit
import collections
import functools
import operator
import os
import sys
import threading

from . import _capi
from ._errors import invalid_argument

_lock = threading.Lock()
_state = "new"  # new -> started -> finalized
_finalize_at_exit = True
_atexit_registered = False
_started_pid = None  # a forked child inherits the state, not the right to finalize
_before_finalize = []  # callables run by finalize() first (closing live servers)


def before_finalize(fn):
    """Registers fn() to run at the start of finalize(), while the runtime still runs."""
    _before_finalize.append(fn)
    return fn


def _runtime_started():
    """Whether this process started the runtime (init() ran, explicitly or on first
    use) and has not finalized it."""
    return _state == "started"


def _start(options=None):
    """Starts the runtime: with the defaults (tess_runtime_init), or with `options`,
    (collective_timeout_seconds, cuda_device, check_mode) for tess_runtime_init_with_options, which
    also checks them (and applies the timeout) when the runtime already runs."""
    global _state, _atexit_registered, _started_pid
    with _lock:
        if _state == "started" and options is None:
            return
        # FailedPreconditionError after finalize: MPI cannot restart.
        if options is None:
            _capi.runtime_init()
        else:
            _capi.runtime_init_with_options(*options)
        if _state == "started":
            return
        _state = "started"
        _started_pid = os.getpid()
        if not _atexit_registered:
            atexit.register(_at_exit)
            _atexit_registered = True


def ensure_started():
    """Starts the runtime unless it runs. Every call that needs it calls this first."""
    if _state != "started":
        _start()


def needs_runtime(fn):
    """`fn` (a raw function of the C API) preceded by ensure_started()."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _state != "started":
            _start()
        return fn(*args, **kwargs)

    return wrapper


def init(*, collective_timeout=None, cuda_device=None, check=None, finalize_at_exit=True):
    """Starts the runtime now (tess_runtime_init_with_options): initialises MPI unless the
    host program already did; without mpirun the process is a world of one rank.
    Idempotent. Optional: `collective_timeout` seconds bounding every collective (>= 0;
    0: wait forever; the same value on every rank; None keeps the process default, see
    set_collective_timeout), `cuda_device` the CUDA device this rank drives for cuda
    placements (None: local rank % visible devices; UnimplementedError in a build
    without CUDA; chosen once per process), `check` True or False to turn check mode
    (divergence detection: the ranks of every op, boxing, collective and plan run agree
    the call first, and ranks that issued different calls all raise
    FailedPreconditionError; docs/reliability.md) on or off for every rank alike (None:
    the environment's TESSERA_CHECK decides, unset meaning off), and
    `finalize_at_exit=False` to leave the
    runtime running at interpreter exit (the program then calls finalize() itself, say
    before mpi4py finalizes MPI). Called again while the runtime runs, it checks and
    applies the options. The runtime also starts by itself, with the defaults, on the
    first call that needs it."""
    global _finalize_at_exit
    timeout = -1.0  # the C API's "keep the process default"
    if collective_timeout is not None:
        timeout = float(collective_timeout)
        if not timeout >= 0:  # also NaN
            raise invalid_argument("init: collective_timeout is %r; expected seconds >= 0 "
                                   "(0: wait forever) or None" % (collective_timeout,))
    if check is not None and not isinstance(check, bool):
        raise invalid_argument("init: check is %r; expected True, False or None" % (check,))
    check_mode = -1 if check is None else int(check)
    # The C API checks the device (InvalidArgumentError naming a negative one but -1).
    _start((timeout, -1 if cuda_device is None else operator.index(cuda_device), check_mode))
    _finalize_at_exit = bool(finalize_at_exit)


def finalize():
    """Stops the runtime (tess_runtime_finalize; MPI_Finalize if tess_runtime_init initialised MPI).
    Idempotent, and a no-op if it never started; the atexit hook then does nothing.
    Calls that need the runtime afterwards raise FailedPreconditionError. Servers
    still open are closed first (a driver stops, releasing its followers)."""
    global _state
    with _lock:
        if _state != "started":
            return
        for fn in _before_finalize:
            fn()
        _state = "finalized"
        _capi.runtime_finalize()


def _at_exit():
    if _state != "started" or not _finalize_at_exit or os.getpid() != _started_pid:
        return
    try:
        finalize()
    except Exception as e:  # exiting anyway: say so, but do not mask the exit status
        sys.stderr.write("tessera: finalize at exit failed: %s\n" % (e,))


def world_rank():
    """This process's rank in the world (starts the runtime)."""
    ensure_started()
    return _capi.runtime_world_rank()


def world_size():
    """The number of ranks in the world (starts the runtime)."""
    ensure_started()
    return _capi.runtime_world_size()


Topology = collections.namedtuple(
    "Topology", "world_size world_rank host_count host_index local_rank local_size "
    "min_ranks_per_host max_ranks_per_host pretend_ranks_per_host cuda_device")
Topology.__module__ = "tessera"
Topology.__doc__ = (
    "Where the ranks sit, as the runtime found it when it started: ranks that share memory "
    "(MPI_COMM_TYPE_SHARED) form a host, unless TESSERA_RANKS_PER_HOST made pretend hosts "
    "(pretend_ranks_per_host, else 0). Hosts are numbered by their lowest world rank. "
    "cuda_device is the CUDA device this rank drives, -1 for none.")


def topology():
    """This rank's view of the world's hosts (Topology; starts the runtime). Local."""
    ensure_started()
    return Topology(*_capi.runtime_topology())


def rank_host(world_rank):
    """(host, local_rank) of world rank `world_rank` (starts the runtime). OutOfRangeError
    for a rank outside the world. Local."""
    ensure_started()
    return tuple(_capi.runtime_rank_host(operator.index(world_rank)))


def topology_string():
    """The topology as text, the same on every rank: a line for the world, then one per
    host with its name and ranks (and each rank's GPU, when ranks drive one). Starts the
    runtime."""
    ensure_started()
    return _capi.runtime_topology_string()


CudaInfo = collections.namedtuple("CudaInfo", "built_with_cuda device_count")
CudaInfo.__module__ = "tessera"
CudaInfo.__doc__ = ("Whether the library was built with CUDA (--config=cuda), and the CUDA "
                    "devices this process sees (0 without a CUDA build or a GPU).")


def cuda_info():
    """Whether cuda placements can hold tensors here (CudaInfo): without a CUDA build
    their tensor calls raise UnimplementedError, with one but no device
    UnavailableError. Local; needs no runtime."""
    built, count = _capi.runtime_cuda_info()
    return CudaInfo(bool(built), count)


def check_version():
    if _capi.version_number() != _capi.VERSION_NUMBER:
        raise ImportError("tessera: bindings built for %d but the library is %s (%d)"
                          % (_capi.VERSION_NUMBER, _capi.version(), _capi.version_number()))
