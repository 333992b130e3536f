"""The rows of gpu_bench.cc in PyTorch, on the same GPU in the same session, as JSON
lines {"bench", "value", "unit", "baseline", "baseline_value", "ratio", "device"}: each
PyTorch figure next to the same raw baseline gpu_bench measures (a D2D copy, a pinned
copy), so the two programs' ratios compare even though they ran one after the other."""
import json
import statistics
import time

import torch

REPS = 5
DEVICE = torch.cuda.get_device_name(0)


def time_pair(iters, fn, base):
    fn()
    base()
    a, b = [], []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        a.append((time.perf_counter() - t0) / iters)
        t0 = time.perf_counter()
        for _ in range(iters):
            base()
        b.append((time.perf_counter() - t0) / iters)
    return statistics.median(a), statistics.median(b)


def emit(bench, value, unit, baseline, baseline_value, ratio):
    print(json.dumps({"bench": bench, "value": value, "unit": unit, "baseline": baseline,
                      "baseline_value": baseline_value, "ratio": ratio, "device": DEVICE}),
          flush=True)


def sync():
    torch.cuda.synchronize()


def main():
    n = 64 << 20
    x = torch.ones(n, device="cuda")
    y = torch.full((n,), 2.0, device="cuda")
    dst = torch.empty_like(x)
    add_s, copy_s = time_pair(10, lambda: (torch.add(x, y), sync()),
                              lambda: (dst.copy_(x), sync()))
    gb = n * 4 / 1e9
    emit("torch/add_256MiB", 3 * gb / add_s, "GB/s", "D2D copy 256 MiB", 2 * gb / copy_s,
         (3 * gb / add_s) / (2 * gb / copy_s))

    a4 = torch.ones(4, device="cuda")
    b4 = torch.ones(4, device="cuda")
    iters = 20000
    samples = []
    for r in range(REPS + 1):
        t0 = time.perf_counter()
        for _ in range(iters):
            torch.add(a4, b4)
        samples.append((time.perf_counter() - t0) / iters)
        sync()
    emit("torch/dispatch_add_4/enqueue", statistics.median(samples[1:]) * 1e6, "us/op", "", 0, 0)

    host = torch.full((n,), 1.5)
    pinned = host.pin_memory()
    dev = torch.empty(n, device="cuda")
    for name, src in (("pageable", host), ("pinned", pinned)):
        up_s, raw_s = time_pair(5, lambda: (src.to("cuda"), sync()),
                                lambda: (dev.copy_(pinned, non_blocking=True), sync()))
        emit(f"torch/h2d_256MiB_{name}", gb / up_s, "GB/s", "copy from pinned", gb / raw_s,
             raw_s / up_s)
        down_s, raw_s = time_pair(5, lambda: (src.copy_(dev), sync()),
                                  lambda: (pinned.copy_(dev, non_blocking=True), sync()))
        emit(f"torch/d2h_256MiB_{name}", gb / down_s, "GB/s", "copy to pinned", gb / raw_s,
             raw_s / down_s)

    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16"), (torch.float16, "f16")):
        torch.backends.cuda.matmul.allow_tf32 = False
        for size in (1024, 2048, 4096, 8192):
            a = torch.randn(size, size, device="cuda", dtype=dtype)
            b = torch.randn(size, size, device="cuda", dtype=dtype)
            flops = 2.0 * size ** 3
            iters = max(2, int(4e12 / flops))
            mm_s, _ = time_pair(iters, lambda: (a @ b, sync()), lambda: None)
            emit(f"torch/matmul_{name}_{size}", flops / mm_s / 1e12, "TFLOP/s", "", 0, 0)


if __name__ == "__main__":
    main()
