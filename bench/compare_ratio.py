#!/usr/bin/env python3
"""Like compare.py, but compares each bench's in-process "ratio" (value / baseline).

Usage: bench/compare_ratio.py BASE_DIR NEW_DIR ROUNDS COMMAND

COMMAND has {bin} replaced by BASE_DIR or NEW_DIR, alternately (the order swapped every
round). A bench whose value and baseline run in one process (comm_bench's
"small/...": Communicator::AllReduce vs MPI_Allreduce) cancels most of a shared
machine's noise in its ratio, where the absolute values do not; comparing the two
builds' ratios then shows what a change to the measured layer costs. Prints one JSON
line per bench: both builds' median values and median ratios, and new/base of those.
"""
import json
import statistics
import subprocess
import sys


def main():
    base_dir, new_dir, rounds, command = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    res = {}
    for r in range(rounds):
        order = [(base_dir, "base"), (new_dir, "new")]
        if r % 2:
            order.reverse()
        for d, side in order:
            out = subprocess.run(command.format(bin=d), shell=True, capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                if line.startswith("{"):
                    rec = json.loads(line)
                    res.setdefault((rec["bench"], side), []).append((rec["value"], rec["ratio"]))
    for bench in sorted({b for b, _ in res}):
        b, n = res[(bench, "base")], res[(bench, "new")]
        br = statistics.median(x[1] for x in b)
        nr = statistics.median(x[1] for x in n)
        print(json.dumps({"bench": bench, "unit": "ms", "base": statistics.median(x[0] for x in b),
                          "new": statistics.median(x[0] for x in n), "base_ratio_to_mpi": br,
                          "new_ratio_to_mpi": nr, "new_over_base_of_ratios": round(nr / br, 3),
                          "rounds": len(b)}), flush=True)


if __name__ == "__main__":
    main()
