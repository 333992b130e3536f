"""Trains an MLP (64 -> 64 -> 10, ReLU) on the handwritten digits (data/digits), data
parallel over every rank, exactly as examples/c/train does: same split, same shuffles,
same initial weights, same optimizer, so the same seed prints the same numbers. Rank 0
prints a line per epoch (a progress bar while it runs, on a terminal) and the final test
accuracy, and writes the loss and accuracy curves as a PNG (matplotlib, Debian's
python3-matplotlib, which tools/setup.sh installs).

    tools/mpirun.sh -np 4 python3 examples/python/train/train.py --plot curves.png

Options: --epochs N (20), --batch N (64), --lr X (0.01), --seed N (1), --fused 0|1 (1),
--data CSV (the repository's data/digits/digits.csv), --plot PNG (train_curves.png; ""
for none), --curve FILE (JSON lines per epoch), --bar 0|1 (the progress bar; by default
drawn when stdout is a terminal, as under mpirun).
"""
import argparse
import json
import os
import sys

import numpy as np

import tessera as ts

PIXELS, HIDDEN, CLASSES = 64, 64, 10
MASK = (1 << 64) - 1


def next_random(state):
    """splitmix64, as examples/c/train: returns (value, new state)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31), state


def shuffle(items, seed, epoch):
    """Fisher-Yates seeded by (seed, epoch), the C example's order exactly."""
    state = (seed * 1000003 + epoch) & MASK
    for i in range(len(items) - 1, 0, -1):
        value, state = next_random(state)
        j = value % (i + 1)
        items[i], items[j] = items[j], items[i]


def default_data():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "..", "data", "digits", "digits.csv")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fused", type=int, default=1)
    parser.add_argument("--data", default=default_data())
    parser.add_argument("--plot", default="train_curves.png")
    parser.add_argument("--curve", default=None)
    # As the C example's: -1 draws it when stdout is a terminal, which under mpirun it
    # always is (Open MPI gives ranks a pseudo-terminal).
    parser.add_argument("--bar", type=int, default=-1)
    args = parser.parse_args()
    if args.epochs < 1 or args.batch < 1 or not args.lr > 0:
        parser.error("--epochs and --batch must be >= 1 and --lr > 0")
    return args


class Model(object):
    def __init__(self, seed, world):
        b = ts.sbp.broadcast

        def parameter(shape, scale, weight_seed):
            if scale == 0:
                p = ts.zeros(*shape, placement=world, sbp=b)
            else:
                raw = ts.randn(*shape, seed=weight_seed, placement=world, sbp=b)
                p = ts.scalar_mul(raw, scale)
            p.requires_grad = True
            return p

        self.w1 = parameter((PIXELS, HIDDEN), np.sqrt(2.0 / PIXELS), seed * 10 + 1)
        self.b1 = parameter((HIDDEN,), 0, 0)
        self.w2 = parameter((HIDDEN, CLASSES), np.sqrt(1.0 / HIDDEN), seed * 10 + 2)
        self.b2 = parameter((CLASSES,), 0, 0)

    def parameters(self):
        return [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x):
        h = ts.relu(ts.bias_add(ts.matmul(x, self.w1), self.b1, axis=1))
        return ts.bias_add(ts.matmul(h, self.w2), self.b2, axis=1)


def progress(epoch, epochs, step, steps):
    width = 30
    done = step * width // steps
    sys.stdout.write("\repoch %2d/%d [%s%s] %d/%d" % (epoch, epochs, "#" * done,
                                                       "." * (width - done), step, steps))
    sys.stdout.flush()


def plot(path, curve):
    """The loss (log scale) and the test accuracy per epoch, side by side."""
    import matplotlib
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt
    epochs = [c["epoch"] for c in curve]
    ranks = curve[0]["ranks"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, [c["loss"] for c in curve], marker="o")
    left.set_xlabel("epoch")
    left.set_ylabel("mean training loss")
    left.set_yscale("log")
    left.grid(True, alpha=0.3)
    right.plot(epochs, [100 * c["test_accuracy"] for c in curve], marker="o", color="tab:green")
    right.set_xlabel("epoch")
    right.set_ylabel("test accuracy (%)")
    right.grid(True, alpha=0.3)
    fig.suptitle("Tessera: MLP on the digits, %d rank%s" % (ranks, "" if ranks == 1 else "s"))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    args = parse_args()
    rank, size = ts.world_rank(), ts.world_size()
    world = ts.placement("cpu", ranks=list(range(size)))
    split = ts.sbp.split(0)
    data = np.loadtxt(args.data, delimiter=",", dtype=np.int64)
    pixels = (data[:, :PIXELS].astype(np.float32) / np.float32(16.0))
    labels = data[:, PIXELS]
    rows = np.arange(len(data))
    train_rows = [int(i) for i in rows if i % 5 != 4]
    test_rows = rows[rows % 5 == 4]

    model = Model(args.seed, world)
    optimizer = ts.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4,
                               fused=bool(args.fused))
    tty = rank == 0 and (sys.stdout.isatty() if args.bar < 0 else bool(args.bar))
    if rank == 0:
        print("training a 64-%d-%d MLP on %d digits (%d held out), %d rank%s, batch %d"
              % (HIDDEN, CLASSES, len(train_rows), len(test_rows), size,
                 "" if size == 1 else "s", args.batch))
    steps = len(train_rows) // args.batch  # the last partial batch is dropped
    curve = []
    accuracy = 0.0
    for epoch in range(1, args.epochs + 1):
        shuffle(train_rows, args.seed, epoch)
        loss_sum = 0.0
        for step in range(steps):
            batch = train_rows[step * args.batch:(step + 1) * args.batch]
            x = ts.tensor(pixels[batch], placement=world, sbp=split)
            y = ts.tensor(labels[batch], placement=world, sbp=split)
            _, losses = ts.sparse_softmax_cross_entropy(model(x), y)
            loss = ts.reduce_mean(losses)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_sum += float(loss.numpy())
            if tty:
                progress(epoch, args.epochs, step + 1, steps)
        with ts.no_grad():
            logits = model(ts.tensor(pixels[test_rows], placement=world, sbp=split)).numpy()
        accuracy = float(np.mean(np.argmax(logits, axis=1) == labels[test_rows]))
        loss = loss_sum / steps
        curve.append({"epoch": epoch, "loss": loss, "test_accuracy": accuracy, "ranks": size})
        if rank == 0:
            print("%sepoch %2d/%d  loss %.4f  test accuracy %.2f%%%s"
                  % ("\r" if tty else "", epoch, args.epochs, loss, 100 * accuracy,
                     " " * 10 if tty else ""))
            sys.stdout.flush()
    if rank == 0:
        print("final test accuracy: %.2f%% (%d of %d digits)"
              % (100 * accuracy, int(round(accuracy * len(test_rows))), len(test_rows)))
        if args.curve:
            with open(args.curve, "w") as f:
                for c in curve:
                    f.write(json.dumps(c) + "\n")
        if args.plot:
            plot(args.plot, curve)
            print("curves: %s" % args.plot)


if __name__ == "__main__":
    main()
