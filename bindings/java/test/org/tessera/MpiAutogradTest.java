package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

/**
 * Autograd from Java on every rank of an mpirun world (1 and 3 ranks): a linear model's
 * gradient against values worked out by loops, its SBP, accumulation, zeroGrad, noGrad,
 * detach, retainGraph and bad inputs. Every rank makes the same calls in the same order.
 */
public final class MpiAutogradTest {
  private static MpiWorld w;
  private static final double[] X = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // [4,3]
  private static final double[] W = {0.5, -1, 2, 0.25, -3, 1};  // [3,2]

  /** d sum(x @ w) / d w[k][j] = sum_i x[i][k], whatever j; {@code times} backward calls. */
  private static double[] expected(double times) {
    double[] g = new double[6];
    for (int k = 0; k < 3; ++k) {
      double col = 0;
      for (int i = 0; i < 4; ++i) col += X[i * 3 + k];
      g[k * 2] = g[k * 2 + 1] = times * col;
    }
    return g;
  }

  /** loss = sum(x @ w): x rows split over the ranks (uneven at 3), w broadcast. */
  private static final class Linear implements AutoCloseable {
    final Scope sc = new Scope();
    final Placement p = sc.add(Placement.parse("cpu:0-" + (w.size - 1)));
    final Tensor x = sc.add(Tensor.fromHost(X, new long[] {4, 3}, p, sc.add(NdSbp.parse("S(0)"))));
    final Tensor wt = sc.add(Tensor.fromHost(W, new long[] {3, 2}, p, sc.add(NdSbp.parse("B"))));

    Linear() {
      wt.setRequiresGrad(true);
    }

    Tensor forward() {
      return sc.add(sc.add(x.matmul(wt)).reduceSum(new long[] {}, false));
    }

    @Override
    public void close() {
      sc.close();
    }
  }

  private static void linearModelGradient() {
    try (Linear m = new Linear()) {
      check(m.wt.requiresGrad() && m.wt.isLeaf(), "w is a parameter");
      check(m.wt.grad() == null, "no gradient before backward");
      Tensor loss = m.forward();
      check(loss.requiresGrad() && !loss.isLeaf(), "loss is recorded");
      check(!m.x.requiresGrad(), "x requires no gradient");
      loss.backward();
      try (Tensor g = m.wt.grad()) {
        check(g != null, "w has a gradient");
        if (w.size > 1) checkEq(g.ndSbp().toString(), "P", "gradient is a partial sum");
        checkArray(g.toDoubleArray(), expected(1), "d loss / d w");
      }
      check(m.x.grad() == null, "x has no gradient");
    }
  }

  private static void accumulatesUntilZeroed() {
    try (Linear m = new Linear()) {
      m.forward().backward();
      Autograd.backward(new Tensor[] {m.forward()}, null, false);
      try (Tensor g = m.wt.grad()) {
        checkArray(g.toDoubleArray(), expected(2), "two backward calls add up");
      }
      m.wt.zeroGrad();
      check(m.wt.grad() == null, "zeroGrad drops it");
      Autograd.backward(new Tensor[] {m.forward()}, new Tensor[] {null}, false);
      try (Tensor g = m.wt.grad()) {
        checkArray(g.toDoubleArray(), expected(1), "after zeroGrad");
      }
    }
  }

  // -Xlint:try flags a resource the body never names; a grad-mode scope is used for its
  // effect alone.
  @SuppressWarnings("try")
  private static void noGradAndDetach() {
    try (Linear m = new Linear()) {
      check(Autograd.isGradEnabled(), "grad mode on by default");
      Tensor loss;
      try (Autograd.Scope s = Autograd.noGrad()) {
        check(!Autograd.isGradEnabled(), "off inside noGrad");
        loss = m.forward();
        try (Autograd.Scope e = Autograd.enableGrad()) {
          check(m.forward().requiresGrad(), "enableGrad records inside noGrad");
        }
        check(!Autograd.isGradEnabled(), "enableGrad restores off");
      }
      check(Autograd.isGradEnabled(), "noGrad restores on");
      check(!loss.requiresGrad(), "nothing recorded under noGrad");
      try {
        try (Autograd.Scope s = Autograd.noGrad()) {
          throw new IllegalStateException("inside");
        }
      } catch (IllegalStateException expected) {
        check(Autograd.isGradEnabled(), "restored after an exception");
      }
      try (Tensor d = m.wt.detach()) {
        check(!d.requiresGrad() && d.isLeaf(), "detach requires no gradient");
        checkArray(d.toDoubleArray(), W, "detach keeps the data");
        check(!m.sc.add(m.sc.add(m.x.matmul(d)).reduceSum(new long[] {}, false)).requiresGrad(),
            "ops on a detached tensor record nothing");
      }
    }
  }

  private static void retainGraph() {
    try (Linear m = new Linear()) {
      Tensor loss = m.forward();
      Autograd.backward(new Tensor[] {loss}, null, true);
      loss.backward(null, false);
      try (Tensor g = m.wt.grad()) {
        checkArray(g.toDoubleArray(), expected(2), "retainGraph then backward");
      }
      checkThrows(loss::backward, Status.FAILED_PRECONDITION, "retain_graph",
          "a third backward");
    }
  }

  private static void badInput() {
    try (Linear m = new Linear(); Scope sc = new Scope()) {
      Tensor i = sc.add(Tensor.fromHost(new int[] {1, 2, 3}, new long[] {3}, m.p,
          sc.add(NdSbp.parse("B"))));
      checkThrows(() -> i.setRequiresGrad(true), Status.INVALID_ARGUMENT, "i32",
          "requires_grad on i32");
      Tensor y = sc.add(m.x.matmul(m.wt));  // [4,2]: its gradient must be given
      checkThrows(y::backward, Status.INVALID_ARGUMENT, "only for a one-element root",
          "non-scalar root");
      checkThrows(() -> y.setRequiresGrad(false), Status.INVALID_ARGUMENT, "detach",
          "requires_grad on an op's output");
      checkThrows(() -> Autograd.backward(new Tensor[] {y}, new Tensor[] {null, null}, false),
          Status.INVALID_ARGUMENT, "grads has 2 entries for 1 roots", "grads length");
      checkThrows(() -> Autograd.backward(new Tensor[] {}, null, false),
          Status.INVALID_ARGUMENT, "root", "no roots");
      checkThrows(() -> Autograd.backward(null, null, false), Status.INVALID_ARGUMENT,
          "roots is null", "null roots");
      Tensor wrong = sc.add(Tensor.fromHost(new double[] {1, 2, 3, 4}, new long[] {2, 2}, m.p,
          sc.add(NdSbp.parse("B"))));
      checkThrows(() -> y.backward(wrong, false), Status.INVALID_ARGUMENT,
          "is [2,2] f64 but the root is [4,2] f64",
          "gradient of another shape");
    }
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    linearModelGradient();
    accumulatesUntilZeroed();
    noGradAndDetach();
    retainGraph();
    badInput();
    w.finish();
  }
}
