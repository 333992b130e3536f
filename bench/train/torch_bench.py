"""PyTorch's side of the training benchmarks (train_bench.cc is Tessera's; run.sh
alternates them). Launched by mpirun like the Tessera side: the rank and world size come
from Open MPI's environment, the process group is gloo over TCP on localhost. One
invocation is one round: warm-up steps, then `iterations` timed steps, and one JSON
line from rank 0. Modes (the same models, data and closed-form initial values as
train_bench.cc / common.h):
  dp     DistributedDataParallel (gloo, default buckets), MLP 784-1024-1024-10, f32,
         global batch 256 (64 per rank), AdamW(foreach=True). Timed: forward + backward
         + step. Then as many more steps with a comm hook that times each bucket's
         all-reduce, for the overlap figure.
  tp     DTensor parallelize_module: ColwiseParallel on the first Linear,
         RowwiseParallel on the second, MLP 1024-4096-1024, batch 128 replicated, AdamW.
  adamw  one rank: torch.optim.AdamW(foreach=True) over 100 tensors, gradients preset;
         timed: step only.
Needs torch and numpy (a virtualenv outside the repo; see README.md).
Usage: torch_bench.py dp|tp|adamw [iterations] [warmup] [port] [rounds] [SYNC]
(rounds: how many rounds this process runs, each waiting for its turn in SYNC, as
WaitTurn in common.h: a torch start costs a minute on the loaded machine)."""

import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

LR, WEIGHT_DECAY = 1e-3, 0.01
BATCHES = 4
ADAMW_TENSORS = 100


# The closed forms of common.h (computed in double, stored as f32).
def init(k, n, fan_in):
    scale = 1 / np.sqrt(fan_in) if fan_in > 0 else 0.1
    return (scale * np.cos(0.9 * np.arange(n) + 2.1 * k)).astype(np.float32)


def batch_inputs(b, n):
    return np.sin(0.37 * np.arange(n) + 1.3 * (b + 1)).astype(np.float32)


def batch_labels(b, batch, classes):
    return ((np.arange(batch) * 7 + (b + 1) * 3) % classes).astype(np.int64)


def adamw_shape(k):
    return (256 + 8 * k,) if k % 4 == 3 else (32 + (k * 37) % 224, 32 + (k * 53) % 224)


def preset_grad(k, n):
    return (0.01 * np.sin(0.37 * np.arange(n) + 0.1 * k)).astype(np.float32)


def mlp(dims):
    """nn.Linear stores [out, in]; Tessera's W_k is [in, out] row-major: transpose."""
    layers = []
    for k in range(len(dims) - 1):
        lin = nn.Linear(dims[k], dims[k + 1])
        w = init(2 * k, dims[k] * dims[k + 1], dims[k]).reshape(dims[k], dims[k + 1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            lin.bias.copy_(torch.from_numpy(init(2 * k + 1, dims[k + 1], 0)))
        layers += [lin, nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def batches(dims, batch, rows):
    """The kBatches batches, rows [rows.start, rows.stop) of each."""
    out = []
    for b in range(BATCHES):
        x = batch_inputs(b, batch * dims[0]).reshape(batch, dims[0])[rows]
        y = batch_labels(b, batch, dims[-1])[rows]
        out.append((torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(y)))
    return out


def adamw(params):
    return torch.optim.AdamW(params, lr=LR, weight_decay=WEIGHT_DECAY, foreach=True)


def train(model, opt, data, steps, on_step=None):
    """Runs `steps` steps; the first step's loss (averaged over ranks)."""
    first = None
    for i in range(steps):
        x, y = data[i % len(data)]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if on_step:
            on_step()
        opt.step()
        if first is None:
            first = loss.detach().clone()
    return first


def timed(model, opt, data, iterations, warmup):
    first = train(model, opt, data, warmup)
    dist.barrier()
    t0, cpu0 = time.perf_counter(), time.process_time()
    train(model, opt, data, iterations)
    dist.barrier()
    cpu = (time.process_time() - cpu0) / iterations
    return (time.perf_counter() - t0) / iterations, cpu, first


class BucketTimer:
    """A DDP comm hook doing the default all-reduce (divide, then sum) that records each
    bucket's start and completion (the future's callback runs when gloo completes)."""

    def __init__(self):
        self.starts, self.ends = [], []

    def hook(self, _, bucket):
        self.starts.append(time.perf_counter())
        buf = bucket.buffer().div_(dist.get_world_size())
        fut = dist.all_reduce(buf, async_op=True).get_future()

        def done(f):
            self.ends.append(time.perf_counter())
            return f.value()[0]

        return fut.then(done)


def data_parallel(iterations, warmup, rank, size):
    from torch.nn.parallel import DistributedDataParallel as DDP

    dims, batch = [784, 1024, 1024, 10], 256
    per = batch // size
    data = batches(dims, batch, slice(rank * per, (rank + 1) * per))
    model = DDP(mlp(dims))
    opt = adamw(model.parameters())
    step_s, cpu_s, first = timed(model, opt, data, iterations, warmup)
    dist.all_reduce(first)
    first /= size
    # Overlap, on a second model with the timing hook (so the timed run above keeps
    # DDP's built-in C++ hook): in_flight = sum over buckets of start to completion;
    # wait = how long after the last bucket's start (the end of backward's compute) the
    # last completion came, which backward() waits out.
    timer = BucketTimer()
    hooked = DDP(mlp(dims))
    hooked.register_comm_hook(None, timer.hook)
    hopt = adamw(hooked.parameters())
    train(hooked, hopt, data, warmup)
    in_flight, wait, buckets = [], [], 0

    def record():
        nonlocal buckets
        buckets = len(timer.starts)
        in_flight.append(sum(timer.ends) - sum(timer.starts))
        wait.append(max(0.0, max(timer.ends) - max(timer.starts)))
        timer.starts.clear()
        timer.ends.clear()

    timer.starts.clear()
    timer.ends.clear()
    train(hooked, hopt, data, iterations, on_step=record)
    fl, wt = float(np.mean(in_flight)), float(np.mean(wait))
    return {"step_s": step_s, "rank0_cpu_s": cpu_s, "first_loss": first.item(), "buckets": buckets,
            "allreduce_in_flight_s": fl, "allreduce_wait_s": wt,
            "hidden_fraction": 1 - wt / fl if fl > 0 else 0.0}


def tensor_parallel(iterations, warmup, size):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                                   parallelize_module)

    dims, batch = [1024, 4096, 1024], 128
    mesh = init_device_mesh("cpu", (size,))
    model = parallelize_module(mlp(dims), mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    opt = adamw(model.parameters())
    data = batches(dims, batch, slice(0, batch))
    step_s, cpu_s, first = timed(model, opt, data, iterations, warmup)
    return {"step_s": step_s, "rank0_cpu_s": cpu_s, "first_loss": first.item()}


def fused_adamw(iterations, warmup):
    params = []
    for k in range(ADAMW_TENSORS):
        shape = adamw_shape(k)
        n = int(np.prod(shape))
        p = nn.Parameter(torch.from_numpy(init(k, n, shape[-1]).reshape(shape)))
        p.grad = torch.from_numpy(preset_grad(k, n).reshape(shape))
        params.append(p)
    opt = adamw(params)
    t = []
    for i in range(warmup + iterations):
        t0 = time.perf_counter()
        opt.step()
        if i >= warmup:
            t.append(time.perf_counter() - t0)
    return {"step_s": float(np.median(t)), "param0_sum": float(params[0].detach().double().sum()),
            "elements": sum(p.numel() for p in params)}


def wait_turn(sync, rnd):
    if sync:
        while not os.path.exists(f"{sync}/go.pytorch.{rnd}"):
            time.sleep(0.005)


def end_turn(sync, rnd, rank):
    """rnd "ready": before the first round (see common.h)."""
    if sync and rank == 0:
        with open(f"{sync}/done.pytorch.{rnd}", "w") as f:
            f.write("\n")


def main():
    mode = sys.argv[1]
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    port = sys.argv[4] if len(sys.argv) > 4 else "29517"
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    sync = sys.argv[6] if len(sys.argv) > 6 else ""
    torch.set_num_threads(1)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    size = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=size)
    names = {"dp": "train/dp_mlp_784-1024-1024-10_b256_adamw",
             "tp": "train/tp_mlp_1024-4096-1024_b128_adamw",
             "adamw": "train/adamw_step_100_tensors"}
    run = {"dp": lambda: data_parallel(iterations, warmup, rank, size),
           "tp": lambda: tensor_parallel(iterations, warmup, size),
           "adamw": lambda: fused_adamw(iterations, warmup)}.get(mode)
    if run is None:
        sys.exit(f"torch_bench: unknown mode {mode!r} (dp, tp or adamw)")
    dist.barrier()
    end_turn(sync, "ready", rank)
    for rnd in range(rounds):
        wait_turn(sync, rnd)
        r = run()
        if rank == 0:
            print(json.dumps({"bench": names[mode], "side": "pytorch", "np": size,
                              "iterations": iterations, **r}), flush=True)
        end_turn(sync, rnd, rank)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
