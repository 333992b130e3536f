#!/usr/bin/env python3
"""Compares two builds of the same benchmarks on this machine, ABAB.

Usage: bench/compare.py BASE_DIR NEW_DIR ROUNDS [NAME=COMMAND ...]

BASE_DIR and NEW_DIR hold the same -c opt benchmark binaries built from two commits
(each bench's run.sh shows how it is launched). Each COMMAND is
run with {bin} replaced by the binary's directory, alternating base and new, ROUNDS
times each; every JSON line a run prints is collected by its "bench" name. Prints one
JSON line per bench name: the median of new/base over the rounds' paired values, and
both medians. Pairs are taken within a round, so slow drifts of a shared machine hit
both sides alike.
"""
import json
import statistics
import subprocess
import sys


def run(command):
    out = subprocess.run(command, shell=True, capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        record = json.loads(line)
        values[record["bench"]] = (record["value"], record.get("unit", ""))
    return values


def main():
    base_dir, new_dir, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    commands = dict(arg.split("=", 1) for arg in sys.argv[4:])
    for name, command in commands.items():
        pairs = {}
        for r in range(rounds):
            # Alternate which side goes first, so neither always runs on a warmer cache.
            order = [(base_dir, "base"), (new_dir, "new")]
            if r % 2:
                order.reverse()
            got = {side: run(command.format(bin=d)) for d, side in order}
            for bench, (value, unit) in got["base"].items():
                if bench in got["new"] and value:
                    pairs.setdefault(bench, []).append((value, got["new"][bench][0], unit))
        for bench, vals in sorted(pairs.items()):
            base = statistics.median(v[0] for v in vals)
            new = statistics.median(v[1] for v in vals)
            ratio = statistics.median(v[1] / v[0] for v in vals)
            print(json.dumps({"bench": bench, "suite": name, "unit": vals[0][2], "base": base,
                              "new": new, "ratio_new_over_base": round(ratio, 3),
                              "rounds": len(vals)}), flush=True)


if __name__ == "__main__":
    main()
