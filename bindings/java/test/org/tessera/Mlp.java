package org.tessera;

/**
 * The plan tests' model, softmax(relu(x w1 + b1) w2 + b2) on cpu:[0..size-1]: its
 * weights as arrays and as tensors (w1 split along its columns, so the first matmul
 * needs boxing on more than one rank; the rest broadcast), the model through the
 * tensor ops, the same model as an explicit Program, and a plain-loop oracle.
 */
final class Mlp implements AutoCloseable {
  static final int BATCH = 7;
  static final int IN = 6;
  static final int WIDTH = 8;
  static final int OUT = 5;
  static final long[] X_SHAPE = {BATCH, IN};
  static final long[] Y_SHAPE = {BATCH, OUT};

  final float[] w1 = values(IN * WIDTH, 1);
  final float[] b1 = values(WIDTH, 2);
  final float[] w2 = values(WIDTH * OUT, 3);
  final float[] b2 = values(OUT, 4);
  private final Scope handles = new Scope();
  final Placement world;
  final NdSbp s0;
  final NdSbp b;
  final Tensor tw1;
  final Tensor tb1;
  final Tensor tw2;
  final Tensor tb2;

  Mlp(int size) {
    world = handles.add(MpiLayout.onWorld(size, MpiLayout.B).placement());
    s0 = handles.add(NdSbp.parse("S(0)"));
    b = handles.add(NdSbp.parse("B"));
    NdSbp s1 = handles.add(NdSbp.parse("S(1)"));
    tw1 = handles.add(Tensor.fromHost(w1, new long[] {IN, WIDTH}, world, s1));
    tb1 = handles.add(Tensor.fromHost(b1, new long[] {WIDTH}, world, b));
    tw2 = handles.add(Tensor.fromHost(w2, new long[] {WIDTH, OUT}, world, b));
    tb2 = handles.add(Tensor.fromHost(b2, new long[] {OUT}, world, b));
  }

  @Override
  public void close() {
    handles.close();
  }

  /** ((i * 7 + salt) % 23 - 11) / 16: small enough that the softmax is not one-hot. */
  static float[] values(int n, int salt) {
    float[] v = new float[n];
    for (int i = 0; i < n; ++i) v[i] = ((i * 7 + salt) % 23 - 11) / 16.0f;
    return v;
  }

  /** The input for {@code salt}: [BATCH, IN]. */
  static float[] input(int salt) {
    return values(BATCH * IN, salt);
  }

  private static Tensor biasAdd(Tensor h, Tensor bias) {
    try (OpCall call = new OpCall("bias_add")) {
      return call.apply(h, bias)[0];
    }
  }

  /**
   * The model through the tensor ops: run eagerly on a real tensor, recorded on a
   * placeholder. The intermediates go to {@code sc}; the caller owns the result.
   */
  Tensor model(Tensor x, Scope sc) {
    Tensor h = sc.add(x.matmul(tw1));
    h = sc.add(biasAdd(h, tb1));
    h = sc.add(h.relu());
    h = sc.add(h.matmul(tw2));
    h = sc.add(biasAdd(h, tb2));
    return h.softmax(-1);
  }

  /** The same model built value by value (11 values, 6 ops, 1 input, 1 output). */
  Program explicit() {
    Program p = Program.create();
    long x = p.addInput("x", X_SHAPE, "f32", world, null);
    long vw1 = p.addVariable("w1", tw1);
    long vb1 = p.addVariable("b1", tb1);
    long vw2 = p.addVariable("w2", tw2);
    long vb2 = p.addVariable("b2", tb2);
    long h = p.addOp("matmul", x, vw1)[0];
    h = p.addOp("bias_add", h, vb1)[0];
    h = p.addOp("relu", h)[0];
    h = p.addOp("matmul", h, vw2)[0];
    h = p.addOp("bias_add", h, vb2)[0];
    h = p.addOp("softmax", h)[0];
    p.markOutput(h);
    return p;
  }

  /** The model on {@code x} by plain loops, in double. */
  float[] oracle(float[] x) {
    float[] y = new float[BATCH * OUT];
    double[] h = new double[WIDTH];
    double[] logits = new double[OUT];
    for (int i = 0; i < BATCH; ++i) {
      for (int j = 0; j < WIDTH; ++j) {
        double s = b1[j];
        for (int k = 0; k < IN; ++k) s += (double) x[i * IN + k] * w1[k * WIDTH + j];
        h[j] = Math.max(s, 0);
      }
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < OUT; ++j) {
        double s = b2[j];
        for (int k = 0; k < WIDTH; ++k) s += h[k] * w2[k * OUT + j];
        logits[j] = s;
        max = Math.max(max, s);
      }
      double sum = 0;
      for (int j = 0; j < OUT; ++j) sum += Math.exp(logits[j] - max);
      for (int j = 0; j < OUT; ++j) y[i * OUT + j] = (float) (Math.exp(logits[j] - max) / sum);
    }
    return y;
  }

  /** |got - want| <= tol (1 + |want|) everywhere; lengths equal. */
  static void checkNear(float[] got, float[] want, double tol, String what) {
    boolean ok = got != null && want != null && got.length == want.length;
    for (int i = 0; ok && i < got.length; ++i) {
      ok = Math.abs(got[i] - want[i]) <= tol * (1 + Math.abs(want[i]));
    }
    Checks.check(ok,
        what + ": got " + java.util.Arrays.toString(got) + ", want "
            + java.util.Arrays.toString(want));
  }
}
