"""Per-op dispatch overhead of `add` on 4-element f32 tensors from Python (issue 5:
target <= 3 us per add on one rank), cache hit, no boxing: `ts.add(a, b)` and the `a + b`
operator, against a baseline measured in the same run: numpy's add of two 4-element
arrays (the same Python-call-plus-allocate floor a numpy user pays). Prints JSON lines
{"bench", "value", "unit", "baseline", "ratio"}; values are medians of 7 repetitions
of N calls each.
"""

import json
import statistics
import time

import numpy as np

import tessera as ts

N = 20000
REPS = 7


def per_call_ns(fn):
    fn()  # warm: inference cache, allocator
    samples = []
    for _ in range(REPS):
        start = time.perf_counter_ns()
        for _ in range(N):
            fn()
        samples.append((time.perf_counter_ns() - start) / N)
    return statistics.median(samples)


def main():
    p = ts.placement("cpu", ranks=[0])
    a = ts.tensor(np.arange(4, dtype=np.float32), placement=p, sbp=ts.sbp.broadcast)
    b = ts.tensor(np.ones(4, dtype=np.float32), placement=p, sbp=ts.sbp.broadcast)
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, dtype=np.float32)
    base = per_call_ns(lambda: np.add(x, y))
    for name, fn in (("py_add_4xf32_ts.add", lambda: ts.add(a, b)),
                     ("py_add_4xf32_operator", lambda: a + b)):
        value = per_call_ns(fn)
        print(json.dumps({"bench": name, "value": round(value, 1), "unit": "ns",
                          "baseline": round(base, 1), "baseline_name": "numpy add 4xf32",
                          "ratio": round(value / base, 3), "target_ns": 3000}))


if __name__ == "__main__":
    main()
