package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

/**
 * Optimizers from Java on every rank of an mpirun world (1 and 3 ranks): a few SGD and
 * AdamW steps on a data-parallel linear model (weight and bias broadcast, rows split,
 * unevenly at 3) against plain-loop references written from PyTorch's documented update
 * rules; fused equal to per-tensor; setLr, stats and bad inputs. Every rank makes the
 * same calls in the same order.
 */
public final class MpiOptimizerTest {
  private static MpiWorld w;
  private static final int ROWS = 5, IN = 3, OUT = 2, STEPS = 3;
  private static final double[] W0 = {0.5, -1, 2, 0.25, -3, 1};
  private static final double[] B0 = {0.1, -0.2};

  private static double[] x() {
    double[] x = new double[ROWS * IN];
    for (int i = 0; i < x.length; ++i) x[i] = -1 + 0.2 * i / 1.3;
    return x;
  }

  /** loss = sum((x w + b)^2) / 2: dw = x^T y, db = column sums of y. */
  private static double[][] grads(double[][] p) {
    double[] x = x();
    double[][] g = {new double[IN * OUT], new double[OUT]};
    for (int i = 0; i < ROWS; ++i) {
      for (int j = 0; j < OUT; ++j) {
        double y = p[1][j];
        for (int k = 0; k < IN; ++k) y += x[i * IN + k] * p[0][k * OUT + j];
        for (int k = 0; k < IN; ++k) g[0][k * OUT + j] += x[i * IN + k] * y;
        g[1][j] += y;
      }
    }
    return g;
  }

  /** torch.optim.SGD's algorithm with one lr per step. */
  private static double[][] sgdReference(double[] lrs, double momentum, double dampening,
      double weightDecay) {
    double[][] p = {W0.clone(), B0.clone()};
    double[][] buf = {new double[W0.length], new double[B0.length]};
    for (int step = 0; step < lrs.length; ++step) {
      double[][] g = grads(p);
      for (int t = 0; t < p.length; ++t) {
        for (int e = 0; e < p[t].length; ++e) {
          double d = g[t][e] + weightDecay * p[t][e];
          if (momentum != 0) {
            buf[t][e] = step == 0 ? d : momentum * buf[t][e] + (1 - dampening) * d;
            d = buf[t][e];
          }
          p[t][e] -= lrs[step] * d;
        }
      }
    }
    return p;
  }

  /** torch.optim.AdamW's algorithm (decoupled weight decay). */
  private static double[][] adamWReference(double lr, double b1, double b2, double eps,
      double weightDecay) {
    double[][] p = {W0.clone(), B0.clone()};
    double[][] m = {new double[W0.length], new double[B0.length]};
    double[][] v = {new double[W0.length], new double[B0.length]};
    for (int step = 1; step <= STEPS; ++step) {
      double[][] g = grads(p);
      for (int t = 0; t < p.length; ++t) {
        for (int e = 0; e < p[t].length; ++e) {
          p[t][e] *= 1 - lr * weightDecay;
          m[t][e] = b1 * m[t][e] + (1 - b1) * g[t][e];
          v[t][e] = b2 * v[t][e] + (1 - b2) * g[t][e] * g[t][e];
          double mHat = m[t][e] / (1 - Math.pow(b1, step));
          double vHat = v[t][e] / (1 - Math.pow(b2, step));
          p[t][e] -= lr * mHat / (Math.sqrt(vHat) + eps);
        }
      }
    }
    return p;
  }

  private static void checkNear(double[][] got, double[][] want, String what) {
    for (int t = 0; t < want.length; ++t) {
      for (int e = 0; e < want[t].length; ++e) {
        check(Math.abs(got[t][e] - want[t][e]) <= 1e-12 * (1 + Math.abs(want[t][e])),
            what + ": param " + t + " element " + e + " is " + got[t][e] + ", want "
                + want[t][e]);
      }
    }
  }

  /** The model: x rows split, w and b broadcast parameters. */
  private static final class Model implements AutoCloseable {
    final Scope sc = new Scope();
    final Placement p = sc.add(Placement.parse("cpu:0-" + (w.size - 1)));
    final Tensor x =
        sc.add(Tensor.fromHost(x(), new long[] {ROWS, IN}, p, sc.add(NdSbp.parse("S(0)"))));
    final Tensor wt =
        sc.add(Tensor.fromHost(W0, new long[] {IN, OUT}, p, sc.add(NdSbp.parse("B"))));
    final Tensor b = sc.add(Tensor.fromHost(B0, new long[] {OUT}, p, sc.add(NdSbp.parse("B"))));

    Model() {
      wt.setRequiresGrad(true);
      b.setRequiresGrad(true);
    }

    Tensor[] params() {
      return new Tensor[] {wt, b};
    }

    /** One forward, backward, step and zeroGrad per lr (setLr before each). */
    double[][] train(Optimizer opt, double[] lrs) {
      for (double lr : lrs) {
        opt.setLr(lr);
        Tensor y = sc.add(Ops.biasAdd(sc.add(x.matmul(wt)), b, 1));
        Tensor loss =
            sc.add(Ops.scalarMul(sc.add(sc.add(y.mul(y)).reduceSum(new long[] {}, false)), 0.5));
        loss.backward();
        opt.step();
        opt.zeroGrad();
      }
      return new double[][] {wt.toDoubleArray(), b.toDoubleArray()};
    }

    @Override
    public void close() {
      sc.close();
    }
  }

  private static void sgdMomentum() {
    double[] lrs = {0.01, 0.0, 0.03};  // setLr takes effect on the next step
    for (boolean fused : new boolean[] {false, true}) {
      try (Model m = new Model();
          Optimizer opt = Optimizer.sgd(m.params(), new OptimizerOptions().lr(0.5).momentum(0.9)
                                                        .dampening(0.1).weightDecay(0.05)
                                                        .fused(fused))) {
        checkNear(m.train(opt, lrs), sgdReference(lrs, 0.9, 0.1, 0.05), "sgd fused=" + fused);
      }
    }
  }

  private static void adamWFusedEqualsPerTensor() {
    double[][][] results = new double[2][][];
    for (int f = 0; f < 2; ++f) {
      try (Model m = new Model();
          Optimizer opt = Optimizer.adamW(
              m.params(), new OptimizerOptions().weightDecay(0.1).fused(f == 1))) {
        results[f] = m.train(opt, new double[] {0.1, 0.1, 0.1});
        checkNear(results[f], adamWReference(0.1, 0.9, 0.999, 1e-8, 0.1), "adamW");
        OptimizerStats s = opt.stats();
        checkEq(s.steps, (long) STEPS, "stats steps");
        checkEq(s.numParams, 2L, "stats params");
        checkEq(s.numBuckets, f == 1 ? 1L : 0L, "stats buckets");
        check(opt.params()[0] == m.wt, "the Tensors keep their identity");
      }
    }
    checkArray(results[1][0], results[0][0], "fused w equals per-tensor w");
    checkArray(results[1][1], results[0][1], "fused b equals per-tensor b");
  }

  private static void badInput() {
    try (Model m = new Model()) {
      checkThrows(() -> Optimizer.sgd(m.params(), new OptimizerOptions().lr(-0.1)),
          Status.INVALID_ARGUMENT, "lr is -0.1", "negative lr");
      checkThrows(() -> Optimizer.adamW(m.params(), new OptimizerOptions().betas(1, 0.999)),
          Status.INVALID_ARGUMENT, "beta1 is 1", "beta1 = 1");
      checkThrows(() -> Optimizer.adam(new Tensor[] {m.wt, m.x}, null), Status.INVALID_ARGUMENT,
          "parameter 1", "a parameter that requires no gradient");
      checkThrows(() -> Optimizer.sgd(new Tensor[] {m.wt, null}, null), Status.INVALID_ARGUMENT,
          "params[1] is null", "a null parameter");
      checkThrows(() -> Optimizer.sgd(null, null), Status.INVALID_ARGUMENT, "params is null",
          "null params");
      Optimizer opt = Optimizer.sgd(m.params(), null);
      checkThrows(() -> opt.setLr(Double.NaN), Status.INVALID_ARGUMENT, "lr is nan", "NaN lr");
      opt.close();
      opt.close();  // idempotent
      checkThrows(opt::step, Status.INVALID_ARGUMENT, "optimizer", "step after close");
    }
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    sgdMomentum();
    adamWFusedEqualsPerTensor();
    badInput();
    w.finish();
  }
}
