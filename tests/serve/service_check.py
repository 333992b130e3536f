#!/usr/bin/env python3
"""Checks an example service the way a user meets it (docs/serving.md).

    service_check.py --ranks N [--seed S] -- PROGRAM [ARGS...]

starts `tools/mpirun.sh -np N PROGRAM --port 0 --seed S ARGS...`, waits for the driver's
startup line ("tessera-service listening port=P pid=D ranks=N"), then checks every
endpoint: /healthz, /v1/model, /v1/predict (answers against this file's own reference of
the model, from many threads at once; bad requests get 400 and harm nobody), /metrics; and
finally sends SIGTERM to the driver while requests are in flight and expects every rank,
and so mpirun, to exit 0. Standard library only. Exit status 0 when all checks pass.

With --fault kill|stall (3 or more ranks) the job runs under mpirun --enable-recovery
with a 1 s collective timeout, and after the first checks one follower is killed
(SIGKILL) or stopped (SIGSTOP): predict must then answer 503 within the timeout + 1.5 s,
/healthz 503 at once, /metrics must say unavailable, and the driver must still exit on
SIGTERM within a bound.
"""
import argparse
import http.client
import json
import math
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time

IN, HIDDEN, OUT, CAPACITY = 16, 64, 8, 64
MASK = (1 << 64) - 1
STARTUP = re.compile(r"^tessera-service listening port=(\d+) pid=(\d+) ranks=(\d+)$")


def weights(seed):
    """W1 [16, 64] then W2 [64, 8], row-major, from splitmix64(seed)."""
    state = seed & MASK
    out = []
    for _ in range(IN * HIDDEN + HIDDEN * OUT):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out.append((z >> 40) / 16777216.0 - 0.5)
    return out[: IN * HIDDEN], out[IN * HIDDEN:]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def reference(w1, w2, rows):
    answers = []
    for x in rows:
        h = []
        for j in range(HIDDEN):
            s = sum(x[k] * w1[k * HIDDEN + j] for k in range(IN))
            h.append(s if s > 0 else 0.0)
        answers.append([sum(h[k] * w2[k * OUT + j] for k in range(HIDDEN)) for j in range(OUT)])
    return answers


def placement_text(n):
    dp = 2 if n >= 4 and n % 2 == 0 else 1
    mp = n // dp
    return "cpu:[" + ",".join(
        "[" + ",".join(str(i * mp + j) for j in range(mp)) + "]" for i in range(dp)) + "]"


def rows_for(salt, count):
    """Exact f32 inputs (multiples of 1/16), distinct per salt."""
    return [[f32(((salt * 31 + r * 7 + k * 13) % 41 - 20) / 16.0) for k in range(IN)]
            for r in range(count)]


class Checker:
    def __init__(self, port, ranks, seed):
        self.port, self.ranks, self.seed = port, ranks, seed
        self.w1, self.w2 = weights(seed)
        self.failures = []
        self.lock = threading.Lock()

    def fail(self, what):
        with self.lock:
            self.failures.append(what)
        print("FAIL:", what, flush=True)

    def request(self, method, path, body=None, timeout=60):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.getheader("Content-Type") or "", resp.read()
        finally:
            conn.close()

    def predict(self, rows):
        return self.request("POST", "/v1/predict", json.dumps({"inputs": rows}).encode())

    def check_answer(self, rows, status, body, what):
        if status != 200:
            self.fail("%s: status %d, body %r" % (what, status, body[:300]))
            return False
        try:
            outputs = json.loads(body)["outputs"]
        except (ValueError, KeyError, TypeError) as e:
            self.fail("%s: bad body %r (%s)" % (what, body[:300], e))
            return False
        want = reference(self.w1, self.w2, rows)
        if len(outputs) != len(want) or any(len(o) != OUT for o in outputs):
            self.fail("%s: %d output rows (widths %s), want %d of %d" % (
                what, len(outputs), sorted({len(o) for o in outputs}), len(want), OUT))
            return False
        for r, (got, exp) in enumerate(zip(outputs, want)):
            for j, (g, e) in enumerate(zip(got, exp)):
                if not isinstance(g, (int, float)) or abs(g - e) > 1e-4 * (1 + abs(e)):
                    self.fail("%s: output[%d][%d] = %r, reference %r" % (what, r, j, g, e))
                    return False
        return True

    def check_health(self):
        status, _, body = self.request("GET", "/healthz")
        doc = json.loads(body) if body else {}
        if status != 200 or doc.get("status") != "ok" or doc.get("ranks") != self.ranks:
            self.fail("/healthz: %d %r" % (status, body[:300]))

    def check_model(self):
        status, ctype, body = self.request("GET", "/v1/model")
        if status != 200 or "json" not in ctype:
            return self.fail("/v1/model: %d %s %r" % (status, ctype, body[:300]))
        doc = json.loads(body)
        want = {"input_width": IN, "hidden_width": HIDDEN, "output_width": OUT, "dtype": "f32",
                "ranks": self.ranks, "placement": placement_text(self.ranks),
                "seed": self.seed, "capacity_rows": CAPACITY}
        for key, value in want.items():
            if doc.get(key) != value:
                self.fail("/v1/model: %s = %r, want %r" % (key, doc.get(key), value))
        batching = doc.get("batching", {})
        for key in ("enabled", "max_batch_rows", "max_queue_delay_us"):
            if key not in batching:
                self.fail("/v1/model: batching lacks %s: %r" % (key, batching))
        if doc.get("layout") != {"x": "(S(0), B)", "w1": "(B, S(1))", "w2": "(B, S(0))"}:
            self.fail("/v1/model: layout %r" % (doc.get("layout"),))

    def check_predict(self):
        for count in (1, 3, CAPACITY):
            rows = rows_for(count, count)
            status, _, body = self.predict(rows)
            self.check_answer(rows, status, body, "predict %d rows" % count)

    def check_concurrent(self, threads=16, each=8):
        def client(t):
            for i in range(each):
                rows = rows_for(t * 100 + i, 1 + (t + i) % 4)
                status, _, body = self.predict(rows)
                self.check_answer(rows, status, body, "client %d request %d" % (t, i))
        pool = [threading.Thread(target=client, args=(t,)) for t in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        return threads * each

    def check_bad_requests(self):
        good = rows_for(5, 1)
        cases = [
            ("not JSON", b"{inputs: [[1,2"),
            ("not an object", b"[1, 2, 3]"),
            ("no inputs", b'{"rows": [[1]]}'),
            ("empty inputs", b'{"inputs": []}'),
            ("inputs not a list", b'{"inputs": 3}'),
            ("short row", json.dumps({"inputs": [[1.0] * (IN - 1)]}).encode()),
            ("long row", json.dumps({"inputs": [[1.0] * (IN + 1)]}).encode()),
            ("row not a list", json.dumps({"inputs": [good[0], 7]}).encode()),
            ("string in a row", json.dumps({"inputs": [["x"] * IN]}).encode()),
            ("NaN", b'{"inputs": [[' + b",".join([b"NaN"] * IN) + b"]]}"),
            ("too many rows", json.dumps({"inputs": rows_for(1, CAPACITY + 1)}).encode()),
        ]
        for what, body in cases:
            status, _, answer = self.request("POST", "/v1/predict", body)
            try:
                message = json.loads(answer).get("error", "")
            except ValueError:
                message = ""
            if status != 400 or not message:
                self.fail("bad request (%s): status %d, body %r; want 400 with an error" % (
                    what, status, answer[:300]))
        status, _, _ = self.request("GET", "/v1/predict")
        if status != 405:
            self.fail("GET /v1/predict: status %d, want 405" % status)
        status, _, _ = self.request("GET", "/no/such/path")
        if status != 404:
            self.fail("GET /no/such/path: status %d, want 404" % status)
        status, _, body = self.predict(good)  # nobody else was harmed
        self.check_answer(good, status, body, "a good request after bad ones")
        return len(cases) + 1

    def check_metrics(self, min_requests, min_errors):
        status, ctype, body = self.request("GET", "/metrics")
        if status != 200 or not ctype.startswith("text/plain"):
            return self.fail("/metrics: %d %s" % (status, ctype))
        text = body.decode()
        samples = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                samples[name] = float(value)
        kinds = {"tessera_serve_requests_total": "counter",
                 "tessera_serve_errors_total": "counter",
                 "tessera_serve_runs_total": "counter",
                 "tessera_serve_queued_requests": "gauge",
                 "tessera_serve_available": "gauge"}
        for h in ("request_seconds", "batch_rows", "batch_requests", "plan_run_seconds",
                  "queue_seconds"):
            kinds["tessera_serve_" + h] = "histogram"
        for name, kind in kinds.items():
            if "# TYPE %s %s" % (name, kind) not in text:
                self.fail("/metrics lacks '# TYPE %s %s'" % (name, kind))
            if kind == "histogram":
                inf = samples.get('%s_bucket{le="+Inf"}' % name)
                count = samples.get(name + "_count")
                if inf is None or count is None or inf != count or name + "_sum" not in samples:
                    self.fail("/metrics: histogram %s: +Inf bucket %r, count %r" % (
                        name, inf, count))
        if samples.get("tessera_serve_requests_total", -1) < min_requests:
            self.fail("/metrics: requests_total %r < %d" % (
                samples.get("tessera_serve_requests_total"), min_requests))
        if samples.get("tessera_serve_errors_total", -1) < min_errors:
            self.fail("/metrics: errors_total %r < %d" % (
                samples.get("tessera_serve_errors_total"), min_errors))
        if samples.get("tessera_serve_available") != 1:
            self.fail("/metrics: available %r" % samples.get("tessera_serve_available"))

    def stop_under_load(self, proc, driver_pid, timeout):
        """SIGTERM with clients running: answers stay right, nothing hangs, exit 0."""
        stop = threading.Event()

        def client(t):
            i = 0
            while not stop.is_set():
                rows = rows_for(t * 1000 + i, 2)
                i += 1
                try:
                    status, _, body = self.predict(rows)
                except OSError:
                    return  # the listener closed: expected once stopping
                if status == 200:
                    self.check_answer(rows, status, body, "request during stop")
                elif status != 503:
                    self.fail("request during stop: status %d %r" % (status, body[:200]))
        pool = [threading.Thread(target=client, args=(t,)) for t in range(4)]
        for t in pool:
            t.start()
        time.sleep(0.3)
        os.kill(driver_pid, signal.SIGTERM)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.fail("the job did not exit within %d s of SIGTERM" % timeout)
            proc.kill()
            rc = proc.wait()
        stop.set()
        for t in pool:
            t.join(timeout=60)
        if rc != 0:
            self.fail("mpirun exited %d after SIGTERM, want 0" % rc)


def children_of(pid):
    """The processes whose parent is `pid` (the ranks, for mpirun on one host)."""
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


def check_fault(checker, proc, driver_pid, mode, timeout):
    followers = [p for p in children_of(proc.pid) if p != driver_pid]
    if not followers:
        return checker.fail("fault: no follower process found under mpirun %d" % proc.pid)
    victim = followers[0]
    os.kill(victim, signal.SIGKILL if mode == "kill" else signal.SIGSTOP)
    start = time.time()
    status, body = 200, b""
    while time.time() - start < timeout + 10:
        rows = rows_for(int(time.time() * 1000) % 997, 1)
        status, _, body = checker.predict(rows)
        if status != 200:
            break
        checker.check_answer(rows, status, body, "request just after the fault")
    took = time.time() - start
    print("fault (%s): first failed predict after %.3f s: %d %s" % (
        mode, took, status, body[:200]), flush=True)
    if status != 503 or took > timeout + 1.5:
        checker.fail("after the fault: predict status %d after %.3f s, want 503 within %.1f s" % (
            status, took, timeout + 1.5))
    elif not json.loads(body).get("error"):
        checker.fail("after the fault: 503 without an error message")
    t0 = time.time()
    status, _, body = checker.request("GET", "/healthz")
    if status != 503 or time.time() - t0 > 1.0:
        checker.fail("after the fault: /healthz %d in %.3f s, want 503 at once" % (
            status, time.time() - t0))
    status, _, body = checker.request("GET", "/metrics")
    if b"tessera_serve_available 0" not in body:
        checker.fail("after the fault: /metrics does not say tessera_serve_available 0")
    t0 = time.time()
    os.kill(driver_pid, signal.SIGTERM)
    while time.time() - t0 < timeout + 15 and os.path.exists("/proc/%d" % driver_pid):
        try:
            with open("/proc/%d/stat" % driver_pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
        except OSError:
            break
        time.sleep(0.05)
    print("fault: the driver exited %.3f s after SIGTERM" % (time.time() - t0), flush=True)
    if time.time() - t0 >= timeout + 15:
        checker.fail("after the fault: the driver did not exit within %.0f s of SIGTERM" % (
            timeout + 15))
    if mode == "stall":
        os.kill(victim, signal.SIGCONT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mpirun", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "mpirun.sh"))
    parser.add_argument("--startup-timeout", type=float, default=180)
    parser.add_argument("--fault", choices=["kill", "stall"])
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("no program")
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    fault_timeout = 1.0
    mpirun = [args.mpirun, "--enable-recovery"] if args.fault else [args.mpirun]
    extra = ["--timeout", str(fault_timeout)] if args.fault else []
    cmd = mpirun + ["-np", str(args.ranks)] + program[:1] + [
        "--port", "0", "--seed", str(args.seed)] + extra + program[1:]
    print("starting:", " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    found = {}

    def read_stdout():
        for line in proc.stdout:
            sys.stdout.write("[service] " + line)
            sys.stdout.flush()
            m = STARTUP.match(line.strip())
            if m and not found:
                found["port"], found["pid"], found["ranks"] = map(int, m.groups())
    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    deadline = time.time() + args.startup_timeout
    while not found and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    if not found:
        proc.kill()
        print("FAIL: no startup line within %.0f s (exit status %r)" % (
            args.startup_timeout, proc.poll()))
        return 1
    checker = Checker(found["port"], args.ranks, args.seed)
    if found["ranks"] != args.ranks:
        checker.fail("startup line says ranks=%d, want %d" % (found["ranks"], args.ranks))
    if args.fault:
        try:
            checker.check_health()
            checker.check_predict()
        except Exception as e:
            checker.fail("exception: %r" % (e,))
        check_fault(checker, proc, found["pid"], args.fault, fault_timeout)
        reader.join(timeout=10)
        if checker.failures:
            print("%d check(s) failed" % len(checker.failures))
            return 1
        print("all fault checks passed (%s, ranks %d)" % (args.fault, args.ranks))
        return 0
    try:
        checker.check_health()
        checker.check_model()
        checker.check_predict()
        good = 3 + checker.check_concurrent()
        bad = checker.check_bad_requests()
        checker.check_health()
        checker.check_metrics(good + bad, bad - 1)
    except Exception as e:  # report, then still stop the job
        checker.fail("exception: %r" % (e,))
    checker.stop_under_load(proc, found["pid"], 60)
    reader.join(timeout=10)
    if checker.failures:
        print("%d check(s) failed" % len(checker.failures))
        return 1
    print("all checks passed (ranks %d, seed %d)" % (args.ranks, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
