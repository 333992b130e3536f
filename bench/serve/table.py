#!/usr/bin/env python3
"""Prints the table of one run of bench/serve/run.sh from its JSON lines.

Usage: table.py RESULTS.jsonl RUN_ID

Load runs (one row each; req/batch and run ms are the service's own mean requests per
batch and plan run time over the window, from its /metrics; lg cpu% is the load
generator's own CPU), the ratio of batched to unbatched throughput at 64 clients
(at the largest client count run when 64 was not) per rank count, p99/p50 at 1 client,
idle CPU per rank with the first request after idle, and the stop's exit status; then
issue 15's goals, each marked met or not. Numbers only: no line is judged a failure here.
"""
import json
import sys


def load(path, run_id):
    lines = []
    with open(path) as f:
        for n, text in enumerate(f, 1):
            text = text.strip()
            if not text:
                continue
            try:
                line = json.loads(text)
            except ValueError as e:
                sys.exit("table.py: %s line %d is not JSON: %s" % (path, n, e))
            if line.get("run_id") == run_id:
                lines.append(line)
    return lines


def ratio(a, b):
    return a / b if b else float("nan")


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: table.py RESULTS.jsonl RUN_ID")
    lines = load(argv[1], argv[2])
    if not lines:
        sys.exit("table.py: no line of run %r in %s" % (argv[2], argv[1]))
    runs = [l for l in lines if "mode" not in l]
    idle = [l for l in lines if l.get("mode") == "idle_cpu"]
    probes = [l for l in lines if l.get("mode") == "idle_probe"]
    stops = [l for l in lines if l.get("mode") in ("stop", "start_failed")]
    first = lines[0]
    print("\nserving benchmark %s: %s, %d cores, load average %s at the start" % (
        argv[2], first.get("program"), first.get("host_cores", 0), first.get("loadavg_1m")))
    print("%5s %8s %7s %8s %6s %5s %9s %8s %8s %8s %8s %7s %9s %7s %7s" % (
        "ranks", "batching", "clients", "requests", "errors", "wrong", "req/s",
        "p50 ms", "p95 ms", "p99 ms", "max ms", "p99/p50", "req/batch", "run ms", "lg cpu%"))
    for l in runs:
        print("%5d %8s %7d %8d %6d %5d %9.1f %8.3f %8.3f %8.3f %8.3f %7.2f %9s %7s %7s" % (
            l["ranks"], l["batching"], l["clients"], l["requests"], l["errors"], l["wrong"],
            l["throughput_rps"], l["p50_ms"], l["p95_ms"], l["p99_ms"], l["max_ms"],
            ratio(l["p99_ms"], l["p50_ms"]), l.get("server_mean_batch_requests", "-"),
            l.get("server_mean_run_ms", "-"), l.get("loadgen_cpu_percent", "-")))

    goals = []
    bad = sum(l["errors"] + l["wrong"] for l in runs)
    goals.append(("0 errors and 0 wrong answers in every run (%d requests)" % sum(
        l["requests"] for l in runs), bad == 0, "%d errors, %d wrong" % (
            sum(l["errors"] for l in runs), sum(l["wrong"] for l in runs))))
    for ranks in sorted({l["ranks"] for l in runs}):
        mine = [l for l in runs if l["ranks"] == ranks]
        top = 64 if any(l["clients"] == 64 for l in mine) else max(l["clients"] for l in mine)
        by = {l["batching"]: l for l in mine if l["clients"] == top}
        if "on" in by and "off" in by:
            r = ratio(by["on"]["throughput_rps"], by["off"]["throughput_rps"])
            goals.append(("%d ranks, %d clients: batched/unbatched throughput >= 5" % (ranks, top),
                          r >= 5, "%.2fx (%.1f / %.1f req/s)" % (
                              r, by["on"]["throughput_rps"], by["off"]["throughput_rps"])))
        for l in mine:
            if l["clients"] == 1:
                r = ratio(l["p99_ms"], l["p50_ms"])
                goals.append(("%d ranks, batching %s, 1 client: p99/p50 <= 2" % (
                    ranks, l["batching"]), r <= 2, "%.2f (p50 %.3f ms, p99 %.3f ms)" % (
                        r, l["p50_ms"], l["p99_ms"])))

    if idle or probes:
        print("\nidle %s s: CPU per rank (%% of one core); request before, first and second after the idle wait" % (
            idle[0]["window_seconds"] if idle else "?"))
        for key in sorted({(l["ranks"], l["batching"]) for l in idle + probes}):
            cpus = sorted((l["rank"], l["cpu_percent"]) for l in idle if (l["ranks"], l["batching"]) == key)
            probe = [p for p in probes if (p["ranks"], p["batching"]) == key]
            text = "  ".join("r%d %.2f%%" % c for c in cpus)
            if probe:
                p = probe[0]
                server = ""
                if "server_mean_queue_ms" in p and "server_mean_run_ms" in p:
                    server = " (service: queued %.3f ms, run %.3f ms)" % (
                        p["server_mean_queue_ms"], p["server_mean_run_ms"])
                text += "  | warm %.3f ms, first after idle %.3f ms%s, next %.3f ms%s" % (
                    p["warm_ms"], p["first_after_idle_ms"], server, p["second_after_idle_ms"],
                    "" if p["errors"] + p["wrong"] == 0 else " (%d errors, %d wrong)" % (p["errors"], p["wrong"]))
            print("%5d ranks, batching %3s: %s" % (key[0], key[1], text))
            if cpus:
                worst = max(c[1] for c in cpus)
                goals.append(("%d ranks, batching %s: idle CPU < 5%% per rank" % key, worst < 5,
                              "max %.2f%%" % worst))
    if stops:
        print("\nstop (SIGTERM to the driver): " + ", ".join(
            "%d ranks batching %s: %s" % (
                s["ranks"], s["batching"],
                "exit %s in %.1f s" % (s["exit_status"], s["stop_seconds"]) if s["mode"] == "stop"
                else "did not start") for s in stops))
        for s in stops:
            goals.append(("%d ranks, batching %s: exit 0 after SIGTERM" % (s["ranks"], s["batching"]),
                          s.get("exit_status") == 0, str(s.get("exit_status", "did not start"))))

    print("\nissue 15 goals (this run, this machine):")
    for text, met, value in goals:
        print("  %-60s %-7s %s" % (text, "met" if met else "NOT met", value))


if __name__ == "__main__":
    main(sys.argv)
