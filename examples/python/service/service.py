"""The example service (the contract: docs/serving.md, "The example services"), in
Python with the standard library alone (http.server, json) over the `tessera`
package.

    tools/mpirun.sh -np N bazel-bin/examples/python/service/service --port P [flags]

Every rank initialises Tessera, builds and compiles the model y = relu(x W1) W2 laid
out across the ranks, creates a ts.Server and adds the plan. Rank 0 (the driver) then
serves HTTP (ThreadingHTTPServer: a thread per connection, each running its request
through server.run, which releases the GIL while it waits); the other ranks follow
until the driver stops. SIGTERM or SIGINT on the driver: stop accepting, let the
handlers in flight finish, stop the server (which releases the followers), exit 0.
Followers ignore both signals."""

import argparse
import array
import http.server
import json
import math
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse

import tessera as ts

IN, HIDDEN, OUT = 16, 64, 8
CAPACITY = 64  # the rows the plan is compiled for
MAX_BODY = 1 << 20
FLOAT32_MAX = 3.4028234663852886e38
MASK64 = (1 << 64) - 1

# Histogram buckets, as the metrics print their `le` labels.
SECONDS_BUCKETS = ["0.0005", "0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2",
                   "0.5", "1", "2", "5"]
COUNT_BUCKETS = ["1", "2", "4", "8", "16", "32", "64"]


# --- Flags --------------------------------------------------------------------------

def _int_in(name, low, high):
    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError("%s: %r is not an integer" % (name, text))
        if not low <= value <= high:
            raise argparse.ArgumentTypeError("%s: %d is out of range [%d, %d]"
                                             % (name, value, low, high))
        return value

    return parse


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("--timeout: %r is not a number of seconds" % text)
    if not 0 < value <= 1e6:  # also NaN
        raise argparse.ArgumentTypeError("--timeout: %s is out of range (0, 1e6]" % text)
    return value


def parse_flags(argv):
    """The flags; a bad one prints a message on stderr and exits with status 2."""
    parser = argparse.ArgumentParser(prog="service", allow_abbrev=False,
                                     description="The Tessera example service (HTTP on rank 0).")
    parser.add_argument("--port", type=_int_in("--port", 0, 65535), required=True,
                        help="TCP port; 0: the OS picks one")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--seed", type=_int_in("--seed", 0, MASK64), default=0,
                        help="weight seed (unsigned 64-bit)")
    parser.add_argument("--batching", choices=["on", "off"], default="on",
                        help="dynamic batching")
    parser.add_argument("--max-batch-rows", type=_int_in("--max-batch-rows", 1, CAPACITY),
                        default=64, help="rows per request and per batch")
    parser.add_argument("--max-queue-delay-us",
                        type=_int_in("--max-queue-delay-us", 0, 10000000), default=2000,
                        help="how long a batch may wait for more requests")
    parser.add_argument("--timeout", type=_seconds, default=10.0,
                        help="collective timeout in seconds, also the follower timeout")
    return parser.parse_args(argv)


# --- The model ------------------------------------------------------------------------

def model_weights(seed):
    """W1 [IN, HIDDEN] and W2 [HIDDEN, OUT] as nested lists, drawn row-major from
    splitmix64(seed): each weight (z >> 40) / 2^24 - 0.5, exact in float32."""
    state = seed

    def next_weight():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        return (z >> 40) / 16777216.0 - 0.5

    w1 = [[next_weight() for _ in range(HIDDEN)] for _ in range(IN)]
    w2 = [[next_weight() for _ in range(OUT)] for _ in range(HIDDEN)]
    return w1, w2


def grid_placement(world):
    """The ranks row-major over [dp, mp]: dp = 2 for an even world of 4 or more."""
    dp = 2 if world >= 4 and world % 2 == 0 else 1
    mp = world // dp
    return ts.placement("cpu", ranks=[[i * mp + j for j in range(mp)] for i in range(dp)])


LAYOUT = {"x": "(S(0), B)", "w1": "(B, S(1))", "w2": "(B, S(0))"}


def compile_model(grid, seed):
    w1, w2 = model_weights(seed)
    program = ts.Program()
    x = program.add_input("x", (CAPACITY, IN), "f32", grid, LAYOUT["x"])
    v1 = program.add_variable("w1", ts.tensor(w1, dtype="f32", placement=grid, sbp=LAYOUT["w1"]))
    v2 = program.add_variable("w2", ts.tensor(w2, dtype="f32", placement=grid, sbp=LAYOUT["w2"]))
    (h,) = program.add_op("matmul", [x, v1])
    (h,) = program.add_op("relu", [h])
    (y,) = program.add_op("matmul", [h, v2])
    program.mark_output(y)
    return ts.compile(program)


# --- Metrics --------------------------------------------------------------------------

class Histogram(object):
    """A Prometheus histogram under one lock."""

    def __init__(self, name, help_text, buckets):
        self.name, self.help = name, help_text
        self.labels = buckets
        self.bounds = [float(b) for b in buckets]
        self.counts = [0] * len(buckets)
        self.sum = 0.0
        self.count = 0
        self.lock = threading.Lock()

    def observe(self, value):
        with self.lock:
            for i, bound in enumerate(self.bounds):
                if value <= bound:
                    self.counts[i] += 1
            self.sum += value
            self.count += 1

    def text(self):
        with self.lock:
            lines = ["# HELP %s %s" % (self.name, self.help), "# TYPE %s histogram" % self.name]
            for label, count in zip(self.labels, self.counts):
                lines.append('%s_bucket{le="%s"} %d' % (self.name, label, count))
            lines.append('%s_bucket{le="+Inf"} %d' % (self.name, self.count))
            lines.append("%s_sum %r" % (self.name, self.sum))
            lines.append("%s_count %d" % (self.name, self.count))
        return lines


class Metrics(object):
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.errors = 0
        self.latency = Histogram("tessera_serve_request_seconds",
                                 "Predict latency in seconds (the whole handler).",
                                 SECONDS_BUCKETS)
        self.batch_rows = Histogram("tessera_serve_batch_rows",
                                    "Rows of the batch that served each successful request.",
                                    COUNT_BUCKETS)
        self.batch_requests = Histogram("tessera_serve_batch_requests",
                                        "Requests in the batch that served each successful "
                                        "request.", COUNT_BUCKETS)
        self.run_seconds = Histogram("tessera_serve_plan_run_seconds",
                                     "Seconds the batch ran (boxing in, the plan, gathering "
                                     "out).", SECONDS_BUCKETS)
        self.queue_seconds = Histogram("tessera_serve_queue_seconds",
                                       "Seconds a request waited for its batch to start.",
                                       SECONDS_BUCKETS)

    def predicted(self, status, seconds, info):
        with self.lock:
            self.requests += 1
            if status != 200:
                self.errors += 1
        self.latency.observe(seconds)
        if info is not None:
            self.batch_rows.observe(info.batch_rows)
            self.batch_requests.observe(info.batch_requests)
            self.run_seconds.observe(info.run_seconds)
            self.queue_seconds.observe(info.queue_seconds)

    def text(self, stats):
        with self.lock:
            requests, errors = self.requests, self.errors
        lines = []

        def scalar(name, kind, help_text, value):
            lines.extend(["# HELP %s %s" % (name, help_text), "# TYPE %s %s" % (name, kind),
                          "%s %d" % (name, value)])

        scalar("tessera_serve_requests_total", "counter",
               "Predict requests received (bad ones too).", requests)
        scalar("tessera_serve_errors_total", "counter",
               "Predict requests answered with a status other than 200.", errors)
        for h in (self.latency, self.batch_rows, self.batch_requests, self.run_seconds,
                  self.queue_seconds):
            lines.extend(h.text())
        scalar("tessera_serve_runs_total", "counter", "Plan runs (batches) of the server.",
               stats.runs)
        scalar("tessera_serve_queued_requests", "gauge", "Requests waiting now.",
               stats.queued_requests)
        scalar("tessera_serve_available", "gauge",
               "1 while the server is available, 0 once it has failed.", int(stats.available))
        return "\n".join(lines) + "\n"


# --- Requests -------------------------------------------------------------------------

class BadRequest(Exception):
    """A request answered with 400 before it reaches Tessera."""


def _row_values(index, row):
    """The 16 numbers of input row `index`, checked."""
    if not isinstance(row, list) or len(row) != IN:
        raise BadRequest("inputs[%d]: expected a list of %d numbers, got %s" % (
            index, IN, "%d elements" % len(row) if isinstance(row, list) else
            "a JSON %s" % _json_kind(row)))
    values = []
    for j, v in enumerate(row):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise BadRequest("inputs[%d][%d]: expected a number, got a JSON %s"
                             % (index, j, _json_kind(v)))
        try:
            f = float(v)
        except OverflowError:
            f = math.inf
        if not math.isfinite(f):
            raise BadRequest("inputs[%d][%d]: %s is not finite" % (index, j, v))
        if abs(f) > FLOAT32_MAX:
            raise BadRequest("inputs[%d][%d]: %s is beyond float32's range" % (index, j, v))
        values.append(f)
    return values


def _json_kind(value):
    for kind, types in (("bool", bool), ("number", (int, float)), ("string", str),
                        ("list", list), ("object", dict)):
        if isinstance(value, types):
            return kind
    return "null"


def _reject_constant(name):
    raise BadRequest("the body is not JSON: %s is not a JSON value" % name)


def parse_inputs(body, max_rows):
    """The rows of a predict body as a flat float32 array.array, and their count."""
    try:
        doc = json.loads(body, parse_constant=_reject_constant)
    except BadRequest:
        raise
    except (ValueError, RecursionError) as e:
        raise BadRequest("the body is not JSON: %s" % e)
    if not isinstance(doc, dict):
        raise BadRequest("the body is a JSON %s, not an object" % _json_kind(doc))
    if "inputs" not in doc:
        raise BadRequest('the body has no "inputs"')
    rows = doc["inputs"]
    if not isinstance(rows, list) or not rows:
        raise BadRequest('"inputs" must be a non-empty list of rows, got %s' % (
            "an empty list" if isinstance(rows, list) else "a JSON " + _json_kind(rows)))
    if len(rows) > max_rows:
        raise BadRequest('"inputs" has %d rows; at most %d (max-batch-rows)'
                         % (len(rows), max_rows))
    flat = array.array("f")
    for i, row in enumerate(rows):
        flat.extend(_row_values(i, row))
    return flat, len(rows)


# Tessera errors that mean "not now" rather than "broken".
UNAVAILABLE_ERRORS = (ts.UnavailableError, ts.CancelledError, ts.DeadlineExceededError)


class Service(object):
    """What the handlers share: the server, its plan, the request pool and metrics."""

    def __init__(self, server, plan_id, flags, grid, world):
        self.server, self.plan_id, self.flags = server, plan_id, flags
        self.info = server.plan_info(plan_id)
        self.model = {
            "model": "mlp", "input_width": IN, "hidden_width": HIDDEN, "output_width": OUT,
            "dtype": "f32", "ranks": world, "placement": grid.string, "layout": dict(LAYOUT),
            "seed": flags.seed, "capacity_rows": self.info.capacity_rows,
            "batching": {"enabled": self.info.batching,
                         "max_batch_rows": self.info.max_batch_rows,
                         "max_queue_delay_us": self.info.max_queue_delay_us}}
        self.world = world
        self.metrics = Metrics()
        self.pool = []
        self.pool_lock = threading.Lock()

    def _take(self):
        with self.pool_lock:
            if self.pool:
                return self.pool.pop()
        return self.server.request(self.plan_id)

    def _give(self, request):
        with self.pool_lock:
            self.pool.append(request)

    def predict(self, body):
        """(status, JSON object, ServeRequestInfo or None) for a predict body (bytes, or
        a BadRequest to answer)."""
        try:
            if isinstance(body, BadRequest):
                raise body
            rows, count = parse_inputs(body, self.info.max_batch_rows)
        except BadRequest as e:
            return 400, {"error": str(e)}, None
        request = self._take()
        try:
            request.set_input(0, rows)
            self.server.run(request)
            outputs = request.output_array(0)
            info = request.info()
        except ts.InvalidArgumentError as e:
            return 400, {"error": str(e)}, None
        except UNAVAILABLE_ERRORS as e:
            return 503, {"error": str(e)}, None
        except ts.TesseraError as e:
            return 500, {"error": str(e)}, None
        finally:
            self._give(request)
        values = outputs.tolist()
        if not all(math.isfinite(v) for v in values):
            return 400, {"error": "an output is not finite: the inputs overflow float32"}, None
        return 200, {"outputs": [values[r * OUT:(r + 1) * OUT] for r in range(count)]}, info

    def health(self):
        try:
            self.server.check_health(2.0)
        except ts.TesseraError as e:
            return 503, {"status": "unavailable", "error": str(e)}
        return 200, {"status": "ok", "ranks": self.world}


# --- HTTP -----------------------------------------------------------------------------

ROUTES = {"/v1/predict": "POST", "/v1/model": "GET", "/healthz": "GET", "/metrics": "GET"}


class Handler(http.server.BaseHTTPRequestHandler):
    """One HTTP/1.0 request a connection (so shutdown only waits for requests in
    flight, never for idle keep-alive connections)."""

    server_version = "tessera-service"
    timeout = 5  # seconds a client may take to send its request (bounds shutdown's wait)

    def log_message(self, format, *args):  # no access log
        pass

    def _send(self, status, body, content_type="application/json"):
        if not isinstance(body, bytes):
            body = (json.dumps(body) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _body(self):
        """The request body, or a BadRequest (missing length, over 1 MiB)."""
        length = self.headers.get("Content-Length")
        if length is None:
            return BadRequest("the request has no Content-Length")
        try:
            length = int(length)
            if length < 0:
                raise ValueError()
        except ValueError:
            return BadRequest("Content-Length %r is not a byte count" % length)
        if length > MAX_BODY:
            # Drain a moderately large body so the client reads the answer, not a reset.
            if length <= 16 * MAX_BODY:
                self.rfile.read(length)
            return BadRequest("the body has %d bytes; at most %d" % (length, MAX_BODY))
        return self.rfile.read(length)

    def _route(self):
        service = self.server.service
        path = urllib.parse.urlsplit(self.path).path
        method = ROUTES.get(path)
        start = time.perf_counter()
        if method is None:
            self._send(404, {"error": "no such path: %s" % path})
            return
        if self.command != method:
            self.send_response(405)
            body = (json.dumps({"error": "%s takes %s, not %s" % (path, method, self.command)})
                    + "\n").encode()
            self.send_header("Allow", method)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            if path == "/v1/predict":
                service.metrics.predicted(405, time.perf_counter() - start, None)
            return
        if path == "/v1/predict":
            status, answer, info = service.predict(self._body())
            try:
                self._send(status, answer)
            finally:
                service.metrics.predicted(status, time.perf_counter() - start, info)
        elif path == "/v1/model":
            self._send(200, service.model)
        elif path == "/healthz":
            self._send(*service.health())
        else:
            text = service.metrics.text(service.server.stats())
            self._send(200, text.encode(), "text/plain; version=0.0.4")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _route


class HttpServer(http.server.ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins the handlers in flight
    block_on_close = True
    request_queue_size = 128


def http_server(host, port):
    cls = HttpServer
    if ":" in host:  # an IPv6 address
        cls = type("HttpServer6", (HttpServer,), {"address_family": socket.AF_INET6})
    return cls((host, port), Handler)


# --- Main -----------------------------------------------------------------------------

def drive(server, plan_id, flags, grid, world):
    """Rank 0: serves HTTP until SIGTERM or SIGINT; returns the exit status."""
    try:
        httpd = http_server(flags.host, flags.port)
    except OSError as e:
        print("service: cannot listen on %s port %d: %s" % (flags.host, flags.port, e),
              file=sys.stderr)
        return 1
    httpd.service = Service(server, plan_id, flags, grid, world)
    stopping = threading.Event()

    def on_signal(signum, frame):
        # serve_forever runs on this (the main) thread: shut it down from another.
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=httpd.shutdown, name="shutdown", daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print("tessera-service listening port=%d pid=%d ranks=%d"
          % (httpd.server_address[1], os.getpid(), world), flush=True)
    try:
        httpd.serve_forever(poll_interval=0.5)
    finally:
        httpd.server_close()  # joins the handlers in flight: their requests are answered
    return 0


def main(argv):
    flags = parse_flags(argv)
    ts.init(collective_timeout=flags.timeout)
    rank, world = ts.world_rank(), ts.world_size()
    if rank != 0:
        # The driver releases the followers; mpirun forwards signals to every rank.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    grid = grid_placement(world)
    plan = compile_model(grid, flags.seed)
    # Default options: the follower timeout is then the collective timeout (--timeout).
    server = ts.Server()
    plan_id = server.add_plan(plan, batching=flags.batching == "on",
                              max_batch_rows=flags.max_batch_rows,
                              max_queue_delay_us=flags.max_queue_delay_us)
    status = 0
    try:
        if server.is_driver:
            status = drive(server, plan_id, flags, grid, world)
        else:
            server.follow()
    finally:
        if server.is_driver:
            server.stop()  # answers what is queued, releases the followers
        server.close()
        ts.finalize()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
