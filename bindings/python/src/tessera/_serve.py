"""Serving (capi/include/tessera/serve.h): one rank, the driver, takes requests from
any number of threads; the others follow, running in lockstep what it issues.

    every rank:  plan = ts.compile(program)
                 server = ts.Server()                  # collective
                 plan_id = server.add_plan(plan, batching=True)
    driver:      with server.request(plan_id) as r:    # any thread, one per request
                     r.set_input(0, rows)              # numpy array, array.array, bytes
                     server.run(r)                     # blocks; the GIL is released
                     y = r.output(0)                   # (rows, width) numpy array
                 server.stop()
    followers:   server.follow()                       # returns once the driver stops
    every rank:  server.close()

Server and ServeRequest are the SWIG handles; a request keeps its server alive, and
closing a server closes the requests made for it first. numpy is optional: inputs
may be any C-contiguous buffer (bytes, bytearray, memoryview, array.array) and
outputs come back as bytes (output_bytes) or array.array (output_array) too."""

import array
import collections
import operator
import threading
import weakref

from . import _capi
from ._capi import Plan, ServeRequest, Server
from ._dtypes import has_numpy_array, numpy, numpy_dtype
from ._errors import OutOfRangeError, invalid_argument
from ._handles import handle_protocols
from ._runtime import before_finalize, ensure_started

ServePlanInfo = collections.namedtuple(
    "ServePlanInfo", "num_inputs num_outputs capacity_rows max_batch_rows max_queue_delay_us "
    "max_queued_requests batching")
ServePlanInfo.__module__ = "tessera"
ServePlanInfo.__doc__ = ("What a served plan takes and gives, and its options resolved "
                         "(batching a bool; max_batch_rows 0 became the capacity).")

ServerStats = collections.namedtuple(
    "ServerStats", "requests failed_requests runs rows queued_requests health_checks available "
    "stopped heap_allocations_last_batch")
ServerStats.__module__ = "tessera"
ServerStats.__doc__ = ("A server's counters: requests queued, failed_requests (answered with "
                       "an error, and calls refused), runs (batches), rows served, "
                       "queued_requests waiting now, health_checks answered, available and "
                       "stopped (bools), heap_allocations_last_batch (-1: not counted, as in "
                       "libtessera.so).")

ServeRequestInfo = collections.namedtuple(
    "ServeRequestInfo", "batch_rows batch_requests queue_seconds run_seconds")
ServeRequestInfo.__module__ = "tessera"
ServeRequestInfo.__doc__ = ("How a request's last run went: rows and requests of the batch "
                            "that served it, seconds queued, seconds the batch ran.")

# The element of each dtype: (kind: float, int or bool, bytes), and array.array's
# typecode (None: none; bool reads as bytes 0 and 1).
_ELEMENTS = {_capi.DTYPE_F32: ("f", 4, "f"), _capi.DTYPE_F64: ("f", 8, "d"),
             _capi.DTYPE_F16: ("f", 2, None), _capi.DTYPE_BF16: ("f", 2, None),
             _capi.DTYPE_I32: ("i", 4, "i"), _capi.DTYPE_I64: ("i", 8, "q"),
             _capi.DTYPE_BOOL: ("b", 1, "B")}
# struct format characters (memoryview.format, byte order prefix stripped) by kind.
_FLOAT_FORMATS = set("efd")
_INT_FORMATS = set("bhilqnBHILQN")
_BOOL_FORMATS = set("?")
_BYTE_FORMATS = set("Bbc")


def _index(function, name, value):
    """`value` as a C index (>= 0); OutOfRangeError naming it when negative."""
    value = operator.index(value)
    if value < 0:
        raise OutOfRangeError(_capi.OUT_OF_RANGE, "%s: %s is %d; expected >= 0"
                              % (function, name, value))
    return value


def _check_plan_id(function, plan_id):
    plan_id = operator.index(plan_id)
    if not -2**31 <= plan_id < 2**31:
        raise OutOfRangeError(_capi.OUT_OF_RANGE, "%s: plan id %d is unknown"
                              % (function, plan_id))
    return plan_id


# Every open server, closed by finalize() (and so at interpreter exit) while MPI still
# runs: a driver's destroy stops it, which talks to its followers.
_open_servers = weakref.WeakSet()
_open_servers_lock = threading.Lock()


@before_finalize
def _close_open_servers():
    """Closes every driver, and every follower the driver has released (one still in
    follow() on another thread is left alone: closing it would free what it uses)."""
    with _open_servers_lock:
        servers = list(_open_servers)
    for server in servers:
        if server.is_driver or server.stats().stopped:
            server.close()


def _server_init(self, driver_rank=0, follower_timeout=0.0, follower_poll_max_us=0):
    """Server(driver_rank=0, follower_timeout=0.0, follower_poll_max_us=0): a server
    over every rank of the world; rank `driver_rank` drives, the others follow.
    `follower_timeout`: seconds the driver waits for followers before the server is
    unavailable (0: the collective timeout when set, else 30); `follower_poll_max_us`:
    the longest pause between a waiting follower's polls (0: 500). Collective: every
    rank creates its servers in the same order. Starts the runtime."""
    driver_rank = operator.index(driver_rank)
    follower_timeout = float(follower_timeout)
    follower_poll_max_us = operator.index(follower_poll_max_us)
    if not -2**31 <= driver_rank < 2**31:
        raise invalid_argument("Server: driver_rank is %d; not a rank of the world" % driver_rank)
    ensure_started()
    self.this = _capi.server_create(driver_rank, follower_timeout, follower_poll_max_us).this
    self._requests = weakref.WeakSet()
    self._requests_lock = threading.Lock()
    with _open_servers_lock:
        _open_servers.add(self)


def _server_add_plan(self, plan, batching=False, max_batch_rows=0, max_queue_delay_us=0,
                     max_queued_requests=0):
    """Makes `plan` (a Plan whose data inputs and outputs all have the same dim 0, the
    capacity) servable; returns its plan id (0, 1, ... in the order added). Every rank
    adds the same plans in the same order, before follow() or the first run().
    `batching`: requests share runs (concatenated along dim 0 up to `max_batch_rows`
    rows, waiting up to `max_queue_delay_us` for others); `max_batch_rows`: the most
    rows of a request or a batch (0: the capacity); `max_queued_requests`: the most
    waiting requests (0: 4096). Local."""
    if not isinstance(plan, Plan):
        raise TypeError("Server.add_plan: %r is not a Plan" % (plan,))
    if not isinstance(batching, bool):
        raise invalid_argument("Server.add_plan: batching is %r; expected True or False"
                               % (batching,))
    return _capi.server_add_plan(self, plan, int(batching), operator.index(max_batch_rows),
                                 operator.index(max_queue_delay_us),
                                 operator.index(max_queued_requests))


def _server_plan_info(self, plan_id):
    """The ServePlanInfo of plan `plan_id`."""
    info = _capi.server_get_plan_info(self, _check_plan_id("Server.plan_info", plan_id))
    return ServePlanInfo(*info[:6], batching=bool(info[6]))


def _query(raw, function):
    def query(self, plan_id, index=0):
        return raw(self, _check_plan_id(function, plan_id), _index(function, "index", index))

    return query


_input_width = _query(_capi.server_plan_input_width, "Server.input_width")
_output_width = _query(_capi.server_plan_output_width, "Server.output_width")
_input_dtype = _query(_capi.server_plan_input_dtype, "Server.input_dtype")
_output_dtype = _query(_capi.server_plan_output_dtype, "Server.output_dtype")


def _server_stats(self):
    """The server's ServerStats."""
    values = _capi.server_get_stats(self)
    return ServerStats(*values[:6], available=bool(values[6]), stopped=bool(values[7]),
                       heap_allocations_last_batch=values[8])


def _server_check_health(self, timeout):
    """Driver: asks every follower to answer within `timeout` seconds (> 0). Returns
    None when all did; raises UnavailableError once the server has failed,
    DeadlineExceededError when the timeout passed first, CancelledError once stopped.
    Any thread (the GIL is released while it waits)."""
    _capi.server_check_health(self, float(timeout))


def _server_run(self, request):
    """Driver: queues `request` and blocks until it is answered (the GIL is released
    meanwhile, so any number of threads may run requests at once); its outputs then
    hold one row per input row. Returns the request."""
    if not isinstance(request, ServeRequest):
        raise TypeError("Server.run: %r is not a ServeRequest" % (request,))
    _capi.server_run(self, request)
    return request


def _server_close(self):
    """Closes the requests made for this server, then destroys it (a driver not yet
    stopped is stopped first: queued requests are answered, followers released).
    Idempotent; finalize() (and so interpreter exit) closes every open server. No
    other thread may be using the server or its requests."""
    requests = self.__dict__.get("_requests")
    if requests is not None:
        with self._requests_lock:
            live = list(requests)
        for request in live:
            request.close()
    this = self.__dict__.get("this")
    if this is not None and this.own():
        self.__swig_destroy__(self)
    self.__dict__["this"] = None
    with _open_servers_lock:
        _open_servers.discard(self)


def _server_string(self):
    if self.__dict__.get("this") is None:
        return "Server(closed)"
    stats = self.stats()
    return "Server(%s, %d plans, %d requests, %d runs%s)" % (
        "driver" if self.is_driver else "follower", self.num_plans, stats.requests, stats.runs,
        ", stopped" if stats.stopped else "")


handle_protocols(Server, _server_string)
Server.close = _server_close
Server.__init__ = _server_init
Server.is_driver = property(lambda self: bool(_capi.server_is_driver(self)),
                            doc="Whether this rank drives (takes requests).")
Server.num_plans = property(lambda self: _capi.server_num_plans(self),
                            doc="The number of plans added.")
Server.add_plan = _server_add_plan
Server.plan_info = _server_plan_info
Server.input_width = _input_width
Server.input_width.__doc__ = "Elements per row of input `index` of plan `plan_id`."
Server.output_width = _output_width
Server.output_width.__doc__ = "Elements per row of output `index` of plan `plan_id`."
Server.input_dtype = lambda self, plan_id, index=0: _capi.dtype_name(
    _input_dtype(self, plan_id, index))
Server.input_dtype.__doc__ = "The dtype name (\"f32\", ...) of input `index` of plan `plan_id`."
Server.output_dtype = lambda self, plan_id, index=0: _capi.dtype_name(
    _output_dtype(self, plan_id, index))
Server.output_dtype.__doc__ = "The dtype name of output `index` of plan `plan_id`."
Server.follow = lambda self: _capi.server_follow(self)
Server.follow.__doc__ = ("Follower: runs, in lockstep with the driver, what it issues until "
                         "the driver stops the server, then returns. Blocks (the GIL is "
                         "released); FailedPreconditionError on the driver or when called "
                         "twice.")
Server.stop = lambda self: _capi.server_stop(self)
Server.stop.__doc__ = ("Driver: stops taking requests (run() raises CancelledError from now "
                       "on), answers those queued and releases the followers. Idempotent; "
                       "FailedPreconditionError on a follower.")
Server.check_health = _server_check_health
Server.stats = _server_stats
Server.run = _server_run
Server.request = lambda self, plan_id=0: ServeRequest(self, plan_id)
Server.request.__doc__ = "A new ServeRequest for plan `plan_id` of this server."
Server.__repr__ = lambda self: "<tessera.%s>" % self


def _request_init(self, server, plan_id=0):
    """ServeRequest(server, plan_id=0): the rows of one call of plan `plan_id` and,
    after server.run(request), its answer. Reusable; one thread at a time. Local."""
    if not isinstance(server, Server):
        raise TypeError("ServeRequest: %r is not a Server" % (server,))
    plan_id = _check_plan_id("ServeRequest", plan_id)
    self.this = _capi.serve_request_create(server, plan_id).this
    self._server = server  # the C request points into it
    self._plan_id = plan_id
    with server._requests_lock:
        server._requests.add(self)


def _buffer(function, data, dtype):
    """A C-contiguous buffer of `data` whose elements are of `dtype` (raw bytes are
    taken as they are)."""
    if has_numpy_array(data):
        data = numpy().ascontiguousarray(data)
        what = "the array is %s" % data.dtype
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError("%s: %s is not a buffer (numpy array, array.array, bytes, bytearray, "
                        "memoryview)" % (function, type(data).__name__)) from None
    if not has_numpy_array(data):
        what = "the buffer holds %r elements of %d bytes" % (view.format, view.itemsize)
    if not view.c_contiguous:
        raise invalid_argument("%s: the buffer is not C-contiguous" % function)
    fmt = view.format.lstrip("@=<>!")
    if fmt in _BYTE_FORMATS:
        return view
    kind, size, _ = _ELEMENTS[dtype]
    formats = {"f": _FLOAT_FORMATS, "i": _INT_FORMATS, "b": _BOOL_FORMATS}[kind]
    if (fmt not in formats
            or view.itemsize != size):
        raise invalid_argument("%s: %s but the input is %s"
                               % (function, what, _capi.dtype_name(dtype)))
    return view


def _request_set_input(self, index, data):
    """Copies the rows of input `index`: a C-contiguous buffer of the input's dtype
    (a numpy array, array.array('f') for f32, ...) or raw bytes, holding a whole
    number of rows, 1 to max_batch_rows of them. Every input of a request holds the
    same number of rows. Returns the request."""
    index = _index("ServeRequest.set_input", "index", index)
    dtype = _capi.server_plan_input_dtype(self._server, self._plan_id, index)
    _capi.serve_request_set_input(self, index, _buffer("ServeRequest.set_input", data, dtype))
    return self


def _request_output_bytes(self, index=0):
    """Output `index` of the last successful run as bytes (row-major)."""
    index = _index("ServeRequest.output_bytes", "index", index)
    out = bytearray(_capi.serve_request_output_bytes(self, index))
    _capi.serve_request_output(out, self, index)
    return bytes(out)


def _request_output_array(self, index=0):
    """Output `index` of the last successful run as a flat array.array (row-major;
    standard library only)."""
    index = _index("ServeRequest.output_array", "index", index)
    dtype = _capi.server_plan_output_dtype(self._server, self._plan_id, index)
    typecode = _ELEMENTS[dtype][2]
    if typecode is None:
        raise invalid_argument("ServeRequest.output_array: output %d is %s, which array.array "
                               "cannot hold; use output_bytes" % (index, _capi.dtype_name(dtype)))
    out = array.array(typecode, bytes(_capi.serve_request_output_bytes(self, index)))
    _capi.serve_request_output(out, self, index)
    return out


def _request_output(self, index=0):
    """Output `index` of the last successful run as a new numpy array of shape
    (rows, width) (needs numpy; output_bytes and output_array do not)."""
    np = numpy()
    index = _index("ServeRequest.output", "index", index)
    dtype = numpy_dtype(_capi.server_plan_output_dtype(self._server, self._plan_id, index))
    width = _capi.server_plan_output_width(self._server, self._plan_id, index)
    nbytes = _capi.serve_request_output_bytes(self, index)
    out = np.empty((nbytes // (dtype.itemsize * width), width), dtype=dtype)
    _capi.serve_request_output(out, self, index)
    return out


def _request_info(self):
    """The ServeRequestInfo of the last successful run."""
    return ServeRequestInfo(*_capi.serve_request_get_info(self))


def _request_close(self):
    """Destroys the request now (idempotent)."""
    server = self.__dict__.get("_server")
    this = self.__dict__.get("this")
    if this is not None and this.own():
        self.__swig_destroy__(self)
    self.__dict__["this"] = None
    if server is not None:
        with server._requests_lock:
            server._requests.discard(self)


def _request_string(self):
    if self.__dict__.get("this") is None:
        return "ServeRequest(closed)"
    return "ServeRequest(plan %d, %d rows)" % (self._plan_id, self.rows)


handle_protocols(ServeRequest, _request_string)
ServeRequest.close = _request_close
ServeRequest.__init__ = _request_init
ServeRequest.plan_id = property(lambda self: self._plan_id, doc="The plan this request runs.")
ServeRequest.server = property(lambda self: self._server, doc="The server it was made for.")
ServeRequest.rows = property(lambda self: _capi.serve_request_rows(self),
                             doc="The rows of input 0 as last set (0 before).")
ServeRequest.set_input = _request_set_input
ServeRequest.output = _request_output
ServeRequest.output_bytes = _request_output_bytes
ServeRequest.output_array = _request_output_array
ServeRequest.info = _request_info
ServeRequest.__repr__ = lambda self: "<tessera.%s>" % self
