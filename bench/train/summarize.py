"""Folds run.sh's per-round JSON lines (one per benchmark, side and round) into one
line per benchmark and side: the median over rounds of every numeric field (text
fields from the first round), the
rounds' step times, and on the Tessera line the ratio of its median step time to
PyTorch's (below 1: Tessera is faster). Standard library only.
Usage: summarize.py ROUNDS.jsonl [RUN] > RESULT.jsonl   (RUN: a name put on every line)"""

import json
import statistics
import sys


def main():
    rounds = {}
    for line in open(sys.argv[1]):
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            rounds.setdefault((r["bench"], r["side"]), []).append(r)
    medians = {}
    for (bench, side), rs in rounds.items():
        m = {"bench": bench, "side": side, "np": rs[0]["np"], "rounds": len(rs),
             "iterations": rs[0]["iterations"]}
        for key, value in rs[0].items():
            if isinstance(value, (int, float)) and key not in m:
                m[key] = statistics.median(r[key] for r in rs)
            elif isinstance(value, str) and key not in m:
                m[key] = value  # a description, the same in every round
        m["step_s_rounds"] = [r["step_s"] for r in rs]
        medians[(bench, side)] = m
    for (bench, side), m in sorted(medians.items()):
        other = medians.get((bench, "pytorch"))
        if side == "tessera" and other:
            m["ratio_tessera_over_pytorch"] = round(m["step_s"] / other["step_s"], 3)
            if "hidden_fraction" in other:
                m["pytorch_hidden_fraction"] = other["hidden_fraction"]
        if len(sys.argv) > 2:
            m["run"] = sys.argv[2]
        print(json.dumps(m))


if __name__ == "__main__":
    main()
