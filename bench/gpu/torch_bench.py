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


def train_step_rows():
    """A training step of train_plan_bench's MLP (256-1024-256, batch 256, f32,
    cross-entropy, AdamW lr 1e-3 weight decay 0.01): eager, and the whole step captured
    as one CUDA graph (PyTorch's documented whole-network capture, capturable AdamW),
    each step waited for. Printed as graph ms/step with eager as the baseline."""
    torch.manual_seed(0)

    def make(capturable):
        model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(),
                                    torch.nn.Linear(1024, 256)).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01,
                                capturable=capturable)
        return model, opt

    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(256, 256, device="cuda")
    y = torch.randint(0, 256, (256,), device="cuda")
    eager_model, eager_opt = make(False)

    def eager_step():
        eager_opt.zero_grad(set_to_none=True)
        loss_fn(eager_model(x), y).backward()
        eager_opt.step()
        sync()

    graph_model, graph_opt = make(True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            graph_opt.zero_grad(set_to_none=True)
            loss_fn(graph_model(x), y).backward()
            graph_opt.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    graph_opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        loss_fn(graph_model(x), y).backward()
        graph_opt.step()
    graph_s, eager_s = time_pair(20, lambda: (graph.replay(), sync()), eager_step)
    emit("torch/train_mlp_adamw/graph_vs_eager", graph_s * 1e3, "ms/step", "eager step",
         eager_s * 1e3, eager_s / graph_s)


if __name__ == "__main__":
    main()
    try:
        train_step_rows()
    except Exception as e:  # keep the rows above; say what failed
        print(json.dumps({"bench": "torch/train_mlp_adamw", "error": repr(e), "device": DEVICE}),
              flush=True)
