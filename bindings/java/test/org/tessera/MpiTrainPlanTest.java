package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

/**
 * Plan-mode training from Java (Capture.assign, Optimizer.captureStep) on every rank of
 * an mpirun world (1 and 3 ranks): one SGD step of a data-parallel linear model (w
 * broadcast, the data a placeholder split over the ranks, unevenly at 3) captured,
 * compiled and run twice against a plain-loop reference; then the bad inputs. Every rank
 * makes the same calls in the same order.
 */
public final class MpiTrainPlanTest {
  private static MpiWorld w;
  private static final int ROWS = 5, IN = 3, OUT = 2;
  private static final double[] W0 = {0.5, -1, 2, 0.25, -3, 1};
  private static final double LR = 0.01;

  private static double[] x() {
    double[] x = new double[ROWS * IN];
    for (int i = 0; i < x.length; ++i) x[i] = -1 + 0.2 * i / 1.3;
    return x;
  }

  /** One step of loss = sum((x w)^2) / 2 (dw = x^T x w, w -= lr dw); the loss before it. */
  private static double sgdStep(double[] wt) {
    double[] x = x();
    double[] g = new double[wt.length];
    double loss = 0;
    for (int i = 0; i < ROWS; ++i) {
      for (int j = 0; j < OUT; ++j) {
        double y = 0;
        for (int k = 0; k < IN; ++k) y += x[i * IN + k] * wt[k * OUT + j];
        loss += y * y / 2;
        for (int k = 0; k < IN; ++k) g[k * OUT + j] += x[i * IN + k] * y;
      }
    }
    for (int e = 0; e < wt.length; ++e) wt[e] -= LR * g[e];
    return loss;
  }

  private static boolean near(double got, double want) {
    return Math.abs(got - want) <= 1e-12 * (1 + Math.abs(want));
  }

  private static void capturedSgdStepTrains() {
    try (Scope sc = new Scope()) {
      Placement p = sc.add(Placement.parse("cpu:0-" + (w.size - 1)));
      NdSbp s0 = sc.add(NdSbp.parse("S(0)"));
      Tensor wt =
          sc.add(Tensor.fromHost(W0, new long[] {IN, OUT}, p, sc.add(NdSbp.parse("B"))));
      wt.setRequiresGrad(true);
      // Momentum 0: the recorded step (one after the first) is exactly the first too.
      Optimizer opt = sc.add(Optimizer.sgd(new Tensor[] {wt}, new OptimizerOptions().lr(LR)));
      Program program;
      try (Capture cap = Capture.begin()) {
        Tensor x = sc.add(cap.placeholder("x", new long[] {ROWS, IN}, "f64", p, s0));
        Tensor y = sc.add(x.matmul(wt));
        Tensor loss =
            sc.add(Ops.scalarMul(sc.add(sc.add(y.mul(y)).reduceSum(new long[] {}, false)), 0.5));
        loss.backward();
        opt.captureStep();
        program = sc.add(cap.end(loss));
      }
      PlanInstance inst = sc.add(sc.add(program.compile(1)).instantiate());
      Tensor x = sc.add(Tensor.fromHost(x(), new long[] {ROWS, IN}, p, s0));
      double[] want = W0.clone();
      for (int run = 1; run <= 2; ++run) {
        inst.run(x);
        double wantLoss = sgdStep(want);
        double gotLoss = sc.add(inst.output(0)).toDoubleArray()[0];
        check(near(gotLoss, wantLoss), "run " + run + ": loss " + gotLoss + ", want " + wantLoss);
        double[] got = wt.toDoubleArray();
        for (int e = 0; e < want.length; ++e) {
          check(near(got[e], want[e]),
              "run " + run + ": w[" + e + "] = " + got[e] + ", want " + want[e]);
        }
      }
      checkEq(opt.stats().steps, 0L, "plan runs are not eager steps");
    }
  }

  private static void badInput() {
    try (Scope sc = new Scope()) {
      Placement p = sc.add(Placement.parse("cpu:0-" + (w.size - 1)));
      NdSbp b = sc.add(NdSbp.parse("B"));
      Tensor counter = sc.add(Tensor.fromHost(new double[] {0, 0, 0}, new long[] {3}, p, b));
      counter.setRequiresGrad(true);
      Optimizer opt = sc.add(Optimizer.sgd(new Tensor[] {counter}, null));
      checkThrows(opt::captureStep, Status.FAILED_PRECONDITION, "capture",
          "captureStep without a capture");
      try (Capture cap = Capture.begin()) {
        Tensor x = sc.add(cap.placeholder("x", new long[] {3}, "f64", p, b));
        Tensor sum = sc.add(counter.add(x));
        checkThrows(() -> cap.assign(x, sum), Status.INVALID_ARGUMENT, "placeholder",
            "assign onto a placeholder");
        checkThrows(() -> cap.assign(counter, null), Status.INVALID_ARGUMENT, "value",
            "assign of null");
        sc.add(cap.end(sum));
        checkThrows(() -> cap.assign(counter, sum), Status.FAILED_PRECONDITION, "no capture",
            "assign after end");
      }
    }
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    capturedSgdStepTrains();
    badInput();
    w.finish();
  }
}
